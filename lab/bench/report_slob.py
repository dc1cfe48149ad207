"""report_slob.py - the SLOB parts of `make bench`'s report (imported by report_boot.py):
seed 004's table (SLOB's sequential fit against its segregated lists: slab
memory after boot and after the messaging workload, and the messaging time),
with SLAB and SLUB beside them, and SLOB's limits against Linux 6.1's
figures (report_linux.py: measured by `make bench-linux`, or "not measured"). Both take report_boot.py's Table (t) and return markdown lines.
"""

import report_summary
import report_linux
from report_md import ratio, table

SLOBS = ("slob", "slob-seg")
FOUR = ("slab", "slub", "slob", "slob-seg")


def seed004_section(t):
    """Seed 004's trade, per arch and page size: memory against messaging speed."""
    md = ["\n## Memory against speed: `Slab:` and messaging, SLOB against SLOB-seg (seed 004's table)\n\n",
          "Single CPU, `-icount` (guest instructions). `Slab:` after boot and after the messaging "
          "workload (kB of pages the allocator holds), and the messaging workload's cost per "
          "message: the whole message, and the part spent inside kmalloc and kfree (the rest, "
          "filling and checking every byte of the message and the rings, is the same work under "
          "every allocator). SLAB and SLUB are beside them for scale. Seed 004 (32-bit "
          "tinyconfig): Slab 668 kB -> 716 kB after boot, hackbench 9-10x faster.\n"]
    found = False
    for p in t.pages:
        for ar in t.arches:
            allocs = [a for a in FOUR if t.get(ar, p, a, 1, "icount", "messaging", 0, "per_message_cost")]
            if not any(a in SLOBS for a in allocs):
                continue
            found = True
            md.append("\n### %s %s pages\n\n" % (ar, p))
            rows = []
            for a in allocs:
                g = lambda test, metric: t.get(ar, p, a, 1, "icount", test, 0, metric)
                rows.append([a, g("memory_boot", "slab_kb"), g("messaging", "slab_after_kb"),
                             g("messaging", "per_message_cost"), g("messaging", "alloc_share_cost")])
            md.append(table(["allocator", "Slab: after boot (kB)", "after messaging (kB)",
                              "per message", "in kmalloc+kfree per message"], rows))
            v = {a: (t.get(ar, p, a, 1, "icount", "messaging", 0, "per_message_cost"),
                     t.get(ar, p, a, 1, "icount", "messaging", 0, "alloc_share_cost")) for a in SLOBS}
            md.append("\nslob / slob-seg: %s per message, %s inside the allocator.\n"
                      % (ratio(v["slob"][0], v["slob-seg"][0]), ratio(v["slob"][1], v["slob-seg"][1])))
    if not found:
        md.append("\nNot measured: it needs single-CPU runs of SLOB or SLOB-seg "
                  "(`make bench ALLOC=slob,slob-seg`).\n")
    return md


def _verdict(ok):
    return "-" if ok is None else ("met" if ok else "NOT met")


def targets_section(t):
    """SLOB's limits against Linux 6.1's SLOB, x86_64 4K, guest instructions under -icount."""
    ar, p = "x86_64", "4K"
    g = lambda a, test, size, metric: t.get(ar, p, a, 1, "icount", test, size, metric)
    lx = lambda fig: report_summary.linux(ar, p, "slob", fig)
    md = ["\n## SLOB's speed and memory against Linux 6.1's SLOB (x86_64 4K, guest instructions)\n\n",
          "Linux 6.1's SLOB, measured the same way by `make bench-linux`, gives the reference figures.\n\n"]
    rows = []
    seg_t1 = g("slob-seg", "kmalloc_then_free", 32, "alloc_cost")
    nm = lambda v: report_linux.NOT_MEASURED if v is None else v
    rows.append(["slob-seg test 1 kmalloc(32)", "<= 200", nm(lx("t1_32")[0]), seg_t1,
                 _verdict(None if seg_t1 is None else float(seg_t1) <= 200)])
    seg_pair = g("slob-seg", "kmalloc_free_pair", 32, "pair_cost")
    rows.append(["slob-seg kmalloc(32)+kfree pair", "<= 120", nm(lx("pair")), seg_pair,
                 _verdict(None if seg_pair is None else float(seg_pair) <= 120)])
    for metric, what in (("per_message_cost", "whole message"),
                         ("alloc_share_cost", "inside kmalloc+kfree")):
        a, b = g("slob", "messaging", 0, metric), g("slob-seg", "messaging", 0, metric)
        r = ratio(a, b)
        rows.append(["messaging, slob / slob-seg (%s)" % what, ">= 5", "-",
                     "%s / %s = %s" % (a or "-", b or "-", r),
                     _verdict(None if r == "-" else float(r) >= 5)])
    others = [g(a, "memory_boot", 0, "slab_kb") for a in ("slab", "slub")]
    for a in SLOBS:
        mine = g(a, "memory_boot", 0, "slab_kb")
        ok = None if mine is None or None in others else all(float(mine) < float(o) for o in others)
        rows.append(["%s Slab: after boot below SLAB's and SLUB's" % a,
                     "< %s" % " and ".join(o or "-" for o in others),
                     "SLOB %s kB (SLAB %s, SLUB %s)" % tuple(
                         report_summary.linux(ar, p, a, "slab_kb") or "-"
                         for a in ("slob", "slab", "slub")),
                     mine, _verdict(ok)])
    md.append(table(["target", "limit", "Linux 6.1", "Quarry", "met"], rows))
    return md
