"""report_perf.py - kmalloc/kfree at every size against half of Linux 6.1's, in `make bench`'s report
(imported by report_boot.py): for x86_64 and arm64 at 4K and 64K pages, every size
8 B..8 KiB, test 1 (kmalloc_then_free: kmalloc / kfree per op) and test 2
(kmalloc_free_pair), single CPU, guest instructions under -icount: the limit,
Linux 6.1's figure, the figure before the fast paths were tuned ("before",
SLAB, measured the same way, as history), SLAB and SLUB of this run and whether each meets the
limit; SLOB and SLOB-seg for information. Then SLAB's objects per slab and
`Slab:` after the workloads, before and after.

Limits: half of the better of Linux 6.1 SLAB and SLUB at the same arch and
page size, measured by `make bench-linux` (report_linux.py); a size Linux was
not measured at takes the limit of the measured size nearest to it on a log
scale (named in brackets). Without any Linux figure for that arch and page
size there is no limit ("not measured: run make bench-linux"). The pair's
limit is 63 at every size.
"""
import math

from report_md import table
import report_linux


def linux_better(ar, p, size):
    """(kmalloc, kfree) per op of test 1: the better of Linux 6.1's SLAB and SLUB at that
    arch, page and size, each of the two its own minimum; None where neither was measured."""
    figs = [report_linux.linux(ar, p, a, "t1_%d" % size) for a in ("slab", "slub")]
    figs = [f for f in figs if f[0] is not None and f[1] is not None]
    if not figs:
        return None
    return min(f[0] for f in figs), min(f[1] for f in figs)


PAIR_LIMIT = 63
SIZES = (8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192)
CONFIGS = (("x86_64", "4K"), ("x86_64", "64K"), ("arm64", "4K"), ("arm64", "64K"))

# Before the fast paths were tuned: ALLOC=slab, `bench icount` single CPU
# (kmalloc, kfree, pair) per size; objects per slab of each kmalloc cache after
# boot; Slab: kB after the workloads.
BEFORE = {
    ("x86_64", "4K"): {
        "t": {8: (56, 69, 73), 16: (55, 69, 73), 32: (58, 70, 73), 64: (61, 72, 73), 96: (61, 73, 73),
              128: (64, 74, 73), 192: (70, 79, 73), 256: (81, 83, 78), 512: (109, 106, 78),
              1024: (164, 142, 78), 2048: (274, 224, 78), 4096: (494, 366, 78), 8192: (485, 426, 78)},
        "objs": {16: 240, 32: 124, 64: 64, 96: 42, 128: 32, 192: 21, 256: 16, 512: 8, 1024: 4,
                 2048: 2, 4096: 1, 8192: 1},
        "pages": {16: 1, 32: 1, 64: 1, 96: 1, 128: 1, 192: 1, 256: 1, 512: 1, 1024: 1, 2048: 1,
                  4096: 1, 8192: 2},
        "slab_end_kb": 748,
    },
    ("x86_64", "64K"): {
        "t": {8: (53, 68, 73), 16: (53, 68, 73), 32: (54, 69, 73), 64: (54, 69, 73), 96: (54, 69, 73),
              128: (55, 69, 73), 192: (55, 69, 73), 256: (60, 69, 78), 512: (65, 76, 78),
              1024: (69, 79, 78), 2048: (82, 95, 78), 4096: (96, 105, 78), 8192: (112, 122, 78)},
        "objs": {16: 3640, 32: 1927, 64: 992, 96: 668, 128: 504, 192: 337, 256: 254, 512: 128,
                 1024: 64, 2048: 32, 4096: 16, 8192: 8},
        "pages": {16: 1, 32: 1, 64: 1, 96: 1, 128: 1, 192: 1, 256: 1, 512: 1, 1024: 1, 2048: 1,
                  4096: 1, 8192: 1},
        "slab_end_kb": 2304,
    },
    ("arm64", "4K"): {
        "t": {8: (55, 70, 79), 16: (55, 70, 79), 32: (58, 71, 79), 64: (60, 72, 79), 96: (60, 74, 79),
              128: (63, 75, 79), 192: (69, 80, 79), 256: (80, 84, 85), 512: (106, 107, 85),
              1024: (157, 145, 85), 2048: (261, 228, 85), 4096: (466, 375, 85), 8192: (470, 436, 85)},
        "objs": {16: 240, 32: 124, 64: 64, 96: 42, 128: 32, 192: 21, 256: 16, 512: 8, 1024: 4,
                 2048: 2, 4096: 1, 8192: 1},
        "pages": {16: 1, 32: 1, 64: 1, 96: 1, 128: 1, 192: 1, 256: 1, 512: 1, 1024: 1, 2048: 1,
                  4096: 1, 8192: 2},
        "slab_end_kb": 748,
    },
    ("arm64", "64K"): {
        "t": {8: (53, 70, 79), 16: (53, 70, 79), 32: (54, 70, 79), 64: (54, 70, 79), 96: (54, 70, 79),
              128: (54, 70, 79), 192: (54, 70, 79), 256: (61, 71, 85), 512: (65, 77, 85),
              1024: (69, 79, 85), 2048: (81, 95, 85), 4096: (94, 105, 85), 8192: (110, 123, 85)},
        "objs": {16: 3640, 32: 1927, 64: 992, 96: 668, 128: 504, 192: 337, 256: 254, 512: 128,
                 1024: 64, 2048: 32, 4096: 16, 8192: 8},
        "pages": {16: 1, 32: 1, 64: 1, 96: 1, 128: 1, 192: 1, 256: 1, 512: 1, 1024: 1, 2048: 1,
                  4096: 1, 8192: 1},
        "slab_end_kb": 2304,
    },
}


