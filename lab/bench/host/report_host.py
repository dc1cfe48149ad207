#!/usr/bin/env python3
"""report_host.py - results.csv and report.md of `make bench-host`.

    report.py host --out DIR [--procs N] [--rounds N] [--count N] [--cg-count N]

Reads DIR/timed-*.csv (rows written by the bench binaries, one file per
process: median, _min and _max of each per-operation figure over the rounds,
in TSC ticks; merged over the processes), DIR/meta-*.txt,
and the callgrind dumps DIR/cg-*/callgrind.out.N (one per measured loop, named
"test|metric|allocator|size|ops" by the client request that made it). Writes
DIR/results.csv (columns: arch, page_size, allocator, cpus, mode, test, size,
metric, value, unit; mode is "host") and DIR/report.md.
"""
import argparse
import csv
import glob
import os
import re
import statistics
import subprocess
import sys

import report_workloads

COLUMNS = ["arch", "page_size", "allocator", "cpus", "mode", "test", "size", "metric", "value", "unit"]
SINGLE_SIZES = [8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192, 16384]
CONC_SIZES = [32, 64, 128, 256, 512, 1024, 2048, 4096]
COUNT = 10000
USER = ["glibc", "jemalloc", "tcmalloc", "mimalloc"]
ORDER = ["slab", "slab-idx4", "glibc", "jemalloc", "tcmalloc", "mimalloc", "freelist"]
LABEL = {"slab": "Quarry SLAB", "slab-idx4": "Quarry SLAB, IDX=4", "glibc": "glibc",
         "jemalloc": "jemalloc", "tcmalloc": "tcmalloc", "mimalloc": "mimalloc",
         "freelist": "bare free list"}


def read_meta(path):
    meta = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    meta[k] = v
    return meta


def read_timed(out):
    """Rows of every process (timed-TAG.pN.csv), merged: the median of the
    processes' medians, the least _min and the greatest _max."""
    groups = {}
    for path in sorted(glob.glob(os.path.join(out, "timed-*.csv"))):
        with open(path) as f:
            for r in csv.reader(f):
                if len(r) == len(COLUMNS) and r[0] != "arch":
                    groups.setdefault(tuple(r[:8]), (r[9], []))[1].append(float(r[8]))
    rows = []
    for key, (unit, vals) in groups.items():
        metric = key[7]
        v = min(vals) if metric.endswith("_min") else max(vals) if metric.endswith("_max") \
            else statistics.median(vals)
        rows.append(list(key) + ["%.2f" % v, unit])
    return rows


TRIGGER = "desc: Trigger: Client Request: "


def read_callgrind(out):
    """One row set per dump: instructions per op and simulated misses over the loop."""
    rows = []
    for d in sorted(glob.glob(os.path.join(out, "cg-*"))):
        meta = read_meta(os.path.join(d, "meta.txt"))
        page = meta.get("page_size", "4K")
        for path in glob.glob(os.path.join(d, "callgrind.out.*")):
            name, events, summary = None, None, None
            with open(path, errors="replace") as f:
                for line in f:
                    if line.startswith(TRIGGER):
                        name = line[len(TRIGGER):].strip()
                    elif line.startswith("events: "):
                        events = line.split()[1:]
                    elif line.startswith("summary: "):
                        summary = [int(x) for x in line.split()[1:]]
                    if name and events and summary:
                        break
            if not (name and events and summary) or name.count("|") != 4:
                continue
            test, metric, alloc, size, ops = name.split("|")
            ev = dict(zip(events, summary))
            ops = int(ops)
            cpus = "2" if test == "remote_free" else "1"
            base = ["x86_64", page, alloc, cpus, "host", test, size]
            rows.append(base + [f"{metric}_instructions", f"{ev.get('Ir', 0) / ops:.2f}",
                                "instructions"])
            rows.append(base + [f"{metric}_d1_misses", str(ev.get("D1mr", 0) + ev.get("D1mw", 0)),
                                "misses"])
            rows.append(base + [f"{metric}_ll_misses",
                                str(ev.get("DLmr", 0) + ev.get("DLmw", 0) + ev.get("ILmr", 0)),
                                "misses"])
            rows.append(base + [f"{metric}_i1_misses", str(ev.get("I1mr", 0)), "misses"])
            rows.append(base + [f"{metric}_ops", str(ops), "count"])
    return rows


