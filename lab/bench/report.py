#!/usr/bin/env python3
"""report.py - the one entry point of the lab's reports: every benchmark's
report is written by `report.py KIND ARGS...`, which runs KIND's generator
with ARGS (each says its own usage with --help where it has options):

    bench   OUTDIR                `make bench`: the boot-time benchmarks (report_boot.py)
    host    --out DIR ...         `make bench-host`: mm/ on the host and the peers
                                  (host/report_host.py)
    profile --dir DIR             `make bench-host-profile`: perf's profile (host/profile_report.py)
    scale   --dir DIR             `make bench-scale`: throughput against threads (report_scale.py)
    replay  OUTDIR                `make replay`: trace replays (tools/trace/report_replay.py)

The scripts that run the benchmarks call it; it can be run again on their
output directories to remake a report.
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {
    "bench": os.path.join(HERE, "report_boot.py"),
    "host": os.path.join(HERE, "host", "report_host.py"),
    "profile": os.path.join(HERE, "host", "profile_report.py"),
    "scale": os.path.join(HERE, "report_scale.py"),
    "replay": os.path.join(HERE, "..", "..", "tools", "trace", "report_replay.py"),
}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in KINDS:
        got = sys.argv[1] if len(sys.argv) > 1 else "nothing"
        print("report.py: the first argument names the report (%s), not %s"
              % (", ".join(KINDS), got), file=sys.stderr)
        return 2
    path = KINDS[sys.argv[1]]
    sys.path.insert(0, os.path.dirname(path))	# the generator's own modules
    spec = importlib.util.spec_from_file_location("report_" + sys.argv[1], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sys.argv = [path] + sys.argv[2:]
    return mod.main()


if __name__ == "__main__":
    sys.exit(main())
