#!/usr/bin/env python3
"""report_scale.py --dir DIR - the tables and plot of `make bench-scale`
(lab/bench/scale.sh) from DIR/host.csv, DIR/kernel.csv and DIR/meta.txt.

host.csv: the workloads' rows, allocator,threads,workload,run,wall_ns,cpu_ns,ops;
a figure is the median over runs of wall_ns / ops (host wall-clock ns per
operation, all threads together: lower is better) and beside it the speed-up
over the same allocator's one-thread figure (throughput ratio).
kernel.csv: kernel,cpus,size,alloc_cycles,free_cycles,counter_khz from the
kernels' concurrent_alloc_free lines under MTTCG (kernel: slab, slub for
x86_64; arm64-slab, arm64-slub for arm64); a figure is ns of guest time
per kmalloc + kfree pair on each CPU (real time of a TCG guest, the emulator
included), and the aggregate throughput (CPUs / ns per pair) against one CPU.
Writes DIR/report.md and, where matplotlib imports, DIR/scale.png.
"""
import argparse
import csv
import glob
import os
import re
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plotting import pyplot  # noqa: E402

ORDER = ["slab", "slub", "slob", "slob-seg", "glibc", "jemalloc", "tcmalloc", "mimalloc", "locked"]
NAMES = {"slab": "SLAB", "slub": "SLUB", "slob": "SLOB", "slob-seg": "SLOB-seg",
         "locked": "glibc+lock", "slub-stats": "SLUB, SLAB_STATS=1"}
WORKLOADS = ["larson", "mixed", "prodcons"]


def read_meta(d):
    meta = {}
    try:
        with open(os.path.join(d, "meta.txt")) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("=")
                meta[k] = v
    except OSError:
        pass
    return meta


def read_host(d):
    runs = defaultdict(list)
    try:
        with open(os.path.join(d, "host.csv")) as f:
            for row in csv.reader(f):
                if len(row) != 7:
                    continue
                alloc, thr, wl, _run, wall, _cpu, ops = row
                if int(ops) > 0:
                    runs[(wl, alloc, int(thr))].append(int(wall) / int(ops))
    except OSError:
        pass
    return {k: statistics.median(v) for k, v in runs.items()}


def read_diag(d):
    """Per (workload, allocator, threads): spin turns, minor faults and involuntary
    context switches per 1000 operations, summed over the runs."""
    tot = defaultdict(lambda: [0, 0, 0, 0])
    try:
        with open(os.path.join(d, "diag.csv")) as f:
            for row in csv.reader(f):
                if len(row) != 9:
                    continue
                alloc, thr, wl, _run, ops, spins, minflt, _nvcsw, nivcsw = row
                t = tot[(wl, alloc, int(thr))]
                t[0] += int(ops)
                t[1] += int(spins)
                t[2] += int(minflt)
                t[3] += int(nivcsw)
    except OSError:
        pass
    return {k: (1e3 * v[1] / v[0], 1e3 * v[2] / v[0], 1e3 * v[3] / v[0])
            for k, v in tot.items() if v[0]}


def diag_table(diag, threads):
    out = ["\n### Spin-waiting and the operating system, per 1000 operations\n",
           "Turns of spin-waiting in Quarry's spinlocks (cpu_relax: Quarry's allocators and "
           "glibc+lock; a peer's own spinning is not counted), minor page faults and involuntary "
           "context switches in the measured part, all threads: spin turns are lock contention; "
           "faults and switches the operating system's share. A slowdown with none of them is "
           "cache-line traffic (or the machine).\n",
           "| workload | allocator | " + " | ".join("%d thr" % t for t in threads) + " |",
           "|---|---|" + "---|" * len(threads)]
    allocs = sorted({k[1] for k in diag}, key=lambda a: (ORDER.index(a) if a in ORDER else 99, a))
    for wl in WORKLOADS:
        for a in allocs:
            if a not in ("slab", "slub", "slob", "slob-seg", "locked"):
                continue
            cells = []
            for t in threads:
                v = diag.get((wl, a, t))
                cells.append("-" if v is None else "%.1f / %.2f / %.2f" % v)
            if any(c != "-" for c in cells):
                out.append("| %s | %s | %s |" % (wl, name(a), " | ".join(cells)))
    out.append("\n(each cell: spin turns / page faults / involuntary switches)")
    return out


