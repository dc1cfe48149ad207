#!/usr/bin/env python3
"""test_rt64k.py [ELF] - tests of the real-time figures' host accounting:
lab/bench/hoststat.py (the HOST lines after each BENCH line of a real-time
boot) and lab/bench/report_rt64k.py (each boot's vCPU share, figures at
full share, 64K over 4K). One PASS or FAIL line per case; exit status 1 on
any failure.

Without ELF the cases are synthetic logs and a stand-in command (no QEMU,
a second or so). With ELF (an x86_64 or arm64 quarry.elf) it also boots
"bench quick" at -smp 2 under hoststat.py, as `make bench` boots its
real-time runs, and checks the HOST lines and what the report makes of them.
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report_rt64k  # noqa: E402

failed = 0


def check(name, ok, why=""):
    global failed
    if ok:
        print("PASS rt64k-%s" % name)
    else:
        failed += 1
        print("FAIL rt64k-%s: %s" % (name, why))


def bench(test, size, **kv):
    return "BENCH arch=x86_64 page=4K alloc=slab cpus=1 mode=realtime test=%s size=%s %s unit=cycles" % (
        test, size, " ".join("%s=%s" % x for x in kv.items()))


def host(wall_ms, *run_ms):
    return "HOST wall_ns=%d cpus=%d run_ns=%s wait_ns=%s" % (
        wall_ms * 10**6, len(run_ms), ",".join(str(int(r * 10**6)) for r in run_ms),
        ",".join("0" for _ in run_ms))


def write(d, name, lines):
    os.makedirs(os.path.join(d, "logs"), exist_ok=True)
    path = os.path.join(d, "logs", name)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def md_table(head, rows):
    return "\n".join(["| " + " | ".join(head) + " |"] + ["| " + " | ".join(str(c) for c in r) + " |"
                                                         for r in rows]) + "\n"


class T:
    """report_boot.py's Table, as far as report_rt64k reads it."""
    def __init__(self, v=None):
        self.v = v or {}

    def get(self, arch, page, alloc, cpus, mode, test, size, metric):
        return self.v.get((arch, page, alloc, str(cpus), mode, test, str(size), metric))


