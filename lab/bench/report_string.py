"""report_string.py - the memory primitives' cost in `make bench`'s report
(imported by report_boot.py): memset, memcpy and memmove (an overlapping
move up by 8 bytes, the backward copy) per call and per byte at each size,
single CPU, in the counter's unit (guest instructions under -icount),
benchmark 7 (lab/bench_string.c), SLAB's build (the primitives are the same
under every allocator). With MODEL=1 the cache model's table (model.md) has
their misses and modelled cycles per call, regions memset/memcpy/memmove.
"""
from report_md import table

KINDS = ("memset", "memcpy", "memmove")


def string_section(t):
    """Markdown lines: one table per arch and page size that ran benchmark 7."""
    md = ["\n## Memory primitives: memset, memcpy, memmove (single CPU, guest instructions)\n\n",
          "Per call and per byte of 1000 calls at each size (kernel/string.c: x86_64 `rep stosq` / "
          "`rep movsq` and a byte tail, arm64 `stp` / `ldp` pairs on aligned memory; under "
          "`-icount` each `rep` iteration counts as one instruction). memmove overlaps its source "
          "8 bytes up, the case that copies from the end. Every kzalloc, `__GFP_ZERO` page and "
          "krealloc pays these.\n"]
    found = False
    for p in t.pages:
        for ar in t.arches:
            g = lambda k, s, m: t.get(ar, p, "slab", 1, "icount", k, s, m)
            sizes = sorted({s for s in (16, 64, 256, 1024, 4096) if g("memset", s, "call_cost")})
            if not sizes:
                continue
            found = True
            rows = []
            for s in sizes:
                cells = [s]
                for k in KINDS:
                    c, b = g(k, s, "call_cost"), g(k, s, "per_100_bytes_cost")
                    cells.append("-" if c is None else "%s (%.2f)" % (c, float(b) / 100))
                rows.append(cells)
            md.append("\n### %s %s pages: per call (per byte)\n\n" % (ar, p))
            md.append(table(["bytes"] + list(KINDS), rows))
    if not found:
        md.append("\nNot measured in this run (it needs a single-CPU -icount run of SLAB).\n")
    return md
