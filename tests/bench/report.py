#!/usr/bin/env python3
"""report.py OUTDIR - build OUTDIR/results.csv, raw.csv, report.md and plots
from the benchmark logs in OUTDIR/logs (written by run.sh).

raw.csv holds every row of every boot (with a run column). results.csv holds
one row per figure: icount figures from the first of the two identical runs,
real-time figures as the median of the boots, with <metric>_min and
<metric>_max rows giving the range.
"""
import collections
import glob
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import parse  # noqa: E402

COLS = parse.COLUMNS


def load(outdir):
    raw = []
    for path in sorted(glob.glob(os.path.join(outdir, "logs", "*.log"))):
        if path.endswith("-build.log"):
            continue
        run = os.path.basename(path)[:-4]
        rows, _ = parse.parse(path)
        raw += [r + [run] for r in rows]
    return raw


def num(x):
    """An integer when it is one (counts, kB, single runs), else one decimal."""
    return "%d" % x if float(x).is_integer() else "%.1f" % x


def summarise(raw):
    groups = collections.OrderedDict()
    for r in raw:
        run = r[-1]
        if r[4] == "icount" and not run.endswith("-1"):
            continue  # the second icount run only checks determinism
        groups.setdefault(tuple(r[:8]), []).append((float(r[8]), r[9]))
    results = []
    for key, vals in groups.items():
        nums = [v for v, _ in vals]
        unit = vals[0][1]
        med = statistics.median(nums)
        results.append(list(key) + [num(med), unit])
        if len(nums) > 1:
            results.append(list(key[:7]) + [key[7] + "_min", num(min(nums)), unit])
            results.append(list(key[:7]) + [key[7] + "_max", num(max(nums)), unit])
    return results


class Table:
    def __init__(self, results):
        self.v = {}
        for r in results:
            self.v[(r[1], r[2], r[3], r[4], r[5], r[6], r[7])] = r[8]

    def get(self, page, alloc, cpus, mode, test, size, metric):
        return self.v.get((page, alloc, str(cpus), mode, test, str(size), metric))

    def rng(self, page, alloc, cpus, mode, test, size, metric):
        m = self.get(page, alloc, cpus, mode, test, size, metric)
        if m is None:
            return "-"
        lo = self.get(page, alloc, cpus, mode, test, size, metric + "_min")
        hi = self.get(page, alloc, cpus, mode, test, size, metric + "_max")
        return m if lo is None else "%s [%s-%s]" % (m, lo, hi)


def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) if c is not None else "-" for c in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def sizes_of(results, test):
    return sorted({int(r[6]) for r in results if r[5] == test})


