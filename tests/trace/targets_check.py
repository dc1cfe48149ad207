"""targets_check.py DIR - tests/trace/test.sh's check of the replay report's
"Targets against Linux" (tools/trace/report_targets.py). Writes canned
replay results into DIR (host, Quarry's one-CPU kernel replay, Linux's,
the cache model's), builds the report with lab/bench/report.py and checks
its lines:
  slab against Linux 6.1 SLAB: instructions met (kfree exactly 0.5x
    counts as met), peak Slab: missed with its cause from the breakdown at
    the peak, end shrunk met, modelled cycles met;
  slub against Linux 6.1 SLUB: instructions missed (kmalloc and kfree)
    with its cause (the slow-path counters per 1,000 calls, the functions of
    those calls' regions in the model's report), modelled cycles not
    measured (no MODEL=1 row for slub);
  slub against Linux 6.12 SLUB: no such Linux run, not measured;
  the summary's counts; without any Linux results, every target not
  measured; a model report whose func line has no count refused, naming
  the file and line.
Prints PASS/FAIL lines; exit 1 on any FAIL.
"""
import os
import shutil
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
K = 1024
START = 32768
CSV = "event,slab_bytes,used_bytes,object_bytes,live_req,live_linux,page_block_bytes\n" \
      "0,32768,0,0,0,0,0\n10,65536,32768,32768,1000,1024,0\n"
SLUB_STATS = ("kmalloc-64 alloc fast 0 slow 100 retry 0; free fast 0 slow 2000 retry 0 frozen 50; "
              "page retries 0; refill 0 cpu-partial 0/0 node 0 failed 0 min-order 0; flush 0 "
              "unfreeze 0 discard 0; sheaf alloc 3900 free 2000 swap 0 refill 0 barn get 0 put 0 "
              "flush 0 made 0; page cmpxchg 1000; locks node 0 barn 0; allocs 2000 frees 2000 "
              "slabs made 10 bad 0 corrupt 0\n")
OPS = {"ops_%d" % t: 1000 for t in (1, 2, 3, 4)}
fails = 0


def check(ok, what):
    global fails
    print("%s trace: report targets: %s" % ("PASS" if ok else "FAIL", what))
    fails += 0 if ok else 1


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def summary(path, **kv):
    write(path, "".join("%s=%s\n" % x for x in kv.items()))


def causes(at, **parts):
    out = {"cause_%s_%s" % (at, k): v * K for k, v in parts.items()}
    out["cause_%s_slab" % at] = sum(parts.values()) * K
    return out


def kernel(costs, peak_kb, shrunk_kb, start=START, **extra):
    s = dict(OPS, cpus=1, slab_start=start, peak_slab=start + peak_kb * K, end_slab=start + 100 * K,
             end_shrunk_slab=start + shrunk_kb * K, all_passes_ok=1, icount_identical=2,
             peak_object=32768, end_object=32768, peak_used=32768, end_used=32768)
    s.update(("cost_per_op_x10_%d" % t, c) for t, c in zip((1, 2, 3, 4), costs))
    s.update(extra)
    return s


def model(cycles):
    s = {"geometry": "canned", "model_identical": 2, "model_seconds": 1, "plain_seconds": "-"}
    for t in (1, 2, 3, 4):
        s.update({"model_ops_%d" % t: 1000, "model_figure_%d" % t: 1.0, "model_insns_%d" % t: 2.0})
        for k in ("dl1_miss", "dl2_miss", "dllc_miss", "dtlb_miss", "dwalks", "il1_miss"):
            s["model_%s_%d" % (k, t)] = 0
        s["model_modelled_cycles_%d" % t] = cycles
    return s


def canned(d):
    shutil.rmtree(d, ignore_errors=True)
    # The host's memory figures as the kernel's on one CPU (the report checks they agree).
    mem = ("slab_start", "peak_slab", "end_slab", "end_shrunk_slab")
    ks = {"slab": kernel([400, 500, 300, 200], 600, 50), "slub": kernel([600, 700, 500, 400], 400, 50)}
    host = {a: dict(OPS, all_passes_ok=1, peak_object=32768, end_object=32768, peak_used=32768,
                    end_used=32768, **{m: ks[a][m] for m in mem}) for a in ks}
    summary(os.path.join(d, "slab-4K.summary"), **host["slab"],
            **causes("peak", req=200, rounding=10, cached=300, partial=50, empty=0, other=40),
            **causes("end", req=40, rounding=2, cached=30, partial=20, empty=5, other=3))
    summary(os.path.join(d, "slub-4K.summary"), **host["slub"],
            **causes("peak", req=200, rounding=10, cached=100, partial=80, empty=0, other=10),
            **causes("end", req=40, rounding=2, cached=3, partial=2, empty=1, other=2))
    write(os.path.join(d, "slub-4K.stats"), SLUB_STATS)
    k = os.path.join(d, "kernel-x86_64")
    summary(os.path.join(k, "slab-4K.summary"), **ks["slab"])
    summary(os.path.join(k, "slub-4K.summary"), **ks["slub"])
    lin = os.path.join(d, "linux-x86_64")
    big = 2 * K * K
    summary(os.path.join(lin, "linux61-slab-4K.summary"), **kernel([1000] * 4, 500, 60, start=big))
    summary(os.path.join(lin, "linux61-slub-4K.summary"), **kernel([1000] * 4, 500, 60, start=big))
    for a in ("slab-4K", "slub-4K", "kernel-x86_64/slab-4K", "kernel-x86_64/slub-4K"):
        write(os.path.join(d, a + ".csv"), CSV)
    summary(os.path.join(d, "kernel-x86_64-model", "slab-4K.model"), **model(100))
    summary(os.path.join(d, "linux-x86_64-model", "linux61-slab-4K.model"), **model(200))
    write(os.path.join(d, "kernel-x86_64-model", "slub-4K.report"),
          "region id=23 name=kfree entries=1000 insns=700000\n"
          "func region=22 name=slub_alloc insns=900000\n"
          "func region=23 name=__slab_free insns=200000\n"
          "func region=23 name=slub_free_slow insns=300000\n"
          "func region=23 name=kfree insns=100000\n")


