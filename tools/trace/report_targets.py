"""report_targets.py - make replay's "Targets against Linux": for each Quarry
allocator and its Linux counterpart, on each configuration the report's
"Quarry against Linux" sections compare (arch, CPUs, page size), whether
Quarry meets four targets, and for each miss its measured cause from the
data the report already holds.

    instructions   guest instructions per call (-icount), each of kmalloc,
                   kfree, cache alloc and cache free: at most INSN_TARGET
                   times Linux's
    peak           Slab: at its peak, kB beyond the replay's start: at most Linux's
    end shrunk     Slab: at the end after every cache was shrunk, kB beyond
                   the start: at most Linux's
    cycles         the cache model's modelled cycles per call (MODEL=1, one
                   CPU), each of the four: at most CYCLE_TARGET times Linux's

A missed instruction target names the allocator's slow-path counters that
ran most often (the host replay's "Paths taken", per 1,000 calls) and, where
the cache model's report of Quarry's kernel replay is there, the functions
that took most instructions in the missed operation's region; a missed
memory target names the largest parts of the host replay's breakdown by
cause at the peak or the end, beside how far above Linux's figure it is
(for the figure after the shrink: the parts at the end the shrink does not
take back, and what it does).

    targets_section(d, host, cmps)  the report's lines (see its docstring)
"""
import os
import sys

import report_causes

# Quarry's allocator -> Linux's same allocator (SLOB-seg has none of its own: Linux's SLOB).
LINUX_OF = {"slab": ["linux61-slab"], "slub": ["linux61-slub", "linux612-slub"],
            "slob": ["linux61-slob"], "slob-seg": ["linux61-slob"]}
LINUX_NAMES = {"linux61-slab": "Linux 6.1 SLAB", "linux61-slub": "Linux 6.1 SLUB",
               "linux612-slub": "Linux 6.12 SLUB", "linux61-slob": "Linux 6.1 SLOB"}
OPS = [(1, "kmalloc"), (2, "kfree"), (3, "cache alloc"), (4, "cache free")]
INSN_TARGET = 0.5
CYCLE_TARGET = 0.6
REGION_BASE = 21	# the cache model's region of event type T: REGION_BASE + T (marker.h)
NO_LINUX = "not measured: run make bench-linux / make replay LINUX=1"
NO_MODEL = "not measured (MODEL=1)"
# Counters of the paths every call takes, or totals: not slow paths.
FAST = {"alloc_array", "free_array", "alloc_fast", "free_fast", "sheaf_alloc", "sheaf_free",
        "allocs", "frees", "bad", "corrupt", "failed"}
PART_NAMES = {"rounding": "rounding to the object size", "cached": "per-CPU caching",
              "partial": "free slots in slabs in use", "empty": "empty slabs kept",
              "other": "outside object slots"}
GIVEN_BACK = ("cached", "empty")	# what a shrink of every cache takes back


def per_op(s, t):
    """Instructions per call of event type t in summary s, or None where none ran."""
    if not int(s.get("ops_%d" % t, "0")):
        return None
    return int(s.get("cost_per_op_x10_%d" % t, "0")) / 10.0


def beyond_start(s, key):
    """A Slab: figure of summary s beyond the replay's start, bytes (None where s lacks it)."""
    if key not in s:
        return None
    return int(s[key]) - int(s.get("slab_start", "0"))


def kb(b):
    return "%d kB" % round(b / 1024)


def slow_paths(d, host_s, alloc, page):
    """The three slow-path counters the host replay's calls took most, per 1,000 calls."""
    path = os.path.join(d, "%s-%s.stats" % (alloc, page))
    calls = sum(int(host_s.get("ops_%d" % t, "0")) for t, _ in OPS) if host_s else 0
    if not os.path.exists(path) or not calls:
        return "no paths counted for %s at %s (the host replay's .stats)" % (alloc, page)
    tot = report_causes.load_stats(path)
    slow = sorted(((v, k) for k, v in tot.items() if v > 0 and k not in FAST), reverse=True)[:3]
    if not slow:
        return "no slow path counted (host replay, %s)" % page
    return "slow paths per 1,000 calls (host replay, %s): %s" % (
        page, ", ".join("%s %.1f" % (k.replace("_", " "), v * 1000.0 / calls) for v, k in slow))


