#!/usr/bin/env python3
"""numa_bench.py CONSOLE REPORT CONFIG - the NUMA benchmark's figures
(lab/bench_numa.c) of one "bench icount" boot on several nodes beside the
cache model's counts for the same loops (the plugin run with entries=on and
nodes=, tools/cachemodel/README.md), one CSV line per figure on stdout:

    config,test,size,op,cpus,ops,figure,insns,dllc_miss,dmem_local,dmem_remote,modelled_cycles

op names the loop (alloc, free, remote_free, flush, conc_alloc, conc_free);
figure is the BENCH line's (instructions under -icount); the rest are the
model's per operation (per object freed for flush; per operation per CPU for
the test 3 loops, every CPU's region summed). Pairing: regions 31 and 32 are
CPU 0's passes in the order of the numa_alloc_* lines, 33 and 34 the freeing
CPU's (the line's cpu=), 35 and 36 every CPU's, one pass each per
numa_concurrent_* line. Exit status 1 when passes and lines do not pair up,
2 on missing input.
"""
import collections
import re
import sys

HEAD = ("config,test,size,op,cpus,ops,figure,insns,dllc_miss,dmem_local,dmem_remote,"
        "modelled_cycles")
FIELDS = ["insns", "dllc_miss", "dmem_local", "dmem_remote", "modelled_cycles"]
OBJECTS = 10000  # BENCH_OBJECTS (lab/bench.h)


def kv(line):
    return dict(x.split("=", 1) for x in line.split() if "=" in x)


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    console, report, config = sys.argv[1:]
    bench = [kv(l) for l in open(console, errors="replace").read().splitlines()
             if l.startswith("BENCH ") and " test=numa_" in l]
    passes = collections.defaultdict(collections.deque)  # (cpu, id) -> entries in order
    for line in open(report):
        if line.startswith("entry "):
            d = kv(line)
            if 31 <= int(d["id"]) <= 36:
                passes[(int(d["cpu"]), int(d["id"]))].append(
                    {k: int(v) for k, v in d.items() if v.isdigit()})
    if not bench or not passes:
        print(f"numa_bench.py: no numa_* BENCH lines in {console} or no entry lines of regions "
              f"31-36 in {report} (the plugin with entries=on, on two nodes or more)",
              file=sys.stderr)
        return 2
    cpus = sorted({c for c, _ in passes})
    out, bad = [HEAD], []

    def row(b, op, key, counts, ops, ncpus):
        if not counts or any(f not in counts for f in FIELDS):
            bad.append(f"{b['test']} size {b['size']} {op}: no model pass (is nodes= given?)")
            return
        out.append(",".join([config, b["test"], b["size"], op, str(ncpus), str(ops),
                             b.get(key, "")] + ["%.2f" % (counts[f] / ops) for f in FIELDS]))

    def take(cpu, rid):
        q = passes.get((cpu, rid))
        return q.popleft() if q else None

    for b in bench:
        t = b["test"]
        if t.startswith("numa_alloc_"):
            row(b, "alloc", "alloc_cost", take(0, 31), OBJECTS, 1)
            row(b, "free", "free_cost", take(0, 32), OBJECTS, 1)
        elif t.startswith("numa_free_"):
            c = int(b["cpu"])
            row(b, "remote_free", "free_cost", take(c, 33), OBJECTS, 1)
            row(b, "flush", "flush_cost", take(c, 34), OBJECTS, 1)
        elif t.startswith("numa_concurrent_"):
            for rid, op, key in ((35, "conc_alloc", "span_alloc_cost"),
                                 (36, "conc_free", "span_free_cost")):
                got = [take(c, rid) for c in cpus]
                if None in got:
                    bad.append(f"{t} size {b['size']}: a CPU has no pass of region {rid}")
                    continue
                total = {f: sum(g[f] for g in got) for f in FIELDS}
                row(b, op, key, total, OBJECTS * len(cpus), len(cpus))
    left = sum(len(q) for q in passes.values())
    if left:
        bad.append(f"{left} model passes of regions 31-36 have no BENCH line")
    print("\n".join(out))
    for m in bad:
        print("numa_bench.py: " + m, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
