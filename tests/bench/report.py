#!/usr/bin/env python3
"""report.py OUTDIR - build OUTDIR/results.csv, raw.csv, report.md and plots
from the benchmark logs in OUTDIR/logs (written by run.sh).

raw.csv holds every row of every boot (with a run column). results.csv holds
one row per figure: icount figures from the first of the two identical runs,
real-time figures as the median of the boots, with <metric>_min and
<metric>_max rows giving the range.

report.md has one table per benchmark and page size (4K, 16K, 64K), the
arches side by side in its columns (x86_64 then arm64; 16K is arm64 only),
so that a figure can be compared across arches at the same page size. The
counter behind the figures is read from each log's "== counter:" line
(x86_64: rdtsc, arm64: PMCCNTR_EL0), not assumed. Plots: one per arch and
page size, kmalloc-<arch>-<page>.png.
"""
import collections
import glob
import os
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(__file__))
import parse  # noqa: E402

COLS = parse.COLUMNS
ARCH_ORDER = ["x86_64", "arm64"]
PAGE_ORDER = ["4K", "16K", "64K"]
ALLOC_ORDER = ["slab", "slab-idx4", "slab-growlocked"]


def ordered(values, order):
    """values in the order given, unknown ones after them, sorted."""
    values = set(values)
    return [v for v in order if v in values] + sorted(values - set(order))


def load(outdir):
    """(raw rows with their run name, {arch: {mode: counter text}})"""
    raw = []
    counters = collections.defaultdict(dict)
    for path in sorted(glob.glob(os.path.join(outdir, "logs", "*.log"))):
        if path.endswith("-build.log"):
            continue
        run = os.path.basename(path)[:-4]
        rows, _ = parse.parse(path)
        raw += [r + [run] for r in rows]
        counter = parse.counter_of(path)
        if rows and counter:
            counters[rows[0][0]].setdefault(rows[0][4], "%s %s" % counter)
    return raw, counters


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
            self.v[tuple(r[:8])] = r[8]
        self.arches = ordered({r[0] for r in results}, ARCH_ORDER)
        self.pages = ordered({r[1] for r in results}, PAGE_ORDER)
        self.allocs = ordered({r[2] for r in results}, ALLOC_ORDER)

    def get(self, arch, page, alloc, cpus, mode, test, size, metric):
        return self.v.get((arch, page, alloc, str(cpus), mode, test, str(size), metric))

    def rng(self, arch, page, alloc, cpus, mode, test, size, metric):
        m = self.get(arch, page, alloc, cpus, mode, test, size, metric)
        if m is None:
            return "-"
        lo = self.get(arch, page, alloc, cpus, mode, test, size, metric + "_min")
        hi = self.get(arch, page, alloc, cpus, mode, test, size, metric + "_max")
        return m if lo is None else "%s [%s-%s]" % (m, lo, hi)

    def has(self, arch, page, **want):
        """Whether some figure of this arch and page size matches want (alloc, cpus, mode, test)."""
        idx = {"alloc": 2, "cpus": 3, "mode": 4, "test": 5}
        return any(k[0] == arch and k[1] == page and
                   all(k[idx[f]] == str(v) for f, v in want.items()) for k in self.v)

    def arches_at(self, page, **want):
        return [a for a in self.arches if self.has(a, page, **want)]


def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) if c is not None else "-" for c in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def sizes_of(results, test, page=None):
    return sorted({int(r[6]) for r in results if r[5] == test and (page is None or r[1] == page)})


