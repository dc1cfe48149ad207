#!/usr/bin/env python3
"""model_replay.py CONSOLE REPORT [PLAIN] - the kernel replay's figures beside
the cache model's counts for the same calls (make replay ... MODEL=1).

CONSOLE is the console of a one-CPU "replay icount" boot run under the cache
model's plugin (tools/cachemodel/run.sh), REPORT the plugin's report of that
boot. lab/replay.c makes each allocator call of event type T one pass
through region 21 + T (tools/cachemodel/marker.h), its two counter reads
fused with the marks: the region holds the figure's span and one counter
read more. So, exactly, for every type:
    passes == ops_T          and          region insns == cost_T + ops_T
(the model's instructions per operation are the replay's figure plus one).
PLAIN, the console of the same configuration's one-CPU -icount boot without
the plugin: its REPLAY lines must be those of CONSOLE (the plugin changes no
figure).

Prints key=value lines for tools/trace/report_replay.py: geometry, and per
type T with operations: model_ops_T, model_figure_T (the replay's
instructions per operation, unrounded), model_insns_T (per operation, the
figure's span plus the one read), and per operation model_<field>_T for the
data accesses, misses at L1D, L2 and LLC, DTLB misses, page walks, L1I
misses and modelled cycles. Exit status 1 (said on stderr) when a check
fails, 2 on missing input.
"""
import sys

FIELDS = ["dacc", "dl1_miss", "dl2_miss", "dllc_miss", "dtlb_miss", "dwalks", "il1_miss",
          "modelled_cycles"]
NAMES = {1: "kmalloc", 2: "kfree", 3: "cache_alloc", 4: "cache_free", 5: "page_alloc",
         6: "page_free"}
REGION_BASE = 21	# region id = REGION_BASE + event type (marker.h)


def kv(line):
    return dict(x.split("=", 1) for x in line.split() if "=" in x)


def replay_lines(path):
    with open(path, errors="replace") as f:
        return [l.rstrip("\r\n") for l in f if l.startswith("REPLAY ")]


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    console, report = sys.argv[1:3]
    try:
        lines = replay_lines(console)
        rep = open(report).read().splitlines()
    except OSError as e:
        print("model_replay.py: %s" % e, file=sys.stderr)
        return 2
    s = {}
    for l in lines:
        s.update(kv(l[len("REPLAY "):]))
    if "cost_1" not in s or s.get("cpus") != "1" or s.get("mode") != "icount":
        print("model_replay.py: %s is not a one-CPU replay under -icount (no REPLAY cost lines, "
              "cpus=%s, mode=%s)" % (console, s.get("cpus"), s.get("mode")), file=sys.stderr)
        return 2
    regions = {int(d["id"]): d for d in (kv(l) for l in rep if l.startswith("region "))}
    geo = next((l.split(" ", 1)[1] for l in rep if l.startswith("geometry ")), "")
    bad = []
    if len(sys.argv) > 3:
        plain = replay_lines(sys.argv[3])
        if plain != lines:
            diff = [a for a, b in zip(plain, lines) if a != b][:3]
            bad.append("the REPLAY lines under the model differ from those of %s (the plugin must "
                       "change no figure), first: %s" % (sys.argv[3], diff or "a line more or less"))
    print("geometry=" + geo)
    for t, name in NAMES.items():
        ops, cost = int(s.get("ops_%d" % t, 0)), int(s.get("cost_%d" % t, 0))
        r = regions.get(REGION_BASE + t)
        if not ops and not r:
            continue
        passes = int(r["entries"]) if r else 0
        insns = int(r["insns"]) if r else 0
        if passes != ops:
            bad.append("%s: %d passes through region %d, %d operations" %
                       (name, passes, REGION_BASE + t, ops))
            continue
        if insns != cost + ops:
            bad.append("%s: region %d has %d instructions, the replay's figure %d plus one counter "
                       "read per operation is %d" % (name, REGION_BASE + t, insns, cost, cost + ops))
        print("model_ops_%d=%d" % (t, ops))
        print("model_figure_%d=%.3f" % (t, cost / ops))
        print("model_insns_%d=%.3f" % (t, insns / ops))
        for f in FIELDS:
            print("model_%s_%d=%.4f" % (f, t, int(r[f]) / ops))
    for b in bad:
        print("model_replay.py: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