def synthetic(tmp):
    d = os.path.join(tmp, "a")
    # 1 CPU: header at 0; test 1 2048 over 100 ms of which 50 ran; messaging over
    # 200 ms of which 50 ran; a 1 ms interval after it (the share of the last long one)
    log = write(d, "x86_64-4k-slab-smp1-1.log", [
        "console noise", bench("header", 0, counter_khz=1), host(0, 0),
        bench("kmalloc_then_free", 2048, alloc_cost=1000, free_cost=1), host(100, 50),
        "5. Messaging", bench("messaging", 0, per_message_cost=4000), host(300, 100),
        bench("concurrent_private", 2048, alone_cost=1, all_cost=600), host(301, 100.5),
        "BENCH done", host(400, 200)])
    figs, whole = report_rt64k._boot(log)
    check("share-whole", abs(whole - 0.5) < 1e-9, "CPU 0 ran 200 of 400 ms, share %r" % whole)
    check("share-interval", figs.get(("messaging", "0", "per_message_cost")) == (4000, 0.25),
          "messaging: 50 of 200 ms ran, got %r" % (figs.get(("messaging", "0", "per_message_cost")),))
    check("share-short-interval",
          figs.get(("concurrent_private", "2048", "all_cost")) == (600, 0.25),
          "a 1 ms interval takes the share of the last long one, got %r"
          % (figs.get(("concurrent_private", "2048", "all_cost")),))
    check("share-first", figs.get(("kmalloc_then_free", "2048", "alloc_cost")) == (1000, 0.5),
          "got %r" % (figs.get(("kmalloc_then_free", "2048", "alloc_cost")),))
    # 2 CPUs: a test CPU 0 runs alone takes the busiest vCPU's share, the others the mean
    log2 = write(d, "x86_64-64k-slab-smp2-1.log", [
        bench("header", 0, counter_khz=1), host(0, 0, 0),
        bench("kmalloc_then_free", 2048, alloc_cost=800, free_cost=1), host(100, 80, 0),
        bench("messaging", 0, per_message_cost=1000), host(200, 140, 100),
        "BENCH done", host(300, 240, 200)])
    figs2, whole2 = report_rt64k._boot(log2)
    check("share-alone", figs2.get(("kmalloc_then_free", "2048", "alloc_cost")) == (800, 0.8),
          "got %r" % (figs2.get(("kmalloc_then_free", "2048", "alloc_cost")),))
    check("share-mean", figs2.get(("messaging", "0", "per_message_cost")) == (1000, 0.8),
          "vCPUs ran 60 and 100 of 100 ms, got %r" % (figs2.get(("messaging", "0", "per_message_cost")),))
    check("share-whole-cpu0", abs(whole2 - 0.8) < 1e-9, "got %r" % whole2)
    # malformed and backwards HOST lines: named on stderr, ignored, nothing else lost
    log3 = write(d, "x86_64-64k-slab-smp1-1.log", [
        bench("header", 0, counter_khz=1), host(0, 0),
        bench("messaging", 0, per_message_cost=2000), "HOST wall_ns=12x cpus=1 run_ns=5",
        bench("messaging", 0, per_message_cost=2000), host(100, 90),
        bench("pages_single", 0, alloc_cost=1), host(50, 95),
        "BENCH done", host(200, 180)])
    r = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, %r); import report_rt64k; "
                        "print(report_rt64k._boot(%r))" % (HERE, log3)], capture_output=True, text=True)
    os.rename(log3, log3 + ".checked")  # its warnings said once; the section reads the good boot below
    write(d, "x86_64-64k-slab-smp1-1.log", [
        bench("header", 0, counter_khz=1), host(0, 0),
        bench("messaging", 0, per_message_cost=2000), host(100, 90),
        "BENCH done", host(200, 180)])
    check("bad-host-line", "HOST line not understood" in r.stderr and "x86_64-64k-slab-smp1-1.log:4" in r.stderr
          and "x86_64-64k-slab-smp1-1.log:8" in r.stderr and "(2000, 0.9)" in r.stdout,
          "stderr %r stdout %r" % (r.stderr, r.stdout))
    # the section: 4K and 64K beside each other, flagged below the share, ratios
    icount = {("x86_64", p, "slab", "1", "icount", "messaging", "0", "per_message_cost"): "3200"
              for p in ("4K", "64K")}
    md = "".join(report_rt64k.rt64k_section(d, T(icount), md_table))
    check("section-flag", "**host-starved**" in md, "the 4K boot ran at share 0.5")
    check("section-ratio", "| x86_64 | slab | 1 | messaging, per message | 2000 / 4000 = 0.50 | 1800 / 1000 = 1.80 |"
          in md, "no 64K over 4K row as expected in:\n" + md)
    check("section-cpi", "| 4000 | 1000 | 3200 | 0.31 |" in md, "no cycles per instruction 1000/3200")
    # logs without HOST lines (made before hoststat.py): no section, no error
    d2 = os.path.join(tmp, "b")
    write(d2, "x86_64-4k-slab-smp1-1.log", [bench("header", 0, counter_khz=1), bench("messaging", 0,
                                                                                       per_message_cost=1)])
    check("no-host-lines", report_rt64k.rt64k_section(d2, T(), md_table) == [], "expected no section")
    # hoststat.py around a command that is not QEMU: output and status unchanged
    hs = os.path.join(HERE, "hoststat.py")
    r = subprocess.run([hs, "sh", "-c", "echo 'BENCH x'; echo other; exit 3"], capture_output=True, text=True)
    check("hoststat-passthrough", r.returncode == 3 and r.stdout == "BENCH x\nother\n",
          "status %d output %r" % (r.returncode, r.stdout))
    r = subprocess.run([hs], capture_output=True, text=True)
    check("hoststat-usage", r.returncode == 2 and "usage" in r.stderr, "status %d" % r.returncode)


def boot(elf):
    """A real-time boot as make bench runs it: HOST lines after every BENCH line."""
    env = dict(os.environ, CMDLINE="bench quick")
    os.makedirs("build/test", exist_ok=True)
    r = subprocess.run([os.path.join(HERE, "hoststat.py"), os.path.join(HERE, "..", "..", "tests", "qemu", "run.sh"), elf,
                        "300", "-m", "1G", "-smp", "2", "-name", "quarry,debug-threads=on"],
                       capture_output=True, text=True, env=env, errors="replace")
    with open("build/test/rt64k-hoststat.log", "w") as f:
        f.write(r.stdout)
    lines = [l.strip() for l in r.stdout.splitlines()]
    bench_n = sum(1 for l in lines if l.startswith("BENCH "))
    hosts = [l for l in lines if l.startswith("HOST ")]
    after = all(lines[i + 1].startswith("HOST wall_ns=") for i, l in enumerate(lines[:-1])
                if l.startswith("BENCH "))
    check("boot-host-lines", r.returncode == 0 and bench_n > 50 and len(hosts) == bench_n and after
          and all(" cpus=2 " in h for h in hosts),
          "status %d, %d BENCH and %d HOST lines (build/test/rt64k-hoststat.log)"
          % (r.returncode, bench_n, len(hosts)))
    figs, whole = report_rt64k._boot("build/test/rt64k-hoststat.log")
    # A thread's run time and the wall clock are read a moment apart, so a
    # boot the host left alone can show a share a hair above 1 (1.0001 seen).
    check("boot-share", whole is not None and 0 < whole <= 1.01 and
          ("messaging", "0", "per_message_cost") in figs,
          "share %r, figures %r" % (whole, figs))


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="rt64k-test.") as tmp:
        synthetic(tmp)
    if len(sys.argv) > 1:
        boot(sys.argv[1])
    sys.exit(1 if failed else 0)
