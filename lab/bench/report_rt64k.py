"""report_rt64k.py - how much of each real-time boot the host let QEMU's vCPUs
run, in `make bench`'s report (imported by report_boot.py), and the real-time
figures at full share, 64K beside 4K.

run.sh boots every real-time configuration under lab/bench/hoststat.py,
which writes after each BENCH line a HOST line with the vCPU threads'
cumulative host run and run-queue wait times. A real-time figure is guest
cycles, and under TCG without -icount the guest's counter follows the host's
clock, so a vCPU thread waiting for a host CPU is counted as the guest's
work. Here, per boot: CPU 0's share of wall time over the benchmarks (its
vCPU thread's host run time over wall time; CPU 0 takes part in every test),
and a few figures twice: as measured, and times the vCPUs' share over the
interval that measured them: the last interval between two HOST lines of at
least MIN_INTERVAL_NS ending at the figure's line (a test prints its lines
after it has run, several at once, and the console's latency blurs shorter
intervals).
Boots whose share is under LOW_SHARE are flagged: a fifth or more of their
figures' cycles were the host's waiting.
"""
import collections
import glob
import os
import re
import statistics
import sys

LOW_SHARE = 0.8
MIN_INTERVAL_NS = 20 * 1000 * 1000
LOG_NAME = re.compile(r"^(x86_64|arm64)-(\d+k)-(.+)-smp(\d+)-(\d+)\.log$")
# (test, size, metric, label, CPU 0 alone): the figures shown as measured and at
# full share; the share of a figure CPU 0 measures alone is its vCPU's (the
# busiest), of the others the mean of the vCPUs
FIGURES = (("messaging", "0", "per_message_cost", "messaging, per message", False),
           ("kmalloc_then_free", "2048", "alloc_cost", "kmalloc(2048), test 1", True),
           ("concurrent_alloc_free", "2048", "alloc_cost", "concurrent kmalloc(2048)", False),
           ("concurrent_private", "2048", "all_cost", "private cache 2048, all CPUs", False))


def _boot(path):
    """{(test, size, metric): (value, share)} and CPU 0's share over the benchmarks, of one log."""
    lines = []  # (BENCH key=values, HOST (wall, [run per vCPU]))
    pending = None  # the BENCH line waiting for its HOST line
    with open(path, errors="replace") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip().replace("\r", "")
            if line.startswith("BENCH "):
                pending = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
            elif line.startswith("HOST ") and pending is not None:
                try:
                    kv = dict(x.split("=", 1) for x in line.split()[1:])
                    host = (int(kv["wall_ns"]), [int(x) for x in kv["run_ns"].split(",")])
                    if len(host[1]) != int(kv["cpus"]) or (lines and (
                            host[0] < lines[-1][1][0] or len(host[1]) != len(lines[-1][1][1]))):
                        raise ValueError("times going back or CPUs changing")
                except (KeyError, ValueError) as e:
                    print("report_rt64k: %s:%d: HOST line not understood (%s), ignored: %s"
                          % (path, n, e, line[:120]), file=sys.stderr)
                    continue
                lines.append((pending, host))
                pending = None
    start = [i for i, (kv, _) in enumerate(lines) if kv.get("test") == "header"]
    if not start or lines[-1][1][0] <= lines[start[0]][1][0]:
        return None, None
    lines = lines[start[0]:]
    (w0, r0), (w1, r1) = lines[0][1], lines[-1][1]
    whole = (r1[0] - r0[0]) / (w1 - w0)
    want = {(test, size): metric for test, size, metric, _, _ in FIGURES}
    alone = {(test, size): a for test, size, _, _, a in FIGURES}
    out = {}
    share = None  # of the last interval long enough to be measured
    for (kv, (wb, rb)), (_, (wa, ra)) in zip(lines[1:], lines):
        key = (kv.get("test"), kv.get("size"))
        if wb - wa >= MIN_INTERVAL_NS:
            runs = [(y - x) / (wb - wa) for x, y in zip(ra, rb)]
            share = (max(runs), statistics.mean(runs))
        if key in want and want[key] in kv:
            s = whole if share is None else share[0 if alone[key] else 1]
            out[key + (want[key],)] = (int(kv[want[key]]), min(s, 1.0))
    return out, whole


