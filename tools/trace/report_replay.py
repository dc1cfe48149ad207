#!/usr/bin/env python3
"""report_replay.py - the report of a trace replay (tools/trace/replay.sh).

    report.py replay DIR (lab/bench/report.py)

Reads DIR/trace-facts.txt, every DIR/<alloc>-<page>.summary (key=value, from
replay --summary) and .csv (memory samples: event, slab_bytes, used_bytes,
object_bytes, live_req, live_linux, page_block_bytes) and writes
DIR/report.md: the memory table (peak and end), the host time per
operation, and DIR/memory.png (object memory over the trace per allocator,
one panel per page size) where matplotlib imports.

The kernel half (tools/trace/kreplay.sh) leaves the same files in
DIR/kernel-<arch>/ (-icount boots), DIR/kernel-<arch>-1cpu/ (one CPU, when
the replay ran on more) and DIR/kernel-<arch>-realtime/ (MTTCG): their
memory tables, the instructions per operation by event type, the real-time
cycles as a second table, the cache model's counts per operation where
DIR/kernel-<arch>-model/ holds them (MODEL=1: tools/trace/model_replay.py's
.model files), and the check that the host and the kernel on one
CPU agree on the memory figures: object memory and pages in use, peak and
end, Slab: at and beyond the start, and every sample (Slab: beyond each
start) must be identical: the same trace through the same mm/ code from
the same start places every object alike. Last, the targets against Linux
for each comparison those sections make (tools/trace/report_targets.py).
Exit status 1 if a run's accounting failed or the check found a difference.

Efficiency is live requested bytes / memory at the same sample: Quarry's
against its object memory (the pages its object allocator holds beyond the
start, large kmallocs included, replayed page blocks not). The "requested /
traced bytes_alloc" column divides by the object sizes the traced kernel's
kmalloc classes and caches gave the same requests (the trace's bytes_alloc):
only its size-class rounding, not Linux's memory, which also holds partly
used slabs, per-CPU caches and slab headers. Linux's memory is its own
replay's (lab/linux/, `make replay ... LINUX=1`), where that was run.
"""
import csv
import glob
import os
import sys

import report_causes
import report_targets
from report_targets import LINUX_NAMES, LINUX_OF, beyond_start, per_op

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lab", "bench"))
from plotting import pyplot  # noqa: E402

TYPES = {1: "kmalloc", 2: "kfree", 3: "cache alloc", 4: "cache free", 5: "page alloc", 6: "page free"}
ALLOC_ORDER = ["slab", "slab-idx4", "slub", "slub-nosheaves", "slob", "slob-seg"]
PAGE_ORDER = ["4K", "16K", "64K"]


def kib(b):
    return "%d" % round(b / 1024)


def pct(a, b):
    return "%.1f%%" % (100.0 * a / b) if b else "-"


def load(d):
    runs = []
    for path in glob.glob(os.path.join(d, "*.summary")):
        base = os.path.basename(path)[: -len(".summary")]
        alloc, page = base.rsplit("-", 1)
        s = {}
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    s[k] = v
        rows = []
        cpath = os.path.join(d, base + ".csv")
        if os.path.exists(cpath):
            with open(cpath) as f:
                rows = [{k: int(v) for k, v in r.items()} for r in csv.DictReader(f)]
        runs.append({"alloc": alloc, "page": page, "s": s, "rows": rows})

    def key(r):
        a = ALLOC_ORDER.index(r["alloc"]) if r["alloc"] in ALLOC_ORDER else 99
        p = PAGE_ORDER.index(r["page"]) if r["page"] in PAGE_ORDER else 99
        return (p, a)

    return sorted(runs, key=key)


def shrunk(s):
    """Slab: at the end once every CPU's caching and every empty slab went back (slab_drain_all),
    beyond the start, kB; '-' for a run that did not measure it."""
    if "end_shrunk_slab" not in s or "slab_start" not in s:
        return "-"
    return kib(int(s["end_shrunk_slab"]) - int(s["slab_start"]))


