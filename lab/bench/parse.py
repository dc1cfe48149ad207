#!/usr/bin/env python3
"""parse.py - turn Quarry's benchmark console logs into CSV rows.

    parse.py [--run N] LOG...        rows on stdout, with a header
    parse.py --check LOG             exit 1 unless the log has every expected row
    parse.py --counter LOG           the counter the figures are in (from the log)
    parse.py --compare LOG1 LOG2     two -icount boots of one configuration: their
                                     test=concurrent_span rows (the multi-CPU figures
                                     run.sh's mcpu mode reports), or a NUMA boot's
                                     test=numa_concurrent_* rows, must be present and
                                     every BENCH line identical (exit 0), else exit 1.
                                     Says how many lines differ and by how much

A BENCH line is
    BENCH arch=x86_64 page=4K alloc=slab cpus=1 mode=icount test=T size=N k=v ... unit=U
and gives one row per k=v (columns: arch, page_size, allocator, cpus, mode,
test, size, metric, value, unit). The allocator is the kernel's build: slab
(SLAB, ALLOC=slab), slab-idx4 and slab-growlocked (SLAB's benchmark variants)
or slub (SLUB, ALLOC=slub); every allocator prints the same tests and the same
slabinfo 2.1 table, so --check expects the same rows of each, and fails
when the leak check after the benchmarks (test=leak_check) found differences. The slabinfo table printed after boot also
gives objperslab/pagesperslab rows for every kmalloc cache (test=slabinfo_boot,
size = object size). On two NUMA nodes or more the NUMA section's rows
(test=numa_*, lab/bench_numa.c) are expected too; a "numaonly" boot has those
alone.

The benchmark header says which counter the figures come from, e.g.
    == counter: rdtsc under QEMU -icount shift=0: figures are guest instructions, ...
    == counter: PMCCNTR_EL0 at 62.500 MHz (measured at boot): figures are cycles
(x86_64 reads the TSC, arm64 the PMU cycle counter); counter_of() returns the
name and the rest of that line, whatever the arch. Page sizes are 4K, 16K
(arm64 only) and 64K.
"""
import re
import sys

COLUMNS = ["arch", "page_size", "allocator", "cpus", "mode", "test", "size", "metric", "value", "unit"]
FIXED = {"arch", "page", "alloc", "cpus", "mode", "test", "size", "unit"}
SLABINFO_ROW = re.compile(r"^(kmalloc-\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+) : tunables")
COUNTER_LINE = re.compile(r"^== counter: (\S+) (.*)$")
PAGE_SHIFTS = {"4K": 12, "16K": 14, "64K": 16}

SINGLE_SIZES = [8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192, 16384]
CONCURRENT_SIZES = [32, 64, 128, 256, 512, 1024, 2048, 4096]


def unit_of(metric, line_unit):
    """Only *_cost figures are in the counter's unit; the rest say what they are."""
    if metric.endswith("_cost"):
        return line_unit
    if metric.endswith("_kb"):
        return "kB"
    if metric.endswith("_khz"):
        return "kHz"
    if metric.endswith("_x100") or metric.endswith("_pct"):
        return "percent"
    return "count"


def parse(path):
    rows = []
    ctx = None
    in_boot_memory = False
    done = False
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.strip().replace("\r", "")
            if line == "BENCH done":
                done = True
                continue
            if line.startswith("== Memory after boot"):
                in_boot_memory = True
                continue
            if line.startswith("== Memory after the workloads") or line.startswith("BENCH "):
                if line.startswith("BENCH "):
                    kv = dict(p.split("=", 1) for p in line.split()[1:] if "=" in p)
                    ctx = kv
                    for k, v in kv.items():
                        if k in FIXED:
                            continue
                        rows.append([kv["arch"], kv["page"], kv["alloc"], kv["cpus"], kv["mode"],
                                     kv["test"], kv["size"], k, v, unit_of(k, kv["unit"])])
                in_boot_memory = in_boot_memory and line.startswith("BENCH ")
                continue
            m = SLABINFO_ROW.match(line)
            if m and in_boot_memory and ctx:
                size = m.group(4)
                for metric, val in (("objperslab", m.group(5)), ("pagesperslab", m.group(6))):
                    rows.append([ctx["arch"], ctx["page"], ctx["alloc"], ctx["cpus"], ctx["mode"],
                                 "slabinfo_boot", size, metric, val, "count"])
    return rows, done


