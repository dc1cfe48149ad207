#!/usr/bin/env python3
"""report.py - write build/linux/report.md from bench-linux console logs
(through the lab's one entry point, `lab/bench/report.py linux OUT.md LOG...`).

    report.py OUT.md LOG...

For each log (one kernel): its config fragment (fragment.config beside the
log), a table of test 1 (kmalloc then kfree) and test 2 (the pair), the
messaging workload and the page allocator's rows, in the counter's unit per
operation, beside Quarry's own figures for the same arch, page size and
allocator (slab/slub/slob) when Quarry's -icount bench log
build/bench/logs/<arch>-<page>-<alloc>-icount-1.log is there (make bench), or
QUARRY_BENCH_LOG names one.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
import parse  # noqa: E402


def figures(path):
    """{(test, size, metric): value} and the (arch, page, alloc, cpus) of a log."""
    rows, _ = parse.parse(path)
    return {(r[5], int(r[6]), r[7]): r[8] for r in rows}, (tuple(rows[0][:4]) if rows else None)


def quarry_log(arch, page, alloc):
    path = os.environ.get("QUARRY_BENCH_LOG") or os.path.join(
        ROOT, "build", "bench", "logs", "%s-%s-%s-icount-1.log" % (arch, page.lower(), alloc))
    return path if os.path.isfile(path) else None


def section(path):
    figs, conf = figures(path)
    if conf is None:
        return ["## %s\n" % path, "No BENCH rows.\n"]
    arch, page, alloc, cpus = conf
    counter = parse.counter_of(path)
    out = ["## %s (%s %s, %s CPU(s))\n" % (alloc, arch, page, cpus),
           "Console: `%s`. Counter: %s.\n" % (os.path.relpath(path, ROOT),
                                              " ".join(counter) if counter else "none"),
           ]
    frag = os.path.join(os.path.dirname(path), "fragment.config")
    if os.path.isfile(frag):
        lines = [l.rstrip() for l in open(frag) if l.startswith("CONFIG_") or l.startswith("# CONFIG_")]
        out += ["Config fragment (on top of tinyconfig): `%s`\n" % " ".join(
            l.replace("# ", "").replace(" is not set", "=n") for l in lines)]
    qpath = quarry_log(arch, page, alloc.split("-")[-1])
    q = figures(qpath)[0] if qpath else {}
    head = "| size | kmalloc | kfree | pair |"
    rule = "|---:|---:|---:|---:|"
    if q:
        head += " Quarry kmalloc | Quarry kfree | Quarry pair |"
        rule += "---:|---:|---:|"
        out.append("Quarry's figures: `%s`.\n" % os.path.relpath(qpath, ROOT))
    out += ["Instructions per operation (tests 1 and 2, %d objects):\n" % 10000, head, rule]
    for s in parse.SINGLE_SIZES:
        keys = [("kmalloc_then_free", s, "alloc_cost"), ("kmalloc_then_free", s, "free_cost"),
                ("kmalloc_free_pair", s, "pair_cost")]
        cells = [figs.get(k, "-") for k in keys]
        if q:
            cells += [q.get(k, "-") for k in keys]
        out.append("| %d | %s |" % (s, " | ".join(cells)))
    conc = [(s, figs.get(("concurrent_alloc_free", s, "alloc_cost")),
             figs.get(("concurrent_alloc_free", s, "free_cost"))) for s in parse.CONCURRENT_SIZES]
    if any(a for _, a, _ in conc):
        out += ["", "Test 3 (every CPU at once, medians of 5), kmalloc/kfree: " +
                ", ".join("%d B %s/%s" % c for c in conc if c[1]) + "."]
    msg = [("messaging", 0, m) for m in ("per_message_cost", "alloc_share_cost",
                                         "slab_before_kb", "slab_after_kb")]
    if figs.get(msg[0]):
        out += ["", "Messaging (per message: whole, in kmalloc+kfree; Slab: kB before, after): " +
                ", ".join(figs.get(k, "-") for k in msg) +
                ("; Quarry's: " + ", ".join(q.get(k, "-") for k in msg) if q.get(msg[0]) else "") + "."]
    pages = [(o, figs.get(("pages_single", o, "alloc_cost")), figs.get(("pages_single", o, "free_cost")),
              q.get(("pages_single", o, "alloc_cost"), "-"), q.get(("pages_single", o, "free_cost"), "-"))
             for o in range(4)]
    if any(p[1] for p in pages):
        out += ["", "Page allocator, one CPU, alloc_pages/free_pages per call by order" +
                (" (Quarry's in brackets)" if q else "") + ": " +
                ", ".join(("order %d %s/%s" % p[:3]) + (" (%s/%s)" % p[3:] if q else "")
                          for p in pages if p[1]) + "."]
    return out + [""]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2:
        print("usage: report.py OUT.md LOG...", file=sys.stderr)
        return 2
    lines = ["# bench-linux report\n",
             "Linux kernels from Debian's linux-source packages, Quarry's boot benchmarks "
             "(the module in lab/linux/bench/) under QEMU -icount shift=0 (make bench-linux; "
             "Documentation/benchmarks.md).\n"]
    for path in argv[1:]:
        lines += section(path)
    with open(argv[0], "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
