"""report_linux.py - Linux's own allocators' figures for the reports, from the
runs `make bench-linux` made (lab/linux/): the BENCH lines its module printed in
each kernel's console log under build/linux/ (QUARRY_LINUX_DIR elsewhere),
parsed by parse.py as Quarry's are. Nothing is pasted: a figure no run measured
is None, and the reports say "not measured: run make bench-linux".

Allocator names in those lines: linux<version>-<allocator>, e.g. linux61-slub
(Linux 6.1's SLUB), linux612-slub (6.12's).

    linux(arch, page, alloc, figure, version="61")
        figure "t1_N": (kmalloc, kfree) instructions of test 1 at N bytes;
        "pair": the kmalloc(32)+kfree pair; "pair_N" at N bytes;
        "messaging": instructions per message; "msg_<metric>": that metric of the
        messaging row (total_cost, alloc_share_cost, slab_before_kb, ...);
        "pages_N": (alloc_pages, free_pages) per call at order N, one CPU;
        "slab_kb": Slab: after boot, kB
    versions(arch, page, alloc)   the Linux versions measured for that allocator
"""
import glob
import os

import parse

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DIR = os.path.join(HERE, "..", "..", "build", "linux")
NOT_MEASURED = "not measured: run make bench-linux"
VERSION_NAMES = {"61": "Linux 6.1", "612": "Linux 6.12"}

_rows = None


def _load():
    """{(arch, page, allocator, test, size, metric): value} of every single-CPU -icount
    figure in the Linux logs (a later log's figure replaces an earlier one's)."""
    global _rows
    if _rows is not None:
        return _rows
    _rows = {}
    root = os.environ.get("QUARRY_LINUX_DIR", DEFAULT_DIR)
    for path in sorted(glob.glob(os.path.join(root, "**", "*.log"), recursive=True)):
        try:
            rows, _ = parse.parse(path)
        except (OSError, ValueError, KeyError):
            continue
        for r in rows:
            if r[2].startswith("linux") and r[3] == "1" and r[4] == "icount":
                _rows[(r[0], r[1], r[2], r[5], int(r[6]), r[7])] = r[8]
    return _rows


def _num(v):
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return int(f) if f == int(f) else f


def linux(arch, page, alloc, figure, version="61"):
    """Linux's figure (see the module's docstring), or None where no run measured it
    ((None, None) for a t1_ figure)."""
    rows = _load()
    name = "linux%s-%s" % (version, alloc)
    g = lambda test, size, metric: _num(rows.get((arch, page, name, test, size, metric)))
    if figure.startswith("t1_"):
        size = int(figure[3:])
        return (g("kmalloc_then_free", size, "alloc_cost"), g("kmalloc_then_free", size, "free_cost"))
    if figure == "pair" or figure.startswith("pair_"):
        return g("kmalloc_free_pair", int(figure[5:]) if "_" in figure else 32, "pair_cost")
    if figure == "messaging":
        return g("messaging", 0, "per_message_cost")
    if figure.startswith("msg_"):
        return g("messaging", 0, figure[4:])
    if figure.startswith("pages_"):
        order = int(figure[6:])
        return (g("pages_single", order, "alloc_cost"), g("pages_single", order, "free_cost"))
    if figure == "slab_kb":
        return g("memory_boot", 0, "slab_kb")
    raise KeyError(figure)


def versions(arch, page, alloc):
    """The Linux versions ("61", "612") with any figure for alloc at arch and page."""
    rows = _load()
    return sorted({k[2][len("linux"):].split("-")[0] for k in rows
                   if k[0] == arch and k[1] == page and k[2].endswith("-" + alloc)},
                  key=lambda v: int(v))


def has_linux(alloc):
    """The Linux versions that have this allocator at all (6.1: SLAB, SLUB, SLOB; 6.12: SLUB)."""
    return {"slab": ["61"], "slub": ["61", "612"], "slob": ["61"]}.get(alloc, [])
