"""report_pages.py - the page allocator's cost per call against its limits in `make bench`'s report
(imported by report_boot.py): alloc_pages and free_pages per call at orders 0-3,
single CPU, guest instructions under -icount (benchmark 6, "pages_single"),
for every arch and page size the run measured, SLAB's natural build (the
page allocator is the same under every object allocator).

Limits: order 0 at most 60 instructions per alloc and per free, orders 1-3
at most 100. Three earlier figures stand beside this run's, as history:
"first" is the figure measured when the limits were set (x86_64 only),
"no lists" the page allocator before its per-CPU lists (one boot of
`bench icount quick`, -m 1G), and "first lists" the per-CPU lists before
their cheaper drains (drain loop on list links, drains keeping a batch,
one-compare range check), each measured the same way.
"""
from report_md import table


ORDERS = range(4)

# (arch, page) -> {order: (alloc, free)}, measured when the limits were set.
FIRST = {("x86_64", "4K"): {0: (128, 135), 1: (127, 174), 2: (127, 174), 3: (127, 174)},
         ("x86_64", "64K"): {0: (164, 174)}}

# (arch, page) -> {order: (alloc, free)}, before the per-CPU lists.
NO_LISTS = {("x86_64", "4K"): {0: (118, 134), 1: (131, 176), 2: (131, 177), 3: (132, 177)},
          ("x86_64", "64K"): {0: (155, 175), 1: (131, 177), 2: (131, 176), 3: (129, 174)},
          ("arm64", "4K"): {0: (114, 146), 1: (139, 197), 2: (139, 197), 3: (139, 197)},
          ("arm64", "64K"): {0: (156, 195), 1: (139, 196), 2: (139, 195), 3: (138, 193)}}


# (arch, page) -> {order: (alloc, free)}, the first per-CPU lists, before the cheaper drains.
FIRST_LISTS = {("x86_64", "4K"): {0: (50, 52), 1: (50, 99), 2: (54, 78), 3: (55, 83)},
            ("x86_64", "64K"): {0: (54, 79), 1: (58, 88), 2: (67, 98), 3: (84, 117)},
            ("arm64", "4K"): {0: (54, 54), 1: (55, 95), 2: (59, 78), 3: (59, 83)},
            ("arm64", "16K"): {0: (56, 73), 1: (59, 77), 2: (59, 84), 3: (63, 88)},
            ("arm64", "64K"): {0: (58, 79), 1: (63, 87), 2: (70, 96), 3: (86, 113)}}


def _limit(order):
    return 60 if order == 0 else 100


def _fmt(pair, i):
    return "-" if pair is None else str(pair[i])


def targets_section(t):
    """The targets table: one row per arch, page size, order and operation."""
    md = ["\n## Page allocator: alloc_pages / free_pages per call at orders 0-3, against limits\n\n",
          "alloc_pages / free_pages per call, 1000 calls of each at one order on one CPU "
          "(benchmark 6), guest instructions under -icount, SLAB's natural build. Orders 0-3 "
          "go through the per-CPU lists; a free that finds its CPU above the high mark "
          "(0.8% of memory) also gives blocks back to the zone, and that drain's share is "
          "in the figure (drains keep a batch on the lists). Earlier figures, as history: "
          "`first`: when the limits were set; `no lists`: before the per-CPU lists; "
          "`first lists`: the per-CPU lists before their cheaper drains.\n\n"]
    head = ["arch", "page", "order", "op", "limit", "first", "no lists", "first lists", "this run",
            "met"]
    rows = []
    for p in t.pages:
        for ar in t.arches:
            if not t.has(ar, p, alloc="slab", mode="icount", test="pages_single"):
                continue
            for o in ORDERS:
                for i, (op, metric) in enumerate((("alloc", "alloc_cost"), ("free", "free_cost"))):
                    now = t.get(ar, p, "slab", 1, "icount", "pages_single", o, metric)
                    ok = None if now is None else float(now) <= _limit(o)
                    rows.append([ar, p, o, op, "<= %d" % _limit(o),
                                 _fmt(FIRST.get((ar, p), {}).get(o), i),
                                 _fmt(NO_LISTS.get((ar, p), {}).get(o), i),
                                 _fmt(FIRST_LISTS.get((ar, p), {}).get(o), i),
                                 "-" if now is None else now,
                                 "-" if ok is None else ("met" if ok else "NOT met")])
    if not rows:
        md.append("Not measured in this run (no SLAB single-CPU page allocator figures).\n")
        return md
    md.append(table(head, rows))
    return md