def model_functions(path, t, ops):
    """The two functions with most instructions in event type t's region of a cache-model
    report, per call; '' where the report or its per-function lines are missing."""
    if not path or not os.path.exists(path) or not ops:
        return ""
    funcs = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.startswith("func "):
                continue
            kv = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
            if kv.get("region") != str(REGION_BASE + t):
                continue
            if not kv.get("insns", "").isdigit():
                sys.exit("report_replay: %s:%d: a func line's insns is not a count: %r"
                         % (path, n, kv.get("insns", "(none)")))
            funcs.append((int(kv["insns"]), kv.get("name", "?")))
    funcs.sort(reverse=True)
    return ", ".join("%s %.1f" % (n, i / ops) for i, n in funcs[:2])


def ratio_cells(q, l, limit):
    """Per operation 'name Q / L = Rx', and the operations over limit; None where neither ran."""
    cells, over = [], []
    for (t, name), a, b in zip(OPS, q, l):
        if a is None or not b:
            continue
        r = a / b
        digits = 2	# more where fewer would show a miss as the limit itself
        while r > limit and round(r, digits) <= limit and digits < 6:
            digits += 1
        cells.append("%s %.1f / %.1f = %.*fx" % (name, a, b, digits, r))
        if r > limit:
            over.append((t, name))
    return (cells, over) if cells else (None, None)


def insn_target(d, q, ls, host_s, model_report):
    """(verdict, line, cause or None) of the instruction target."""
    what = "instructions per call (guest instructions, -icount), at most %.1fx Linux's" % INSN_TARGET
    cells, over = ratio_cells([per_op(q["s"], t) for t, _ in OPS], [per_op(ls, t) for t, _ in OPS],
                              INSN_TARGET)
    if cells is None:
        return "not measured", "%s: not measured: no call of the four types ran" % what, None
    if not over:
        return "met", "%s: met: %s" % (what, "; ".join(cells)), None
    cause = "%s: %s" % (", ".join(n for _, n in over), slow_paths(d, host_s, q["alloc"], q["page"]))
    fl = [(name, model_functions(model_report, t, int(q["s"].get("ops_%d" % t, "0")))) for t, name in over]
    fl = ["%s: %s" % (name, f) for name, f in fl if f]
    if fl:
        cause += "; functions with most instructions per call (cache model's kernel replay): " + \
            "; ".join(fl)
    return "missed", "%s: **missed**: %s" % (what, "; ".join(cells)), cause


def memory_target(q, ls, host_s, key, at, what, shrunk=False):
    """(verdict, line, cause or None) of a memory target: key of the summaries, at the cause
    table's row (peak or end); shrunk: the figure after the shrink, whose cause names the
    parts the shrink does not take back."""
    a, b = beyond_start(q["s"], key), beyond_start(ls, key)
    what = "%s (kB beyond the start), at most Linux's" % what
    if a is None or b is None:
        return "not measured", "%s: not measured: %s lacks %s" % (
            what, "Quarry's replay" if a is None else "Linux's replay", key), None
    fig = "%s against %s" % (kb(a), kb(b))
    if a <= b:
        return "met", "%s: met: %s" % (what, fig), None
    over = "%s above Linux's" % kb(a - b)
    if not host_s or "cause_%s_slab" % at not in host_s:
        return "missed", "%s: **missed**: %s" % (what, fig), \
            "%s; no breakdown by cause (host replay at %s)" % (over, q["page"])
    part = lambda k: int(host_s["cause_%s_%s" % (at, k)])
    keys = [k for k in PART_NAMES if not (shrunk and k in GIVEN_BACK)]
    parts = sorted(((part(k), k) for k in keys), reverse=True)
    parts = [(v, k) for v, k in parts if round(v / 1024) > 0][:3]
    cause = "%s; at the %s%s (host replay, %s): %s" % (
        over, at, ", before the shrink" if shrunk else "", q["page"],
        ", ".join("%s %s" % (PART_NAMES[k], kb(v)) for v, k in parts) or "no part above zero")
    if shrunk:
        cause += " (the shrink drains %s)" % " and ".join(
            "%s %s" % (PART_NAMES[k], kb(part(k))) for k in GIVEN_BACK)
    return "missed", "%s: **missed**: %s" % (what, fig), cause


def cycle_target(qm, lm):
    what = "modelled cycles per call (cache model), at most %.1fx Linux's" % CYCLE_TARGET
    if qm is None or lm is None:
        return "not measured", "%s: %s" % (what, NO_MODEL), None

    def cyc(s, t):
        return float(s["model_modelled_cycles_%d" % t]) if "model_modelled_cycles_%d" % t in s else None
    cells, over = ratio_cells([cyc(qm, t) for t, _ in OPS], [cyc(lm, t) for t, _ in OPS], CYCLE_TARGET)
    if cells is None:
        return "not measured", "%s: %s" % (what, NO_MODEL), None
    if not over:
        return "met", "%s: met: %s" % (what, "; ".join(cells)), None
    return "missed", "%s: **missed**: %s" % (what, "; ".join(cells)), \
        "%s: see the cache model's table above for its misses" % ", ".join(n for _, n in over)


