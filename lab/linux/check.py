#!/usr/bin/env python3
"""check.py - check a bench-linux console log (lab/linux/boot.sh) with Quarry's
parser (lab/bench/parse.py): it must reach 'BENCH done', have the '== counter:'
header, rows of one configuration whose allocator is a Linux one
(linux<VER>-<slab|slub|slob>, or debian<VER>-... for Debian's
prebuilt kernel), and every row the module (lab/linux/bench/) prints: tests 1
and 2 at every single-CPU size, test 3 at every concurrent size, on 2+ CPUs
the remote-free and alone/private rows, messaging, and the page allocator's
rows at orders 0-3, and Slab: at load and at the end. (parse.py --check also
wants the rows only Quarry's kernel prints: slabinfo, leak check.)

    check.py LOG     prints one summary line; exit 0 when complete, else 1
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import parse  # noqa: E402

ALLOC = re.compile(r"^(linux|debian)\d+-(slab|slub|slob)$")


def expected(rows):
    cpus = int(rows[0][3]) if rows else 1
    want = [("header", 0, "counter_khz"), ("memory_boot", 0, "slab_kb"), ("memory_end", 0, "slab_kb")]
    for s in parse.SINGLE_SIZES:
        want += [("kmalloc_then_free", s, "alloc_cost"), ("kmalloc_then_free", s, "free_cost"),
                 ("kmalloc_free_pair", s, "pair_cost")]
    for s in parse.CONCURRENT_SIZES:
        want += [("concurrent_alloc_free", s, "alloc_cost"), ("concurrent_alloc_free", s, "free_cost")]
        if cpus >= 2:
            want += [("remote_free", s, "remote_free_cost"), ("concurrent_alone", s, "ratio_x100"),
                     ("concurrent_private", s, "ratio_x100")]
    want.append(("messaging", 0, "per_message_cost"))
    for o in range(4):
        want += [("pages_single", o, "alloc_cost"), ("pages_single", o, "free_cost"),
                 ("pages_concurrent", o, "alloc_cost"), ("pages_concurrent", o, "free_cost")]
    return want


def check(path):
    """(ok, problems, summary) for one console log."""
    rows, done = parse.parse(path)
    problems = []
    if not done:
        problems.append("the run did not reach 'BENCH done'")
    if parse.counter_of(path) is None:
        problems.append("no '== counter:' header line")
    configs = sorted({(r[0], r[1], r[2], r[3]) for r in rows})
    if len(configs) != 1:
        problems.append("rows of %d configurations, not one" % len(configs))
    for c in configs:
        if not ALLOC.match(c[2]):
            problems.append("allocator '%s' is not linux<VER>-slab/slub/slob" % c[2])
    have = {(r[5], int(r[6]), r[7]) for r in rows}
    for w in expected(rows):
        if w not in have:
            problems.append("missing row test=%s size=%d metric=%s" % w)
    summary = "%s: %s%d rows" % (path, "%s %s %s, %s CPU(s): " % configs[0] if len(configs) == 1 else "",
                                 len(rows))
    return not problems, problems, summary


def main(argv):
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    ok, problems, summary = check(argv[0])
    for p in problems:
        print("check.py: %s: %s" % (argv[0], p))
    print("check.py: %s%s" % (summary, "" if ok else ", %d problems" % len(problems)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