def _lim(ar, p, size):
    """(limit kmalloc, limit kfree, the Linux size it comes from), or None without Linux figures."""
    known = {s: linux_better(ar, p, s) for s in SIZES}
    known = {s: v for s, v in known.items() if v}
    if not known:
        return None
    src = size if size in known else min(known, key=lambda k: (abs(math.log(k / size)), k))
    a, f = known[src]
    return a / 2.0, f / 2.0, src


def _n(v):
    return "-" if v is None else ("%g" % float(v))


def _met(v, limit):
    if v is None:
        return "-"
    return "met" if float(v) <= limit else "NOT met"


def _pair(a, b):
    return "%s / %s" % (_n(a), _n(b))


def targets_section(t):
    """The kmalloc/kfree targets, one table per arch and page size measured."""
    md = ["\n## kmalloc/kfree at every size against half of Linux 6.1's (single CPU, guest instructions)\n\n",
          "Single CPU, guest instructions under `-icount` (test 1: kmalloc / kfree per op of "
          "10000 kmallocs then 10000 kfrees; pair: kmalloc+kfree of one object). Limit: half of "
          "the better of Linux 6.1 SLAB and SLUB at the same arch and page size, measured by "
          "`make bench-linux`; a size without a Linux figure takes the limit of the nearest "
          "measured size (named in brackets); no Linux figure: no limit. Pair limit: %d at every size. \"Before\": SLAB before its fast paths were tuned, "
          "measured the same way (history). \"met\" is SLAB's verdict, then SLUB's; SLOB "
          "and SLOB-seg are for information.\n" % PAIR_LIMIT]
    found = False
    for ar, p in CONFIGS:
        g = lambda a, test, size, m: t.get(ar, p, a, 1, "icount", test, size, m)
        if not (g("slab", "kmalloc_then_free", 32, "alloc_cost") or
                g("slub", "kmalloc_then_free", 32, "alloc_cost")):
            continue
        found = True
        was_ = BEFORE.get((ar, p), {}).get("t", {})
        md.append("\n### %s %s pages\n\n" % (ar, p))
        rows = []
        for s in SIZES:
            lim = _lim(ar, p, s)
            la, lf, src = lim if lim else (None, None, None)
            lin = linux_better(ar, p, s)
            td = was_.get(s)
            v = {a: (g(a, "kmalloc_then_free", s, "alloc_cost"), g(a, "kmalloc_then_free", s, "free_cost"),
                     g(a, "kmalloc_free_pair", s, "pair_cost")) for a in ("slab", "slub", "slob", "slob-seg")}
            verdicts = []
            for a in ("slab", "slub"):
                ka, kf, pr = v[a]
                if ka is None:
                    verdicts.append("-")
                    continue
                ok1 = None if la is None else float(ka) <= la and float(kf) <= lf
                ok2 = pr is not None and float(pr) <= PAIR_LIMIT
                verdicts.append(("no limit" if ok1 is None else "met" if ok1 else "NOT met") +
                                " / " + ("met" if ok2 else "NOT met"))
            rows.append([s, "-" if la is None else "%g / %g%s" % (la, lf, "" if src == s else
                                                                    " (%d B)" % src),
                         "%g / %g" % lin if lin else report_linux.NOT_MEASURED,
                         "%d / %d, %d" % td if td else "-",
                         _pair(v["slab"][0], v["slab"][1]) + ", " + _n(v["slab"][2]),
                         _pair(v["slub"][0], v["slub"][1]) + ", " + _n(v["slub"][2]),
                         _pair(v["slob"][0], v["slob"][1]) + ", " + _n(v["slob"][2]),
                         _pair(v["slob-seg"][0], v["slob-seg"][1]) + ", " + _n(v["slob-seg"][2]),
                         verdicts[0], verdicts[1]])
        md.append(table(["size", "limit kmalloc / kfree", "Linux 6.1", "before (kmalloc / kfree, pair)",
                          "SLAB", "SLUB", "SLOB", "SLOB-seg", "SLAB met (test 1 / pair)",
                          "SLUB met (test 1 / pair)"], rows))
        md += _memory(t, ar, p)
    if not found:
        md.append("\nNot measured in this run: it needs single-CPU runs of SLAB or SLUB.\n")
    return md


