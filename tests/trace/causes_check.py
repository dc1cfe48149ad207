"""causes_check.py DIR - tests/trace/test.sh's check of the host replay's
breakdown by cause (tools/trace/replay.c, struct causes) against the trace
itself. DIR holds the replay's summary (s), its counters (stats, a
SLAB_STATS=1 build's --stats) and the trace's --dump (dump). Checked:
the requested part at the end equals what the trace's events leave live
of slab-served requests (every cache allocation, kmallocs up to 8 KiB, the
traced allocator's internal ones left out as the replay leaves them); the
parts add up to Slab:; no part that cannot be negative is; the counters'
allocs, summed over the caches, are at least the slab-served allocations.
Prints one line; exit 1 when a check fails.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "trace"))
import report_causes  # noqa: E402

d = sys.argv[1]
s = dict(l.rstrip("\n").split("=", 1) for l in open(os.path.join(d, "s")) if "=" in l)
live, served = {}, 0
for line in open(os.path.join(d, "dump")):
    w = line.split()
    if len(w) < 5 or not w[0].endswith(":") or "internal" in w or w[3] not in ("kmalloc", "kfree", "cache"):
        continue
    kind = w[3] if w[3] in ("kmalloc", "kfree") else w[3] + " " + w[4]
    obj = w[w.index("object") + 1]
    if kind in ("kmalloc", "cache alloc"):
        req = int(w[w.index("req") + 1])
        if kind == "cache alloc" or req <= 8192:
            live[obj] = req
            served += 1
    elif kind in ("kfree", "cache free"):
        live.pop(obj, None)
want = sum(live.values())
bad = []
if int(s["cause_end_req"]) != want:
    bad.append("cause_end_req %s, the events leave %d" % (s["cause_end_req"], want))
for at in ("peak", "end"):
    parts = sum(int(s["cause_%s_%s" % (at, k)]) for k, _ in report_causes.CAUSES)
    if parts != int(s["cause_%s_slab" % at]):
        bad.append("%s: the parts add to %d, Slab: %s" % (at, parts, s["cause_%s_slab" % at]))
    for k in ("req", "rounding", "partial", "empty"):
        if int(s["cause_%s_%s" % (at, k)]) < 0:
            bad.append("%s: %s is negative" % (at, k))
allocs = report_causes.load_stats(os.path.join(d, "stats")).get("allocs", 0)
if allocs < served:
    bad.append("the counters' allocs %d < the %d slab-served allocations" % (allocs, served))
print("; ".join(bad) or "end requested %d bytes as the events leave; allocs counted %d >= %d served"
      % (want, allocs, served))
sys.exit(1 if bad else 0)
