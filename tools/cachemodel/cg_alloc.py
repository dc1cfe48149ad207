#!/usr/bin/env python3
"""cg_alloc.py DUMPS_DIR CONSOLE REPORT - Quarry's allocator loops as a host
program (lab/bench/host/bench.c --callgrind: mm/ built for Linux, each
measured loop dumped by callgrind with its cache simulator) against the
cache model's counts for the same loops in the kernel (a "bench icount"
boot with the plugin and entries=on: tools/cachemodel/bench.py pairs its
passes with the figures). Per operation, for test 1 (alloc, free) and test
2 (pair) at every size: data accesses, L1D misses and last-level misses,
each as model / callgrind (callgrind's difference). Prints Markdown."""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import pair  # noqa: E402


def dumps(d):
    out = {}
    for f in glob.glob(os.path.join(d, "callgrind.out.*")):
        desc, ev, tot = None, None, None
        for line in open(f):
            if line.startswith("desc: Trigger: Client Request: "):
                desc = line.split(": ", 3)[3].strip()
            elif line.startswith("events: "):
                ev = line.split()[1:]
            elif line.startswith("totals: "):
                tot = [int(x) for x in line.split()[1:]]
        if desc and ev and tot:
            test, metric, _alloc, size, ops = desc.split("|")
            v = dict(zip(ev, tot + [0] * (len(ev) - len(tot))))
            n = int(ops)
            out[(test, metric, size)] = ((v["Dr"] + v["Dw"]) / n, (v["D1mr"] + v["D1mw"]) / n,
                                         (v["DLmr"] + v["DLmw"]) / n)
    return out


def cell(m, c):
    if m < 0.0005 and c < 0.0005:
        return f"{m:.3f} / {c:.3f} (=)", False
    diff = f"{100.0 * (c - m) / m:+.0f}%" if m else "new"
    far = abs(c - m) > 0.25 * max(m, c) and abs(c - m) > 0.05
    return f"{m:.3f} / {c:.3f} ({diff}){' **' if far else ''}", far


def main():
    d, console, report = sys.argv[1:4]
    cg = dumps(d)
    rows, _, _, _ = pair(console, report)
    print("| test | size | op | data accesses | L1D misses | last-level misses |")
    print("|---|---|---|---|---|---|")
    far_n = n = 0
    for r in rows:
        key = (r["test"], r["key"], r["size"])
        if key not in cg:
            continue
        acc, m1, ml = cg[key]
        cells = [cell(r["dacc"], acc), cell(r["dl1_miss"], m1), cell(r["dllc_miss"], ml)]
        far_n += cells[1][1] or cells[2][1]
        n += 1
        print(f"| {r['test']} | {r['size']} | {r['key']} | " + " | ".join(c[0] for c in cells) + " |")
    print(f"\n{n} rows; {far_n} with a miss count more than 25% (and 0.05 per operation) apart (**).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