def self_costs(path):
    """Instructions executed in each function itself (not its callees) in one dump."""
    names, cur, skip, cost = {}, None, False, {}
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"^(fn|cfn|fl|fi|fe|ob|cob)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
            if m:
                kind, ident, name = m.groups()
                if kind in ("fn", "cfn") and name:
                    names[ident] = name
                if kind == "fn":
                    cur = ident
                continue
            if line.startswith("calls="):
                skip = True
                continue
            if line[:1].isdigit() or line[:1] in "+-*":
                if skip:
                    skip = False
                    continue
                parts = line.split()
                if len(parts) > 1 and cur is not None:
                    cost[cur] = cost.get(cur, 0) + int(parts[1])
    return {names.get(k, k): v for k, v in cost.items()}


def find_dump(out, tag, want):
    for path in glob.glob(os.path.join(out, f"cg-{tag}", "callgrind.out.*")):
        with open(path, errors="replace") as f:
            for line in f:
                if line.startswith(TRIGGER):
                    if line[len(TRIGGER):].strip() == want:
                        return path
                    break
    return None


class Table:
    def __init__(self, rows):
        self.v = {}
        for r in rows:
            arch, page, alloc, cpus, mode, test, size, metric, value, unit = r
            self.v[(page, alloc, cpus, test, int(size), metric)] = float(value)

    def get(self, page, alloc, cpus, test, size, metric):
        return self.v.get((page, alloc, str(cpus), test, size, metric))

    def allocators(self, page):
        have = {k[1] for k in self.v if k[0] == page}
        return [a for a in ORDER if a in have]


def fmt(x, digits=1):
    if x is None:
        return "–"
    return f"{x:.{digits}f}"