def counter_of(path):
    """(name, rest) of the log's first '== counter:' line, e.g. ("rdtsc", "under QEMU
    -icount shift=0: ..."), or None when the log has none."""
    with open(path, errors="replace") as f:
        for raw in f:
            m = COUNTER_LINE.match(raw.strip().replace("\r", ""))
            if m:
                return m.group(1), m.group(2)
    return None


def kmalloc_shift_high(page):
    """The largest kmalloc cache's shift (mm/slab.h KMALLOC_SHIFT_HIGH): 8 KiB at 4K
    pages, half a page above (16K: 8 KiB, 64K: 32 KiB)."""
    shift = PAGE_SHIFTS.get(page, 12)
    return 13 if shift == 12 else shift - 1


NUMA_SIZES = [32, 256]


def numa_expected(cpus):
    """The NUMA section's rows (lab/bench_numa.c), on a machine of two nodes or more."""
    want = [("numa_header", 0, "nodes")]
    for s in NUMA_SIZES:
        for where in ("local", "remote"):
            want += [("numa_alloc_" + where, s, m) for m in ("alloc_cost", "free_cost", "placed_pct")]
            want += [("numa_concurrent_" + where, s, m) for m in ("alloc_cost", "span_alloc_cost")]
        want += [("numa_free_local", s, "free_cost"), ("numa_free_local", s, "flush_cost")]
        if cpus >= 2:
            want += [("numa_free_remote", s, "free_cost"), ("numa_free_remote", s, "flush_cost")]
    return want


def expected(rows):
    """The (test, size, metric) rows a complete run must have: with a numa_header
    row of two nodes or more the NUMA section's too, and those alone (besides the
    header, memory and leak rows) when it says only=1 (command line "numaonly")."""
    cpus = int(rows[0][3]) if rows else 1
    page = rows[0][1] if rows else "4K"
    numa = {r[7]: r[8] for r in rows if r[5] == "numa_header"}
    want = [("header", 0, "counter_khz"), ("memory_boot", 0, "slab_kb"), ("memory_end", 0, "slab_kb"),
            ("leak_check", 0, "differences")]
    if int(numa.get("nodes", 1)) >= 2:
        want += numa_expected(cpus)
    if numa.get("only") == "1":
        return want
    want.append(("messaging", 0, "per_message_cost"))
    for s in SINGLE_SIZES:
        want += [("kmalloc_then_free", s, "alloc_cost"), ("kmalloc_then_free", s, "free_cost"),
                 ("kmalloc_free_pair", s, "pair_cost")]
    for s in CONCURRENT_SIZES:
        want += [("concurrent_alloc_free", s, "alloc_cost"), ("concurrent_alloc_free", s, "free_cost")]
        if cpus >= 2:
            want += [("remote_free", s, "remote_free_cost"), ("concurrent_alone", s, "ratio_x100"),
                     ("concurrent_private", s, "ratio_x100")]
    for o in range(4):
        want += [("pages_single", o, "alloc_cost"), ("pages_concurrent", o, "free_cost")]
    top = kmalloc_shift_high(page)
    for shift in range(4, top + 1):
        want.append(("slabinfo_boot", 1 << shift, "objperslab"))
    want += [("slabinfo_boot", 96, "objperslab"), ("slabinfo_boot", 192, "objperslab")]
    return want


COMPARED = "concurrent_span"


