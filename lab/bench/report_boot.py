#!/usr/bin/env python3
"""report_boot.py OUTDIR (through `report.py bench OUTDIR`) - build OUTDIR/results.csv, raw.csv, report.md and plots
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
page size, kmalloc-<arch>-<page>.png (matplotlib, plotting.py).
"""
import collections
import glob
import os
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(__file__))
import parse  # noqa: E402
import report_slob  # noqa: E402
import report_hardening  # noqa: E402
import report_pages  # noqa: E402
import report_string  # noqa: E402
import report_perf  # noqa: E402
import report_mcpu  # noqa: E402
import report_rt64k  # noqa: E402
import report_summary  # noqa: E402
import report_linux  # noqa: E402
import report_md  # noqa: E402
import report_numa  # noqa: E402
from plotting import pyplot  # noqa: E402
from report_md import ratio  # noqa: E402

COLS = parse.COLUMNS
ARCH_ORDER = ["x86_64", "arm64"]
PAGE_ORDER = ["4K", "16K", "64K"]
ALLOC_ORDER = ["slab", "slub", "slob", "slob-seg", "slab-idx4", "slab-growlocked", "slab-random",
               "slub-hardened"]


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
        return m if lo is None else "%s [%s-%s]%s" % (m, lo, hi, report_mcpu.mark(lo, hi))

    def has(self, arch, page, **want):
        """Whether some figure of this arch and page size matches want (alloc, cpus, mode, test)."""
        idx = {"alloc": 2, "cpus": 3, "mode": 4, "test": 5}
        return any(k[0] == arch and k[1] == page and
                   all(k[idx[f]] == str(v) for f, v in want.items()) for k in self.v)

    def arches_at(self, page, **want):
        return [a for a in self.arches if self.has(a, page, **want)]


def linux_msg_rows(ar, p, a):
    """Section 5's rows for Linux's same allocator (report_linux.py): one CPU, -icount."""
    rows = []
    for v in report_linux.has_linux(a):
        if v not in report_linux.versions(ar, p, a):
            continue
        g = lambda metric: report_linux.linux(ar, p, a, "msg_" + metric, v)
        if g("total_cost") is None:
            continue
        rows.append([p, ar, "%s %s" % (report_linux.VERSION_NAMES[v], a), 1, "icount",
                     g("total_cost"), g("per_message_cost"),
                     "-" if g("alloc_share_cost") is None else g("alloc_share_cost"),
                     g("slab_before_kb"), g("slab_after_kb")])
    return rows


def linux_page_versions(arches, p):
    """[(version, row name)] of the Linux kernels with page allocator figures at page size p
    (taken from their SLUB builds: the page allocator is the same under each)."""
    return [(v, "%s pages" % report_linux.VERSION_NAMES[v]) for v in report_linux.has_linux("slub")
            if any(report_linux.linux(ar, p, "slub", "pages_0", v) != (None, None) for ar in arches)]


def md_table(head, rows):
    """report_md.table, with the rows whose figures vary too much flagged (report_mcpu)."""
    return report_md.table(head, report_mcpu.flag_rows(rows))


def sizes_of(results, test, page=None):
    return sorted({int(r[6]) for r in results if r[5] == test and (page is None or r[1] == page)})


