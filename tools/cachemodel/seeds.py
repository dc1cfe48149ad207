#!/usr/bin/env python3
"""seeds.py DIR - the seed-claim table from tools/cachemodel/seeds.sh's boots in
DIR (NAME.log, NAME.report): for each pair, per operation, the figure
(instructions), data accesses, L1D, L2 and LLC misses, DTLB misses, page walks
and modelled cycles, for messaging (per message), test 1 (kmalloc then kfree,
the mean over sizes of alloc + free), test 2 (a kmalloc/kfree pair, mean over
sizes) and the page allocator (alloc + free, mean over orders)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import pair  # noqa: E402

PAIRS = [
    ("SLAB natural index against SLAB_IDX=4 (seeds 000/003), x86_64 4K",
     "x86_64-4k-slab", "x86_64-4k-slab-idx4"),
    ("arm64 4K against 64K pages (TLB entry = the granule), SLAB",
     "arm64-4k-slab", "arm64-64k-slab"),
    ("SLUB with sheaves against without (SLUB_SHEAVES=0), x86_64 4K",
     "x86_64-4k-slub", "x86_64-4k-slub-nosheaves"),
    ("SLOB against SLOB-seg, x86_64 4K", "x86_64-4k-slob", "x86_64-4k-slob-seg"),
]
FIELDS = ["insns", "dacc", "dl1_miss", "dl2_miss", "dllc_miss", "dtlb_miss", "dwalks",
          "modelled_cycles"]
GROUPS = [("messaging", lambda r: r["test"] == "messaging", False),
          ("test 1 alloc+free", lambda r: r["test"] == "kmalloc_then_free", True),
          ("test 2 pair", lambda r: r["test"] == "kmalloc_free_pair", False),
          ("pages alloc+free", lambda r: r["test"] == "pages_single", True)]


def summary(rows, match, two_keys):
    sel = [r for r in rows if match(r)]
    if not sel:
        return None
    sizes = sorted({r["size"] for r in sel}, key=int)
    # per size: the sum over its keys (alloc + free), then the mean over sizes
    return {f: sum(r[f] for r in sel) / len(sizes) for f in FIELDS}


def main():
    d = sys.argv[1]
    print("# The seeds' memory claims under the cache model\n")
    print("`tools/cachemodel/seeds.sh`: one `bench icount quick` boot per configuration under "
          "-icount with the cache model. Per operation; modelled cycles are a model, not a "
          "measurement. Every column's source: tools/cachemodel/bench.py.\n")
    geo = set()
    bad = 0
    for title, a, b in PAIRS:
        print(f"## {title}\n")
        print("| workload | config | " + " | ".join(FIELDS) + " |")
        print("|---|---|" + "---|" * len(FIELDS))
        for name in (a, b):
            log, rep = f"{d}/{name}.log", f"{d}/{name}.report"
            if not (os.path.exists(log) and os.path.exists(rep)):
                print(f"| - | {name} | missing (build or boot failed) |")
                bad += 1
                continue
            geo.update(l.split(" ", 1)[1].strip() for l in open(rep) if l.startswith("geometry "))
            rows, wrong, _, _ = pair(log, rep)
            bad += len(wrong)
            for gname, match, two in GROUPS:
                s = summary(rows, match, two)
                if s:
                    print(f"| {gname} | {name} | " + " | ".join(
                        f"{s[f]:.1f}" if f in ("insns", "dacc", "modelled_cycles") else f"{s[f]:.3f}"
                        for f in FIELDS) + " |")
        print()
    print("Geometries used:\n")
    for g in sorted(geo):
        print(f"- `{g}`")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