def read_kernel(d):
    res = defaultdict(list)
    try:
        with open(os.path.join(d, "kernel.csv")) as f:
            for row in csv.reader(f):
                if len(row) != 6:
                    continue
                alloc, cpus, size, a, fr, khz = row
                khz = int(khz)
                if khz <= 0:
                    continue
                ns = (int(a) + int(fr)) * 1e6 / khz
                res[(alloc, int(size), int(cpus))].append(ns)
    except OSError:
        pass
    return {k: statistics.median(v) for k, v in res.items()}


ATOMIC_KINDS = ["cmpxchg", "cmpxchg_double", "this_cpu_double"]
EVENT_KEYS = [("node locks", r"locks node (\d+)"), ("barn locks", r"locks node \d+ barn (\d+)"),
              ("page cmpxchgs", r"page cmpxchg (\d+)"), ("slabs made", r"slabs made (\d+)"),
              ("slabs freed", r"discard (\d+)"), ("slow frees", r"free fast \d+ slow (\d+)"),
              ("sheaf refills", r"sheaf alloc \d+ free \d+ swap \d+ refill (\d+)"),
              ("node lock waits", r"node lock waited (\d+) times"),
              ("turns waited for it", r"node lock waited \d+ times, (\d+) turns"),
              ("zone lock waits", r"zone lock waited (\d+) times")]


def read_kernel_logs(d):
    """Test 3a's probe (every kernel's log) and test 3's events (slub-stats logs)."""
    atomics, events = {}, {}
    logs = os.path.join(d, "logs")
    try:
        names = sorted(os.listdir(logs))
    except OSError:
        return atomics, events
    for fn in names:
        m = re.match(r"kernel-([a-z0-9-]+)-smp(\d+)\.log$", fn)
        if not m:
            continue
        alloc, cpus = m.group(1), int(m.group(2))
        with open(os.path.join(logs, fn), errors="replace") as f:
            text = f.read().replace("\r", "")
        for a in re.finditer(r"test=atomic_probe size=(\d+) cpus=\d+ alone_cost=(\d+) "
                             r"all_cost=(\d+)", text):
            atomics[(alloc, cpus, int(a.group(1)))] = (int(a.group(2)), int(a.group(3)))
        if not alloc.endswith("slub-stats"):
            continue
        for e in re.finditer(r"events over the last run on \d+ CPUs, (\d+) kmallocs.*\n"
                             r"\s+kmalloc-(\d+)\s+(.*\n(?:.*waited.*\n)*)", text):
            ops, line = int(e.group(1)), e.group(3)
            vals = []
            for _, rx in EVENT_KEYS:
                v = re.search(rx, line)
                vals.append(int(v.group(1)) * 1000.0 / ops if v and ops else None)
            events[(alloc, int(e.group(2)), cpus)] = vals
    return atomics, events


def atomic_table(atomics):
    out = ["\n### Test 3a: compare-and-exchange on each CPU's own line (nothing shared)\n",
           "Guest cycles per operation (real time of a TCG guest), CPU 0 alone / all CPUs "
           "at once, and their ratio: on hardware about 1 at every count. A ratio growing "
           "with the vCPUs is the emulator's cost (an atomic QEMU runs with the other vCPUs "
           "stopped), and that part of a kernel figure above is not the allocator's.\n"]
    runs = sorted({(k[0], k[1]) for k in atomics}, key=lambda r: (kernel_order(r[0]), r[1]))
    out.append("| kernel | vCPUs | " + " | ".join(ATOMIC_KINDS) + " |")
    out.append("|---|---|" + "---|" * len(ATOMIC_KINDS))
    for alloc, cpus in runs:
        cells = []
        for k in range(len(ATOMIC_KINDS)):
            v = atomics.get((alloc, cpus, k))
            cells.append("-" if v is None else "%d / %d (%.2fx)" % (v[0], v[1],
                                                                    v[1] / max(v[0], 1)))
        out.append("| %s | %d | %s |" % (kname(alloc), cpus, " | ".join(cells)))
    return out