def plot(outdir, results, t, counters):
    """kmalloc-ARCH-PAGE.png per arch and page size with single-CPU -icount figures: cost per
    operation against object size (matplotlib, plotting.py); the files made, or [] with no plot."""
    plt, _ = pyplot()
    if plt is None:
        return []
    # (allocator, test, metric, title, dashed): the lines of a plot, where measured
    series = [("slab", "kmalloc_then_free", "alloc_cost", "SLAB kmalloc (test 1)", False),
              ("slab", "kmalloc_then_free", "free_cost", "SLAB kfree (test 1)", False),
              ("slab-idx4", "kmalloc_then_free", "alloc_cost", "SLAB kmalloc, 4-byte index", True),
              ("slab-idx4", "kmalloc_then_free", "free_cost", "SLAB kfree, 4-byte index", True),
              ("slab", "kmalloc_free_pair", "pair_cost", "SLAB kmalloc+kfree pair (test 2)", False),
              ("slub", "kmalloc_then_free", "alloc_cost", "SLUB kmalloc (test 1)", False),
              ("slub", "kmalloc_then_free", "free_cost", "SLUB kfree (test 1)", False),
              ("slub", "kmalloc_free_pair", "pair_cost", "SLUB kmalloc+kfree pair (test 2)", False)]
    made = []
    for page in t.pages:
        for arch in t.arches_at(page, cpus=1, mode="icount", test="kmalloc_then_free"):
            lines = [x for x in series if t.has(arch, page, alloc=x[0], cpus=1, mode="icount", test=x[1])]
            if not lines:
                continue
            sizes = sizes_of(results, "kmalloc_then_free", page)
            counter = counters.get(arch, {}).get("icount", "").split(" ")[0] or "counter"
            fig, ax = plt.subplots(figsize=(9, 5.6))
            for a, test, m, title, dashed in lines:
                pts = [(s, t.get(arch, page, a, 1, "icount", test, s, m)) for s in sizes]
                pts = [(s, float(v)) for s, v in pts if v is not None]
                if pts:
                    ax.plot([s for s, _ in pts], [v for _, v in pts], marker="o",
                            linestyle="--" if dashed else "-", label=title)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("object size (bytes)")
            ax.set_ylabel("instructions per operation")
            ax.set_title("Quarry %s %s pages: cost per operation (guest instructions: %s under "
                         "QEMU -icount)" % (arch, page, counter), fontsize=10)
            ax.grid(True, alpha=0.4)
            ax.legend(loc="upper left", fontsize=8)
            png = os.path.join(outdir, "kmalloc-%s-%s.png" % (arch, page))
            fig.tight_layout()
            fig.savefig(png, dpi=100)
            plt.close(fig)
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


def seed002_section(t, results):
    """kmalloc(N)/kfree per size, single CPU, SLUB against SLAB (seed 002's table, icount)."""
    md = ["\n## kmalloc(N)/kfree per size, single CPU: SLUB against SLAB (seed 002's table)\n\n",
          "Guest instructions per operation under `-icount`: test 1 (`10000 times kmalloc(N) -> A "
          "kfree -> B`) as kmalloc / kfree, test 2 (`10000 times kmalloc(N)/kfree -> C`) as the "
          "pair; ratios are SLUB over SLAB (below 1: SLUB runs fewer instructions).\n"]
    found = False
    for p in t.pages:
        arches = [ar for ar in t.arches
                  if all(t.has(ar, p, alloc=a, mode="icount", test="kmalloc_then_free")
                         for a in ("slab", "slub"))]
        if not arches:
            continue
        found = True
        md.append("\n### %s pages\n\n" % p)
        head = ["size"]
        for ar in arches:
            head += ["%s SLAB kmalloc / kfree" % ar, "%s SLUB kmalloc / kfree" % ar,
                     "%s SLAB pair" % ar, "%s SLUB pair" % ar,
                     "%s SLUB/SLAB kmalloc / kfree / pair" % ar]
        rows = []
        for s in sizes_of(results, "kmalloc_then_free", p):
            row = [s]
            for ar in arches:
                v = {a: [t.get(ar, p, a, 1, "icount", "kmalloc_then_free", s, m)
                         for m in ("alloc_cost", "free_cost")] +
                        [t.get(ar, p, a, 1, "icount", "kmalloc_free_pair", s, "pair_cost")]
                     for a in ("slab", "slub")}
                row += ["%s / %s" % (v["slab"][0] or "-", v["slab"][1] or "-"),
                        "%s / %s" % (v["slub"][0] or "-", v["slub"][1] or "-"),
                        v["slab"][2], v["slub"][2],
                        " / ".join(ratio(v["slub"][i], v["slab"][i]) for i in range(3))]
            rows.append(row)
        md.append(md_table(head, rows))
    if not found:
        md.append("\nNot measured: it needs single-CPU (-icount) runs of both SLAB and SLUB "
                  "(`make bench ALLOC=...` left one out).\n")
    return md