def memory_table(runs):
    out = [
        "| allocator | page | peak Slab: kB | peak object memory kB | live requested kB then | "
        "efficiency then | requested / traced bytes_alloc then | end object memory kB | "
        "end requested kB | end efficiency | requested / traced bytes_alloc at end | "
        "end Slab: shrunk, beyond start kB | accounting |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in runs:
        s, rows = r["s"], r["rows"]
        if not rows:
            continue
        pk = max(rows, key=lambda x: x["object_bytes"])
        end = rows[-1]
        ok = "exact" if s.get("all_passes_ok") == "1" else (
            "FAILED (%s allocations failed)" % s.get("failed", "?") if s.get("failed", "0") != "0" else "NOT EXACT")
        out.append(
            "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |"
            % (r["alloc"], r["page"], kib(max(x["slab_bytes"] for x in rows)), kib(pk["object_bytes"]),
               kib(pk["live_req"]), pct(pk["live_req"], pk["object_bytes"]), pct(pk["live_req"], pk["live_linux"]),
               kib(end["object_bytes"]), kib(end["live_req"]), pct(end["live_req"], end["object_bytes"]),
               pct(end["live_req"], end["live_linux"]), shrunk(s), ok))
    return out


def time_table(runs):
    types = [t for t in TYPES if any(int(r["s"].get("ops_%d" % t, "0")) for r in runs)]
    out = ["| allocator | page | " + " | ".join("%s ns" % TYPES[t] for t in types) + " | whole trace ms | passes |",
           "|---|---|" + "---:|" * len(types) + "---:|---:|"]
    for r in runs:
        s = r["s"]
        cells = []
        for t in types:
            n = int(s.get("ops_%d" % t, "0"))
            cells.append("%.1f" % float(s.get("ns_per_op_%d" % t, "0")) if n else "-")
        out.append("| %s | %s | %s | %.1f | %s |" % (r["alloc"], r["page"], " | ".join(cells),
                                                  int(s.get("ns_total", "0")) / 1e6, s.get("passes", "1")))
    return out


def cost_table(runs, unit):
    types = [t for t in TYPES if any(int(r["s"].get("ops_%d" % t, "0")) for r in runs)]
    out = ["| allocator | page | CPUs | " + " | ".join("%s" % TYPES[t] for t in types) +
           " | boots identical | accounting |",
           "|---|---|---:|" + "---:|" * len(types) + "---|---|"]
    for r in runs:
        s = r["s"]
        cells = []
        for t in types:
            n = int(s.get("ops_%d" % t, "0"))
            x10 = int(s.get("cost_per_op_x10_%d" % t, "0"))
            cells.append("%d.%d" % (x10 // 10, x10 % 10) if n else "-")
        ident = s.get("icount_identical", "-")
        ident = "no" if ident == "0" else ("yes (%s)" % ident if ident != "-" else "-")
        out.append("| %s | %s | %s | %s | %s | %s |" % (
            r["alloc"], r["page"], s.get("cpus", "?"), " | ".join(cells), ident,
            "exact" if s.get("all_passes_ok") == "1" else "NOT EXACT"))
    return out


MODEL_COLS = [("dl1_miss", "L1D misses"), ("dl2_miss", "L2 misses"), ("dllc_miss", "LLC misses"),
              ("dtlb_miss", "DTLB misses"), ("dwalks", "page walks"), ("il1_miss", "L1I misses"),
              ("modelled_cycles", "modelled cycles")]


def load_model(d):
    """DIR/<alloc>-<page>.model files (tools/trace/model_replay.py's keys), as load() orders runs."""
    out = []
    for path in glob.glob(os.path.join(d, "*.model")):
        base = os.path.basename(path)[: -len(".model")]
        alloc, page = base.rsplit("-", 1)
        s = {}
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    s[k] = v
        out.append({"alloc": alloc, "page": page, "s": s})
    order = lambda r: (PAGE_ORDER.index(r["page"]) if r["page"] in PAGE_ORDER else 99,
                       ALLOC_ORDER.index(r["alloc"]) if r["alloc"] in ALLOC_ORDER else 99)
    return sorted(out, key=order)


def model_table(runs):
    """Per configuration and event type: the figure beside the model's counts per operation."""
    out = ["| allocator | page | event | ops | instructions (figure) | model's instructions | " +
           " | ".join(c for _, c in MODEL_COLS) + " | reports identical |",
           "|---|---|---|---:|---:|---:|" + "---:|" * len(MODEL_COLS) + "---|"]
    for r in runs:
        s = r["s"]
        for t in TYPES:
            if "model_ops_%d" % t not in s:
                continue
            cells = ["%.3f" % float(s["model_%s_%d" % (k, t)]) if k != "modelled_cycles" else
                     "%.1f" % float(s["model_%s_%d" % (k, t)]) for k, _ in MODEL_COLS]
            out.append("| %s | %s | %s | %s | %.1f | %.1f | %s | %s |" % (
                r["alloc"], r["page"], TYPES[t], s["model_ops_%d" % t],
                float(s["model_figure_%d" % t]), float(s["model_insns_%d" % t]), " | ".join(cells),
                "yes" if s.get("model_identical") == "2" else "NO"))
    return out


def model_all_ops(s, key):
    """One configuration's model count per operation over every event type, weighted by operations."""
    n = sum(int(s.get("model_ops_%d" % t, "0")) for t in TYPES)
    tot = sum(float(s.get("model_%s_%d" % (key, t), "0")) * int(s.get("model_ops_%d" % t, "0"))
              for t in TYPES)
    return tot / n if n else 0.0


def model_seeds(runs):
    """The seeds' memory questions the model answers: SLAB's index and SLUB's sheaves, per op."""
    by = {(r["alloc"], r["page"]): r["s"] for r in runs}
    pages = [p for p in PAGE_ORDER if any(r["page"] == p for r in runs)]
    keys = [("dl1_miss", "L1D misses"), ("dllc_miss", "LLC misses"), ("dtlb_miss", "DTLB misses"),
            ("modelled_cycles", "modelled cycles")]
    out = []
    for a, b, title in [("slab", "slab-idx4", "Seed 000/003's question on this trace: SLAB's natural "
                         "freelist index against `SLAB_IDX=4`"),
                        ("slub", "slub-nosheaves", "SLUB with sheaves against classic SLUB "
                         "(`SLUB_SHEAVES=0`)")]:
        rows = [(p, by[(a, p)], by[(b, p)]) for p in pages if (a, p) in by and (b, p) in by]
        if not rows:
            continue
        out += [title + ", per operation (modelled; %s / %s):" % (a, b), "",
                "| page | event | " + " | ".join(c for _, c in keys) + " |",
                "|---|---|" + "---:|" * len(keys)]
        for p, x, y in rows:
            for t in list(TYPES) + [0]:
                if t and ("model_ops_%d" % t not in x or "model_ops_%d" % t not in y):
                    continue
                cells = []
                for k, _ in keys:
                    vx = float(x["model_%s_%d" % (k, t)]) if t else model_all_ops(x, k)
                    vy = float(y["model_%s_%d" % (k, t)]) if t else model_all_ops(y, k)
                    f = "%.1f / %.1f" if k == "modelled_cycles" else "%.3f / %.3f"
                    cells.append(f % (vx, vy))
                out.append("| %s | %s | %s |" % (p, TYPES[t] if t else "**all operations**",
                                                 " | ".join(cells)))
        out.append("")
    return out


def model_section(d, arch):
    """The cache model's section for one arch (make replay MODEL=1), and whether it failed."""
    md = os.path.join(d, "kernel-%s-model" % arch)
    runs = load_model(md) if os.path.isdir(md) else []
    lmd = os.path.join(d, "linux-%s-model" % arch)
    lruns = load_model(lmd) if os.path.isdir(lmd) else []
    runs += lruns
    if not runs:
        return [], False
    geos = sorted({r["s"].get("geometry", "?") for r in runs})
    secs = sum(float(r["s"].get("model_seconds", "0")) for r in runs)
    plain = [float(r["s"]["plain_seconds"]) for r in runs if r["s"].get("plain_seconds", "-") != "-"]
    bad = any(r["s"].get("model_identical") != "2" for r in runs)
    lines = ["## Kernel replay, %s: the cache model's counts per operation (modelled)" % arch, "",
             "Each configuration's one-CPU -icount replay booted twice more under the cache model's "
             "plugin (tools/cachemodel/, MODEL=1): per event type, per operation, the replay's "
             "instructions beside the model's misses at each level, DTLB misses, page walks and "
             "**modelled cycles** (instructions plus misses times the model's latencies: a model of "
             "one server core, not a measurement). Each allocator call is its event type's region "
             "(lab/replay.c); the model's instructions are the figure's span plus the one counter "
             "read it leaves out, checked exact for every type. The caches are warm: the model "
             "also follows the boot and the replay between the calls." +
             (" Rows named linux<version>-<allocator>: the same trace replayed inside Linux's "
              "kernel (lab/linux/replay/, make replay LINUX=1 MODEL=1), its calls marked and "
              "paired the same way." if lruns else ""), "",
             "Geometry: " + "; ".join("`%s`" % g for g in geos), ""] + model_table(runs) + [""]
    lines += model_seeds(runs)
    lines += ["Time MODEL=1 adds: %.0f s for %d configuration(s), two boots under the model each "
              "(%.1f s a boot)%s." % (
                  secs, len(runs), secs / 2 / len(runs),
                  ", where a one-CPU -icount boot without it takes %.1f s" % (sum(plain) / len(plain))
                  if len(plain) == len(runs) else ""), ""]
    return lines, bad


AGREE_KEYS = [("peak_object", "peak object memory"), ("end_object", "end object memory"),
              ("peak_used", "peak pages in use"), ("end_used", "end pages in use"),
              ("end_shrunk_slab", "end Slab: shrunk")]


def sample_diffs(h, k):
    """The samples of two runs that differ (Slab: taken beyond each one's start), as
    (how many, of how many, the first one's event or None)."""
    def norm(run):
        s0 = int(run["s"].get("slab_start", "0"))
        return [tuple(v - s0 if c == "slab_bytes" else v for c, v in sorted(r.items()))
                for r in run["rows"]]
    hr, kr = norm(h), norm(k)
    bad = [h["rows"][i]["event"] for i, (a, b) in enumerate(zip(hr, kr)) if a != b]
    n = len(bad) + abs(len(hr) - len(kr))
    return n, max(len(hr), len(kr)), (bad[0] if bad else None)


def agreement(host, kern):
    """Host against kernel on one CPU, per allocator and page size: (lines, all identical)."""
    hs = {(r["alloc"], r["page"]): r for r in host}
    out = ["| allocator | page | " + " | ".join("%s host / kernel kB" % n for _, n in AGREE_KEYS) +
           " | Slab: beyond start host / kernel kB | samples differing | verdict |",
           "|---|---|" + "---:|" * (len(AGREE_KEYS) + 2) + "---|"]
    ok = True
    for r in kern:
        hrun = hs.get((r["alloc"], r["page"]))
        if hrun is None:
            continue
        h, k = hrun["s"], r["s"]
        pairs = [(int(h.get(key, "0")), int(k.get(key, "0"))) for key, _ in AGREE_KEYS]
        pairs.append((int(h.get("peak_slab", "0")) - int(h.get("slab_start", "0")),
                      int(k.get("peak_slab", "0")) - int(k.get("slab_start", "0"))))
        diff = max(abs(a - b) for a, b in pairs)
        start = (int(h.get("slab_start", "0")), int(k.get("slab_start", "0")))
        nd, ns, first = sample_diffs(hrun, r)
        samples = "%d of %d" % (nd, ns) + (" (first: event %d)" % first if first is not None else "")
        same = diff == 0 and nd == 0 and start[0] == start[1]
        verdict = "identical" if same else "DIFFER %s%s" % (
            "by %s kB" % kib(diff) if diff else "in the samples", "" if start[0] == start[1] else
            ", Slab: at the start %s / %s kB" % (kib(start[0]), kib(start[1])))
        ok &= same
        out.append("| %s | %s | %s | %s | %s |" % (
            r["alloc"], r["page"], " | ".join("%s / %s" % (kib(a), kib(b)) for a, b in pairs),
            samples, verdict))
    return out, ok


def total_cost(s):
    return sum(int(s.get("cost_%d" % t, "0")) for t in TYPES)


def seeds_section(runs):
    """The seeds' questions on the trace, from one arch's -icount runs."""
    by = {(r["alloc"], r["page"]): r["s"] for r in runs}
    pages = [p for p in PAGE_ORDER if any(r["page"] == p for r in runs)]
    out = ["Seed 004 (SLOB against the others, `Slab:` and speed): Slab: at the peak and end, "
           "and all the instructions the trace's allocations and frees took, against SLUB's.", "",
           "| page | allocator | peak Slab: kB | end Slab: kB | peak object memory kB | "
           "instructions, whole trace | against SLUB |", "|---|---|---:|---:|---:|---:|---:|"]
    for p in pages:
        base = total_cost(by[("slub", p)]) if ("slub", p) in by else 0
        for a in ["slob", "slob-seg", "slub", "slab"]:
            s = by.get((a, p))
            if not s:
                continue
            c = total_cost(s)
            out.append("| %s | %s | %s | %s | %s | %d | %s |" % (
                p, a, kib(int(s["peak_slab"])), kib(int(s["end_slab"])), kib(int(s["peak_object"])),
                c, "%.2fx" % (c / base) if base else "-"))
    pairs = [("slab", "slab-idx4", "Seed 000 (SLAB's freelist index: natural size against 4 bytes, "
              "`SLAB_IDX=4`): more objects per slab as memory on the trace."),
             ("slub", "slub-nosheaves", "Sheaves against classic SLUB (`SLUB_SHEAVES=0`): instructions "
              "per operation and memory.")]
    for a, b, title in pairs:
        rows = [(p, by[(a, p)], by[(b, p)]) for p in pages if (a, p) in by and (b, p) in by]
        if not rows:
            continue
        types = [t for t in TYPES if any(int(x.get("ops_%d" % t, "0")) for _, x, _ in rows)]
        out += ["", title, "",
                "| page | " + " | ".join("%s %s / %s" % (TYPES[t], a, b) for t in types) +
                " | peak object memory kB %s / %s | end object memory kB %s / %s | peak difference |"
                % (a, b, a, b),
                "|---|" + "---:|" * (len(types) + 3)]
        for p, x, y in rows:
            cells = []
            for t in types:
                cx, cy = int(x.get("cost_per_op_x10_%d" % t, "0")), int(y.get("cost_per_op_x10_%d" % t, "0"))
                cells.append("%.1f / %.1f" % (cx / 10, cy / 10))
            px, py = int(x["peak_object"]), int(y["peak_object"])
            out.append("| %s | %s | %s / %s | %s / %s | %s kB (%s) |" % (
                p, " | ".join(cells), kib(px), kib(py), kib(int(x["end_object"])),
                kib(int(y["end_object"])), kib(py - px), pct(py - px, px)))
    return out


MEM_KEYS = ("peak_slab", "end_slab", "end_shrunk_slab")


def kibq(v):
    return "-" if v is None else kib(v)


def linux_section(d, arch, quarry, sub=None, cpus="1"):
    """Quarry against Linux on this trace, one CPU: the Linux kernels' own replays of the same
    trace (DIR/linux-ARCH/, lab/linux/replay/, make replay LINUX=1) beside Quarry's one-CPU
    kernel replays (quarry: their runs). Instructions per call and Slab: beyond the start
    (Linux: its slab page counters; Quarry: slab_total_pages()). (lines, failures, Linux's runs)."""
    ld = os.path.join(d, sub or "linux-" + arch)
    lruns = load(ld) if os.path.isdir(ld) else []
    if not lruns:
        return [], [], []
    bad = ["Linux %s %s %s: the replay's accounting was not exact, or it stopped or failed (see "
           "%s)" % (arch, r["alloc"], r["page"], ld) for r in lruns if r["s"].get("all_passes_ok") != "1"]
    by = {(r["alloc"], r["page"]): r["s"] for r in lruns}
    types = [1, 2, 3, 4]
    where = "one CPU" if cpus == "1" else "%s CPUs, as the trace's" % cpus
    out = ["## Quarry against Linux on this trace (%s, %s, -icount)" % (arch, where), "",
           "The same trace replayed inside Linux kernels built from Debian's sources (lab/linux/): "
           "the same calls in the same order, the same counter around each (guest instructions, "
           "its own reads included), Slab: sampled at the same events; Linux's from its slab page "
           "counters (NR_SLAB_RECLAIMABLE_B + NR_SLAB_UNRECLAIMABLE_B), Quarry's from "
           "slab_total_pages(). Peak and end: kB beyond the replay's start; end shrunk: at the end once "
           "every cache gave back its per-CPU caching and empty slabs (Linux: kmem_cache_shrink of "
           "every trace and kmalloc cache; Quarry: slab_drain_all). Ratio: Quarry / Linux.",
           "", "| page | allocator | " + " | ".join(TYPES[t] for t in types) +
           " | peak Slab: kB | end Slab: kB | end shrunk kB |", "|---|---|" + "---:|" * (len(types) + 3)]
    for q in quarry:
        for name in LINUX_OF.get(q["alloc"], []):
            ls = by.get((name, q["page"]))
            cells_q = [per_op(q["s"], t) for t in types]
            fmt = lambda v: "-" if v is None else "%.1f" % v
            mem_q = [beyond_start(q["s"], k) for k in MEM_KEYS]
            out.append("| %s | Quarry %s | %s | %s |" % (
                q["page"], q["alloc"], " | ".join(fmt(v) for v in cells_q),
                " | ".join(kibq(v) for v in mem_q)))
            if ls is None:
                out.append("| %s | %s | not measured: run make replay ... LINUX=1 |%s" % (
                    q["page"], LINUX_NAMES[name], " |" * (len(types) + 2)))
                continue
            cells_l = [per_op(ls, t) for t in types]
            mem_l = [beyond_start(ls, k) for k in MEM_KEYS]
            out.append("| %s | %s | %s | %s |" % (
                q["page"], LINUX_NAMES[name], " | ".join(fmt(v) for v in cells_l),
                " | ".join(kibq(v) for v in mem_l)))
            rat = lambda a, b: "-" if a is None or not b else "%.2f" % (a / b)
            out.append("| %s | ratio | %s | %s |" % (
                q["page"], " | ".join(rat(a, b) for a, b in zip(cells_q, cells_l)),
                " | ".join(rat(a, b) for a, b in zip(mem_q, mem_l))))
    out += [""]
    return out, bad, lruns


def numa_lines(runs, arch):
    """The kernel replay on several NUMA nodes (NODES=N): each traced CPU's node and,
    per configuration, the frees of an object another node's CPU allocated."""
    numa = [r for r in runs if "numa_nodes" in r["s"]]
    if not numa:
        return []
    s0 = numa[0]["s"]
    nodes = sorted((int(k[len("traced_cpu_node_"):]), v) for k, v in s0.items()
                   if k.startswith("traced_cpu_node_"))
    rows = [[r["alloc"], r["page"], r["s"].get("remote_frees"), r["s"].get("remote_node_frees")]
            for r in numa]
    out = ["## Kernel replay, %s: NUMA nodes" % arch, "",
           "Booted on %s QEMU NUMA nodes (`NODES=`, scripts/numa-flags.sh); traced CPU i runs "
           "on CPU i mod %s, so on node: %s. Frees by another CPU than the allocation's, and of "
           "those the ones of an object a CPU of another node allocated (counts, -icount):"
           % (s0["numa_nodes"], s0.get("cpus", "?"), ", ".join("%d: %s" % n for n in nodes)), "",
           "| allocator | page | frees by another CPU | of another node's allocation |",
           "|---|---|---|---|"]
    out += ["| " + " | ".join("-" if c is None else c for c in row) + " |" for row in rows]
    return out + [""]


def kernel_sections(d, host):
    """The kernel halves' sections, why the replay failed (a list of lines; empty: it did not),
    and the comparisons with Linux they make (report_targets.targets_section's cmps)."""
    lines, bad, cmps = [], [], []
    for arch in ["x86_64", "arm64"]:
        kd = os.path.join(d, "kernel-" + arch)
        if not os.path.isdir(kd):
            continue
        runs = load(kd)
        if not runs:
            continue
        cpus = runs[0]["s"].get("cpus", "?")
        for r in runs:
            if r["s"].get("all_passes_ok") != "1":
                bad.append("kernel %s %s %s: the replay's accounting was not exact, or it stopped "
                           "or failed (see %s)" % (arch, r["alloc"], r["page"], kd))
            if r["s"].get("icount_identical") == "0":
                bad.append("kernel %s %s %s: the two -icount boots gave other figures" % (
                    arch, r["alloc"], r["page"]))
        lines += ["## Kernel replay, %s: memory (%s CPU(s))" % (arch, cpus), "",
                  "The trace as the boot module, replayed inside Quarry under QEMU -icount; the "
                  "same columns as the host's table.", ""] + memory_table(runs) + [""]
        lines += ["## Kernel replay, %s: instructions inside the allocator per operation" % arch, "",
                  "Guest instructions (QEMU -icount shift=0) from just before to just after each "
                  "allocator call, interrupts off, by event type, on %s CPU(s); the counter's own "
                  "read included. Deterministic: each configuration booted twice." % cpus, ""] + \
                 cost_table(runs, "instructions") + [""]
        lines += numa_lines(runs, arch)
        mlines, mbad = model_section(d, arch)
        lines += mlines
        if mbad:
            bad.append("kernel %s: the cache model's two runs of a configuration differ" % arch)
        if any(r["alloc"] == "slub" for r in runs) and len({r["alloc"] for r in runs}) > 1:
            lines += ["## The seeds' questions on this trace (%s, -icount)" % arch, ""] + \
                seeds_section(runs) + [""]
        one = os.path.join(d, "kernel-%s-1cpu" % arch)
        one_runs = load(one) if os.path.isdir(one) else (runs if cpus == "1" else [])
        if one_runs:
            llines, lbad, lruns = linux_section(d, arch, one_runs)
            lines += llines
            bad += lbad
            md, lmd = os.path.join(d, "kernel-%s-model" % arch), os.path.join(d, "linux-%s-model" % arch)
            cmps.append({"arch": arch, "cpus": "1", "quarry": one_runs, "linux": lruns, "mdir": md,
                         "qmodel": load_model(md) if os.path.isdir(md) else [],
                         "lmodel": load_model(lmd) if os.path.isdir(lmd) else []})
        if cpus != "1":
            llines, lbad, lruns = linux_section(d, arch, runs, "linux-%s-smp" % arch, cpus)
            lines += llines
            bad += lbad
            cmps.append({"arch": arch, "cpus": cpus, "quarry": runs, "linux": lruns})
        if one_runs and host:
            t, ok = agreement(host, one_runs)
            if not ok:
                rows = [[c.strip() for c in l.strip("|").split(" | ")] for l in t[2:]]
                bad += ["host and kernel %s (one CPU) %s %s: memory figures %s (samples "
                        "differing: %s)" % (arch, row[0], row[1], row[-1], row[-2])
                        for row in rows if row[-1] != "identical"]
            lines += ["## Host and kernel (%s, one CPU) memory figures" % arch, ""] + t + [""]
        rt = os.path.join(d, "kernel-%s-realtime" % arch)
        rt_runs = load(rt) if os.path.isdir(rt) else []
        if rt_runs:
            bad += ["kernel %s real time %s %s: the replay's accounting was not exact, or it "
                    "stopped or failed" % (arch, r["alloc"], r["page"])
                    for r in rt_runs if r["s"].get("all_passes_ok") != "1"]
            lines += ["## Kernel replay, %s: real time (MTTCG), cycles per operation" % arch, "",
                      "QEMU's CPUs in parallel host threads: cycles of the guest's counter, which "
                      "depend on this machine and its load; not for comparing small differences.",
                      ""] + cost_table(rt_runs, "cycles") + [""]
    return lines, bad, cmps


def plot(d, runs):
    plt, _ = pyplot()
    if plt is None:
        return None
    pages = [p for p in PAGE_ORDER if any(r["page"] == p for r in runs)]
    if not pages:
        return None
    fig, axes = plt.subplots(1, len(pages), figsize=(6 * len(pages), 4.5), squeeze=False)
    for ax, page in zip(axes[0], pages):
        first = None
        for r in runs:
            if r["page"] != page or not r["rows"]:
                continue
            xs = [x["event"] for x in r["rows"]]
            ax.plot(xs, [x["object_bytes"] / 1024 for x in r["rows"]], label=r["alloc"])
            first = first or r
        if first:
            xs = [x["event"] for x in first["rows"]]
            ax.plot(xs, [x["live_linux"] / 1024 for x in first["rows"]], "k:", label="traced kernel's bytes_alloc")
            ax.plot(xs, [x["live_req"] / 1024 for x in first["rows"]], "k--", label="live requested")
        ax.set_title("%s pages" % page)
        ax.set_xlabel("event")
        ax.set_ylabel("KiB")
        ax.legend(fontsize=8)
    fig.suptitle("Object memory over the trace (host replay)")
    fig.tight_layout()
    path = os.path.join(d, "memory.png")
    fig.savefig(path, dpi=100)
    return path


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: report.py DIR")
    d = sys.argv[1]
    runs = load(d)
    if not runs and not glob.glob(os.path.join(d, "kernel-*")):
        sys.exit("report.py: no *.summary in %s" % d)
    facts = []
    fpath = os.path.join(d, "trace-facts.txt")
    if os.path.exists(fpath):
        with open(fpath) as f:
            facts = [l.rstrip("\n") for l in f]
    lines = ["# Trace replay: %s" % os.path.basename(os.path.abspath(d)), ""]
    lines += ["    " + l for l in facts] + [""]
    merged = sorted({r["s"].get("merge", "0") for r in runs})
    if merged:
        lines += ["Cache merging (host replays): %s." % (
            "on, as Linux merges caches by default (the kernel replays boot with slab_merge; "
            "MERGE=0 turns it off)" if merged == ["1"] else
            "off (MERGE=0: a cache for each of the trace's caches; Linux merges them)"
            if merged == ["0"] else "mixed: the runs differ (some kept from another run)"), ""]
    lines += ["## Memory", "",
              "Peak: the sample where the object memory (pages the allocator holds beyond the start, "
              "large kmallocs included, replayed page blocks not) was highest; \"then\": the live "
              "requested bytes at that sample. Efficiency: live requested / object memory. \"requested / "
              "traced bytes_alloc\": live requested / the object sizes the traced kernel gave the same "
              "objects (its size-class rounding only, not the memory Linux holds: partly used slabs, "
              "per-CPU caches and slab headers are not in it). End shrunk: Slab: at the end once every "
              "CPU's caching and every empty slab went back (slab_drain_all: what kmem_cache_shrink "
              "of every cache on every CPU gives back), beyond the start. Slab: as "
              "slab_total_pages() counts it (SLOB counts its big objects' pages, SLAB and SLUB do not).",
              ""] + memory_table(runs) + [""]
    lines += report_causes.causes_section(runs, d)
    lines += ["## Host time per operation", "",
              "ns per call on this machine's CPU, the fastest pass, the TSC read's own cost taken out; "
              "one thread, the trace's events in order.", ""] + time_table(runs) + [""]
    klines, kbad, cmps = kernel_sections(d, runs)
    lines += klines
    lines += report_targets.targets_section(d, runs, cmps)
    png = plot(d, runs)
    if png:
        lines += ["![memory over the trace](memory.png)", ""]
    else:
        lines += ["(%s)" % (pyplot()[1] or "no plot: no samples"), ""]
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write("\n".join(lines))
    why = ["host %s %s: the replay's accounting was not exact, or it stopped or failed (see "
           "its .err file in %s)" % (r["alloc"], r["page"], d)
           for r in runs if r["s"].get("all_passes_ok") != "1"] + kbad
    for w in why:
        print("replay: FAILED: %s" % w, file=sys.stderr)
    return 1 if why else 0


if __name__ == "__main__":
    sys.exit(main())
