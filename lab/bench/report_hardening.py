"""report_hardening.py - the hardening options' cost in `make bench`'s report
(imported by report_boot.py): SLAB with SLAB_FREELIST_RANDOM=1 against SLAB, SLUB
with SLAB_FREELIST_HARDENED=1 against SLUB, test 1 and test 2 at every size,
guest instructions under -icount (the full `make bench`; QUICK=1 leaves the
hardened builds out).
"""

PAIRS = (("slab", "slab-random", "SLAB_FREELIST_RANDOM"),
         ("slub", "slub-hardened", "SLAB_FREELIST_HARDENED"))


def _cell(t, ar, p, a, size):
    v = [t.get(ar, p, a, 1, "icount", "kmalloc_then_free", size, m) for m in ("alloc_cost", "free_cost")]
    v.append(t.get(ar, p, a, 1, "icount", "kmalloc_free_pair", size, "pair_cost"))
    return v


def hardening_section(t, sizes_of, results):
    md = ["\n## Hardening options: their cost (single CPU, instructions per op)\n\n",
          "Test 1 kmalloc / kfree and the test 2 pair, each option's build beside the build "
          "without it, and the difference. SLAB_FREELIST_RANDOM shuffles a slab's index stack "
          "when the slab is made (its cost is per slab, spread over its objects); "
          "SLAB_FREELIST_HARDENED stores SLUB's free pointers XORed with a per-cache secret and "
          "their own address.\n"]
    found = False
    for base, hard, option in PAIRS:
        for p in t.pages:
            for ar in t.arches:
                if not (t.has(ar, p, alloc=hard, mode="icount") and t.has(ar, p, alloc=base, mode="icount")):
                    continue
                found = True
                md.append("\n### %s, %s %s pages\n\n" % (option, ar, p))
                rows = []
                for s in sizes_of(results, "kmalloc_then_free", p):
                    b, h = _cell(t, ar, p, base, s), _cell(t, ar, p, hard, s)
                    diff = ["%+d" % (int(float(y)) - int(float(x))) if x and y else "-"
                            for x, y in zip(b, h)]
                    rows.append([s, "%s / %s" % (b[0] or "-", b[1] or "-"), "%s / %s" % (h[0] or "-", h[1] or "-"),
                                 "%s / %s" % (diff[0], diff[1]), b[2] or "-", h[2] or "-", diff[2]])
                head = ["size", "%s kmalloc / kfree" % base, "%s kmalloc / kfree" % hard, "difference",
                        "%s pair" % base, "%s pair" % hard, "difference"]
                md.append("| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n")
                md += ["| " + " | ".join(str(c) for c in r) + " |\n" for r in rows]
    if not found:
        md.append("\nNot measured in this run (`make bench` without QUICK=1 builds them).\n")
    return md