def compare(path1, path2):
    """(status, one-line summary) for two boots of one configuration: 0 when
    both have test=concurrent_span rows and every BENCH line is identical, 1 otherwise
    (a boot under -icount is exact: tests/qemu/run.sh starts x86_64's kernel
    through QEMU's own loader, so nothing before it waits on the host); the
    summary also
    gives how many of the other BENCH lines differ, and the largest relative
    difference among their figures (which test, size and metric)."""
    lines = []
    for path in (path1, path2):
        with open(path, errors="replace") as f:
            lines.append([raw.strip().replace("\r", "") for raw in f
                          if raw.startswith("BENCH ") and raw.strip() != "BENCH done"])
    spans = [{(r[5], r[6], r[7]): r[8] for r in parse(path)[0]
              if r[5] == COMPARED or r[5].startswith("numa_concurrent_")}
             for path in (path1, path2)]
    if not spans[0] or not spans[1]:
        return False, "no test=%s rows in %s" % (COMPARED, path1 if not spans[0] else path2)
    span_diff = sorted(k for k in set(spans[0]) | set(spans[1]) if spans[0].get(k) != spans[1].get(k))
    others = [(a, b) for a, b in zip(lines[0], lines[1]) if a != b and "test=%s " % COMPARED not in a
              and " test=numa_concurrent_" not in a]
    if len(lines[0]) != len(lines[1]):
        others.append(("", ""))
    worst = None
    for a, b in others:
        ka = dict(p.split("=", 1) for p in a.split()[1:] if "=" in p)
        kb = dict(p.split("=", 1) for p in b.split()[1:] if "=" in p)
        for k in set(ka) & set(kb) - FIXED - {"cpu"}:
            try:
                x, y = float(ka[k]), float(kb[k])
            except ValueError:
                continue
            if x != y and min(x, y) > 0 and (worst is None or abs(x - y) / min(x, y) > worst[0]):
                worst = (abs(x - y) / min(x, y), (ka.get("test"), ka.get("size"), k), ka[k], kb[k])
    summary = "%d %s rows %s; %d of the other %d BENCH lines differ" % (
        len(spans[0]), COMPARED + " and numa_concurrent_*" if any(
            k[0].startswith("numa_") for k in spans[0]) else COMPARED, "identical in both boots" if not span_diff else
        "of which %d differ (first: size %s %s: %s vs %s)" % (
            len(span_diff), span_diff[0][1], span_diff[0][2], spans[0].get(span_diff[0]),
            spans[1].get(span_diff[0])),
        len(others), max(len(lines[0]), len(lines[1])) - len(spans[0]))
    if worst:
        summary += " (largest: %.1f%%, test=%s size=%s %s: %s vs %s)" % (
            100 * worst[0], worst[1][0], worst[1][1], worst[1][2], worst[2], worst[3])
    return (0 if not span_diff and not others else 1), summary


def main(argv):
    if argv[:1] == ["--compare"]:
        status, summary = compare(argv[1], argv[2])
        print(summary)
        return status
    if argv[:1] == ["--check"]:
        rows, done = parse(argv[1])
        have = {(r[5], int(r[6]), r[7]) for r in rows}
        missing = [w for w in expected(rows) if w not in have]
        if not done:
            print("parse.py: %s: the benchmark run did not reach 'BENCH done'" % argv[1])
        for w in missing:
            print("parse.py: %s: missing row test=%s size=%d metric=%s" % ((argv[1],) + w))
        counter = counter_of(argv[1])
        if counter is None:
            print("parse.py: %s: no '== counter:' header line" % argv[1])
        configs = sorted({"%s %s %s, %s CPU%s" % (r[0], r[1], r[2], r[3], "" if r[3] == "1" else "s")
                          for r in rows})
        if len(configs) > 1:
            print("parse.py: %s: rows of more than one configuration: %s" % (argv[1], "; ".join(configs)))
        leaks = [r[8] for r in rows if r[5] == "leak_check" and r[7] == "differences" and r[8] != "0"]
        if leaks:
            print("parse.py: %s: the leak check after the benchmarks found %s differences "
                  "(the 'leak:' lines in the log)" % (argv[1], leaks[0]))
        print("parse.py: %s: %s%d rows, %d expected rows missing"
              % (argv[1], configs[0] + ": " if len(configs) == 1 else "", len(rows), len(missing)))
        return 0 if done and not missing and rows and counter and len(configs) == 1 and not leaks else 1
    if argv[:1] == ["--counter"]:
        counter = counter_of(argv[1])
        if counter is None:
            return 1
        print(" ".join(counter))
        return 0
    run = None
    if argv[:1] == ["--run"]:
        run, argv = argv[1], argv[2:]
    print(",".join(COLUMNS + (["run"] if run is not None else [])))
    for path in argv:
        rows, _ = parse(path)
        for r in rows:
            print(",".join(r + ([run] if run is not None else [])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