def plot(outdir, results, t, counters):
    try:
        subprocess.run(["gnuplot", "--version"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return []
    made = []
    for page in t.pages:
        for arch in t.arches_at(page, mode="icount", test="kmalloc_then_free"):
            data = os.path.join(outdir, "plot-%s-%s.dat" % (arch, page))
            with open(data, "w") as f:
                for s in sizes_of(results, "kmalloc_then_free", page):
                    vals = [t.get(arch, page, a, 1, "icount", "kmalloc_then_free", s, m) or "NaN"
                            for a in ("slab", "slab-idx4") for m in ("alloc_cost", "free_cost")]
                    pair = t.get(arch, page, "slab", 1, "icount", "kmalloc_free_pair", s,
                                 "pair_cost") or "NaN"
                    f.write("%d %s %s\n" % (s, " ".join(vals), pair))
            png = os.path.join(outdir, "kmalloc-%s-%s.png" % (arch, page))
            counter = counters.get(arch, {}).get("icount", "").split(" ")[0] or "counter"
            script = f"""
set terminal pngcairo size 900,560 noenhanced
set output '{png}'
set title 'Quarry {arch} {page} pages: cost per operation (guest instructions: {counter} under QEMU -icount)'
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


def counter_text(counters):
    if not counters:
        return ""
    out = ["\nCounters, as each arch's benchmark header gives them:\n\n"]
    for arch in ordered(counters, ARCH_ORDER):
        for mode in ordered(counters[arch], ["icount", "realtime"]):
            out.append("- %s, %s: `%s`\n" % (arch, mode, counters[arch][mode]))
    return "".join(out)


def report(outdir, results, counters):
    t = Table(results)
    names = ", ".join("%s: %s" % (a, counters[a].get("realtime", counters[a].get("icount", "?")).split(" ")[0])
                      for a in ordered(counters, ARCH_ORDER)) or "?"
    md = ["# Quarry benchmark report\n",
          "Single-CPU figures are guest instructions under QEMU TCG `-icount shift=0,sleep=off` "
          "(they repeat exactly; `make bench` boots each configuration twice to check). "
          "Multi-CPU figures are real cycles of each arch's counter (%s) under MTTCG: "
          "median [min-max] of the boots. Each table is one page size, with the arches side by "
          "side in its columns (16K pages are arm64's only).\n" % names,
          counter_text(counters)]
    allocs = t.allocs
    nat_idx = [a for a in allocs if a in ("slab", "slab-idx4")] or allocs[:2]

    md.append("\n## 1. Repeatedly allocate then free (single CPU, instructions per op)\n")
    md.append("`10000 times kmalloc(N) -> A kfree -> B`\n")
    for p in t.pages:
        arches = t.arches_at(p, mode="icount", test="kmalloc_then_free")
        if not arches:
            continue
        md.append("\n### %s pages\n\n" % p)
        head = ["size"] + ["%s %s %s" % (ar, a, op) for ar in arches for a in nat_idx
                           for op in ("kmalloc", "kfree")]
        rows = [[s] + [t.get(ar, p, a, 1, "icount", "kmalloc_then_free", s, m)
                       for ar in arches for a in nat_idx for m in ("alloc_cost", "free_cost")]
                for s in sizes_of(results, "kmalloc_then_free", p)]
        md.append(md_table(head, rows))

    md.append("\n## 2. alloc/free (single CPU, instructions per kmalloc+kfree pair)\n")
    for p in t.pages:
        arches = t.arches_at(p, mode="icount", test="kmalloc_free_pair")
        if not arches:
            continue
        md.append("\n### %s pages\n\n" % p)
        head = ["size"] + ["%s %s" % (ar, a) for ar in arches for a in allocs]
        rows = [[s] + [t.get(ar, p, a, 1, "icount", "kmalloc_free_pair", s, "pair_cost")
                       for ar in arches for a in allocs]
                for s in sizes_of(results, "kmalloc_free_pair", p)]
        md.append(md_table(head, rows))

    md.append("\n## Objects per slab after boot, natural index against 4-byte index\n")
    for p in t.pages:
        arches = t.arches_at(p, mode="icount", test="slabinfo_boot")
        if not arches:
            continue
        md.append("\n### %s pages\n\n" % p)
        head = ["object size"] + ["%s %s" % (ar, a) for ar in arches for a in nat_idx]
        rows = [[s] + [t.get(ar, p, a, 1, "icount", "slabinfo_boot", s, "objperslab")
                       for ar in arches for a in nat_idx]
                for s in sizes_of(results, "slabinfo_boot", p)]
        md.append(md_table(head, rows))
    cfgs = [(ar, p) for p in t.pages for ar in t.arches_at(p, mode="icount")]
    if cfgs:
        md.append("\nSlab: kB (%s)\n\n" % " / ".join(allocs))
        head = [""] + ["%s %s" % (ar, p) for ar, p in cfgs]
        rows = []
        for test, label in (("memory_boot", "after boot"), ("memory_end", "after the workloads")):
            rows.append([label] + [" / ".join(t.get(ar, p, a, 1, "icount", test, 0, "slab_kb") or "-"
                                              for a in allocs) for ar, p in cfgs])
        md.append(md_table(head, rows))

    smps = sorted({int(r[3]) for r in results if r[4] == "realtime"})
    if smps:
        md.append("\n## 3. Concurrent: `Kmalloc N*alloc N*free(S): Average=A/F` "
                  "(cycles, median [range])\n")
        page_cols = {}
        for p in t.pages:
            cols = [(ar, a, n) for ar in t.arches for a in ("slab", "slab-growlocked") for n in smps
                    if t.get(ar, p, a, n, "realtime", "concurrent_alloc_free", 32, "alloc_cost")]
            page_cols[p] = cols
            if not cols:
                continue
            md.append("\n### %s pages\n\n" % p)
            head = ["size"] + ["%s %s %d CPUs" % c for c in cols]
            rows = [[s] + ["%s / %s" % (t.rng(ar, p, a, n, "realtime", "concurrent_alloc_free", s, "alloc_cost"),
                                       t.rng(ar, p, a, n, "realtime", "concurrent_alloc_free", s, "free_cost"))
                           for ar, a, n in cols]
                    for s in sizes_of(results, "concurrent_alloc_free", p)]
            md.append(md_table(head, rows))
        multi = [n for n in smps if n > 1]
        if multi:
            md.append("\nWhat running CPUs at once costs, measured inside each boot: per-operation "
                      "cost (alloc + free) with all CPUs running over CPU 0 running alone, the two "
                      "alternating 5 times per boot (once with QUICK=1; medians); median [range] over the boots. "
                      "kmalloc shares its caches between CPUs; 'private' gives every CPU its own "
                      "kmem_cache of the size, so nothing is shared above the page allocator: its "
                      "ratio is the machine's own (QEMU, host caches, buddy), the floor for kmalloc's. "
                      "Issue 5's target: kmalloc at most 1.3 at 2 CPUs, 32 bytes.\n")

            def pct(ar, p, a, n, test, s):
                v = [t.get(ar, p, a, n, "realtime", test, s, "ratio_x100" + k) for k in ("", "_min", "_max")]
                if v[0] is None:
                    return "-"
                v = ["%.2f" % (float(x) / 100) for x in v if x is not None]
                return v[0] if len(v) == 1 else "%s [%s-%s]" % tuple(v)
            for p in t.pages:
                ratio_cols = [c for c in page_cols[p] if c[2] > 1]
                if not ratio_cols:
                    continue
                md.append("\n### %s pages\n\n" % p)
                head = ["size"] + ["%s %s %d CPUs: kmalloc / private" % c for c in ratio_cols]
                rows = [[s] + ["%s / %s" % (pct(ar, p, a, n, "concurrent_alone", s),
                                            pct(ar, p, a, n, "concurrent_private", s))
                               for ar, a, n in ratio_cols]
                        for s in sizes_of(results, "concurrent_alloc_free", p)]
                md.append(md_table(head, rows))
        if 1 in smps and multi:
            md.append("\nThe same across boots: per-operation cost (alloc + free, medians) on N CPUs "
                      "over the cost in separate -smp 1 boots (real time; the host's speed drifts "
                      "between boots, so this is the noisier reading):\n")
            for p in t.pages:
                ratio_cols = [c for c in page_cols[p] if c[2] > 1]
                if not ratio_cols:
                    continue
                md.append("\n### %s pages\n\n" % p)
                head = ["size"] + ["%s %s %d/1 CPUs" % c for c in ratio_cols]
                rows = []
                for s in sizes_of(results, "concurrent_alloc_free", p):
                    row = [s]
                    for ar, a, n in ratio_cols:
                        def cost(k):
                            x = [t.get(ar, p, a, k, "realtime", "concurrent_alloc_free", s, m)
                                 for m in ("alloc_cost", "free_cost")]
                            return None if None in x else float(x[0]) + float(x[1])
                        one, many = cost(1), cost(n)
                        row.append("%.2f" % (many / one) if one and many else "-")
                    rows.append(row)
                md.append(md_table(head, rows))

        md.append("\n## 4. Remote free: CPU 0 allocates, CPU 1 frees (cycles per op, median [range])\n")
        for p in t.pages:
            cols = [(ar, n) for ar in t.arches for n in smps
                    if t.get(ar, p, "slab", n, "realtime", "remote_free", 32, "alloc_cost")]
            if not cols:
                continue
            md.append("\n### %s pages\n\n" % p)
            head = ["size"] + ["%s %d CPUs: kmalloc / remote kfree" % c for c in cols]
            rows = [[s] + ["%s / %s" % (t.rng(ar, p, "slab", n, "realtime", "remote_free", s, "alloc_cost"),
                                       t.rng(ar, p, "slab", n, "realtime", "remote_free", s, "remote_free_cost"))
                           for ar, n in cols]
                    for s in sizes_of(results, "remote_free", p)]
            md.append(md_table(head, rows))

    md.append("\n## 5. Messaging (hackbench-like)\n\n")
    head = ["page size", "arch", "allocator", "CPUs", "mode", "total", "per message",
            "Slab kB before", "after"]
    rows = []
    for p in t.pages:
        for a in allocs:
            for n, mode in [(1, "icount")] + [(n, "realtime") for n in smps]:
                for ar in t.arches:
                    tot = t.rng(ar, p, a, n, mode, "messaging", 0, "total_cost")
                    if tot == "-":
                        continue
                    rows.append([p, ar, a, n, mode, tot,
                                 t.rng(ar, p, a, n, mode, "messaging", 0, "per_message_cost"),
                                 t.get(ar, p, a, n, mode, "messaging", 0, "slab_before_kb"),
                                 t.get(ar, p, a, n, mode, "messaging", 0, "slab_after_kb")])
    md.append(md_table(head, rows))

    md.append("\n## 6. Page allocator: alloc_pages / free_pages per op\n")
    for p in t.pages:
        arches = [ar for ar in t.arches if t.has(ar, p, alloc="slab", test="pages_single") or
                  t.has(ar, p, alloc="slab", test="pages_concurrent")]
        if not arches:
            continue
        md.append("\n### %s pages\n\n" % p)
        head = ["order"] + ["%s %s" % (ar, w) for ar in arches
                            for w in ["1 CPU (instr.)"] + ["%d CPUs concurrent (cycles)" % n for n in smps]]
        rows = []
        for o in range(4):
            row = [o]
            for ar in arches:
                row.append("%s / %s" % (t.get(ar, p, "slab", 1, "icount", "pages_single", o, "alloc_cost"),
                                        t.get(ar, p, "slab", 1, "icount", "pages_single", o, "free_cost")))
                for n in smps:
                    row.append("%s / %s" % (t.rng(ar, p, "slab", n, "realtime", "pages_concurrent", o, "alloc_cost"),
                                            t.rng(ar, p, "slab", n, "realtime", "pages_concurrent", o, "free_cost")))
            rows.append(row)
        md.append(md_table(head, rows))

    pngs = plot(outdir, results, t, counters)
    if pngs:
        md.append("\n## Plots\n\n" + "".join("![%s](%s)\n" % (p, p) for p in pngs))
    with open(os.path.join(outdir, "report.md"), "w") as f:
        f.write("".join(md))


def main():
    outdir = sys.argv[1]
    raw, counters = load(outdir)
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
    report(outdir, results, counters)
    return 0


if __name__ == "__main__":
    sys.exit(main())
