#!/usr/bin/env python3
"""report_workloads.py - the multi-threaded workloads' part of `make bench-host`.

    section(out, w)   called by report.py: append the section to report.md via w()
    report_workloads.py --out DIR   print the section alone (for a quick look)

Reads DIR/wl-*.csv (one row per timed run, written by workloads.c:
allocator,threads,workload,run,wall_ns,cpu_ns,ops), DIR/wl-meta-*.txt and the
callgrind dumps DIR/wlcg-*/callgrind.out.N (one per workload and allocator at
one thread, named "workload|allocator|1|ops"). Writes DIR/wl-results.csv
(workload, threads, allocator, metric, median, min, max, runs).
"""
import argparse
import csv
import glob
import os
import re
import statistics
import sys

QUARRY = ["slab", "slub", "slob", "slob-seg"]  # Quarry's allocators (--variant)
ALLOCS = QUARRY + ["glibc", "jemalloc", "tcmalloc", "mimalloc"]
LABEL = {"slab": "Quarry SLAB", "slub": "Quarry SLUB", "slob": "Quarry SLOB",
         "slob-seg": "Quarry SLOB-seg", "glibc": "glibc", "jemalloc": "jemalloc",
         "tcmalloc": "tcmalloc", "mimalloc": "mimalloc"}
WORKLOADS = ["larson", "mixed", "prodcons"]
WHAT = {
    "larson": "larson: sets of 1000 slots (8-1000 B) handed between threads, random "
              "replacements",
    "mixed": "mixed: each thread's own 1024 slots, sizes 8 B-32 KiB (80% up to 256 B)",
    "prodcons": "prodcons: 2 threads: one allocates 16-512 B, the other frees (all frees "
                "remote); 1 thread: batches of 256 allocated then freed",
}
TRIGGER = "desc: Trigger: Client Request: "
# Quarry's entry points: the fast paths are inlined into these two.
FAST = ("kmalloc", "kfree")


def read_runs(out):
    runs = {}
    for path in sorted(glob.glob(os.path.join(out, "wl-*.csv"))):
        if os.path.basename(path) == "wl-results.csv":
            continue
        with open(path) as f:
            for r in csv.reader(f):
                if len(r) != 7:
                    continue
                alloc, thr, wl, _run, wall, cpu, ops = r
                if alloc == "quarry":
                    alloc = "slab"
                ops = max(int(ops), 1)
                d = runs.setdefault((wl, int(thr), alloc), {"cpu": [], "wall": []})
                d["cpu"].append(int(cpu) / ops)
                d["wall"].append(int(wall) / ops)
    return runs


def read_metas(out):
    metas = []
    for path in sorted(glob.glob(os.path.join(out, "wl-meta-*.txt"))):
        m = {}
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    m[k] = v
        metas.append((os.path.basename(path)[8:-4], m))
    return metas