def events_table(events):
    out = ["\n### Test 3 in SLUB counting its events (SLAB_STATS=1): events per 1000 "
           "kmalloc + kfree pairs, all CPUs\n",
           "The same work per operation at every count means a slowdown is waiting (for "
           "the node's list_lock, the barn's lock, the buddy allocator's zone lock behind "
           "slabs made and freed) or the machine, not more work. The last three columns "
           "are that waiting: acquisitions of the node's and the zone's lock that found it "
           "held, and the turns spent waiting for the node's (kernel/spinlock.h counts them "
           "in this build). This build's timings are not reported (its counters are "
           "atomics all CPUs share).\n"]
    heads = [h for h, _ in EVENT_KEYS]
    out.append("| arch | size | vCPUs | " + " | ".join(heads) + " |")
    out.append("|---|---|---|" + "---|" * len(heads))
    for k in sorted({k[0] for k in events}, key=kernel_order):
        arch = "arm64" if k.startswith("arm64-") else "x86_64"
        cpus = sorted({e[2] for e in events if e[0] == k})
        for s in sorted({e[1] for e in events if e[0] == k}):
            for c in cpus:
                v = events.get((k, s, c))
                if v:
                    out.append("| %s | %d | %d | %s |" % (arch, s, c, " | ".join(
                        "-" if x is None else "%.1f" % x for x in v)))
    return out


def perf_report_line(line):
    """A line of perf report --stdio --sort symbol: (samples it declares, (pct, symbol) or None)."""
    sm = re.match(r"# Samples: ([\d.]+)([KM]?)", line)
    if sm:
        return int(float(sm.group(1)) * {"": 1, "K": 1000, "M": 1000000}[sm.group(2)]), None
    r = re.match(r"\s*([\d.]+)%\s+\[([.kuHg])\]\s+(\S+)", line)
    if r:
        return 0, (float(r.group(1)), r.group(3) + (" [k]" if r.group(2) == "k" else ""))
    return 0, None


def sample_line(line):
    """A line of workloads --sample's file: (samples it declares, (pct, function) or None)."""
    sm = re.match(r"# workloads --sample: .* samples (\d+)", line)
    if sm:
        return int(sm.group(1)), None
    r = re.match(r"\s*([\d.]+)% \d+ (.+)$", line.rstrip("\n"))
    if r and float(r.group(1)) >= 0.5:
        return 0, (float(r.group(1)), r.group(2))
    return 0, None


def read_profiles(d):
    """profile/report-A-W-N.txt (perf report --sort symbol), or where perf could not run
    profile/sample-A-W-N.txt (the workloads' own samples, --sample)
    -> {(a, w, n): (event, samples, [(pct, sym)])}."""
    out = {}
    for kind, parse in (("report", perf_report_line), ("sample", sample_line)):
        for path in sorted(glob.glob(os.path.join(d, "profile", kind + "-*.txt"))):
            m = re.match(kind + r"-(slab|slub)-(larson|mixed)-(\d+)\.txt$",
                         os.path.basename(path))
            if not m:
                continue
            rows, samples = [], 0
            with open(path) as f:
                for line in f:
                    n, row = parse(line)
                    samples += n
                    if row:
                        rows.append(row)
            ev = os.path.join(d, "profile", "event-%s-%s-%s.txt" % m.groups())
            event = ("the workloads' own SIGPROF samples" if kind == "sample" else
                     "perf record -e " + (open(ev).read().strip() if os.path.exists(ev) else "?"))
            out[(m.group(1), m.group(2), int(m.group(3)))] = (event, samples, rows)
    return out


def profile_table(prof):
    out = ["\n### Where the CPU time goes (%s; the timed run only)\n" %
           ", ".join(sorted({e for e, _, _ in prof.values()})),
           "Share of samples by function, the eight largest; functions of mm/ are the "
           "allocator's, [k] marks the kernel's (perf), [lib] a shared library's. A share "
           "that grows from 1 thread to many is the cost that grows with cores. Where perf "
           "could not run, the workloads sampled themselves (--sample: SIGPROF to each "
           "thread at 20 kHz; time in the kernel shows on the C library's wrapper of the system call).\n",
           "| allocator | workload | threads | samples | the largest shares |", "|---|---|---|---|---|"]
    for (a, w, n), (event, samples, rows) in sorted(prof.items()):
        out.append("| %s | %s | %d | %d | %s |" % (a.upper(), w, n, samples, "; ".join(
            "%s %.1f%%" % (sym, pct) for pct, sym in rows[:8]) or "(no samples)"))
    return out


