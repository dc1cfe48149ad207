# caches.py - what every object allocator shares: the list of caches, the
# allocator module of this build, quarry-slabinfo's table and quarry-page's
# dispatch from an address to the page allocator or the object allocator.

from . import slab, slub, slob, buddy
from .mem import QuarryError, build, symbol_value, list_entries, lookup_type, u, PG_slab, flag_names

MODULES = {"slab": slab, "slub": slub, "slob": slob, "slob-seg": slob}

SLABINFO_HEADER = ("# name            <active_objs> <num_objs> <objsize> <objperslab> "
                   "<pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata "
                   "<active_slabs> <num_slabs> <sharedavail>")
# mm/slab_report.c's slabinfo_line, field for field.
ROW_FMT = ("%-17s %6d %6d %6d %4d %4d : tunables %4d %4d %4d : slabdata %6d %6d %6d")


def allocator():
    """The allocator module of the loaded kernel (mm_debug_info.allocator)."""
    name = build().allocator
    if name not in MODULES:
        raise QuarryError("this kernel has no object allocator (ALLOC=%s)" % name)
    return MODULES[name]


def caches():
    """Every cache on slab_caches, newest first (as slabinfo lists them)."""
    return list(list_entries(symbol_value("slab_caches"), lookup_type("struct kmem_cache"),
                             "list", limit=4096))


def find_cache(name):
    all_ = caches()
    for c in all_:
        if c["name"].string() == name:
            return c
    raise QuarryError("no cache named '%s' on slab_caches (%d caches: %s)"
                      % (name, len(all_), ", ".join(c["name"].string() for c in all_)))


def slabinfo_lines():
    """The kernel's slabinfo 2.1 rows, each followed by ' : percpu' and the
    objects in each online CPU's array (SLAB) or freelist (SLUB), '-' where
    the CPU has none; then the kernel's 'Slab:' line."""
    b = build()
    mod = allocator()
    cpus = b.online_cpus()
    lines = ["slabinfo - version: 2.1 (quarry-slabinfo: read from memory, %s)" % b.allocator,
             SLABINFO_HEADER + " : percpu " + " ".join("<cpu%d>" % c for c in cpus)]
    pages = 0
    for c in caches():
        row, p = mod.slabinfo_row(c)
        pages += p
        per = mod.percpu_objects(c, cpus)
        tail = " : percpu " + (" ".join("-" if n is None else "%d" % n for n in per)
                               if per is not None else "- (nothing per CPU)")
        if hasattr(mod, "node_tail"):	# SLUB: each node's partial slabs / slabs
            tail += mod.node_tail(c)
        lines.append(ROW_FMT % ((c["name"].string(),) + row) + tail)
    if mod is slob:
        pages = slob.total_pages()
    per_node = {c["name"].string(): mod.node_rows(c) for c in caches()} \
        if hasattr(mod, "node_rows") else {}
    nids = sorted({n for rows in per_node.values() for n in rows})
    if any(n != 0 for n in nids):	# slabs on several nodes: the kernel's per-node tail
        lines.append("# per node: N<node>=<active_objs>/<num_objs>:<active_slabs>/<num_slabs>")
        for name, rows in per_node.items():
            lines.append("%-17s" % name + "".join(
                " N%d=%d/%d:%d/%d" % ((n,) + tuple(rows.get(n, [0] * 5)[:4])) for n in nids))
    lines.append("%-16s%8d kB" % ("Slab:", pages * b.page_size // 1024))
    if any(n != 0 for n in nids):
        for n in nids:
            kb = sum(rows.get(n, [0] * 5)[4] for rows in per_node.values()) * b.page_size // 1024
            lines.append("Node %d %-11s%8d kB" % (n, "Slab:", kb))
    return lines


def cache_lines(name):
    return allocator().cache_lines(find_cache(name))


def page_lines(addr):
    """quarry-page: the struct page of any address, decoded."""
    b = build()
    pfn = b.addr_to_pfn(addr)
    page = b.page(pfn)
    flags = u(page["flags"])
    head = ["struct page %#x: PFN %#x, physical %#x, flags %#x (%s), order %d"
            % (u(page.address), pfn, pfn << b.page_shift, flags, flag_names(flags & 0xff),
               int(page["order"]))]
    if flags & PG_slab:
        return allocator().page_lines(addr, pfn, page) + head
    blk = buddy.block_of(pfn) if not flags else None
    if blk is not None and u(blk[1]["flags"]) & PG_slab and build().allocator in ("slob", "slob-seg"):
        # a page inside a big SLOB object: its head page names the cache
        return slob.page_lines(addr, blk[0], blk[1]) + head
    return ["%#x: %s" % (addr, buddy.describe_block(pfn, page)[0])] + head
