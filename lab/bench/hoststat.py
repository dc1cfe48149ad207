#!/usr/bin/env python3
"""hoststat.py COMMAND... - run COMMAND (a tests/qemu/run.sh boot of a real-time
benchmark), copy its output to stdout, and after every BENCH line add what the
host's scheduler did to QEMU's vCPU threads up to that moment:

    HOST wall_ns=W cpus=N run_ns=R0,R1,... wait_ns=Q0,Q1,...

W is the host's monotonic time since the command started, R and Q the
cumulative time each vCPU thread ("CPU n/TCG", or "ALL CPUs/TCG" when one
thread runs them all; named by QEMU's -name ...,debug-threads=on, which
run.sh passes) spent running on a host CPU
and waiting for one on a run queue (/proc/PID/task/TID/schedstat).

Why: real-time figures are the guest's cycle counter, which under TCG without
-icount follows the host's clock (x86_64 rdtsc is the host TSC), so the time a
vCPU thread waits for a host CPU is counted as guest cycles. On a shared host
that wait is most of a boot's time and varies from boot to boot; it was the
whole of what once read as "64K real-time runs are 4-20x slower than 4K"
(Documentation/benchmarks.md, "64K real-time figures"). Between two HOST lines the share of wall
time a vCPU ran says how much of a figure was the host's waiting;
report_rt64k.py turns that into each boot's vCPU share and the figures at
full share. Reading /proc costs the guest nothing: this process only reads
the serial console as it arrives.

Exit status: COMMAND's. Only Linux hosts have schedstat; elsewhere no HOST
lines are written and the output is COMMAND's unchanged.
"""
import glob
import os
import subprocess
import sys
import time


def qemu_of(child):
    """The /proc directory of the QEMU process below child (its pid), or None."""
    for d in glob.glob("/proc/[0-9]*"):
        try:
            if not open(d + "/comm").read().startswith("qemu-system"):
                continue
            pid = int(os.path.basename(d))
            for _ in range(8):  # run.sh -> timeout -> qemu
                stat = open("/proc/%d/stat" % pid).read()
                pid = int(stat.rsplit(")", 1)[1].split()[1])
                if pid == child:
                    return d
                if pid <= 1:
                    break
        except (OSError, ValueError):
            continue
    return None


def vcpus(qemu):
    """[(cpu index, run ns, wait ns)] of QEMU's vCPU threads, in CPU order."""
    out = []
    for t in glob.glob(qemu + "/task/*"):
        try:
            # "CPU 0/TCG" (one thread per vCPU, MTTCG) or "ALL CPUs/TCG" (one
            # thread taking the vCPUs in turn: -icount, or a host without MTTCG)
            name = open(t + "/comm").read().strip()
            if name == "ALL CPUs/TCG":
                cpu = 0
            elif name.startswith("CPU ") and name.endswith("/TCG"):
                cpu = int(name[4:-4])
            else:
                continue
            run, wait = open(t + "/schedstat").read().split()[:2]
            out.append((cpu, int(run), int(wait)))
        except (OSError, ValueError):
            continue
    return sorted(out)


def main():
    if len(sys.argv) < 2:
        print("usage: hoststat.py COMMAND...", file=sys.stderr)
        return 2
    t0 = time.monotonic_ns()
    p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    qemu = None
    last = []
    out = sys.stdout.buffer
    for raw in p.stdout:
        out.write(raw)
        if not raw.startswith(b"BENCH "):
            continue
        if qemu is None or not os.path.isdir(qemu):
            qemu = qemu_of(p.pid)
        cpus = vcpus(qemu) if qemu else []
        # QEMU may have exited, or be ending its vCPU threads, before its last
        # lines are read (a loaded host): those get the last whole sample its
        # threads gave, so every BENCH line has its HOST line for every vCPU.
        if cpus and len(cpus) >= len(last):
            last = cpus
        else:
            cpus = last
        if cpus:
            out.write(("HOST wall_ns=%d cpus=%d run_ns=%s wait_ns=%s\n" % (
                time.monotonic_ns() - t0, len(cpus), ",".join(str(c[1]) for c in cpus),
                ",".join(str(c[2]) for c in cpus))).encode())
        out.flush()
    return p.wait()


if __name__ == "__main__":
    sys.exit(main())
