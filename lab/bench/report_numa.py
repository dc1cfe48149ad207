"""report_numa.py - the "NUMA: local and remote" section of `make bench`'s
report (imported by report_boot.py): the NUMA section's figures
(lab/bench_numa.c, test=numa_* rows of `make bench NODES=N`'s boots,
lab/bench/numa.sh) and, with MODEL=1, the cache model's counts for the same
loops (OUTDIR/logs/*-numa-model.csv, tools/cachemodel/numa_bench.py)."""
import csv
import glob
import os

import report_md

WHERE = ("local", "remote")
MODEL_OPS = [("alloc", "numa_alloc_", "kmem_cache_alloc_node, CPU 0"),
             ("free", "numa_alloc_", "kmem_cache_free of those, CPU 0"),
             ("remote_free", "numa_free_", "free of CPU 0's objects on a CPU of node 0 / another node"),
             ("flush", "numa_free_", "kmem_cache_shrink after those frees, per object freed"),
             ("conc_alloc", "numa_concurrent_", "test 3 over the nodes: allocations, per op per CPU"),
             ("conc_free", "numa_concurrent_", "test 3 over the nodes: frees, per op per CPU")]


def numa_rows(results):
    """{(arch, page, alloc): {(test, size, metric): value}} and the CPU counts of
    the numa_* rows under -icount."""
    out, cpus = {}, set()
    for r in results:
        if r[4] == "icount" and r[5].startswith("numa_") and not r[7].endswith(("_min", "_max")):
            out.setdefault((r[0], r[1], r[2]), {})[(r[5], r[6], r[7])] = r[8]
            cpus.add(r[3])
    return out, cpus


def model_rows(outdir):
    """{config: {(test, size, op): csv row}} from every *-numa-model.csv."""
    out = {}
    for path in sorted(glob.glob(os.path.join(outdir, "logs", "*-numa-model.csv"))):
        with open(path) as f:
            for row in csv.DictReader(f):
                out.setdefault(row["config"], {})[(row["test"], row["size"], row["op"])] = row
    return out


def numa_section(outdir, results, order):
    """Markdown lines of the section, [] when no boot ran on two nodes or more.
    order(keys) sorts the (arch, page, alloc) keys as the rest of the report does."""
    rows, cpus = numa_rows(results)
    if not rows:
        return []
    md = ["\n## NUMA: local and remote\n\n"
          "`make bench NODES=N` boots each allocator's natural build on N QEMU NUMA nodes "
          "(scripts/numa-flags.sh: RAM split evenly, one CPU a node here, distance 10 local "
          "and 20 remote; %s CPUs) with the NUMA section alone (lab/bench_numa.c, "
          "lab/bench/numa.sh). Figures are guest instructions per call under QEMU TCG "
          "`-icount shift=0,sleep=off`, two boots identical. The venue is an emulator: "
          "instructions show what code an allocator runs for a remote node, not what the "
          "remote memory costs; the cache model's table (MODEL=1) below adds that. "
          "`placed` is the share of the objects whose page is on the node asked for: an "
          "allocator that ignores the node (SLOB by design) serves CPU 0's node.\n"
          % "/".join(sorted(cpus))]
    keys = order(rows)
    name = lambda k: "%s %s %s" % k
    a = []
    for k in keys:
        v = rows[k]
        for s in sorted({int(t[1]) for t in v} - {0}):
            g = lambda t, m: v.get((t, str(s), m))
            a.append([name(k), s] + [g("numa_alloc_" + w, "alloc_cost") for w in WHERE] +
                     [g("numa_alloc_" + w, "free_cost") for w in WHERE] +
                     [g("numa_alloc_" + w, "placed_pct") for w in WHERE])
    md.append("\nkmem_cache_alloc_node on CPU 0's node (local) and on another node (remote), "
              "then kmem_cache_free; instructions per call (icount), placed in percent:\n\n")
    md.append(report_md.table(["config", "size (B)", "alloc local", "alloc remote", "free local",
                               "free remote", "placed local %", "placed remote %"], a))
    b, c = [], []
    for k in keys:
        v = rows[k]
        for s in sorted({int(t[1]) for t in v} - {0}):
            g = lambda t, m: v.get((t, str(s), m))
            b.append([name(k), s] + [g("numa_free_" + w, "free_cost") for w in WHERE] +
                     [g("numa_free_" + w, "flush_cost") for w in WHERE])
            c.append([name(k), s] + [g("numa_concurrent_" + w, "span_alloc_cost") for w in WHERE] +
                     [g("numa_concurrent_" + w, "span_free_cost") for w in WHERE] +
                     [report_md.ratio(g("numa_concurrent_remote", "span_alloc_cost"),
                                      g("numa_concurrent_local", "span_alloc_cost"))])
    md.append("\nFree of another CPU's objects: CPU 0 allocates on its node, then CPU 0 itself "
              "(local) or a CPU of another node (remote) frees them and calls kmem_cache_shrink "
              "(the flush of what those frees left cached: alien arrays, remote frees); "
              "instructions per free and per object freed (icount):\n\n")
    md.append(report_md.table(["config", "size (B)", "free local", "free remote", "flush local",
                               "flush remote"], b))
    md.append("\nThe seeds' test 3 over the nodes: every CPU allocates %s objects on its own "
              "node (local) or the next node (remote) at once, in turns, then frees them; the "
              "whole machine's instructions per operation per CPU (icount):\n\n" % "10000")
    md.append(report_md.table(["config", "size (B)", "alloc local", "alloc remote", "free local",
                               "free remote", "alloc remote/local"], c))
    model = model_rows(outdir)
    if not model:
        md.append("\n(MODEL=1 adds the cache model's modelled cycles with remote memory.)\n")
        return md
    def cfg_key(cfg):
        """A csv's config (x86_64-4k-slab) placed as the instruction tables place it."""
        arch, page, alloc = (cfg.split("-", 2) + ["", ""])[:3]
        k = (arch, page.upper(), alloc)
        return keys.index(k) if k in keys else len(keys)

    m = []
    for cfg in sorted(model, key=lambda c: (cfg_key(c), c)):
        v = model[cfg]
        for s in sorted({int(t[1]) for t in v} - {0}):
            for op, prefix, _ in MODEL_OPS:
                lo, re_ = (v.get((prefix + w, str(s), op)) for w in WHERE)
                if not lo and not re_:
                    continue
                cyc = lambda r: r and r["modelled_cycles"]
                mem = lambda r: r and "%s/%s" % (r["dmem_local"], r["dmem_remote"])
                m.append([cfg, s, op, lo and lo["insns"], re_ and re_["insns"], mem(lo), mem(re_),
                          cyc(lo), cyc(re_), report_md.ratio(cyc(re_), cyc(lo))])
    md.append("\nThe cache model (tools/cachemodel/, `nodes=` the boot's nodes): per operation, "
              "the model's instructions, the data accesses memory served on the CPU's node / on "
              "another node, and modelled cycles (a model, not a measurement: a remote memory "
              "access costs lat_mem x distance / 10). Ops: %s.\n\n"
              % "; ".join("%s: %s" % (op, what) for op, _, what in MODEL_OPS))
    md.append(report_md.table(["config", "size (B)", "op", "insns local", "insns remote",
                               "memory local/remote (local run)", "memory local/remote (remote run)",
                               "modelled cycles local", "modelled cycles remote",
                               "remote/local"], m))
    return md
