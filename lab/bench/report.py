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
    linux   OUT.md LOG...         `make bench-linux`: Linux's allocators (lab/linux/report.py)

The scripts that run the benchmarks call it; it can be run again on their
output directories to remake a report. Every plot is matplotlib's
(plotting.py): run by a python3 without it, report.py runs again under
Debian's /usr/bin/python3 when that one has it.
"""
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {
    "bench": os.path.join(HERE, "report_boot.py"),
    "host": os.path.join(HERE, "host", "report_host.py"),
    "profile": os.path.join(HERE, "host", "profile_report.py"),
    "scale": os.path.join(HERE, "report_scale.py"),
    "replay": os.path.join(HERE, "..", "..", "tools", "trace", "report_replay.py"),
    "linux": os.path.join(HERE, "..", "linux", "report.py"),
}


def matplotlib_python():
    """Run again under Debian's /usr/bin/python3 when this python3 (one of one's own
    first in PATH, say) lacks matplotlib and that one has it: every report plots
    with it (plotting.py). Returns only when staying here."""
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    other = "/usr/bin/python3"
    if os.path.realpath(sys.executable) == os.path.realpath(other) or not os.path.exists(other):
        return
    if subprocess.run([other, "-c", "import matplotlib"], capture_output=True).returncode == 0:
        os.execv(other, [other, os.path.abspath(__file__)] + sys.argv[1:])


def main():
    matplotlib_python()
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
