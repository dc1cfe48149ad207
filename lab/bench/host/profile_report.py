#!/usr/bin/env python3
"""profile_report.py - sum up lab/bench/host/profile.sh's files as Markdown.

    profile_report.py --dir build/bench-host/profile > profile.md

Reads report-NAME.txt (perf report by symbol), annotate-NAME-{kfree,kmalloc}.txt
(perf annotate), stats-NAME.txt (the SLAB_STATS=1 run's counters) and
mm-symbols-TAG.txt, NAME being ALLOC-WORKLOAD-THREADS.
"""
import argparse
import os
import re
import sys

WORKLOADS = ["larson", "mixed", "prodcons"]
FAST = {"kmalloc", "kfree"}


def read_report(path):
    """[(percent, kernel?, symbol)] from perf report --stdio."""
    out = []
    if not os.path.exists(path):
        return out
    for line in open(path, errors="replace"):
        m = re.match(r"^\s+([\d.]+)%\s+\[(.)\]\s+(\S+)", line)
        if m:
            out.append((float(m.group(1)), m.group(2) == "k", m.group(3)))
    return out


def shares(rows, mm):
    fast = sum(p for p, k, s in rows if not k and s in FAST)
    slow = sum(p for p, k, s in rows if not k and s in mm and s not in FAST)
    wl = sum(p for p, k, s in rows if not k and s.startswith("quarry_"))
    kern = sum(p for p, k, s in rows if k)
    other = sum(p for p, _k, _s in rows) - fast - slow - wl - kern
    top = [f"{s} {p:.1f}" for p, k, s in rows if not k and s in mm and s not in FAST][:4]
    return fast, slow, wl, kern, other, top


def read_annotate(path, n=6):
    """The n instructions with most samples: (percent, inline function, instruction,
    the instruction before it: the one the CPU most likely waited for)."""
    if not os.path.exists(path):
        return []
    ins, ctx = [], ""
    for line in open(path, errors="replace"):
        m = re.match(r"^\s*:\s+\d+\s+(\w+)\(\):", line)
        if m:
            ctx = m.group(1)
            continue
        m = re.match(r"^\s*([\d.]+)\s*:\s+([0-9a-f]+):\s+(.*)$", line.rstrip())
        if m:
            ins.append((float(m.group(1)), ctx, re.sub(r"\s+", " ", m.group(3)).split("#")[0]
                        .strip()))
    ranked = sorted(range(len(ins)), key=lambda i: -ins[i][0])[:n]
    return [(ins[i][0], ins[i][1], ins[i][2], ins[i - 1][2] if i else "(entry)")
            for i in sorted(ranked, key=lambda i: -ins[i][0])]


def read_stats(path):
    """(alloc fast, alloc total, free fast, free total) summed over the caches."""
    af = at = ff = ft = 0
    if not os.path.exists(path):
        return None
    for line in open(path, errors="replace"):
        m = re.search(r"allocs (\d+) \(array (\d+), refill \d+\) frees (\d+) \(array (\d+)", line)
        if m:
            at += int(m.group(1))
            af += int(m.group(2))
            ft += int(m.group(3))
            ff += int(m.group(4))
            continue
        m = re.search(r"alloc fast (\d+) slow (\d+) .*; free fast (\d+) slow (\d+)", line)
        if m:
            af += int(m.group(1))
            at += int(m.group(1)) + int(m.group(2))
            ff += int(m.group(3))
            ft += int(m.group(3)) + int(m.group(4))
    return af, at, ff, ft


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    d = ap.parse_args().dir
    w = sys.stdout.write
    w("# Where Quarry's time goes on the host workloads\n\n")
    w("Made by `make bench-host-profile` (lab/bench/host/profile.sh): each workload at 1 "
      "and 2 threads, Quarry alone, under `perf record -e cpu-clock` (this machine exposes no "
      "hardware counters: a software clock; a sample lands on the instruction after the one "
      "the CPU waited for), and the same run in a SLAB_STATS=1 build for the fast-path "
      "counts. Shares are of the samples in the timed run (the events are enabled "
      "only there); the fast-path counts cover the whole process (set-up and warm-up "
      "included).\n\n")
    w("| allocator | workload | threads | kmalloc+kfree (fast paths) | rest of mm/ | "
      "workload's own code | kernel | other | fast allocs | fast frees | "
      "hottest mm/ slow paths (%) |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
    annots = []
    for alloc, tag in (("slab", "4k"), ("slub", "4k-slub")):
        mmf = os.path.join(d, f"mm-symbols-{tag}.txt")
        mm = set(open(mmf).read().split()) if os.path.exists(mmf) else set()
        for wl in WORKLOADS:
            for t in (1, 2):
                name = f"{alloc}-{wl}-{t}"
                rows = read_report(os.path.join(d, f"report-{name}.txt"))
                if not rows:
                    continue
                fast, slow, wlp, kern, other, top = shares(rows, mm)
                st = read_stats(os.path.join(d, f"stats-{name}.txt"))
                fa = f"{100 * st[0] / st[1]:.1f}%" if st and st[1] else "–"
                ff = f"{100 * st[2] / st[3]:.1f}%" if st and st[3] else "–"
                w(f"| {alloc} | {wl} | {t} | {fast:.1f}% | {slow:.1f}% | {wlp:.1f}% | "
                  f"{kern:.1f}% | {other:.1f}% | {fa} | {ff} | {', '.join(top) or '–'} |\n")
                for fn in ("kfree", "kmalloc"):
                    a = read_annotate(os.path.join(d, f"annotate-{name}-{fn}.txt"))
                    if a:
                        annots.append((name, fn, a))
    w("\n## The hottest instructions of kfree and kmalloc\n\n")
    w("Percent of the function's samples on the instruction; the instruction before it is "
      "the one most likely being waited for (a load whose line missed).\n\n")
    for name, fn, a in annots:
        w(f"**{name}, {fn}**:\n\n")
        for p, ctx, ins, prev in a:
            w(f"- {p:.1f}% `{ins}` in {ctx or fn}() after `{prev}`\n")
        w("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
