#!/usr/bin/env python3
"""strings_check.py CONSOLE REPORT TAG [off] - compare the cache model's
prices of the kernel's rep string patterns ("modeltest repstrings",
modeltest.h) with the prices they must have, worked out here from the
buffer's address, the patterns and the geometry, latencies and rep
parameters the plugin reports.

Each pattern stores (or copies) its bytes once outside its region and
`passes` times inside it, over one physically contiguous span, so its data
accesses, misses and TLB misses follow from the sweep as in check.py. With
fast-string pricing (the default) a rep pattern must cost, besides its other
instructions and its instruction fetches, exactly rep_start cycles a pass
plus its bytes / rep_rate rounded up, plus every L1D miss at the latency of
the level that served it: no cycle per iteration and no L1D hit. The plain
store loop, and every pattern with `off` (the plugin run with
fast_strings=off), must cost what the model charged before: an instruction a
cycle and every data access at its level's latency, with no rep fields.

Prints one row per pattern and a PASS or FAIL line named
modeltest-strings-TAG-<pattern>; exit status 1 on any FAIL.
"""
import re
import sys

from check import bursts, misses, parse_console, parse_report

REP_FIELDS = ["rep_runs", "rep_iters", "rep_bytes", "rep_dl1_hits", "rep_xfer_cycles"]


def parse_strings(path):
    """The string patterns the console lists (check.parse_console gives the buffer)."""
    patterns = []
    for line in open(path, errors="replace"):
        m = re.search(r"modeltest: string id=(\d+) name=(\S+) op=(\w+) size=(\d+) bytes=(\d+) "
                      r"passes=(\d+)", line)
        if m:
            patterns.append(dict(id=int(m.group(1)), name=m.group(2), op=m.group(3),
                                 size=int(m.group(4)), bytes=int(m.group(5)),
                                 passes=int(m.group(6))))
    return patterns


def parse_prices(path):
    """The latencies of the modelled-cycles line and the rep parameters (None without)."""
    lat, rep = None, None
    for line in open(path):
        m = re.search(r"L1D hits x (\d+) \+ L2 hits x (\d+) \+ LLC hits x (\d+) \+ memory x (\d+)"
                      r" \+ page walks x (\d+) levels x (\d+)", line)
        if m:
            lat = dict(zip(["l1", "l2", "llc", "mem", "levels", "walk"], map(int, m.groups())))
        m = re.search(r"rep_start=(\d+) .*rep_rate=(\d+)", line)
        if m and line.startswith("cachemodel: rep "):
            rep = dict(start=int(m.group(1)), rate=int(m.group(2)))
    return lat, rep


def sweep(p, buf):
    """The physical addresses one pass accesses, in order (a copy reads 1 MiB above)."""
    src = buf[1] + (4 << 20) // 4
    for off in range(0, p["bytes"], p["size"]):
        if p["op"] == "movs":
            yield src + off
        yield buf[1] + off