# perf stat's hardware events, and how the counters table names them per operation.
COUNTER_COLS = [("instructions", "instructions"), ("cycles", "cycles"),
                ("cache-references", "cache refs"), ("cache-misses", "cache misses"),
                ("L1-dcache-load-misses", "L1d load misses"),
                ("dTLB-load-misses", "dTLB load misses")]


def read_counters(d):
    """profile/stat-A-W-N.csv (perf stat -x,) and ops-A-W-N.csv (the run's workloads
    --csv row) -> {(a, w, n): (ops, {event: count or None where not supported})}."""
    out = {}
    for path in sorted(glob.glob(os.path.join(d, "profile", "stat-*.csv"))):
        m = re.match(r"stat-([a-z]+)-(larson|mixed)-(\d+)\.csv$", os.path.basename(path))
        if not m:
            continue
        ops = 0
        opsf = os.path.join(d, "profile", "ops-%s-%s-%s.csv" % m.groups())
        if os.path.exists(opsf):
            with open(opsf) as f:
                for line in f:
                    p = line.strip().split(",")
                    if len(p) >= 7 and p[6].isdigit():
                        ops += int(p[6])
        counts = {}
        with open(path) as f:
            for line in f:
                p = line.strip().split(",")
                if len(p) < 3 or line.startswith("#"):
                    continue
                ev = re.sub(r":u$", "", p[2])
                try:
                    counts[ev] = float(p[0])
                except ValueError:	# <not supported>, <not counted>
                    counts[ev] = None
        if ops and counts:
            out[(m.group(1), m.group(2), int(m.group(3)))] = (ops, counts)
    return out


def counters_table(cnt):
    hw = any(c.get(ev) is not None for _, c in cnt.values() for ev, _ in COUNTER_COLS)
    out = ["\n### Counters per operation (perf stat over the timed run)\n",
           "The same runs as the profile (and mimalloc's, the reference), counted: CPU ns "
           "(task-clock, all threads) and the hardware events per operation; its threads' "
           "set-up and clean-up are inside the counted span (under 1% of its operations at "
           "the profile's scale). Instructions that grow with threads are more work "
           "(spinning, slow paths); cycles and cache misses that grow while the "
           "instructions stay flat are the same work waiting on memory (cache lines moving "
           "between cores, or capacity). At one thread, against another machine's report "
           "or mimalloc's row, the same columns say why one operation costs what it does "
           "there (L1 and TLB misses: the pages and lines an operation touches).\n"]
    if not hw:
        out.append("This machine counted no hardware event (no PMU: perf says "
                   "<not supported>, as in most virtual machines); only the software "
                   "ones are shown.\n")
    cols = [("task-clock", "CPU ns")] + (COUNTER_COLS if hw else []) + \
        [("context-switches", "switches"), ("page-faults", "faults")]
    out.append("| allocator | workload | threads | " + " | ".join(c for _, c in cols) +
               (" | IPC |" if hw else " |"))
    out.append("|---|---|---|" + "---|" * (len(cols) + (1 if hw else 0)))
    for (a, w, n), (ops, c) in sorted(cnt.items(), key=lambda kv: (
            ["slab", "slub"].index(kv[0][0]) if kv[0][0] in ("slab", "slub") else 2,
            kv[0][1], kv[0][2])):
        cells = []
        for ev, _ in cols:
            v = c.get(ev)
            # task-clock is in msec; per operation in ns.
            cells.append("-" if ev not in c else "n/s" if v is None else
                         "%.2f" % (v * 1e6 / ops if ev == "task-clock" else v / ops))
        row = "| %s | %s | %d | %s |" % (name(a), w, n, " | ".join(cells))
        if hw:
            i, y = c.get("instructions"), c.get("cycles")
            row += " %s |" % ("%.2f" % (i / y) if i and y else "-")
        out.append(row)
    if hw:
        out.append("\nn/s: not supported by this machine's PMU.")
    return out