def slub_targets():
    """SLUB's limits against Linux 6.1's SLUB: (arch, page, test, size, metric, what, limit,
    Linux's figure, how the limit follows from it); guest instructions under -icount. A limit
    is None where `make bench-linux` did not measure Linux's figure (report_linux.py)."""
    lx = lambda ar, fig: report_summary.linux(ar, "4K", "slub", fig)
    half = lambda v: None if v is None else v / 2.0
    out = [("x86_64", "4K", "kmalloc_free_pair", 32, "pair_cost", "kmalloc(32)+kfree pair (test 2)",
            70, lx("x86_64", "pair"), "")]
    for s in (32, 2048, 4096, 8192):
        for op, m, i in (("kmalloc", "alloc_cost", 0), ("kfree", "free_cost", 1)):
            v = lx("x86_64", "t1_%d" % s)[i]
            out.append(("x86_64", "4K", "kmalloc_then_free", s, m, "test 1 %s(%d)" % (op, s),
                        half(v), v, " (0.5 x Linux)"))
    v = lx("arm64", "pair")
    out.append(("arm64", "4K", "kmalloc_free_pair", 32, "pair_cost",
                "kmalloc(32)+kfree pair (test 2)", half(v), v, " (0.5 x Linux)"))
    return out


def targets_section(t):
    md = ["\n## SLUB's fast paths against Linux 6.1's SLUB (4K pages, guest instructions)\n\n",
          "Linux 6.1's SLUB, measured the same way by `make bench-linux`, gives the reference figures; "
          "Quarry SLAB's are this run's.\n\n"]
    head = ["arch", "page", "target", "limit", "Linux 6.1 SLUB", "Quarry SLAB", "Quarry SLUB",
            "met"]
    rows = []
    met = measured = 0
    targets = slub_targets()
    for arch, page, test, size, metric, what, limit, linux, rule in targets:
        slab = t.get(arch, page, "slab", 1, "icount", test, size, metric)
        slub = t.get(arch, page, "slub", 1, "icount", test, size, metric)
        if limit is None:
            verdict = "no limit (Linux not measured)"
            linux = report_linux.NOT_MEASURED
        elif slub is None:
            verdict = "not measured"
        else:
            measured += 1
            if float(slub) <= limit:
                met += 1
                verdict = "met"
            else:
                verdict = "NOT met (%s over)" % num(float(slub) - limit)
        rows.append([arch, page, what, "-" if limit is None else "<= %s%s" % (num(limit), rule),
                     linux, slab, slub, verdict])
    md.append(md_table(head, rows))
    md.append("\n%d of %d targets met (%d measured in this run).\n" % (met, len(targets), measured))
    return md


def model_sections(outdir):
    """MODEL=1 runs: the cache model's tables (OUTDIR/model.md, tools/cachemodel/bench.sh)
    and, where `make cachemodel-cachegrind` wrote it, its comparison with cachegrind, as
    sections of this report. Modelled figures, never measurements."""
    md = []
    for path, title in ((os.path.join(outdir, "model.md"),
                         "Cache and TLB model: misses and modelled cycles per operation"),
                        (os.path.join("build", "cachemodel", "cachegrind.md"),
                         "Cache model against cachegrind (same geometry)")):
        if not os.path.exists(path):
            continue
        with open(path) as f:
            body = f.read()
        # The included file's own headings go two levels down, under this section's.
        body = "".join(("##" + line) if line.startswith("#") else line
                       for line in body.splitlines(True))
        md.append("\n## %s (modelled; %s)\n\n%s" % (title, path, body))
    return md