def report(d):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "lab", "bench", "report.py"), "replay", d],
                       capture_output=True, text=True)
    text = open(os.path.join(d, "report.md")).read() if p.returncode == 0 else ""
    sec = text[text.find("## Targets against Linux"):] if "## Targets against Linux" in text else ""
    return p, sec.split("\n## ")[0].split("\n![")[0]


def pair(sec, title):
    """The lines of one pair's bullet in the section."""
    lines = sec.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("- **%s**" % title):
            j = i + 1
            while j < len(lines) and lines[j].startswith("  "):
                j += 1
            return lines[i:j]
    return []


def has(lines, text):
    return any(text in line for line in lines)


def main():
    d = sys.argv[1]
    canned(d)
    p, sec = report(d)
    check(p.returncode == 0 and sec, "the report built with its section (status %d%s)" % (
        p.returncode, ", " + p.stderr.strip()[-200:] if p.stderr.strip() else ""))
    want = "Targets: 5 met, 2 missed, 5 not measured (of 12)."
    check(want in sec, "summary: '%s'" % want)
    slab = pair(sec, "slab 4K against Linux 6.1 SLAB")
    check(has(slab, "at most 0.5x Linux's: met: kmalloc 40.0 / 100.0 = 0.40x; kfree 50.0 / 100.0 = "
                    "0.50x; cache alloc 30.0 / 100.0 = 0.30x; cache free 20.0 / 100.0 = 0.20x"),
          "slab: instructions met, kfree at exactly 0.5x counted met")
    check(has(slab, "peak Slab: (kB beyond the start), at most Linux's: **missed**: 600 kB against 500 kB")
          and has(slab, "- cause: 100 kB above Linux's; at the peak (host replay, 4K): per-CPU "
                        "caching 300 kB, free slots in slabs in use 50 kB, outside object slots 40 kB"),
          "slab: peak Slab: missed, its cause the breakdown at the peak")
    check(has(slab, "end Slab: shrunk (kB beyond the start), at most Linux's: met: 50 kB against 60 kB"),
          "slab: end shrunk met")
    check(has(slab, "at most 0.6x Linux's: met: kmalloc 100.0 / 200.0 = 0.50x"), "slab: modelled cycles met")
    slub = pair(sec, "slub 4K against Linux 6.1 SLUB")
    check(has(slub, "at most 0.5x Linux's: **missed**: kmalloc 60.0 / 100.0 = 0.60x; kfree 70.0 / "
                    "100.0 = 0.70x; cache alloc 50.0 / 100.0 = 0.50x; cache free 40.0 / 100.0 = 0.40x"),
          "slub: instructions missed (kmalloc and kfree over 0.5x)")
    check(has(slub, "- cause: kmalloc, kfree: slow paths per 1,000 calls "
                    "(host replay, 4K): free slow 500.0, page cmpxchg 250.0, alloc slow 25.0"),
          "slub: the instructions' cause names the slow paths per 1,000 calls")
    check(has(slub, "; functions with most instructions per call (cache model's kernel replay): "
                    "kmalloc: slub_alloc 900.0; kfree: slub_free_slow 300.0, __slab_free 200.0"),
          "slub: the missed calls' cause names the functions of their regions in the model's report")
    check(has(slub, "modelled cycles per call (cache model), at most 0.6x Linux's: not measured (MODEL=1)"),
          "slub: no model row, modelled cycles not measured")
    check(pair(sec, "slub 4K against Linux 6.12 SLUB")[1:] ==
          ["  - all four targets not measured: run make bench-linux / make replay LINUX=1"],
          "slub against Linux 6.12 SLUB, not run: not measured")

    write(os.path.join(d, "kernel-x86_64-model", "slub-4K.report"),
          "region id=23 name=kfree entries=1000 insns=700000\nfunc region=23 name=f insns=lots\n")
    p, _ = report(d)
    check(p.returncode != 0 and "slub-4K.report:2: a func line's insns is not a count: 'lots'" in p.stderr,
          "a model report's bad func line refused, naming file and line (%s)" % p.stderr.strip()[-120:])

    shutil.rmtree(os.path.join(d, "linux-x86_64"))
    shutil.rmtree(os.path.join(d, "linux-x86_64-model"))
    os.remove(os.path.join(d, "kernel-x86_64-model", "slub-4K.report"))
    p, sec = report(d)
    check(p.returncode == 0 and "Targets: 0 met, 0 missed, 12 not measured (of 12)." in sec and
          "- x86_64, one CPU: 3 allocator pairs, all targets not measured: run make bench-linux / "
          "make replay LINUX=1" in sec, "no Linux results: every target not measured, saying how to run it")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