def _memory(t, ar, p):
    """SLAB's objects per slab and bytes per object, before and now; Slab: after the workloads."""
    g = lambda test, size, m: t.get(ar, p, "slab", 1, "icount", test, size, m)
    was_ = BEFORE.get((ar, p), {})
    page_bytes = {"4K": 4096, "16K": 16384, "64K": 65536}[p]
    rows = []
    for s in (16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192):
        objs, pages = g("slabinfo_boot", s, "objperslab"), g("slabinfo_boot", s, "pagesperslab")
        o0, p0 = was_.get("objs", {}).get(s), was_.get("pages", {}).get(s)
        now = None if objs is None else page_bytes * float(pages) / float(objs)
        was = None if o0 is None else page_bytes * float(p0) / float(o0)
        change = "-" if now is None or was is None else "%+.1f%%" % (100.0 * (now - was) / was)
        rows.append([s, "-" if o0 is None else "%d in %d pages" % (o0, p0),
                     "-" if objs is None else "%s in %s pages" % (objs, pages),
                     "-" if was is None else "%.1f" % was, "-" if now is None else "%.1f" % now, change])
    md = ["\nSLAB's slabs (kmalloc caches): objects per slab and slab bytes per object, before and "
          "in this run (within 10% of before's up to 1 KiB is the limit).\n\n",
          table(["cache", "before", "now", "bytes/object before", "now", "change"], rows)]
    end, end0 = g("memory_end", 0, "slab_kb"), was_.get("slab_end_kb")
    md.append("\n`Slab:` after the workloads: before %s kB, now %s kB.\n" % (_n(end0), _n(end)))
    return md
