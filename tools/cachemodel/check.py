#!/usr/bin/env python3
"""check.py CONSOLE REPORT TAG - compare the cache model's counts for the
kernel's synthetic patterns (the "modeltest" command, modeltest.h) with the
counts they must give, worked out here from the buffer's addresses and the
geometry the plugin reports.

Every pattern sweeps its lines cyclically (one warming sweep, then the
counted ones), so under LRU a set either holds all the lines (or pages) that
map to it, and has no misses once warm, or holds fewer than map to it and
misses on each of them every sweep. A level sees, in order, only what missed
the level above it. That gives every count exactly.

Prints one row per pattern (expected/measured) and a PASS or FAIL line
named modeltest-TAG-<pattern>; exit status 1 on any FAIL.
"""
import re
import sys
from collections import Counter

FIELDS = ["dacc", "dl1_miss", "dl2_miss", "dllc_miss", "dtlb_miss", "dwalks"]


def parse_console(path):
    buf = None
    patterns = []
    for line in open(path, errors="replace"):
        m = re.search(r"modeltest: buffer virt=0x([0-9a-f]+) phys=0x([0-9a-f]+) blocks=(\d+)", line)
        if m:
            buf = (int(m.group(1), 16), int(m.group(2), 16))
        m = re.search(r"modeltest: pattern id=(\d+) name=(\S+) blocks=(\d+) span=(\d+) "
                      r"stride=(\d+) passes=(\d+)", line)
        if m:
            patterns.append(dict(id=int(m.group(1)), name=m.group(2),
                                 blocks=int(m.group(3)), span=int(m.group(4)),
                                 stride=int(m.group(5)), passes=int(m.group(6))))
    return buf, patterns


def parse_report(path):
    geo, regions = None, {}
    for line in open(path):
        if line.startswith("geometry "):
            geo = {}
            for kv in line.split()[1:]:
                k, v = kv.split("=")
                geo[k] = tuple(int(x) for x in v.split(":"))
        elif line.startswith("region "):
            kv = dict(x.split("=", 1) for x in line.split()[1:])
            regions[int(kv["id"])] = {k: int(v) for k, v in kv.items() if v.isdigit()}
    return geo, regions


def sweep(pattern, base):
    """The addresses one sweep reads, in order."""
    block = 4 << 20
    for b in range(pattern["blocks"]):
        start = base + b * block
        yield from range(start, start + pattern["span"], pattern["stride"])


def bursts(keys):
    """Collapse runs of the same key (a line or page read several times in a row)."""
    out, last = [], None
    for k in keys:
        if k != last:
            out.append(k)
            last = k
    return out


def misses(seq, blocks, ways):
    """The keys of seq (one sweep, cyclic) that miss a `blocks`-entry, `ways`-way LRU
    structure indexed by key % sets, in order."""
    sets = blocks // ways
    per_set = Counter(k % sets for k in set(seq))
    return [k for k in seq if per_set[k % sets] > ways]


def expect(pattern, buf, geo):
    line = geo["line"][0]
    page = geo["tlbpage"][0]
    virt = list(sweep(pattern, buf[0]))
    phys_lines = bursts(a >> (line.bit_length() - 1) for a in sweep(pattern, buf[1]))
    pages = bursts(a >> (page.bit_length() - 1) for a in virt)
    l1 = misses(phys_lines, geo["l1d"][0] // line, geo["l1d"][1])
    l2 = misses(l1, geo["l2"][0] // line, geo["l2"][1])
    llc = misses(l2, geo["llc"][0] // line, geo["llc"][1])
    t1 = misses(pages, geo["dtlb"][0], geo["dtlb"][1])
    t2 = misses(t1, geo["stlb"][0], geo["stlb"][1])
    n = pattern["passes"]
    return dict(dacc=n * len(virt), dl1_miss=n * len(l1), dl2_miss=n * len(l2),
                dllc_miss=n * len(llc), dtlb_miss=n * len(t1), dwalks=n * len(t2))


def main():
    if len(sys.argv) != 4:
        print("usage: check.py CONSOLE REPORT TAG", file=sys.stderr)
        return 2
    console, report, tag = sys.argv[1:]
    buf, patterns = parse_console(console)
    geo, regions = parse_report(report)
    if buf is None or not patterns:
        print(f"FAIL modeltest-{tag}: no modeltest buffer or patterns on the console ({console})")
        return 1
    if geo is None:
        print(f"FAIL modeltest-{tag}: no geometry line in the plugin's report ({report})")
        return 1
    print(f"modeltest {tag}: " + " ".join(f"{k}={':'.join(map(str, v))}" for k, v in geo.items()))
    print(f"{'pattern':<18} " + " ".join(f"{f:>19}" for f in FIELDS) + "   (expected/measured)")
    bad = 0
    for p in patterns:
        exp = expect(p, buf, geo)
        got = regions.get(p["id"])
        cells = []
        for f in FIELDS:
            cells.append(f"{exp[f]}/{got[f] if got else '-'}")
        print(f"{p['name']:<18} " + " ".join(f"{c:>19}" for c in cells))
        wrong = [f for f in FIELDS if not got or got[f] != exp[f]]
        if wrong:
            bad += 1
            print(f"FAIL modeltest-{tag}-{p['name']}: " + ", ".join(
                f"{f} expected {exp[f]}, measured {got[f] if got else 'nothing (no region)'}"
                for f in wrong))
        else:
            print(f"PASS modeltest-{tag}-{p['name']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