def parse_dump(path):
    """(name, events, summary, per-function self costs {fn: [event values]})."""
    name, events, summary, npos = None, None, None, 1
    names, cur, skip, cost = {}, None, False, {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith(TRIGGER):
                name = line[len(TRIGGER):].strip()
                continue
            if line.startswith("positions: "):
                npos = len(line.split()[1:])
                continue
            if line.startswith("events: "):
                events = line.split()[1:]
                continue
            if line.startswith("summary: "):
                summary = [int(x) for x in line.split()[1:]]
                continue
            m = re.match(r"^(fn|cfn|fl|fi|fe|ob|cob|cfi|cfl)=\((\d+)\)(?: (.*))?$", line)
            if m:
                kind, ident, nm = m.groups()
                if kind in ("fn", "cfn") and nm:
                    names[ident] = nm
                if kind == "fn":
                    cur = ident
                continue
            if line.startswith("calls="):
                skip = True
                continue
            if line[:1].isdigit() or line[:1] in "+-*" or line.startswith("0x"):
                if skip:
                    skip = False
                    continue
                parts = line.split()[npos:]
                if cur is None or not parts:
                    continue
                acc = cost.setdefault(cur, [0] * len(events or []))
                for i, v in enumerate(parts[:len(acc)]):
                    acc[i] += int(v)
    return name, events, summary, {names.get(k, k): v for k, v in cost.items()}


def read_cg(out):
    res = {}
    for path in glob.glob(os.path.join(out, "wlcg-*", "callgrind.out.*")):
        name, events, summary, fns = parse_dump(path)
        if not (name and events and summary) or name.count("|") != 3:
            continue
        wl, alloc, thr, ops = name.split("|")
        if alloc == "quarry":
            alloc = "slab"
        res[(wl, alloc)] = (int(ops), dict(zip(events, summary)), events, fns)
    return res


def fmt(x, d=1):
    return "–" if x is None else f"{x:.{d}f}"


def table(w, header, rows):
    w("| " + " | ".join(header) + " |\n")
    w("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|\n")
    for r in rows:
        w("| " + " | ".join(r) + " |\n")
    w("\n")


def section(out, w):
    runs = read_runs(out)
    if not runs:
        return
    cg = read_cg(out)
    metas = read_metas(out)
    have = [a for a in ALLOCS if any(k[2] == a for k in runs)]
    cells = sorted({(k[0], k[1]) for k in runs},
                   key=lambda c: (WORKLOADS.index(c[0]) if c[0] in WORKLOADS else 9, c[1]))
    med = {k: statistics.median(v["cpu"]) for k, v in runs.items()}

    with open(os.path.join(out, "wl-results.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["workload", "threads", "allocator", "metric", "median", "min", "max", "runs"])
        for (wl, thr, a), d in sorted(runs.items()):
            for m in ("cpu", "wall"):
                v = d[m]
                wr.writerow([wl, thr, a, f"{m}_ns_per_op", f"{statistics.median(v):.2f}",
                             f"{min(v):.2f}", f"{max(v):.2f}", len(v)])
        for (wl, a), (ops, ev, _e, _f) in sorted(cg.items()):
            for e in ("Ir", "D1mr", "D1mw", "DLmr"):
                wr.writerow([wl, 1, a, f"callgrind_{e}_per_op", f"{ev.get(e, 0) / ops:.2f}",
                             "", "", 1])

    nruns = max(len(v["cpu"]) for v in runs.values())
    w("## Multi-threaded workloads (host-native)\n\n")
    w("Made by `lab/bench/host/workloads.c` (built as `workloads-4k` with SLAB and the peers, "
      "`workloads-4k-slub`, `-slob` and `-slob-seg` with Quarry's other allocators), threads "
      "pinned one per core acting as Quarry's CPUs, Quarry at 4K pages:\n\n")
    for wl in WORKLOADS:
        w(f"- {WHAT[wl]}.\n")
    w("\nEvery object gets a tag in its first 8 bytes and a byte in its last after "
      "allocation; the tag is checked before its free (the run fails on an overwritten tag). Figures are **nanoseconds of CPU time per "
      "allocation (each freed once), summed over the threads** (`CLOCK_THREAD_CPUTIME_ID` "
      "over the measured part; waiting threads sleep on a futex, so they cost no CPU time): "
      f"the median and range of {nruns} runs, each Quarry allocator's processes in turn, "
      "the allocators taking turns within each run after one untimed warm-up run, and each "
      "timed run right after an untimed one of the same allocator, workload and threads "
      "(so that no allocator starts cold on another's memory). CPU time "
      "rather than wall time because the machine is shared: ")
    loads = "; ".join(f"{tag}: {m.get('loadavg_start', '?')} → {m.get('loadavg_end', '?')}"
                      for tag, m in metas)
    w(f"load average (1/5/15 min) at the start → end of each process: {loads}. "
      "Wall-clock figures are in wl-results.csv. Prodcons at 2 threads moves every object's "
      "cache lines from core to core; its figure is dominated by that, and by the "
      "other work on the machine evicting both threads' caches.\n\n")
    w("How each allocator was reached:\n\n")
    seen = set()
    for _tag, m in metas:
        for k, v in m.items():
            if k.startswith("how_") and k[4:] not in seen:
                seen.add(k[4:])
                w(f"- **{LABEL.get(k[4:], k[4:])}**: {v}\n")
    w("\n")

    rows = []
    for wl, thr in cells:
        r = [wl, str(thr)]
        for a in have:
            d = runs.get((wl, thr, a))
            wide = d and min(d["cpu"]) > 0 and max(d["cpu"]) > 2 * min(d["cpu"])
            r.append("–" if not d else f"{statistics.median(d['cpu']):.1f} "
                     f"({min(d['cpu']):.1f}–{max(d['cpu']):.1f}){' ⚠' if wide else ''}")
        rows.append(r)
    w("CPU ns per allocation + free, median (min–max; ⚠: the range is wider than 2x, "
      "so the median is only a rough figure):\n\n")
    table(w, ["workload", "threads"] + [LABEL[a] for a in have], rows)

    rows = []
    for wl, thr in cells:
        g = med.get((wl, thr, "glibc"))
        r = [wl, str(thr)]
        for a in have:
            v = med.get((wl, thr, a))
            r.append("–" if v is None or not g else f"{v / g:.2f}")
        fastest = min((a for a in have if a not in QUARRY and (wl, thr, a) in med),
                      key=lambda a: med[(wl, thr, a)], default=None)
        r.append(fastest or "–")
        for q in [q for q in QUARRY if q in have]:
            v, f = med.get((wl, thr, q)), med.get((wl, thr, fastest)) if fastest else None
            r.append("–" if v is None or not f else f"{v / f:.2f}")
        rows.append(r)
    w("Time ratio to glibc (median CPU time; below 1 is faster), the fastest peer, and "
      "Quarry's ratio to it:\n\n")
    table(w, ["workload", "threads"] + [LABEL[a] for a in have] +
          ["fastest peer"] + [LABEL[q][7:] + " / fastest" for q in QUARRY if q in have], rows)

    if cg:
        w("### One thread under callgrind\n\n")
        w("Exact counts (valgrind's callgrind, the same simulated caches as above: 32 KiB "
          "8-way L1s, 8 MiB 16-way LL, ASLR off) for the measured part of each workload at "
          "one thread, per allocation + free, including the workload's own work (random "
          "numbers, tags: the same for every allocator).\n\n")
        rows = []
        for wl in WORKLOADS:
            for metric, ev_names, d in (("instructions", ("Ir",), 0),
                                        ("allocator's instructions", ("Ir",), 0),
                                        ("L1 data misses", ("D1mr", "D1mw"), 2),
                                        ("allocator's L1 data misses", ("D1mr", "D1mw"), 2)):
                r = [wl, metric]
                for a in have:
                    c = cg.get((wl, a))
                    if not c:
                        r.append("–")
                        continue
                    ops, ev, events, fns = c
                    v = sum(ev.get(e, 0) for e in ev_names)
                    if metric.startswith("allocator"):
                        idx = [events.index(e) for e in ev_names if e in events]
                        v -= sum(c2[i] for n, c2 in fns.items() if n.endswith("_" + wl)
                                 for i in idx)
                    r.append(fmt(v / ops, d))
                rows.append(r)
        w("\"allocator's\": all but the workload's own function (random numbers, tags, "
          "slots; its calls into the allocator excluded), so the allocator and what it calls.\n\n")
        table(w, ["workload", "per op"] + [LABEL[a] for a in have], rows)
        for a in QUARRY:
            parts = []
            for wl in WORKLOADS:
                c = cg.get((wl, a))
                if not c:
                    continue
                ops, ev, events, fns = c
                tot_ir = ev.get("Ir", 0) or 1
                tot_d1 = (ev.get("D1mr", 0) + ev.get("D1mw", 0)) or 1
                ir = events.index("Ir")
                d1 = [events.index(e) for e in ("D1mr", "D1mw") if e in events]
                fast_ir = sum(fns.get(f, [0] * len(events))[ir] for f in FAST)
                fast_d1 = sum(fns.get(f, [0] * len(events))[i] for f in FAST for i in d1)
                top = sorted(fns.items(), key=lambda kv: -kv[1][ir])[:6]
                parts.append(
                    f"- {wl}: kmalloc + kfree themselves (the fast paths are inlined into "
                    f"them) {fast_ir / ops:.1f} instructions and {fast_d1 / ops:.2f} L1 data "
                    f"misses per op ({100 * fast_ir / tot_ir:.0f}% of the instructions, "
                    f"{100 * fast_d1 / tot_d1:.0f}% of the L1 data misses); top functions by "
                    "instructions: " + ", ".join(
                        f"{n} {v[ir] / ops:.1f}" for n, v in top) + ".\n")
            if parts:
                w(f"Where {LABEL[a]}'s instructions go (self cost per op):\n\n")
                w("".join(parts) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    lines = []
    section(args.out, lines.append)
    sys.stdout.write("".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