def report(outdir, results, counters):
    t = Table(results)
    names = ", ".join("%s: %s" % (a, counters[a].get("realtime", counters[a].get("icount", "?")).split(" ")[0])
                      for a in ordered(counters, ARCH_ORDER)) or "?"
    allocs = t.allocs
    md = ["# Quarry benchmark report\n",
          "Single-CPU figures are guest instructions under QEMU TCG `-icount shift=0,sleep=off` "
          "(they repeat exactly; `make bench` boots each configuration twice to check). "
          "Multi-CPU figures are real cycles of each arch's counter (%s) under MTTCG: "
          "median [min-max] of the boots (see the end for the figures whose range is wider than "
          "2x). Multi-CPU figures under -icount (instructions) have their own section. Each table is one page size, with the arches side by "
          "side in its columns (16K pages are arm64's only), and in each arch the allocators "
          "side by side: %s (slab: SLAB, natural freelist index; slub: SLUB; slob: SLOB's "
          "sequential fit; slob-seg: SLOB with segregated free lists, single CPU only; "
          "slab-idx4 and slab-growlocked: SLAB's seed-post variants).\n" % (names, ", ".join(allocs)),
          counter_text(counters)]

    def present(p, cands, **want):
        """(arch, alloc) columns at page size p, in arch then allocator order, that have data."""
        return [(ar, a) for ar in t.arches for a in allocs if a in cands
                and t.has(ar, p, alloc=a, **want)]

    md += report_summary.summary_section(t)
    md += seed002_section(t, results)
    md += targets_section(t)
    md += report_slob.seed004_section(t)
    md += report_slob.targets_section(t)
    md += report_hardening.hardening_section(t, sizes_of, results)
    md += report_pages.targets_section(t)
    md += report_string.string_section(t)
    md += report_perf.targets_section(t)
    md += report_mcpu.mcpu_section(t, sizes_of(results, "concurrent_alloc_free"))
    md += report_rt64k.rt64k_section(outdir, t, md_table)

    t1_allocs = ("slab", "slub", "slob", "slob-seg", "slab-idx4")
    md.append("\n## 1. Repeatedly allocate then free (single CPU, instructions per op)\n")
    md.append("`10000 times kmalloc(N) -> A kfree -> B`\n")
    for p in t.pages:
        cols = present(p, t1_allocs, mode="icount", test="kmalloc_then_free")
        if not cols:
            continue
        md.append("\n### %s pages\n\n" % p)
        head = ["size"] + ["%s %s %s" % (ar, a, op) for ar, a in cols for op in ("kmalloc", "kfree")]
        rows = [[s] + [t.get(ar, p, a, 1, "icount", "kmalloc_then_free", s, m)
                       for ar, a in cols for m in ("alloc_cost", "free_cost")]
                for s in sizes_of(results, "kmalloc_then_free", p)]
        md.append(md_table(head, rows))

    md.append("\n## 2. alloc/free (single CPU, instructions per kmalloc+kfree pair)\n")
    for p in t.pages:
        cols = present(p, allocs, mode="icount", test="kmalloc_free_pair")
        if not cols:
            continue
        md.append("\n### %s pages\n\n" % p)
        head = ["size"] + ["%s %s" % c for c in cols]
        rows = [[s] + [t.get(ar, p, a, 1, "icount", "kmalloc_free_pair", s, "pair_cost")
                       for ar, a in cols]
                for s in sizes_of(results, "kmalloc_free_pair", p)]
        md.append(md_table(head, rows))

    md.append("\n## Objects per slab after boot: SLAB (natural index), SLUB, SLAB with a 4-byte index\n")
    for p in t.pages:
        cols = present(p, t1_allocs, mode="icount", test="slabinfo_boot")
        if not cols:
            continue
        md.append("\n### %s pages\n\n" % p)
        head = ["object size"] + ["%s %s" % c for c in cols]
        rows = [[s] + [t.get(ar, p, a, 1, "icount", "slabinfo_boot", s, "objperslab")
                       for ar, a in cols]
                for s in sizes_of(results, "slabinfo_boot", p)]
        md.append(md_table(head, rows))
    cfgs = [(ar, p) for p in t.pages for ar in t.arches_at(p, mode="icount")]
    if cfgs:
        md.append("\nSlab: kB, single CPU (%s)\n\n" % " / ".join(allocs))
        head = [""] + ["%s %s" % (ar, p) for ar, p in cfgs]
        rows = []
        for test, label in (("memory_boot", "after boot"), ("memory_end", "after the workloads")):
            rows.append([label] + [" / ".join(t.get(ar, p, a, 1, "icount", test, 0, "slab_kb") or "-"
                                              for a in allocs) for ar, p in cfgs])
        md.append(md_table(head, rows))

    smps = sorted({int(r[3]) for r in results if r[4] == "realtime"})
    conc_allocs = ("slab", "slub", "slab-growlocked")
    if smps:
        md.append("\n## 3. Concurrent: `Kmalloc N*alloc N*free(S): Average=A/F` "
                  "(cycles, median [range])\n")
        md.append("\nOne table per page size and CPU count; per arch SLAB, SLUB and SLAB's "
                  "grow-locked variant (seed 001's \"before\").\n")
        # page -> n -> [(arch, alloc)] with figures
        conc = {p: {n: [(ar, a) for ar in t.arches for a in allocs if a in conc_allocs and
                        t.get(ar, p, a, n, "realtime", "concurrent_alloc_free", 32, "alloc_cost")]
                    for n in smps} for p in t.pages}
        for p in t.pages:
            for n in smps:
                cols = conc[p][n]
                if not cols:
                    continue
                md.append("\n### %s pages, %d CPU%s\n\n" % (p, n, "s" if n > 1 else ""))
                head = ["size"] + ["%s %s" % c for c in cols]
                rows = [[s] + ["%s / %s" % (t.rng(ar, p, a, n, "realtime", "concurrent_alloc_free", s, "alloc_cost"),
                                           t.rng(ar, p, a, n, "realtime", "concurrent_alloc_free", s, "free_cost"))
                               for ar, a in cols]
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
                      "The limit set for it: kmalloc at most 1.3 at 2 CPUs, 32 bytes.\n")

            def pct(ar, p, a, n, test, s):
                v = [t.get(ar, p, a, n, "realtime", test, s, "ratio_x100" + k) for k in ("", "_min", "_max")]
                if v[0] is None:
                    return "-"
                v = ["%.2f" % (float(x) / 100) for x in v if x is not None]
                return v[0] if len(v) == 1 else "%s [%s-%s]%s" % (tuple(v) + (report_mcpu.mark(v[1], v[2]),))
            for p in t.pages:
                for n in multi:
                    cols = conc[p][n]
                    if not cols:
                        continue
                    md.append("\n### %s pages, %d CPUs over CPU 0 alone\n\n" % (p, n))
                    head = ["size"] + ["%s %s: kmalloc / private" % c for c in cols]
                    rows = [[s] + ["%s / %s" % (pct(ar, p, a, n, "concurrent_alone", s),
                                                pct(ar, p, a, n, "concurrent_private", s))
                                   for ar, a in cols]
                            for s in sizes_of(results, "concurrent_alloc_free", p)]
                    md.append(md_table(head, rows))
        if 1 in smps and multi:
            md.append("\nThe same across boots: per-operation cost (alloc + free, medians) on N CPUs "
                      "over the cost in separate -smp 1 boots (real time; the host's speed drifts "
                      "between boots, so this is the noisier reading), with the widest range the "
                      "boots allow: [N CPUs' fastest over 1 CPU's slowest - N CPUs' slowest over "
                      "1 CPU's fastest], alloc and free ranges added:\n")
            for p in t.pages:
                ratio_cols = [(ar, a, n) for n in multi for ar, a in conc[p][n]]
                if not ratio_cols:
                    continue
                md.append("\n### %s pages\n\n" % p)
                head = ["size"] + ["%s %s %d/1 CPUs" % c for c in ratio_cols]
                rows = []
                for s in sizes_of(results, "concurrent_alloc_free", p):
                    row = [s]
                    for ar, a, n in ratio_cols:
                        def cost(k, suffix=""):
                            x = [t.get(ar, p, a, k, "realtime", "concurrent_alloc_free", s, m + suffix)
                                 for m in ("alloc_cost", "free_cost")]
                            return None if None in x else float(x[0]) + float(x[1])
                        one, many = cost(1), cost(n)
                        lo = (cost(n, "_min"), cost(1, "_max"))
                        hi = (cost(n, "_max"), cost(1, "_min"))
                        if not (one and many):
                            row.append("-")
                        elif None in lo + hi or not lo[1] or not hi[1]:
                            row.append("%.2f" % (many / one))
                        else:
                            row.append("%.2f [%.2f-%.2f]%s" % (many / one, lo[0] / lo[1], hi[0] / hi[1],
                                                              report_mcpu.mark(lo[0] / lo[1], hi[0] / hi[1])))
                    rows.append(row)
                md.append(md_table(head, rows))

        md.append("\n## 4. Remote free: CPU 0 allocates, CPU 1 frees (cycles per op, median [range])\n")
        for p in t.pages:
            cols = [(ar, a, n) for ar in t.arches for n in smps for a in allocs
                    if a in ("slab", "slub") and
                    t.get(ar, p, a, n, "realtime", "remote_free", 32, "alloc_cost")]
            if not cols:
                continue
            md.append("\n### %s pages\n\n" % p)
            head = ["size"] + ["%s %s %d CPUs: kmalloc / remote kfree" % c for c in cols]
            rows = [[s] + ["%s / %s" % (t.rng(ar, p, a, n, "realtime", "remote_free", s, "alloc_cost"),
                                       t.rng(ar, p, a, n, "realtime", "remote_free", s, "remote_free_cost"))
                           for ar, a, n in cols]
                    for s in sizes_of(results, "remote_free", p)]
            md.append(md_table(head, rows))

    md.append("\n## 5. Messaging (hackbench-like)\n\n")
    head = ["page size", "arch", "allocator", "CPUs", "mode", "total", "per message",
            "in kmalloc+kfree", "Slab kB before", "after"]
    rows = []
    for p in t.pages:
        for n, mode in [(1, "icount")] + [(n, "realtime") for n in smps]:
            for ar in t.arches:
                for a in allocs:
                    tot = t.rng(ar, p, a, n, mode, "messaging", 0, "total_cost")
                    if tot == "-":
                        continue
                    rows.append([p, ar, a, n, mode, tot,
                                 t.rng(ar, p, a, n, mode, "messaging", 0, "per_message_cost"),
                                 t.rng(ar, p, a, n, mode, "messaging", 0, "alloc_share_cost"),
                                 t.get(ar, p, a, n, mode, "messaging", 0, "slab_before_kb"),
                                 t.get(ar, p, a, n, mode, "messaging", 0, "slab_after_kb")])
                    if mode == "icount":
                        rows += linux_msg_rows(ar, p, a)
    md.append(md_table(head, rows))
    md.append("\nThe Linux rows: the same workload in Linux's kernel by `make bench-linux`'s module "
              "(lab/linux/bench/qb_msg.c), one CPU, instructions under -icount. Compare "
              "`in kmalloc+kfree`: the rest of a message is filling and checking its bytes with "
              "each kernel's own memset and loops, not the allocator's work.\n")

    md.append("\n## 6. Page allocator: alloc_pages / free_pages per op\n")
    md.append("\nThe same buddy allocator under either object allocator: one row per order and "
              "build.\n")
    for p in t.pages:
        page_allocs = [a for a in allocs if a in ("slab", "slub")]
        arches = [ar for ar in t.arches if any(t.has(ar, p, alloc=a, test=test) for a in page_allocs
                                               for test in ("pages_single", "pages_concurrent"))]
        if not arches:
            continue
        page_allocs = [a for a in page_allocs if any(t.has(ar, p, alloc=a, test="pages_single") or
                                                     t.has(ar, p, alloc=a, test="pages_concurrent")
                                                     for ar in arches)]
        md.append("\n### %s pages\n\n" % p)
        head = ["order", "allocator"] + ["%s %s" % (ar, w) for ar in arches
                                         for w in ["1 CPU (instr.)"] + ["%d CPU%s concurrent (cycles)" % (n, "s" if n > 1 else "") for n in smps]]
        rows = []
        for o in range(4):
            for a in page_allocs:
                row = [o, a]
                for ar in arches:
                    single = [t.get(ar, p, a, 1, "icount", "pages_single", o, m)
                              for m in ("alloc_cost", "free_cost")]
                    row.append("-" if single == [None, None] else "%s / %s" % tuple(x or "-" for x in single))
                    for n in smps:
                        conc_pg = [t.rng(ar, p, a, n, "realtime", "pages_concurrent", o, m)
                                   for m in ("alloc_cost", "free_cost")]
                        row.append("-" if conc_pg == ["-", "-"] else "%s / %s" % tuple(conc_pg))
                rows.append(row)
            for v, name in linux_page_versions(arches, p):
                row = [o, name]
                for ar in arches:
                    single = report_linux.linux(ar, p, "slub", "pages_%d" % o, v)
                    row.append("-" if single == (None, None) else "%s / %s" % tuple(
                        "-" if x is None else x for x in single))
                    row += ["-"] * len(smps)
                rows.append(row)
        md.append(md_table(head, rows))
        if linux_page_versions(arches, p):
            md.append("\nThe Linux rows: Linux's page allocator (under its SLUB build) running the "
                      "same loops by `make bench-linux`'s module (lab/linux/bench/qb_pages.c), "
                      "one CPU, instructions under -icount.\n")

    md += report_mcpu.wide_section(results)
    md.append(report_mcpu.NOTE)
    md += report_numa.numa_section(outdir, results, lambda keys: sorted(
        keys, key=lambda k: (ordered(t.arches, ARCH_ORDER).index(k[0]) if k[0] in t.arches else 9,
                             PAGE_ORDER.index(k[1]) if k[1] in PAGE_ORDER else 9,
                             ALLOC_ORDER.index(k[2]) if k[2] in ALLOC_ORDER else 9)))

    md += model_sections(outdir)
    pngs = plot(outdir, results, t, counters)
    if pngs:
        md.append("\n## Plots\n\n" + "".join("![%s](%s)\n" % (p, p) for p in pngs))
    elif pyplot()[0] is None:
        md.append("\n## Plots\n\n(%s)\n" % pyplot()[1])
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