def expect_counts(p, buf, geo):
    """dacc, the misses per level and the TLB misses of the pattern's passes."""
    line_shift = geo["line"][0].bit_length() - 1
    page_shift = geo["tlbpage"][0].bit_length() - 1
    addrs = list(sweep(p, buf))
    lines = bursts(a >> line_shift for a in addrs)
    l1 = misses(lines, geo["l1d"][0] // geo["line"][0], geo["l1d"][1])
    l2 = misses(l1, geo["l2"][0] // geo["line"][0], geo["l2"][1])
    llc = misses(l2, geo["llc"][0] // geo["line"][0], geo["llc"][1])
    pages = bursts((a - buf[1] + buf[0]) >> page_shift for a in addrs)
    t1 = misses(pages, geo["dtlb"][0], geo["dtlb"][1])
    t2 = misses(t1, geo["stlb"][0], geo["stlb"][1])
    n = p["passes"]
    return dict(dacc=n * len(addrs), dl1_miss=n * len(l1), dl2_miss=n * len(l2),
                dllc_miss=n * len(llc), dtlb_miss=n * len(t1), dwalks=n * len(t2))


def miss_cycles(c, lat):
    """What the model charges for the misses of both sides and the page walks."""
    served = (c["dl1_miss"] - c["dl2_miss"] + c["il1_miss"] - c["il2_miss"]) * lat["l2"]
    served += (c["dl2_miss"] - c["dllc_miss"] + c["il2_miss"] - c["illc_miss"]) * lat["llc"]
    served += (c["dllc_miss"] + c["illc_miss"]) * lat["mem"]
    return served + (c["dwalks"] + c["iwalks"]) * lat["levels"] * lat["walk"]


def check_fast(p, got, lat, rep):
    """The differences of a rep pattern priced as fast strings: (field, expected, measured)."""
    n, per_pass = p["passes"], p["bytes"] // p["size"]
    xfer = n * -(-p["bytes"] // rep["rate"])
    wrong = []
    for f, want in (("rep_runs", n), ("rep_bytes", n * p["bytes"]), ("rep_xfer_cycles", xfer),
                    ("rep_dl1_hits", got["dacc"] - got["dl1_miss"])):
        if got.get(f) != want:
            wrong.append((f, want, got.get(f)))
    if not n * per_pass <= got.get("rep_iters", -1) <= n * (per_pass + 1):
        wrong.append(("rep_iters", f"{n * per_pass} to {n * (per_pass + 1)}", got.get("rep_iters")))
    others = got["insns"] - got.get("rep_iters", 0)
    cycles = others + n * rep["start"] + xfer + miss_cycles(got, lat)
    if got["modelled_cycles"] != cycles:
        wrong.append(("modelled_cycles", cycles, got["modelled_cycles"]))
    return wrong


def check_plain(got, lat):
    """The differences of a pattern priced as before: (field, expected, measured)."""
    wrong = [(f, "absent", got[f]) for f in REP_FIELDS if f in got]
    cycles = got["insns"] + (got["dacc"] - got["dl1_miss"]) * lat["l1"] + miss_cycles(got, lat)
    if got["modelled_cycles"] != cycles:
        wrong.append(("modelled_cycles", cycles, got["modelled_cycles"]))
    return wrong


def check(p, got, exp, lat, rep, off):
    wrong = [(f, exp[f], got[f]) for f in exp if got[f] != exp[f]]
    if p["op"] == "plain" or off:
        return wrong + check_plain(got, lat)
    if rep is None:
        return wrong + [("rep header line", "present", "absent")]
    return wrong + check_fast(p, got, lat, rep)


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[4:] not in ([], ["off"]):
        print("usage: strings_check.py CONSOLE REPORT TAG [off]", file=sys.stderr)
        return 2
    console, report, tag = sys.argv[1:4]
    off = sys.argv[4:] == ["off"]
    buf = parse_console(console)[0]
    patterns = parse_strings(console)
    geo, regions = parse_report(report)
    lat, rep = parse_prices(report)
    if buf is None or not patterns:
        print(f"FAIL modeltest-strings-{tag}: no buffer or string patterns on the console ({console})")
        return 1
    if geo is None or lat is None:
        print(f"FAIL modeltest-strings-{tag}: no geometry or modelled-cycles line in {report}")
        return 1
    if off and rep is not None:
        print(f"FAIL modeltest-strings-{tag}: fast_strings=off, yet {report} prices rep strings")
        return 1
    print(f"{'pattern':<17} {'bytes':>6} {'insns':>6} {'dacc':>6} {'dl1_miss':>8} "
          f"{'modelled_cycles':>15} {'per byte':>8}")
    bad = 0
    for p in patterns:
        got = regions.get(p["id"])
        if not got:
            print(f"FAIL modeltest-strings-{tag}-{p['name']}: no region {p['id']} in {report}")
            bad += 1
            continue
        total = p["passes"] * p["bytes"]
        print(f"{p['name']:<17} {p['bytes']:>6} {got['insns']:>6} {got['dacc']:>6} "
              f"{got['dl1_miss']:>8} {got['modelled_cycles']:>15} "
              f"{got['modelled_cycles'] / total:>8.3f}")
        wrong = check(p, got, expect_counts(p, buf, geo), lat, rep, off)
        if wrong:
            bad += 1
            print(f"FAIL modeltest-strings-{tag}-{p['name']}: " + ", ".join(
                f"{f} expected {e}, measured {m}" for f, e, m in wrong))
        else:
            print(f"PASS modeltest-strings-{tag}-{p['name']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
