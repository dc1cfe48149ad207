#!/usr/bin/env python3
"""report_replay.py - the report of a host trace replay (tools/trace/replay.sh).

    report.py replay DIR (lab/bench/report.py)

Reads DIR/trace-facts.txt, every DIR/<alloc>-<page>.summary (key=value, from
replay --summary) and .csv (memory samples: event, slab_bytes, used_bytes,
object_bytes, live_req, live_linux, page_block_bytes) and writes
DIR/report.md: the memory table (peak and end), the host time per
operation, and DIR/memory.png (object memory over the trace per allocator,
one panel per page size) where matplotlib imports.

Efficiency is live requested bytes / memory at the same sample: Quarry's
against its object memory (the pages its object allocator holds beyond the
start, large kmallocs included, replayed page blocks not), Linux's against
the bytes_alloc its own kmalloc classes and caches gave the same requests.
"""
import csv
import glob
import os
import sys

TYPES = {1: "kmalloc", 2: "kfree", 3: "cache alloc", 4: "cache free", 5: "page alloc", 6: "page free"}
ALLOC_ORDER = ["slab", "slub", "slob", "slob-seg"]
PAGE_ORDER = ["4K", "16K", "64K"]


def kib(b):
    return "%d" % round(b / 1024)


def pct(a, b):
    return "%.1f%%" % (100.0 * a / b) if b else "-"


def load(d):
    runs = []
    for path in glob.glob(os.path.join(d, "*.summary")):
        base = os.path.basename(path)[: -len(".summary")]
        alloc, page = base.rsplit("-", 1)
        s = {}
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    s[k] = v
        rows = []
        cpath = os.path.join(d, base + ".csv")
        if os.path.exists(cpath):
            with open(cpath) as f:
                rows = [{k: int(v) for k, v in r.items()} for r in csv.DictReader(f)]
        runs.append({"alloc": alloc, "page": page, "s": s, "rows": rows})

    def key(r):
        a = ALLOC_ORDER.index(r["alloc"]) if r["alloc"] in ALLOC_ORDER else 99
        p = PAGE_ORDER.index(r["page"]) if r["page"] in PAGE_ORDER else 99
        return (p, a)

    return sorted(runs, key=key)


def memory_table(runs):
    out = [
        "| allocator | page | peak Slab: kB | peak object memory kB | live requested kB then | "
        "efficiency then | Linux's then | end object memory kB | end requested kB | end efficiency | "
        "Linux's at end | accounting |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in runs:
        s, rows = r["s"], r["rows"]
        if not rows:
            continue
        pk = max(rows, key=lambda x: x["object_bytes"])
        end = rows[-1]
        ok = "exact" if s.get("all_passes_ok") == "1" else (
            "FAILED (%s allocations failed)" % s.get("failed", "?") if s.get("failed", "0") != "0" else "NOT EXACT")
        out.append(
            "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |"
            % (r["alloc"], r["page"], kib(max(x["slab_bytes"] for x in rows)), kib(pk["object_bytes"]),
               kib(pk["live_req"]), pct(pk["live_req"], pk["object_bytes"]), pct(pk["live_req"], pk["live_linux"]),
               kib(end["object_bytes"]), kib(end["live_req"]), pct(end["live_req"], end["object_bytes"]),
               pct(end["live_req"], end["live_linux"]), ok))
    return out


def time_table(runs):
    types = [t for t in TYPES if any(int(r["s"].get("ops_%d" % t, "0")) for r in runs)]
    out = ["| allocator | page | " + " | ".join("%s ns" % TYPES[t] for t in types) + " | whole trace ms | passes |",
           "|---|---|" + "---:|" * len(types) + "---:|---:|"]
    for r in runs:
        s = r["s"]
        cells = []
        for t in types:
            n = int(s.get("ops_%d" % t, "0"))
            cells.append("%.1f" % float(s.get("ns_per_op_%d" % t, "0")) if n else "-")
        out.append("| %s | %s | %s | %.1f | %s |" % (r["alloc"], r["page"], " | ".join(cells),
                                                  int(s.get("ns_total", "0")) / 1e6, s.get("passes", "1")))
    return out


def plot(d, runs):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    pages = [p for p in PAGE_ORDER if any(r["page"] == p for r in runs)]
    if not pages:
        return None
    fig, axes = plt.subplots(1, len(pages), figsize=(6 * len(pages), 4.5), squeeze=False)
    for ax, page in zip(axes[0], pages):
        first = None
        for r in runs:
            if r["page"] != page or not r["rows"]:
                continue
            xs = [x["event"] for x in r["rows"]]
            ax.plot(xs, [x["object_bytes"] / 1024 for x in r["rows"]], label=r["alloc"])
            first = first or r
        if first:
            xs = [x["event"] for x in first["rows"]]
            ax.plot(xs, [x["live_linux"] / 1024 for x in first["rows"]], "k:", label="Linux bytes_alloc")
            ax.plot(xs, [x["live_req"] / 1024 for x in first["rows"]], "k--", label="live requested")
        ax.set_title("%s pages" % page)
        ax.set_xlabel("event")
        ax.set_ylabel("KiB")
        ax.legend(fontsize=8)
    fig.suptitle("Object memory over the trace (host replay)")
    fig.tight_layout()
    path = os.path.join(d, "memory.png")
    fig.savefig(path, dpi=100)
    return path


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: report.py DIR")
    d = sys.argv[1]
    runs = load(d)
    if not runs:
        sys.exit("report.py: no *.summary in %s" % d)
    facts = []
    fpath = os.path.join(d, "trace-facts.txt")
    if os.path.exists(fpath):
        with open(fpath) as f:
            facts = [l.rstrip("\n") for l in f]
    lines = ["# Trace replay on the host: %s" % os.path.basename(os.path.abspath(d)), ""]
    lines += ["    " + l for l in facts] + [""]
    lines += ["## Memory", "",
              "Peak: the sample where the object memory (pages the allocator holds beyond the start, "
              "large kmallocs included, replayed page blocks not) was highest; \"then\": the live "
              "requested bytes at that sample. Efficiency: live requested / object memory; Linux's: "
              "live requested / the bytes_alloc the traced kernel gave the same objects. Slab: as "
              "slab_total_pages() counts it (SLOB counts its big objects' pages, SLAB and SLUB do not).",
              ""] + memory_table(runs) + [""]
    lines += ["## Host time per operation", "",
              "ns per call on this machine's CPU, the fastest pass, the TSC read's own cost taken out; "
              "one thread, the trace's events in order.", ""] + time_table(runs) + [""]
    png = plot(d, runs)
    if png:
        lines += ["![memory over the trace](memory.png)", ""]
    else:
        lines += ["(no plot: matplotlib does not import)", ""]
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write("\n".join(lines))
    bad = [r for r in runs if r["s"].get("all_passes_ok") != "1"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