def plot(outdir, results, t):
    try:
        subprocess.run(["gnuplot", "--version"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return []
    made = []
    for page in ("4K", "64K"):
        data = os.path.join(outdir, "plot-%s.dat" % page)
        with open(data, "w") as f:
            for s in sizes_of(results, "kmalloc_then_free"):
                vals = [t.get(page, a, 1, "icount", "kmalloc_then_free", s, m) or "NaN"
                        for a in ("slab", "slab-idx4") for m in ("alloc_cost", "free_cost")]
                pair = t.get(page, "slab", 1, "icount", "kmalloc_free_pair", s, "pair_cost") or "NaN"
                f.write("%d %s %s\n" % (s, " ".join(vals), pair))
        png = os.path.join(outdir, "kmalloc-%s.png" % page)
        script = f"""
set terminal pngcairo size 900,560 noenhanced
set output '{png}'
set title 'Quarry x86_64 {page} pages: cost per operation (guest instructions, QEMU -icount)'
set logscale x 2
set xlabel 'object size (bytes)'
set ylabel 'instructions per operation'
set key top left
set grid
plot '{data}' using 1:2 with linespoints title 'kmalloc (test 1)', \\
     '' using 1:3 with linespoints title 'kfree (test 1)', \\
     '' using 1:4 with linespoints dashtype 2 title 'kmalloc, 4-byte index', \\
     '' using 1:5 with linespoints dashtype 2 title 'kfree, 4-byte index', \\
     '' using 1:6 with linespoints title 'kmalloc+kfree pair (test 2)'
"""
        subprocess.run(["gnuplot"], input=script, text=True, check=False)
        if os.path.exists(png):
            made.append(os.path.basename(png))
    return made


def report(outdir, results):
    t = Table(results)
    md = ["# Quarry benchmark report\n",
          "Single-CPU figures are guest instructions under QEMU TCG `-icount shift=0,sleep=off` "
          "(they repeat exactly; `make bench` boots each configuration twice to check). "
          "Multi-CPU figures are real TSC cycles under MTTCG: median [min-max] of the boots.\n"]
    allocs = [a for a in ("slab", "slab-idx4", "slab-growlocked")
              if any(r[2] == a for r in results)]

    md.append("\n## 1. Repeatedly allocate then free (single CPU, instructions per op)\n")
    md.append("`10000 times kmalloc(N) -> A kfree -> B`\n\n")
    head = ["size"] + ["%s %s %s" % (p, a, op) for p in ("4K", "64K") for a in allocs[:2]
                       for op in ("kmalloc", "kfree")]
    rows = [[s] + [t.get(p, a, 1, "icount", "kmalloc_then_free", s, m)
                   for p in ("4K", "64K") for a in allocs[:2] for m in ("alloc_cost", "free_cost")]
            for s in sizes_of(results, "kmalloc_then_free")]
    md.append(md_table(head, rows))

    md.append("\n## 2. alloc/free (single CPU, instructions per kmalloc+kfree pair)\n\n")
    head = ["size"] + ["%s %s" % (p, a) for p in ("4K", "64K") for a in allocs]
    rows = [[s] + [t.get(p, a, 1, "icount", "kmalloc_free_pair", s, "pair_cost")
                   for p in ("4K", "64K") for a in allocs]
            for s in sizes_of(results, "kmalloc_free_pair")]
    md.append(md_table(head, rows))

    md.append("\n## Objects per slab after boot, natural index against 4-byte index\n\n")
    head = ["object size"] + ["%s %s" % (p, a) for p in ("4K", "64K") for a in allocs[:2]]
    rows = [[s] + [t.get(p, a, 1, "icount", "slabinfo_boot", s, "objperslab")
                   for p in ("4K", "64K") for a in allocs[:2]]
            for s in sizes_of(results, "slabinfo_boot")]
    md.append(md_table(head, rows))
    head = ["", "4K " + " / ".join(allocs), "64K " + " / ".join(allocs)]
    rows = []
    for test, label in (("memory_boot", "Slab: kB after boot"),
                        ("memory_end", "Slab: kB after the workloads")):
        rows.append([label] + [" / ".join(t.get(p, a, 1, "icount", test, 0, "slab_kb") or "-"
                                          for a in allocs) for p in ("4K", "64K")])
    md.append("\n" + md_table(head, rows))

    smps = sorted({int(r[3]) for r in results if r[4] == "realtime"})
    if smps:
        md.append("\n## 3. Concurrent: `Kmalloc N*alloc N*free(S): Average=A/F` (cycles, median [range])\n\n")
        cols = [(p, a, n) for p in ("4K", "64K") for a in ("slab", "slab-growlocked") for n in smps
                if t.get(p, a, n, "realtime", "concurrent_alloc_free", 32, "alloc_cost")]
        head = ["size"] + ["%s %s %d CPUs" % c for c in cols]
        rows = [[s] + ["%s / %s" % (t.rng(p, a, n, "realtime", "concurrent_alloc_free", s, "alloc_cost"),
                                   t.rng(p, a, n, "realtime", "concurrent_alloc_free", s, "free_cost"))
                       for p, a, n in cols]
                for s in sizes_of(results, "concurrent_alloc_free")]
        md.append(md_table(head, rows))
        multi = [n for n in smps if n > 1]
        if multi:
            md.append("\nWhat running CPUs at once costs, measured inside each boot: per-operation "
                      "cost (alloc + free) with all CPUs running over CPU 0 running alone, the two "
                      "alternating 5 times per boot (once with QUICK=1; medians); median [range] over the boots. "
                      "kmalloc shares its caches between CPUs; 'private' gives every CPU its own "
                      "kmem_cache of the size, so nothing is shared above the page allocator: its "
                      "ratio is the machine's own (QEMU, host caches, buddy), the floor for kmalloc's. "
                      "Issue 5's target: kmalloc at most 1.3 at 2 CPUs, 32 bytes.\n\n")
            ratio_cols = [(p, a, n) for p, a, n in cols if n > 1]
            head = ["size"] + ["%s %s %d CPUs: kmalloc / private" % c for c in ratio_cols]

            def pct(p, a, n, test, s):
                v = [t.get(p, a, n, "realtime", test, s, "ratio_x100" + k) for k in ("", "_min", "_max")]
                if v[0] is None:
                    return "-"
                v = ["%.2f" % (float(x) / 100) for x in v if x is not None]
                return v[0] if len(v) == 1 else "%s [%s-%s]" % tuple(v)
            rows = [[s] + ["%s / %s" % (pct(p, a, n, "concurrent_alone", s),
                                        pct(p, a, n, "concurrent_private", s))
                           for p, a, n in ratio_cols]
                    for s in sizes_of(results, "concurrent_alloc_free")]
            md.append(md_table(head, rows))
        if 1 in smps:
            md.append("\nThe same across boots: per-operation cost (alloc + free, medians) on N CPUs "
                      "over the cost in separate -smp 1 boots (real time; the host's speed drifts "
                      "between boots, so this is the noisier reading):\n\n")
            ratio_cols = [(p, a, n) for p, a, n in cols if n > 1]
            head = ["size"] + ["%s %s %d/1 CPUs" % c for c in ratio_cols]
            rows = []
            for s in sizes_of(results, "concurrent_alloc_free"):
                row = [s]
                for p, a, n in ratio_cols:
                    def cost(k):
                        x = [t.get(p, a, k, "realtime", "concurrent_alloc_free", s, m)
                             for m in ("alloc_cost", "free_cost")]
                        return None if None in x else float(x[0]) + float(x[1])
                    one, many = cost(1), cost(n)
                    row.append("%.2f" % (many / one) if one and many else "-")
                rows.append(row)
            md.append(md_table(head, rows))

        md.append("\n## 4. Remote free: CPU 0 allocates, CPU 1 frees (cycles per op, median [range])\n\n")
        cols = [(p, "slab", n) for p in ("4K", "64K") for n in smps]
        head = ["size"] + ["%s %d CPUs: kmalloc / remote kfree" % (p, n) for p, _, n in cols]
        rows = [[s] + ["%s / %s" % (t.rng(p, a, n, "realtime", "remote_free", s, "alloc_cost"),
                                   t.rng(p, a, n, "realtime", "remote_free", s, "remote_free_cost"))
                       for p, a, n in cols]
                for s in sizes_of(results, "remote_free")]
        md.append(md_table(head, rows))

    md.append("\n## 5. Messaging (hackbench-like)\n\n")
    head = ["configuration", "CPUs", "mode", "total", "per message", "Slab kB before", "after"]
    rows = []
    for p in ("4K", "64K"):
        for a in allocs:
            for n, mode in [(1, "icount")] + [(n, "realtime") for n in smps]:
                tot = t.rng(p, a, n, mode, "messaging", 0, "total_cost")
                if tot == "-":
                    continue
                rows.append(["%s %s" % (p, a), n, mode, tot,
                             t.rng(p, a, n, mode, "messaging", 0, "per_message_cost"),
                             t.get(p, a, n, mode, "messaging", 0, "slab_before_kb"),
                             t.get(p, a, n, mode, "messaging", 0, "slab_after_kb")])
    md.append(md_table(head, rows))

    md.append("\n## 6. Page allocator: alloc_pages / free_pages per op\n\n")
    head = ["order"] + ["%s %s" % (p, w) for p in ("4K", "64K")
                        for w in ["1 CPU (instr.)"] + ["%d CPUs concurrent (cycles)" % n for n in smps]]
    rows = []
    for o in range(4):
        row = [o]
        for p in ("4K", "64K"):
            row.append("%s / %s" % (t.get(p, "slab", 1, "icount", "pages_single", o, "alloc_cost"),
                                    t.get(p, "slab", 1, "icount", "pages_single", o, "free_cost")))
            for n in smps:
                row.append("%s / %s" % (t.rng(p, "slab", n, "realtime", "pages_concurrent", o, "alloc_cost"),
                                        t.rng(p, "slab", n, "realtime", "pages_concurrent", o, "free_cost")))
        rows.append(row)
    md.append(md_table(head, rows))

    pngs = plot(outdir, results, t)
    if pngs:
        md.append("\n## Plots\n\n" + "".join("![%s](%s)\n" % (p, p) for p in pngs))
    with open(os.path.join(outdir, "report.md"), "w") as f:
        f.write("".join(md))


def main():
    outdir = sys.argv[1]
    raw = load(outdir)
    if not raw:
        print("report.py: no benchmark rows in %s/logs" % outdir)
        return 1
    with open(os.path.join(outdir, "raw.csv"), "w") as f:
        f.write(",".join(COLS + ["run"]) + "\n")
        f.writelines(",".join(r) + "\n" for r in raw)
    results = summarise(raw)
    with open(os.path.join(outdir, "results.csv"), "w") as f:
        f.write(",".join(COLS) + "\n")
        f.writelines(",".join(r) + "\n" for r in results)
    report(outdir, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
