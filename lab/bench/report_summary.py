"""report_summary.py - the one-screen summary that opens `make bench`'s report
(imported by report_boot.py): each allocator's headline single-CPU figures
(test 1 kmalloc / kfree at 32 B and 4 KiB, the kmalloc(32)+kfree pair, the
messaging workload's kmalloc+kfree instructions per message, `Slab:` after boot) at 4K pages, one row
per arch and allocator measured, each followed by a row per Linux version that
has that allocator (6.1: SLAB, SLUB, SLOB; 6.12: SLUB), its figures measured
the same way by `make bench-linux` (report_linux.py) or "not measured: run make
bench-linux". SLOB-seg has no Linux of its own: Linux's SLOB follows SLOB.
"""
from report_md import table
import report_linux

MAIN = ("slab", "slub", "slob", "slob-seg")
NAMES = {"slab": "SLAB", "slub": "SLUB", "slob": "SLOB", "slob-seg": "SLOB-seg"}


def linux(arch, page, alloc, figure, version="61"):
    """Linux's figure for that allocator (report_linux.py), or None where no run measured it."""
    return report_linux.linux(arch, page, alloc, figure, version)


def _n(v):
    return "-" if v is None else str(v)


def _pair(a, b):
    return "-" if a is None and b is None else "%s / %s" % (_n(a), _n(b))


def linux_rows(ar, p, a):
    """The summary's rows for Linux's same allocator at arch ar, page p."""
    rows = []
    for v in report_linux.has_linux(a):
        name = "%s %s" % (report_linux.VERSION_NAMES[v], NAMES[a])
        if v not in report_linux.versions(ar, p, a):
            rows.append(["", "", name, report_linux.NOT_MEASURED, "", "", "", ""])
            continue
        rows.append(["", "", name, _pair(*linux(ar, p, a, "t1_32", v)),
                     _pair(*linux(ar, p, a, "t1_4096", v)), _n(linux(ar, p, a, "pair", v)),
                     _n(linux(ar, p, a, "msg_alloc_share_cost", v)), _n(linux(ar, p, a, "slab_kb", v))])
    return rows


def summary_section(t):
    """Markdown lines: the summary table, or a line saying nothing single-CPU was measured."""
    md = ["\n## Summary: headline single-CPU figures at 4K pages beside Linux's\n\n",
          "Guest instructions under `-icount` (test 1: kmalloc / kfree per op of 10000 kmallocs "
          "then 10000 kfrees; pair: one kmalloc(32)+kfree; messaging: instructions in kmalloc "
          "and kfree per message of the hackbench-like workload, the allocator's share; section 5 "
          "gives the whole message) and `Slab:` after boot in kB. The `Linux` rows follow "
          "the allocator Linux has too: the same benchmarks in the same QEMU machine under "
          "`-icount`, run inside Linux kernels built from Debian's sources by `make bench-linux` "
          "(lab/linux/); their figures come from its logs (build/linux/), never from a table. "
          "`-`: a figure that run did not print. Linux's `Slab:` is after a Linux boot, a larger "
          "workload than Quarry's. The sections below give every size, page size and "
          "configuration.\n\n"]
    head = ["arch", "page", "allocator", "test 1 32 B", "test 1 4 KiB", "pair 32 B",
            "messaging: kmalloc+kfree", "Slab: after boot"]
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
                             _n(g("messaging", 0, "alloc_share_cost")),
                             _n(g("memory_boot", 0, "slab_kb"))])
                rows += linux_rows(ar, p, a)
    if not rows:
        md.append("Nothing single-CPU (-icount) at 4K pages was measured in this run.\n")
        return md
    md.append(table(head, rows))
    return md
