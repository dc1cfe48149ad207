"""report_mcpu.py - the multi-CPU -icount tables and the real-time range checks
of `make bench`'s report (imported by report_boot.py).

mcpu_section: run.sh's multi-CPU -icount mode (mcpu_run): test 3's
whole-machine figures (test=concurrent_span: every instruction the machine ran
from the first CPU's start to the last CPU's end of a phase, over all CPUs'
operations, i.e. instructions per operation per CPU) for SLAB, SLAB grow-locked
and SLUB at 1 (the single-CPU -icount boot), 2, 4 and 8 CPUs, with seed 001's
comparison (natural refill against grow-locked) and SLUB against SLAB.

wide_ranges / wide_section: real-time figures are medians over boots with
_min and _max rows; a figure whose max / min exceeds WIDE (2) is flagged in
the tables (mark) and listed in one section, so nobody quotes it as a figure.
"""
from report_md import ratio, table


ALLOCS = ("slab", "slab-growlocked", "slub")
MCPU_CPUS = (2, 4, 8)
WIDE = 2.0
MARK = " (!)"


def is_wide(lo, hi):
    """Whether a range [lo, hi] over boots is wider than WIDE (max / min)."""
    if lo is None or hi is None:
        return False
    lo, hi = float(lo), float(hi)
    return hi > WIDE * lo if lo > 0 else hi > 0


def mark(lo, hi):
    """MARK when the range is wider than WIDE, else ''."""
    return MARK if is_wide(lo, hi) else ""


def flag_rows(rows):
    """Prefix the first cell of every row that has a marked cell with MARK's text."""
    out = []
    for row in rows:
        if any(isinstance(c, str) and c.endswith(MARK) for c in row[1:]):
            row = ["%s%s" % (row[0], MARK)] + list(row[1:])
        out.append(row)
    return out


NOTE = ("\n%s after a figure (and its row's first cell): its range over the boots is wider "
        "than %gx (max / min > %g); do not quote it. All such figures are listed under "
        "\"Real-time figures with a range wider than 2x\".\n" % (MARK.strip(), WIDE, WIDE))


def wide_ranges(results):
    """Real-time figures whose max / min over the boots exceeds WIDE: a list of
    (arch, page, alloc, cpus, test, size, metric, median, min, max)."""
    lo, hi, med = {}, {}, {}
    for r in results:
        # timings only (cycles and ratios of them); per-CPU rows are left out:
        # results.csv merges their CPUs into one row per size
        base = r[7][:-4] if r[7].endswith(("_min", "_max")) else r[7]
        if r[4] != "realtime" or r[5] == "concurrent_alloc_free_cpu" or \
                not base.endswith(("_cost", "_x100")):
            continue
        key = tuple(r[:7])
        if r[7].endswith("_min"):
            lo[key + (r[7][:-4],)] = r[8]
        elif r[7].endswith("_max"):
            hi[key + (r[7][:-4],)] = r[8]
        else:
            med[key + (r[7],)] = r[8]
    out = []
    for k in sorted(lo, key=lambda k: (k[0], k[1], k[2], int(k[3]), k[5], int(k[6]), k[7])):
        if k in hi and is_wide(lo[k], hi[k]):
            out.append((k[0], k[1], k[2], k[3], k[5], k[6], k[7], med.get(k), lo[k], hi[k]))
    return out


def wide_section(results):
    md = ["\n## Real-time figures with a range wider than 2x\n\n",
          "Every real-time (MTTCG) figure is the median of its boots with the range [min-max] "
          "beside it; these are the ones whose max / min over the boots exceeds %g, marked "
          "%s in the tables above.\n" % (WIDE, MARK.strip())]
    rows = wide_ranges(results)
    if not any(r[4] == "realtime" for r in results):
        md.append("\nNo real-time runs in this report.\n")
    elif not rows:
        md.append("\nNone: every real-time figure stayed within 2x over its boots.\n")
    else:
        md.append("\n%d figures:\n\n" % len(rows))
        md.append(table(["arch", "page", "allocator", "CPUs", "test", "size", "metric", "median",
                          "min", "max", "max / min"],
                         [list(r) + [ratio(r[9], r[8])] for r in rows]))
    return md


