#!/usr/bin/env python3
"""bench.py CONSOLE REPORT [CONFIG] - the single-CPU benchmark figures of one
"bench icount" boot beside the cache model's counts for the same spans.

The kernel marks each timed loop as a region (tools/cachemodel/marker.h:
test 1's kmalloc and kfree loops, test 2's pairs, messaging, the page
allocator's alloc and free loops, memset/memcpy/memmove); the plugin, run with entries=on, writes
one "entry" line per pass. The k-th pass of a region is the k-th figure of
its test on the console (CPU 0's passes; the concurrent runs come after the
single-CPU ones and are left out). Per operation: the BENCH figure
(instructions under -icount), the model's instructions (the same span less
the counter reads: they must agree within 1), data accesses, misses per
level, DTLB misses, page walks, and modelled cycles.

Prints a Markdown table; with CONFIG (e.g. x86_64-4K-slab) that is its
first column. Exit status 1 when a region's instructions per operation do
not match its figure (the pairing is wrong), 2 on missing input.
"""
import re
import sys

# region id -> (BENCH test, figure key, console line giving the operation count)
REGIONS = {
    16: ("kmalloc_then_free", "alloc_cost", r"(\d+) times kmalloc\((\d+)\) -> "),
    17: ("kmalloc_then_free", "free_cost", r"(\d+) times kmalloc\((\d+)\) -> "),
    18: ("kmalloc_free_pair", "pair_cost", r"(\d+) times kmalloc\((\d+)\)/kfree -> "),
    19: ("messaging", "per_message_cost", r", (\d+) messages, 1 CPU"),
    20: ("pages_single", "alloc_cost", r"(\d+) times alloc_pages\((\d+)\) -> "),
    21: ("pages_single", "free_cost", r"(\d+) times alloc_pages\((\d+)\) -> "),
    28: ("memset", "call_cost", r"(\d+) times memset\((\d+)\) -> "),
    29: ("memcpy", "call_cost", r"(\d+) times memcpy\((\d+)\) -> "),
    30: ("memmove", "call_cost", r"(\d+) times memmove\((\d+)\) -> "),
}
FIELDS = ["dacc", "dl1_miss", "dl2_miss", "dllc_miss", "dtlb_miss", "dwalks", "il1_miss",
          "modelled_cycles"]


def kv(line):
    return dict(x.split("=", 1) for x in line.split() if "=" in x)


def pair(console, report):
    """The rows of one boot: a dict per figure (test, size, key, figure, ops, insns per
    operation and every FIELDS value per operation), and the passes that did not pair."""
    text = open(console, errors="replace").read()
    bench = [kv(l) for l in text.splitlines()
             if l.startswith("BENCH ") and " cpus=1 " in l and " mode=icount " in l]
    entries = {}
    for line in open(report):
        if line.startswith("entry cpu=0 "):
            d = kv(line)
            entries.setdefault(int(d["id"]), []).append({k: int(v) for k, v in d.items()})
    rows, bad = [], []
    for rid, (test, key, ops_re) in sorted(REGIONS.items()):
        figures = [b for b in bench if b["test"] == test]
        counts = [int(m.group(1)) for m in re.finditer(ops_re, text)]
        for k, (b, e) in enumerate(zip(figures, entries.get(rid, []))):
            ops = counts[k] if k < len(counts) else counts[-1] if counts else 0
            if not ops:
                continue
            row = dict(test=test, size=b["size"], key=key.replace("_cost", ""),
                       figure=int(b[key]), ops=ops, insns=e["insns"] / ops)
            row.update({f: e[f] / ops for f in FIELDS})
            if abs(row["insns"] - row["figure"]) > 1:
                bad.append(f"region {rid} pass {k + 1} has {row['insns']:.1f} instructions per "
                           f"operation where {test} {key} says {row['figure']}: paired wrongly")
            rows.append(row)
    return rows, bad, bool(bench), bool(entries)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    console, report = sys.argv[1:3]
    config = sys.argv[3] if len(sys.argv) > 3 else ""
    rows, bad, have_bench, have_entries = pair(console, report)
    if not have_bench or not have_entries:
        print(f"bench.py: no single-CPU icount BENCH lines in {console} or no entry lines in "
              f"{report} (run the plugin with entries=on)", file=sys.stderr)
        return 2
    geo = next((l.split(" ", 1)[1].strip() for l in open(report) if l.startswith("geometry ")), "")
    print(f"Geometry: {geo}\n")
    cols = ["test", "size", "figure", "insns", "key"] + FIELDS
    print("| " + " | ".join(([("config")] if config else []) + cols) + " |")
    print("|" + "---|" * (len(cols) + bool(config)))
    for r in rows:
        cells = [r["test"], r["size"], str(r["figure"]), f"{r['insns']:.1f}", r["key"]]
        cells += [f"{r[f]:.1f}" if f == "modelled_cycles" else f"{r[f]:.3f}" for f in FIELDS]
        print("| " + " | ".join(([config] if config else []) + cells) + " |")
    for b in bad:
        print("bench.py: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
