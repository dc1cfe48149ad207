"""report_summary.py - the one-screen summary that opens `make bench`'s report
(imported by report_boot.py): each allocator's headline single-CPU figures
(test 1 kmalloc / kfree at 32 B and 4 KiB, the kmalloc(32)+kfree pair, the
messaging workload's cost per message, `Slab:` after boot) at 4K pages, one row
per arch and allocator measured, with Linux 6.1's figures beside them where
they exist (at 4K pages only, so the summary keeps to them).

LINUX61 holds every Linux 6.1 figure the report compares against (Linux built
lean and measured with the same benchmarks under -icount); the sections that
set limits from them (report_boot.py, report_slob.py) read them here.
"""
from report_md import table


# (arch, page, allocator) -> {figure: value}; figures: "t1_32" and "t1_4096" are
# (kmalloc, kfree) of test 1, "pair" the kmalloc(32)+kfree pair, "slab_kb"
# `Slab:` after boot in kB. Only what was measured is here.
LINUX61 = {
    ("x86_64", "4K", "slub"): {"t1_32": (109, 196), "t1_2048": (199, 287),
                               "t1_4096": (211, 302), "t1_8192": (317, 409),
                               "pair": 195, "slab_kb": 2628},
    ("x86_64", "4K", "slab"): {"slab_kb": 2400},
    ("x86_64", "4K", "slob"): {"t1_32": (4308, None), "pair": 447, "slab_kb": 2296},
    ("arm64", "4K", "slub"): {"pair": 184},
}

MAIN = ("slab", "slub", "slob", "slob-seg")
NAMES = {"slab": "SLAB", "slub": "SLUB", "slob": "SLOB", "slob-seg": "SLOB-seg"}


def linux(arch, page, alloc, figure):
    """Linux 6.1's figure for that allocator, or None where none was measured."""
    return LINUX61.get((arch, page, alloc), {}).get(figure)


def _n(v):
    return "-" if v is None else str(v)


def _pair(a, b):
    return "-" if a is None and b is None else "%s / %s" % (_n(a), _n(b))


def summary_section(t):
    """Markdown lines: the summary table, or a line saying nothing single-CPU was measured."""
    md = ["\n## Summary: headline single-CPU figures at 4K pages beside Linux 6.1's\n\n",
          "Guest instructions under `-icount` (test 1: kmalloc / kfree per op of 10000 kmallocs "
          "then 10000 kfrees; pair: one kmalloc(32)+kfree; messaging: instructions per message "
          "of the hackbench-like workload) and `Slab:` after boot in kB. A `Linux 6.1` row follows "
          "an allocator where Linux's same allocator was measured the same way (x86_64 and arm64 "
          "4K only); `-`: not measured. Linux's `Slab:` is after a full Linux boot, a larger "
          "workload than Quarry's. The sections below give every size, page size and "
          "configuration.\n\n"]
    head = ["arch", "page", "allocator", "test 1 32 B", "test 1 4 KiB", "pair 32 B",
            "messaging", "Slab: after boot"]
    rows = []
    for p in [p for p in t.pages if p == "4K"]:
        for ar in t.arches:
            for a in MAIN:
                if not t.has(ar, p, alloc=a, mode="icount"):
                    continue
                g = lambda test, size, m: t.get(ar, p, a, 1, "icount", test, size, m)
                rows.append([ar, p, NAMES[a],
                             _pair(g("kmalloc_then_free", 32, "alloc_cost"),
                                   g("kmalloc_then_free", 32, "free_cost")),
                             _pair(g("kmalloc_then_free", 4096, "alloc_cost"),
                                   g("kmalloc_then_free", 4096, "free_cost")),
                             _n(g("kmalloc_free_pair", 32, "pair_cost")),
                             _n(g("messaging", 0, "per_message_cost")),
                             _n(g("memory_boot", 0, "slab_kb"))])
                if (ar, p, a) in LINUX61:
                    t1 = linux(ar, p, a, "t1_32") or (None, None)
                    t4 = linux(ar, p, a, "t1_4096") or (None, None)
                    rows.append(["", "", "Linux 6.1 " + NAMES[a], _pair(*t1), _pair(*t4),
                                 _n(linux(ar, p, a, "pair")), "-",
                                 _n(linux(ar, p, a, "slab_kb"))])
    if not rows:
        md.append("Nothing single-CPU (-icount) at 4K pages was measured in this run.\n")
        return md
    md.append(table(head, rows))
    return md