def mcpu_section(t, sizes):
    """The multi-CPU -icount tables; t is report_boot.py's Table, sizes the sizes of test 3."""
    md = ["\n## Multi-CPU under -icount: instructions per op per CPU (deterministic)\n\n",
          "`make bench` (MCPU=only for this alone) boots SLAB, SLAB with SLAB_GROW_LOCKED=1 "
          "and SLUB at 4K pages on 2, 4 and 8 CPUs under `-icount shift=0,sleep=off`, twice "
          "each; the figures here (from the first boot) must be identical in both boots (run.sh "
          "fails otherwise). QEMU runs the vCPUs in one thread, round-robin; the kernel makes test 3's "
          "CPUs take turns of 16 operations (lab/bench.h, bench_turn), because QEMU 7.2 gives "
          "a busy vCPU all the time to the next timer deadline (10^7 instructions) and the CPUs "
          "would otherwise run their loops one after another. A figure is the whole machine's "
          "instructions from the first CPU's start to the last CPU's end of the phase over all "
          "CPUs' operations: what one operation costs one CPU, spinning and the work of sharing "
          "(refills, flushes, remote frees) included. It cannot show time spent waiting: a CPU "
          "waiting on a lock yields at its first PAUSE/YIELD, so a lock held across a turn costs "
          "its waiters a few instructions, not the holder's time. 1 CPU: test 3 in the "
          "single-CPU -icount boot. `kmalloc / kfree`.\n"]
    found = False
    for p in t.pages:
        for ar in t.arches:
            have = [(a, n) for a in ALLOCS for n in MCPU_CPUS
                    if t.get(ar, p, a, n, "icount", "concurrent_span", 32, "alloc_cost")]
            if not have:
                continue
            found = True
            allocs = [a for a in ALLOCS if any(x == a for x, _ in have)]
            cpus = [1] + [n for n in MCPU_CPUS if any(m == n for _, m in have)]

            def cell(a, n, s, private=False):
                pre = "private_" if private else ""
                if n == 1 and not private:
                    v = [t.get(ar, p, a, 1, "icount", "concurrent_alloc_free", s, m)
                         for m in ("alloc_cost", "free_cost")]
                else:
                    v = [t.get(ar, p, a, n, "icount", "concurrent_span", s, pre + m)
                         for m in ("alloc_cost", "free_cost")]
                return None if None in v else v

            md.append("\n### %s %s pages\n\n" % (ar, p))
            head = ["size"] + ["%s %d CPU%s" % (a, n, "s" if n > 1 else "") for n in cpus
                               for a in allocs]
            rows = []
            for s in sizes:
                row = [s]
                for n in cpus:
                    for a in allocs:
                        v = cell(a, n, s)
                        row.append("%s / %s" % tuple(v) if v else "-")
                rows.append(row)
            md.append(table(head, rows))

            if "slab" in allocs and len(allocs) > 1:
                md.append("\nRatios, alloc / free (below 1: fewer instructions than the "
                          "column's reference). Seed 001: the natural refill (a new slab fills "
                          "the per-CPU array before the node lock is taken) against "
                          "SLAB_GROW_LOCKED=1 (the slab goes on the node list first), claimed "
                          "30-40% fewer cycles, i.e. ratios of 0.6-0.7; and SLUB against SLAB. "
                          "Private: SLAB with a kmem_cache per CPU (nothing shared above the "
                          "page allocator) over kmalloc's shared caches.\n\n")
                head = ["size"]
                for n in cpus[1:]:
                    if "slab-growlocked" in allocs:
                        head.append("%d CPUs slab / growlocked" % n)
                    if "slub" in allocs:
                        head.append("%d CPUs slub / slab" % n)
                    head.append("%d CPUs slab private / shared" % n)
                rows = []
                for s in sizes:
                    row = [s]
                    for n in cpus[1:]:
                        base = cell("slab", n, s)
                        for other, inv in (("slab-growlocked", True), ("slub", False)):
                            if other not in allocs:
                                continue
                            o = cell(other, n, s)
                            if not base or not o:
                                row.append("-")
                            elif inv:
                                row.append("%s / %s" % (ratio(base[0], o[0]), ratio(base[1], o[1])))
                            else:
                                row.append("%s / %s" % (ratio(o[0], base[0]), ratio(o[1], base[1])))
                        priv = cell("slab", n, s, private=True)
                        row.append("%s / %s" % (ratio(priv[0], base[0]), ratio(priv[1], base[1]))
                                   if priv and base else "-")
                    rows.append(row)
                md.append(table(head, rows))
    if not found:
        md.append("\nNot measured in this run (`make bench` without QUICK=1, or `make bench "
                  "MCPU=only`).\n")
    return md