def _med(xs):
    """median [min-max] of numbers, as text."""
    if not xs:
        return "-"
    f = "%.2f" if max(xs) < 10 else "%d"
    m = f % statistics.median(xs)
    return m if len(xs) == 1 else "%s [%s-%s]" % (m, f % min(xs), f % max(xs))


def rt64k_section(outdir, t, md_table):
    """The report's lines (a list of markdown strings) for the real-time boots in
    OUTDIR/logs that have HOST lines; [] when none has. t is report_boot.py's Table (for
    the -icount figures), md_table its table formatter. Bad HOST lines are named
    on stderr and skipped."""
    boots = collections.defaultdict(list)  # (arch, page, alloc, cpus) -> [(figs, share)]
    for path in sorted(glob.glob(os.path.join(outdir, "logs", "*-smp*-*.log"))):
        m = LOG_NAME.match(os.path.basename(path))
        if not m:
            continue
        figs, whole = _boot(path)
        if figs is not None:
            boots[(m.group(1), m.group(2).upper(), m.group(3), int(m.group(4)))].append((figs, whole))
    if not boots:
        return []
    md = ["\n## Real-time figures and the host (64K real-time figures)\n\n",
          "Real-time figures count host time, and a vCPU thread waiting for a host CPU is counted "
          "as guest cycles. `vCPU share` is the part of wall time QEMU's CPU 0 thread ran on a "
          "host CPU over the benchmarks (host scheduler statistics, lab/bench/hoststat.py), "
          "median [min-max] over the boots; each figure is given as measured and at full share "
          "(times the share over its own interval). `share < %.1f` counts the boots under that "
          "share (flagged host-starved: a fifth or more of their cycles were the host's waiting). "
          "The last column is the figure at full share per guest instruction of the same "
          "figure under -icount (1 CPU): QEMU's cost per instruction, which should not depend "
          "on the page size. Documentation/benchmarks.md, \"64K real-time figures\", says why.\n\n"
          % LOW_SHARE]
    rows = []
    for key in sorted(boots, key=lambda k: (k[0], k[2], k[3], int(k[1][:-1]))):
        arch, page, alloc, cpus = key
        bl = boots[key]
        low = sum(1 for _, s in bl if s < LOW_SHARE)
        for test, size, metric, label, _ in FIGURES:
            vals = [(f[(test, size, metric)]) for f, _ in bl if (test, size, metric) in f]
            if not vals:
                continue
            raw = [v for v, _ in vals]
            full = [v * s for v, s in vals]
            ic = t.get(arch, page, alloc, 1, "icount", test, size, metric)
            cpi = "%.2f" % (statistics.median(full) / float(ic)) if ic and float(ic) > 0 else "-"
            rows.append([arch, page, alloc, cpus, "%d/%d%s" % (low, len(bl), " **host-starved**" if low else ""),
                         _med([s for _, s in bl]), label, _med(raw), _med(full), ic or "-", cpi])
    md.append(md_table(["arch", "page", "allocator", "CPUs", "share < %.1f" % LOW_SHARE, "vCPU share",
                        "figure", "as measured", "at full share", "icount (1 CPU)", "cycles / instruction"],
                       rows))
    # 64K over 4K, as measured and at full share
    ratios = []
    for (arch, page, alloc, cpus), bl in sorted(boots.items()):
        if page != "64K" or (arch, "4K", alloc, cpus) not in boots:
            continue
        base = boots[(arch, "4K", alloc, cpus)]
        for test, size, metric, label, _ in FIGURES:
            k = (test, size, metric)
            a = [f[k] for f, _ in base if k in f]
            b = [f[k] for f, _ in bl if k in f]
            if not a or not b:
                continue
            ma, mb = statistics.median(v for v, _ in a), statistics.median(v for v, _ in b)
            fa, fb = statistics.median(v * s for v, s in a), statistics.median(v * s for v, s in b)
            ratios.append([arch, alloc, cpus, label, "%d / %d = %.2f" % (mb, ma, mb / ma if ma else 0),
                           "%d / %d = %.2f" % (fb, fa, fb / fa if fa else 0)])
    if ratios:
        md.append("\n64K over 4K (medians over the boots):\n\n")
        md.append(md_table(["arch", "allocator", "CPUs", "figure", "as measured", "at full share"], ratios))
    return md