def name(a):
    """An allocator's or a kernel variant's name (arm64-slub -> SLUB (arm64))."""
    if a.startswith("arm64-"):
        return "%s (arm64)" % NAMES.get(a[6:], a[6:])
    return NAMES.get(a, a)


def kname(v):
    """A kernel variant's name with its arch: slub -> SLUB (x86_64)."""
    return name(v) if v.startswith("arm64-") else "%s (x86_64)" % name(v)


def kernel_order(v):
    """x86_64's kernels first (slab, slub, slub-stats), then arm64's."""
    arm = v.startswith("arm64-")
    return (arm, v[6:] if arm else v)


def host_tables(host, threads):
    out = []
    allocs = sorted({k[1] for k in host}, key=lambda a: (ORDER.index(a) if a in ORDER else 99, a))
    for wl in WORKLOADS:
        if not any(k[0] == wl for k in host):
            continue
        thr = [t for t in threads if any(k[0] == wl and k[2] == t for k in host)]
        out.append("\n### %s: host ns per operation (wall, all threads), speed-up over 1 thread\n"
                   % wl)
        out.append("| allocator | " + " | ".join("%d thr" % t for t in thr) + " |")
        out.append("|---|" + "---|" * len(thr))
        for a in allocs:
            base = host.get((wl, a, 1))
            cells = []
            for t in thr:
                v = host.get((wl, a, t))
                if v is None:
                    cells.append("-")
                elif base and t != 1:
                    cells.append("%.2f (%.2fx)" % (v, base / v))
                else:
                    cells.append("%.2f" % v)
            out.append("| %s | %s |" % (name(a), " | ".join(cells)))
    return out


def kernel_tables(kern):
    out = []
    for alloc in sorted({k[0] for k in kern}, key=kernel_order):
        cpus = sorted({k[2] for k in kern if k[0] == alloc})
        sizes = sorted({k[1] for k in kern if k[0] == alloc})
        out.append("\n### Kernel %s under MTTCG: ns of guest time per kmalloc + kfree pair per CPU,"
                   " aggregate throughput over 1 vCPU\n" % kname(alloc))
        out.append("| size | " + " | ".join("%d vCPU" % c for c in cpus) + " |")
        out.append("|---|" + "---|" * len(cpus))
        for s in sizes:
            base = kern.get((alloc, s, 1))
            cells = []
            for c in cpus:
                v = kern.get((alloc, s, c))
                if v is None:
                    cells.append("-")
                elif base and c != 1:
                    cells.append("%.1f (%.2fx)" % (v, c * base / v))
                else:
                    cells.append("%.1f" % v)
            out.append("| %d | %s |" % (s, " | ".join(cells)))
    return out