def md_table(header, rows, align=None):
    out = ["| " + " | ".join(header) + " |"]
    out.append("|" + "|".join(align or (["---"] + ["---:"] * (len(header) - 1))) + "|")
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def git_head():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def mm_status():
    try:
        st = subprocess.run(["git", "status", "--short", "--", "mm/"], capture_output=True,
                            text=True, check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return ""
    return ", ".join(line.strip() for line in st if line.strip())


def headline(t, page, w):
    """The issue's target: 64-byte pairs, Quarry against the fastest user-space allocator."""
    allocs = t.allocators(page)
    if "slab" not in allocs:
        return
    w(f"### 64-byte kmalloc/kfree pairs, {page} pages (test 2, TSC ticks per pair)\n\n")
    rows = []
    for a in allocs:
        med = t.get(page, a, 1, "kmalloc_free_pair", 64, "pair_cost")
        lo = t.get(page, a, 1, "kmalloc_free_pair", 64, "pair_cost_min")
        hi = t.get(page, a, 1, "kmalloc_free_pair", 64, "pair_cost_max")
        rows.append([LABEL[a], fmt(med), fmt(lo), fmt(hi)])
    w(md_table(["allocator", "median", "min", "max"], rows))
    q = t.get(page, "slab", 1, "kmalloc_free_pair", 64, "pair_cost")
    users = [(t.get(page, a, 1, "kmalloc_free_pair", 64, "pair_cost"), a) for a in USER]
    users = [u for u in users if u[0] is not None]
    fl = t.get(page, "freelist", 1, "kmalloc_free_pair", 64, "pair_cost")
    w("\n")
    if users and q is not None:
        best, name = min(users)
        verdict = "met" if q <= best else "missed"
        w(f"- Target \"no slower than the fastest of the four\": fastest is {name} at "
          f"{best:.1f}; Quarry {q:.1f} = {q / best:.2f}x: **{verdict}**.\n")
    if fl and q is not None:
        verdict = "met" if q <= 1.5 * fl else "missed"
        w(f"- Target \"within 1.5x a bare one-pointer free list\": free list {fl:.1f}; "
          f"Quarry {q:.1f} = {q / fl:.2f}x: **{verdict}**.\n")
    w("\n")


def single_tables(t, page, w):
    allocs = t.allocators(page)
    w(f"### Test 1, {page} pages: {COUNT} times kmalloc(N) then {COUNT} times kfree "
      "(median TSC ticks per op, alloc / free)\n\n")
    rows = []
    for s in SINGLE_SIZES:
        row = [s]
        for a in allocs:
            al = t.get(page, a, 1, "kmalloc_then_free", s, "alloc_cost")
            fr = t.get(page, a, 1, "kmalloc_then_free", s, "free_cost")
            row.append(f"{fmt(al)} / {fmt(fr)}")
        rows.append(row)
    w(md_table(["size"] + [LABEL[a] for a in allocs], rows))
    w(f"\n### Test 2, {page} pages: {COUNT} times kmalloc(N)/kfree "
      "(TSC ticks per pair: median, min–max)\n\n")
    rows = []
    for s in SINGLE_SIZES:
        row = [s]
        for a in allocs:
            med = t.get(page, a, 1, "kmalloc_free_pair", s, "pair_cost")
            lo = t.get(page, a, 1, "kmalloc_free_pair", s, "pair_cost_min")
            hi = t.get(page, a, 1, "kmalloc_free_pair", s, "pair_cost_max")
            row.append(f"**{fmt(med)}** ({fmt(lo)}–{fmt(hi)})")
        rows.append(row)
    w(md_table(["size"] + [LABEL[a] for a in allocs], rows))
    w("\n")


def concurrent_tables(t, page, w, ncpus):
    allocs = [a for a in t.allocators(page)
              if t.get(page, a, 1, "concurrent_alloc_free", 32, "alloc_cost") is not None]
    if not allocs:
        return
    w(f"### Test 3, {page} pages: Kmalloc N*alloc N*free(S) on 1 and {ncpus} CPUs at once "
      "(median TSC ticks per op, average over the CPUs, alloc / free; "
      f"ratio = {ncpus}-CPU over 1-CPU cost of alloc+free)\n\n")
    rows = []
    for s in CONC_SIZES:
        row = [s]
        for a in allocs:
            a1 = t.get(page, a, 1, "concurrent_alloc_free", s, "alloc_cost")
            f1 = t.get(page, a, 1, "concurrent_alloc_free", s, "free_cost")
            an = t.get(page, a, ncpus, "concurrent_alloc_free", s, "alloc_cost")
            fn = t.get(page, a, ncpus, "concurrent_alloc_free", s, "free_cost")
            ratio = (an + fn) / (a1 + f1) if None not in (a1, f1, an, fn) and a1 + f1 > 0 else None
            row.append(f"{fmt(a1)} / {fmt(f1)} → {fmt(an)} / {fmt(fn)} ({fmt(ratio, 2)}x)")
        rows.append(row)
    w(md_table(["size"] + [LABEL[a] for a in allocs], rows))
    if ncpus >= 2 and "slab" in allocs:
        w(f"\nPer-CPU figures for Quarry ({ncpus} CPUs, median ticks per op, alloc / free):\n\n")
        rows = []
        for s in CONC_SIZES:
            row = [s]
            for c in range(ncpus):
                al = t.get(page, "slab", ncpus, "concurrent_alloc_free_cpu", s, f"cpu{c}_alloc_cost")
                fr = t.get(page, "slab", ncpus, "concurrent_alloc_free_cpu", s, f"cpu{c}_free_cost")
                row.append(f"{fmt(al)} / {fmt(fr)}")
            rows.append(row)
        w(md_table(["size"] + [f"CPU {c}" for c in range(ncpus)], rows))
        a1 = t.get(page, "slab", 1, "concurrent_alloc_free", 32, "alloc_cost")
        f1 = t.get(page, "slab", 1, "concurrent_alloc_free", 32, "free_cost")
        an = t.get(page, "slab", ncpus, "concurrent_alloc_free", 32, "alloc_cost")
        fn = t.get(page, "slab", ncpus, "concurrent_alloc_free", 32, "free_cost")
        if None not in (a1, f1, an, fn):
            r = (an + fn) / (a1 + f1)
            w(f"\n- Target \"per-operation cost with 2 CPUs within 1.3x the 1-CPU cost at 32 "
              f"bytes\": {r:.2f}x: **{'met' if r <= 1.3 else 'missed'}**.\n")
    w(f"\n### Test 3b, {page} pages: kmalloc(S)/kfree pairs on 1 and {ncpus} CPUs at once "
      "(median TSC ticks per pair, average over the CPUs)\n\n")
    rows = []
    for s in CONC_SIZES:
        row = [s]
        for a in allocs:
            p1 = t.get(page, a, 1, "concurrent_pair", s, "pair_cost")
            pn = t.get(page, a, ncpus, "concurrent_pair", s, "pair_cost")
            row.append(f"{fmt(p1)} → {fmt(pn)}")
        rows.append(row)
    w(md_table(["size"] + [LABEL[a] for a in allocs], rows))
    w("\n")


def remote_table(t, page, w):
    allocs = [a for a in t.allocators(page)
              if t.get(page, a, 2, "remote_free", 32, "alloc_cost") is not None]
    if not allocs:
        return
    w(f"### Test 4, {page} pages: remote free: CPU 0 allocates {COUNT} objects, then CPU 1 "
      "frees them (median TSC ticks per op, alloc on CPU 0 / free on CPU 1)\n\n")
    rows = []
    for s in CONC_SIZES:
        row = [s]
        for a in allocs:
            al = t.get(page, a, 2, "remote_free", s, "alloc_cost")
            fr = t.get(page, a, 2, "remote_free", s, "free_cost")
            row.append(f"{fmt(al)} / {fmt(fr)}")
        rows.append(row)
    w(md_table(["size"] + [LABEL[a] for a in allocs], rows))
    w("\n")


def variant_table(t, w):
    pages = [p for p in ("4K", "64K") if t.get(p, "slab-idx4", 1, "kmalloc_free_pair", 64,
                                                     "pair_cost") is not None]
    if not pages:
        return
    w("### Quarry, natural freelist index against SLAB_IDX=4 (timed, separate processes; "
      "median TSC ticks per op)\n\n")
    rows = []
    for s in SINGLE_SIZES:
        row = [s]
        for p in pages:
            for a in ("slab", "slab-idx4"):
                al = t.get(p, a, 1, "kmalloc_then_free", s, "alloc_cost")
                fr = t.get(p, a, 1, "kmalloc_then_free", s, "free_cost")
                pr = t.get(p, a, 1, "kmalloc_free_pair", s, "pair_cost")
                row.append(f"{fmt(al)} / {fmt(fr)} ; {fmt(pr)}")
        rows.append(row)
    hdr = ["size"]
    for p in pages:
        hdr += [f"{p} natural: alloc / free ; pair", f"{p} IDX=4: alloc / free ; pair"]
    w(md_table(hdr, rows))
    w("\n")


def cg_section(t, w, cg_count):
    have = [(p, a) for p in ("4K", "64K") for a in ORDER
            if t.get(p, a, 1, "kmalloc_free_pair", 64, "pair_instructions") is not None]
    if not have:
        w("## Instruction and cache-miss counts\n\nNo callgrind runs (valgrind missing).\n\n")
        return
    w("## Instruction and simulated cache-miss counts (callgrind, cache simulation)\n\n")
    w(f"Exact counts under valgrind's callgrind with `--cache-sim=yes`, a fixed geometry "
      f"(I1 and D1 32 KiB 8-way, LL 8 MiB 16-way, 64-byte lines), ASLR off, {cg_count} "
      "objects per size, one thread (test 4 for Quarry: one thread acting as CPU 0, then as "
      "CPU 1). Each loop is measured after an untimed warm-up of the same loop; the "
      "instruction figures include the benchmark loop itself (a handful per op). D1 and LL "
      f"columns are misses over the whole loop of {cg_count} operations.\n\n")
    for page in ("4K", "64K"):
        if t.get(page, "slab", 1, "kmalloc_free_pair", 64, "pair_instructions") is None:
            continue
        idx = t.get(page, "slab-idx4", 1, "kmalloc_free_pair", 64, "pair_instructions") is not None
        w(f"### Quarry, {page} pages: natural index against SLAB_IDX=4\n\n")
        hdr = ["test", "size", "instr/op natural", "instr/op IDX=4", "D1 miss natural",
               "D1 miss IDX=4", "LL miss natural", "LL miss IDX=4"]
        rows = []
        tot = {"nat_d1": 0, "idx_d1": 0, "nat_ll": 0, "idx_ll": 0, "nat_ir": 0, "idx_ir": 0}
        for test, metric, sizes, cpus in (("kmalloc_then_free", "alloc", SINGLE_SIZES, 1),
                                          ("kmalloc_then_free", "free", SINGLE_SIZES, 1),
                                          ("kmalloc_free_pair", "pair", SINGLE_SIZES, 1),
                                          ("remote_free", "alloc", CONC_SIZES, 2),
                                          ("remote_free", "free", CONC_SIZES, 2)):
            for s in sizes:
                vals = []
                for a in ("slab", "slab-idx4"):
                    vals.append([t.get(page, a, cpus, test, s, f"{metric}_{m}")
                                 for m in ("instructions", "d1_misses", "ll_misses")])
                if vals[0][0] is None:
                    continue
                if None not in vals[0] + vals[1]:
                    tot["nat_ir"] += vals[0][0]
                    tot["idx_ir"] += vals[1][0]
                    tot["nat_d1"] += vals[0][1]
                    tot["idx_d1"] += vals[1][1]
                    tot["nat_ll"] += vals[0][2]
                    tot["idx_ll"] += vals[1][2]
                rows.append([f"{test} {metric}", s, fmt(vals[0][0], 2), fmt(vals[1][0], 2),
                             fmt(vals[0][1], 0), fmt(vals[1][1], 0), fmt(vals[0][2], 0),
                             fmt(vals[1][2], 0)])
        if idx and tot["idx_d1"]:
            rows.append(["**all loops**", "", fmt(tot["nat_ir"], 1), fmt(tot["idx_ir"], 1),
                         f"**{tot['nat_d1']:.0f}**", f"**{tot['idx_d1']:.0f}**",
                         f"**{tot['nat_ll']:.0f}**", f"**{tot['idx_ll']:.0f}**"])
        w(md_table(hdr, rows, ["---", "---:"] + ["---:"] * 6))
        if idx and tot["idx_d1"]:
            d1 = 100.0 * (tot["nat_d1"] - tot["idx_d1"]) / tot["idx_d1"]
            ll = 100.0 * (tot["nat_ll"] - tot["idx_ll"]) / tot["idx_ll"] if tot["idx_ll"] else 0
            ir = 100.0 * (tot["nat_ir"] - tot["idx_ir"]) / tot["idx_ir"] if tot["idx_ir"] else 0
            w(f"\nNatural index against IDX=4, all loops together: D1 misses {d1:+.1f}%, LL "
              f"misses {ll:+.1f}%, instructions per op (summed) {ir:+.1f}% (seed 003 claims "
              "about 5% fewer cache misses, on `perf bench sched messaging`). Differences "
              "of a few tenths of a percent are layout noise: the two binaries' names differ, "
              "which shifts the stack and so the cache sets it maps to.\n")
            if tot["nat_d1"] == tot["idx_d1"] and tot["nat_ir"] == tot["idx_ir"]:
                w("\n**The two builds count the same instructions and misses: the SLAB_IDX=4 "
                  "build does not differ from the natural one (is CONFIG_SLAB_IDX_BYTES "
                  "implemented in mm/ yet?).**\n")
        w("\n")
    allocs = [a for a in ORDER
              if t.get("4K", a, 1, "kmalloc_free_pair", 64, "pair_instructions") is not None]
    if len(allocs) > 2:
        w("### Every allocator, 4K build: instructions per op and D1 misses per loop\n\n")
        rows = []
        for s in SINGLE_SIZES:
            row = [s]
            for a in allocs:
                ia = t.get("4K", a, 1, "kmalloc_then_free", s, "alloc_instructions")
                if_ = t.get("4K", a, 1, "kmalloc_then_free", s, "free_instructions")
                ip = t.get("4K", a, 1, "kmalloc_free_pair", s, "pair_instructions")
                row.append(f"{fmt(ia)} / {fmt(if_)} ; {fmt(ip)}")
            rows.append(row)
        w("Test 1 alloc / free ; test 2 pair (instructions per op):\n\n")
        w(md_table(["size"] + [LABEL[a] for a in allocs], rows))
        rows = []
        for s in SINGLE_SIZES:
            row = [s]
            for a in allocs:
                da = t.get("4K", a, 1, "kmalloc_then_free", s, "alloc_d1_misses")
                df = t.get("4K", a, 1, "kmalloc_then_free", s, "free_d1_misses")
                dp = t.get("4K", a, 1, "kmalloc_free_pair", s, "pair_d1_misses")
                row.append(f"{fmt(da, 0)} / {fmt(df, 0)} ; {fmt(dp, 0)}")
            rows.append(row)
        w(f"\nD1 misses per loop of {cg_count} ops, test 1 alloc / free ; test 2 pair:\n\n")
        w(md_table(["size"] + [LABEL[a] for a in allocs], rows))
        w("\n")


def where_section(out, w):
    """Quarry's own instructions per operation, function by function (4K, natural build)."""
    loops = [("kmalloc_free_pair|pair|slab|64|", "64-byte kmalloc/kfree pair (test 2)"),
             ("kmalloc_then_free|alloc|slab|32|", "32-byte kmalloc in test 1 (refills)"),
             ("kmalloc_then_free|free|slab|32|", "32-byte kfree in test 1 (flushes)")]
    meta = read_meta(os.path.join(out, "cg-4k", "meta.txt"))
    ops = int(meta.get("count", "0") or 0)
    found = []
    for prefix, label in loops:
        path = find_dump(out, "4k", prefix + str(ops)) if ops else None
        if path:
            found.append((label, self_costs(path)))
    if not found:
        return
    w("### Where Quarry's instructions go (4K, natural build; instructions per operation "
      "executed in each function itself, callees excluded)\n\n")
    for label, cost in found:
        total = sum(cost.values())
        rows = [[f"`{fn}`", f"{c / ops:.1f}", f"{100.0 * c / total:.0f}%"]
                for fn, c in sorted(cost.items(), key=lambda kv: -kv[1]) if c / ops >= 0.5]
        w(f"{label}: {total / ops:.1f} instructions per op in all\n\n")
        w(md_table(["function", "instr/op", "share"], rows))
        w("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--procs", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--cg-count", type=int, default=1000)
    args = ap.parse_args()
    global COUNT
    COUNT = args.count

    timed = read_timed(args.out)
    cgrows = read_callgrind(args.out)
    rows = timed + cgrows
    with open(os.path.join(args.out, "results.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(COLUMNS)
        wr.writerows(rows)
    t = Table([r for r in rows if r[5] != "tsc"])

    metas = {os.path.basename(p)[5:-4]: read_meta(p)
             for p in glob.glob(os.path.join(args.out, "meta-*.txt"))}
    m4 = metas.get("4k", {})
    tsc = [float(r[8]) for r in timed if r[5] == "tsc"]
    ncpus = int(m4.get("cores", "2"))

    lines = []
    w = lines.append
    w("# Quarry host-native benchmark\n\n")
    w("Quarry's mm/ (buddy + SLAB, the kernel's own sources) built as a Linux user-space "
      "program (`-O2 -DQUARRY_HOST`, no sanitizers, slab event counters off as in the kernel's "
      "default build), threads pinned to cores acting as CPUs, against the user-space "
      "allocators in the same process. Made by `make bench-host` "
      "(`make -f lab/bench/host/bench-host.mk`).\n\n")
    w(f"- Commit {git_head()}; CPU: {cpu_model()}; {ncpus} cores.\n")
    if tsc:
        w(f"- Figures are TSC ticks (`rdtsc`, constant rate), estimated at "
          f"{statistics.median(tsc) / 1e6:.1f} MHz against CLOCK_MONOTONIC_RAW. Each loop of "
          f"{args.count} operations is timed as a whole and divided; {args.procs} processes "
          f"of {args.rounds} rounds each, the allocators taking turns within each round (the "
          "starting allocator rotates every round), one untimed warm-up loop before each "
          "measured one; tables give the median over the processes of each process's median "
          "of the rounds (each process has its own address layout, which moves loops this "
          "short by up to a third), results.csv also the min and max of all rounds.\n")
    loads = [f"{tag}: {m.get('loadavg_start', '?')} → {m.get('loadavg_end', '?')}"
              for tag, m in sorted(metas.items())]
    w("- Load average (1/5/15 min) at the start → end of each timed run: " + "; ".join(loads)
      + f". The machine has {ncpus} cores: anything else running makes the timings noisier "
      "(the callgrind counts are not affected).\n")
    dirty = mm_status()
    if dirty:
        w(f"- The work tree's mm/ had uncommitted changes when this ran ({dirty}): the figures "
          "are for that tree, not for the commit alone.\n")
    w("- Quarry's arena (its \"physical memory\", an mmap'd region) is faulted in before the "
      "run, as the kernel's RAM is mapped; the user-space allocators get their memory from "
      "the OS as usual (the warm-up loop takes most of their page faults).\n")
    w("- Tests follow Lameter's slab_test: one byte of each object is written "
      "after allocation.\n\n")
    w("How each allocator was reached:\n\n")
    for a in ORDER:
        for tag, meta in sorted(metas.items()):
            how = meta.get(f"how_{a}")
            if how:
                w(f"- **{LABEL[a]}** ({a}): {how}\n")
                break
    w("\n## The issue's targets\n\n")
    for page in ("4K", "64K"):
        headline(t, page, w)
    w("## Single CPU\n\n")
    for page in ("4K", "64K"):
        if t.allocators(page):
            single_tables(t, page, w)
    variant_table(t, w)
    w("## Concurrent and remote free\n\n")
    w("Threads are pinned one per core and start each phase together through a spinning "
      "barrier. Quarry's node and zone locks are its kernel spinlocks, spinning in "
      "user space: if the holder's thread is descheduled (other work on the machine), the "
      "waiter spins until it runs again, which the kernel (interrupts off while a lock is "
      "held) never sees. The occasional figures in the thousands of ticks are that, or page "
      "faults in the user-space allocators; the median over the rounds damps them, the "
      "min in results.csv shows the undisturbed cost.\n\n")
    for page in ("4K", "64K"):
        concurrent_tables(t, page, w, ncpus)
        remote_table(t, page, w)
    cg_section(t, w, args.cg_count)
    where_section(args.out, w)
    report_workloads.section(args.out, w)
    w("## Files\n\n- results.csv: every figure (timed rows: metric, metric_min, metric_max "
      "in ticks; callgrind rows: *_instructions per op, *_d1_misses, *_ll_misses, "
      "*_i1_misses per loop, *_ops).\n- console-*.log: Quarry's boot output (slab layouts) "
      "per binary; cg-*/: callgrind dumps, one per measured loop "
      "(`callgrind_annotate cg-4k/callgrind.out.N` shows where the instructions went).\n")
    with open(os.path.join(args.out, "report.md"), "w") as f:
        f.write("".join(lines))
    # The headline on the console too.
    q = t.get("4K", "slab", 1, "kmalloc_free_pair", 64, "pair_cost")
    if q is not None:
        parts = [f"{a} {t.get('4K', a, 1, 'kmalloc_free_pair', 64, 'pair_cost'):.1f}"
                 for a in t.allocators("4K")
                 if t.get("4K", a, 1, "kmalloc_free_pair", 64, "pair_cost") is not None]
        print("bench-host: 64-byte pair, 4K, median ticks: " + ", ".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
