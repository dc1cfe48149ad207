"""report_causes.py - make replay's breakdown by cause, from the host replay
(tools/trace/replay.c): where each allocator's slab memory went at the peak
of Slab: and at the end of the trace (the summary's cause_* keys: struct
causes there says what each is), and which of its paths its calls took
(its caches' event counters over the replay, the .stats file: every
cache's line as kmem_cache_stats_line prints it, summed here over the
caches and given per 1,000 allocator calls).

    causes_section(runs, d)  the report's lines (runs: report_replay.load's)
"""
import os
import re

CAUSES = [("req", "requested"), ("rounding", "rounding to the object size"),
          ("cached", "per-CPU caching and the allocator's own objects"),
          ("partial", "free slots in slabs in use"), ("empty", "empty slabs kept"),
          ("other", "outside object slots (leftover, headers; SLOB: free blocks)")]
TOKEN = re.compile(r"[A-Za-z][\w-]*|\d+(?:/\d+)?|[(),;]")


def kib(v):
    return "%.0f" % (int(v) / 1024.0)


def parse_stats_line(line):
    """{counter: value} of one cache's line (its name first). Segments split
    by ';'; in each, a counter is the words before its number, prefixed by
    the segment's group word when the segment opens with two words ("free
    fast 3 slow 1": free_fast, free_slow; "flush 2 unfreeze 1": flush,
    unfreeze); '(' ... ')' name sub-counters of the one before ("refilled 5
    (shared 2)": refilled_shared); 'N/M' is two counters (_1, _2)."""
    out = {}
    body = line.split(None, 1)[1] if " " in line.strip() else ""
    for seg in body.split(";"):
        toks = TOKEN.findall(seg)
        group = toks[0] if len(toks) > 1 and not toks[0][0].isdigit() and \
            not toks[1][0].isdigit() and toks[1] not in "(),;" else None
        words, parent, last = [], None, None
        for tok in toks:
            if tok == "(":
                parent = last
            elif tok == ")":
                parent = None
            elif tok == ",":
                pass
            elif tok[0].isdigit():
                if group and words and words[0] == group:
                    words = words[1:]
                name = "_".join(([parent] if parent else [group] if group else []) + words)
                vals = [int(x) for x in tok.split("/")]
                for i, v in enumerate(vals):
                    key = name if len(vals) == 1 else "%s_%d" % (name, i + 1)
                    out[key] = out.get(key, 0) + v
                if not parent:
                    last = name
                words = []
            else:
                words.append(tok)
    return out


def load_stats(path):
    """Every cache's counters in the file, summed."""
    tot = {}
    with open(path) as f:
        for line in f:
            for k, v in parse_stats_line(line.rstrip("\n")).items():
                tot[k] = tot.get(k, 0) + v
    return tot


def causes_table(runs):
    out = ["| allocator | page | at | Slab: beyond start kB | " +
           " | ".join("%s kB" % n for _, n in CAUSES) + " |",
           "|---|---|---|" + "---:|" * (len(CAUSES) + 1)]
    for r in runs:
        s = r["s"]
        for at in ("peak", "end"):
            if "cause_%s_slab" % at not in s:
                continue
            out.append("| %s | %s | %s | %s | %s |" % (
                r["alloc"], r["page"], at, kib(s["cause_%s_slab" % at]),
                " | ".join(kib(s["cause_%s_%s" % (at, k)]) for k, _ in CAUSES)))
    return out


def paths_lines(runs, d):
    out = []
    for r in runs:
        path = os.path.join(d, "%s-%s.stats" % (r["alloc"], r["page"]))
        if not os.path.exists(path):
            continue
        tot = load_stats(path)
        calls = sum(int(r["s"].get("ops_%d" % t, "0")) for t in (1, 2, 3, 4))
        if not calls:
            continue
        nz = [(k, v) for k, v in tot.items() if v and k not in ("bad", "corrupt")]
        cells = ", ".join("%s %.1f" % (k.replace("_", " "), v * 1000.0 / calls) for k, v in nz)
        out.append("- **%s %s** (%d calls): %s" % (r["alloc"], r["page"], calls, cells or "nothing counted"))
    return out


def causes_section(runs, d):
    lines = ["## Memory and paths by cause (host replay)", "",
             "Slab memory beyond the start of the trace, by what holds it, at the sample where Slab: "
             "was highest and at the end of the trace (kB; a part may be negative where the start's "
             "free room was used). Requested: the live requests slab caches serve; rounding: their "
             "objects' size above it (ksize); per-CPU caching: objects the slabs count as handed out "
             "that the trace does not hold (SLAB's arrays, SLUB's sheaves, a new cache's own "
             "structures); free slots in slabs in use; empty slabs kept; the rest of Slab:.", ""]
    lines += causes_table(runs) + [""]
    paths = paths_lines(runs, d)
    if paths:
        lines += ["Paths taken: each allocator's event counters over the replay, summed over its "
                  "caches, per 1,000 allocator calls (kmalloc, kfree, cache alloc and free), as its "
                  "statistics report names them (`SLAB_STATS`: fast and slow paths, refills, "
                  "flushes, slabs made and given back).", ""] + paths + [""]
    return lines