def plot(d, host, kern, threads, meta):
    plt, why = pyplot()
    if plt is None:
        return why
    kallocs = sorted({k[0] for k in kern}, key=kernel_order)
    # The host workloads on the first row, the kernels on the second.
    rows = [r for r in ([wl for wl in WORKLOADS if any(k[0] == wl for k in host)], kallocs) if r]
    if not rows:
        return "no plot: no figures"
    ncols = max(len(r) for r in rows)
    fig, axes = plt.subplots(len(rows), ncols, figsize=(4.2 * ncols, 4.2 * len(rows)),
                             squeeze=False)
    for r, row in enumerate(rows):
        for c in range(len(row), ncols):
            axes[r][c].set_visible(False)
    venue = "%s cores, %s" % (meta.get("cores", "?"), meta.get("cpu", "?"))
    for ax, p in [(axes[r][c], p) for r, row in enumerate(rows) for c, p in enumerate(row)]:
        if p in WORKLOADS:
            allocs = sorted({k[1] for k in host if k[0] == p},
                            key=lambda a: (ORDER.index(a) if a in ORDER else 99, a))
            for a in allocs:
                xs = [t for t in threads if (p, a, t) in host]
                ys = [1e3 / host[(p, a, t)] for t in xs]
                style = "-o" if a in ("slab", "slub", "slob", "slob-seg") else "--."
                ax.plot(xs, ys, style, label=name(a))
            ax.set_title("host %s" % p)
            ax.set_ylabel("M operations/s (host wall clock, all threads)")
            ax.set_xlabel("threads (host, pinned)")
        else:
            sizes = sorted({k[1] for k in kern if k[0] == p})
            for s in sizes:
                xs = sorted(c for (a, sz, c) in kern if a == p and sz == s)
                ys = [c * 1e3 / kern[(p, s, c)] for c in xs]
                ax.plot(xs, ys, "-o", label="%d B" % s)
            ax.set_title("kernel %s, QEMU MTTCG" % kname(p))
            ax.set_ylabel("M kmalloc+kfree pairs/s (guest real time, emulator incl.)")
            ax.set_xlabel("vCPUs")
        ax.set_xscale("log", base=2)
        ax.set_xticks(threads)
        ax.set_xticklabels([str(t) for t in threads])
        ax.minorticks_off()
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Quarry bench-scale: throughput against threads (higher is better); " + venue,
                 fontsize=9)
    fig.tight_layout()
    path = os.path.join(d, "scale.png")
    fig.savefig(path, dpi=90)
    return "plot: %s" % path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default="build/bench-scale")
    args = ap.parse_args()
    meta = read_meta(args.dir)
    host = read_host(args.dir)
    kern = read_kernel(args.dir)
    threads = sorted({k[2] for k in host} | {k[2] for k in kern})
    lines = ["# Quarry bench-scale", "",
             "Machine: %s cores (%s%s); %s; thread counts %s; NR_CPUS=%s build%s." % (
                 meta.get("cores", "?"), meta.get("cpu", "?"),
                 "".join(", " + meta[k] for k in ("cpu_id", "caches") if meta.get(k)),
                 meta.get("date", "?"),
                 meta.get("threads", "?"), meta.get("nr_cpus", "?"),
                 ", from a bundle" if meta.get("bundle") else ""),
             "Load average at the start and end: %s / %s (other work on the machine moves "
             "every figure). Host spinlocks yield every %s turns of a wait." % (
                 meta.get("loadavg_start", "?"), meta.get("loadavg_end", "?"),
                 meta.get("spins_per_yield", "?")),
             "",
             "## Host workloads (lab/bench/host/workloads.c)",
             "",
             "Host wall-clock ns per operation, aggregate: a run's wall time over all threads' "
             "operations (an operation is an allocation and, later, its free), median of %s runs "
             "at %s%% of the default operations; lower is better. In parentheses: throughput "
             "against the same allocator on 1 thread. Threads are pinned one per core and act "
             "as CPUs 0..n-1. glibc+lock is glibc's malloc behind one kernel spinlock: "
             "the yardstick for SLOB and SLOB-seg, whose heap has one lock by design."
             % (meta.get("runs", "?"), meta.get("scale", "?"))]
    lines += host_tables(host, threads) if host else ["", "(no host figures)"]
    diag = read_diag(args.dir)
    if diag:
        lines += diag_table(diag, threads)
    prof = read_profiles(args.dir)
    if prof:
        lines += profile_table(prof)
    cnt = read_counters(args.dir)
    if cnt:
        lines += counters_table(cnt)
    lines += ["", "## The kernel under QEMU MTTCG (%s; 4K pages, `%s`)" % (
                  meta.get("arches", "x86_64").replace(",", ", "), meta.get("kcmd", "?")),
              "",
              "Test 3 (concurrent_alloc_free): every CPU allocates then frees BENCH_OBJECTS "
              "objects of one size at once. ns of guest time per kmalloc + kfree pair on each "
              "CPU (the guest's TSC at the rate it measured at boot): real time of a TCG guest, "
              "each vCPU one host thread, the emulator's own cost and its contention included, "
              "so not the allocator's cost alone. In parentheses: the whole machine's "
              "throughput against 1 vCPU."]
    lines += kernel_tables(kern) if kern else ["", "(no kernel figures)"]
    atomics, events = read_kernel_logs(args.dir)
    if atomics:
        lines += atomic_table(atomics)
    if events:
        lines += events_table(events)
    note = plot(args.dir, host, kern, threads, meta)
    lines += ["", note.replace("plot: %s" % args.dir.rstrip("/") + "/", "Plot: ")
              if note.startswith("plot:") else note, ""]
    with open(os.path.join(args.dir, "report.md"), "w") as f:
        f.write("\n".join(lines))
    print(note, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