def pair_lines(d, cmp, q, name, host, counts):
    """One Quarry run against one Linux allocator: its lines; counts updated."""
    where = "%s, %s" % (cmp["arch"], "one CPU" if cmp["cpus"] == "1" else "%s CPUs" % cmp["cpus"])
    out = ["- **%s %s against %s** (%s)" % (q["alloc"], q["page"], LINUX_NAMES[name], where)]
    ls = {(r["alloc"], r["page"]): r["s"] for r in cmp["linux"]}.get((name, q["page"]))
    if ls is None:
        counts["not measured"] += 4
        return out + ["  - all four targets %s" % NO_LINUX]
    host_s = host.get((q["alloc"], q["page"]))
    qm = {(r["alloc"], r["page"]): r["s"] for r in cmp.get("qmodel", [])}.get((q["alloc"], q["page"]))
    lm = {(r["alloc"], r["page"]): r["s"] for r in cmp.get("lmodel", [])}.get((name, q["page"]))
    mrep = os.path.join(cmp["mdir"], "%s-%s.report" % (q["alloc"], q["page"])) if cmp.get("mdir") else None
    for verdict, line, cause in [
            insn_target(d, q, ls, host_s, mrep),
            memory_target(q, ls, host_s, "peak_slab", "peak", "peak Slab:"),
            memory_target(q, ls, host_s, "end_shrunk_slab", "end", "end Slab: shrunk", True),
            cycle_target(qm, lm)]:
        counts[verdict] += 1
        out.append("  - " + line)
        if cause:
            out.append("    - cause: " + cause)
    return out


def targets_section(d, host, cmps):
    """The section's lines. d: the replay's directory; host: the host replay's runs
    (report_replay.load); cmps: one dict per comparison the report makes, with arch,
    cpus, quarry (Quarry's kernel runs), linux (Linux's runs there, [] where none),
    and for a one-CPU one qmodel, lmodel (report_replay.load_model's runs of Quarry's
    and Linux's model directories) and mdir (Quarry's model directory)."""
    head = ["## Targets against Linux", "",
            "For each Quarry allocator against its Linux counterpart (SLAB: Linux 6.1 SLAB; SLUB: "
            "Linux 6.1 and 6.12 SLUB; SLOB and SLOB-seg: Linux 6.1 SLOB), on each configuration "
            "the sections above compare: instructions per call (guest instructions under -icount) "
            "at most %.1fx Linux's for each of kmalloc, kfree, cache alloc and cache free; peak "
            "Slab: and end Slab: after shrinking every cache (kB beyond the start) at most Linux's; "
            "modelled cycles per call (the cache model, MODEL=1) at most %.1fx Linux's for each of "
            "the four. A miss gives its measured cause: for instructions, the slow-path counters "
            "of the host replay's \"Paths taken\" that ran most, and where the cache model's "
            "report is there the functions with most instructions in that call; for memory, the "
            "largest parts of the host replay's breakdown by cause at the peak or at the end "
            "(before the shrink: for the figure after it, the parts the shrink does not take back)." % (INSN_TARGET, CYCLE_TARGET), ""]
    if not cmps:
        return head + ["Targets: none measured: no kernel replay in this report (make replay "
                       "TRACE=... ARCH=x86_64 LINUX=1).", ""]
    hs = {(r["alloc"], r["page"]): r["s"] for r in host}
    counts = {"met": 0, "missed": 0, "not measured": 0}
    body = []
    for cmp in cmps:
        if not cmp["linux"]:
            where = "%s, %s" % (cmp["arch"], "one CPU" if cmp["cpus"] == "1" else "%s CPUs" % cmp["cpus"])
            n = sum(len(LINUX_OF.get(q["alloc"], [])) for q in cmp["quarry"])
            counts["not measured"] += 4 * n
            body += ["- %s: %d allocator pairs, all targets %s" % (where, n, NO_LINUX)]
            continue
        for q in cmp["quarry"]:
            for name in LINUX_OF.get(q["alloc"], []):
                body += pair_lines(d, cmp, q, name, hs, counts)
    total = sum(counts.values())
    return head + ["Targets: %d met, %d missed, %d not measured (of %d)." % (
        counts["met"], counts["missed"], counts["not measured"], total), ""] + body + [""]
