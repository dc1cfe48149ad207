# buddy.py - the page allocator as memory shows it (mm/page_alloc/buddy_internal.h):
# quarry-buddyinfo's report and what a page that no object allocator owns is.

from .mem import (build, symbol_value, list_entries, u, lookup_type,
                  PG_reserved, PG_buddy, PG_head, PG_large, PG_pcp)


def zone(nid=0):
    """Node nid's zone (node_zones[nid]; one-node machines use node 0's alone)."""
    return symbol_value("node_zones")[nid]


def zones():
    """[(nid, zone)] of the nodes that manage pages (node 0 always)."""
    zs = symbol_value("node_zones")
    n = zs.type.range()[1] + 1
    return [(i, zs[i]) for i in range(n) if i == 0 or u(zs[i]["managed_pages"])]


def max_order():
    return zone()["nr_free"].type.range()[1]


def buddyinfo_lines(walk=False):
    """quarry-buddyinfo: the kernel's buddyinfo line (zone free blocks per
    order), then each online CPU's page list, then the totals. walk=True
    also follows every list and says where a count disagrees with it."""
    b = build()
    z = zone()
    mo = max_order()
    lines = []
    for nid, zn in zones():
        nr = [u(zn["nr_free"][o]) for o in range(mo + 1)]
        lines.append("Node %d, zone   Normal" % nid + "".join(" %6d" % n for n in nr))
        if walk:
            page_t = lookup_type("struct page")
            for o in range(mo + 1):
                n = sum(1 for _ in list_entries(zn["free_list"][o], page_t, "lru"))
                if n != nr[o]:
                    lines.append("node %d order %d: %d blocks on the free list, nr_free says %d"
                                 % (nid, o, n, nr[o]))
    lines.append("order:               " + "".join(" %6d" % o for o in range(mo + 1)))
    lines.append("block size (kB):     " + "".join(
        " %6d" % ((b.page_size << o) // 1024) for o in range(mo + 1)))
    pcp_total = 0
    lines.append("per-CPU page lists (orders 0-%d, counted in pages, batch %d, high %d):"
                 % (pcp_max_order(), int(z["pcp_batch"]), int(z["pcp_high"])))
    for cpu in b.online_cpus():
        pcp = b.per_cpu("pcp_lists", cpu)
        count = u(pcp["count"])
        pcp_total += count
        extra = ""
        if walk:
            page_t = lookup_type("struct page")
            n = sum(sum(1 for _ in list_entries(pcp["lists"][o], page_t, "lru")) << o
                    for o in range(pcp_max_order() + 1))
            if n != count:
                extra = " (the lists hold %d)" % n
        lines.append("  CPU %d: %6d pages%s; allocs %d frees %d failed %d bad frees %d"
                     % (cpu, count, extra, u(pcp["allocs"]), u(pcp["frees"]),
                        u(pcp["failed_allocs"]), u(pcp["bad_frees"])))
    free = sum(u(zn["free_pages"]) for _, zn in zones())
    managed = sum(u(zn["managed_pages"]) for _, zn in zones())
    lines.append("free pages: %d on the zones' lists + %d on CPU lists = %d (%d kB) of %d managed"
                 % (free, pcp_total, free + pcp_total,
                    (free + pcp_total) * b.page_size // 1024, managed))
    return lines


def pcp_max_order():
    """The highest order the per-CPU lists hold (PCP_MAX_ORDER)."""
    return zone()["pcp_refill_shift"].type.range()[1]


def pcp_cpu_of(page_addr, order):
    """The online CPU whose list of order holds the block at page_addr, or None."""
    b = build()
    page_t = lookup_type("struct page")
    if order > pcp_max_order():
        return None
    for cpu in b.online_cpus():
        for p in list_entries(b.per_cpu("pcp_lists", cpu)["lists"][order], page_t, "lru",
                              limit=1 << 16):
            if u(p.address) == page_addr:
                return cpu
    return None


def block_of(pfn):
    """(head pfn, head page, order) of the smallest buddy block, free (PG_buddy,
    or PG_pcp: on a CPU's list) or handed out (PG_head), that contains pfn;
    None when there is none."""
    b = build()
    for o in range(0, max_order() + 1):
        hp = pfn & ~((1 << o) - 1)
        if not b.pfn_valid(hp):
            break
        head = b.page(hp)
        flags = u(head["flags"])
        if flags & (PG_buddy | PG_head | PG_pcp) and int(head["order"]) >= o:
            if pfn - hp < (1 << int(head["order"])):
                return hp, head, int(head["order"])
    return None


def describe_block(pfn, page):
    """Lines for a page no object allocator claims: reserved, free or allocated,
    and the state word ("free" or "in use") as the first line's end."""
    b = build()
    flags = u(page["flags"])
    order = int(page["order"])
    if flags & PG_reserved:
        return ["reserved: never in the page allocator (firmware, kernel image, mem_map)"]
    if flags & PG_pcp:
        cpu = pcp_cpu_of(u(page.address), order)
        where = "CPU %d's page list" % cpu if cpu is not None else "a CPU's page list (not found on any online CPU's!)"
        return ["free: heads a free block of order %d (%d kB) on %s"
                % (order, (b.page_size << order) // 1024, where)]
    if flags & PG_buddy:
        return ["free: heads a free block of order %d (%d kB) on the zone's free list"
                % (order, (b.page_size << order) // 1024)]
    if flags & PG_head:
        what = "a large kmalloc" if flags & PG_large else "a block"
        return ["in use: heads %s of order %d (%d kB) from alloc_pages"
                % (what, order, (b.page_size << order) // 1024)]
    blk = block_of(pfn)
    if blk is None:
        return ["no flags and in no block: not handed out by the page allocator"]
    hp, head, o = blk
    hflags = u(head["flags"])
    state = "free" if hflags & (PG_buddy | PG_pcp) else "in use"
    what = ("a free block" if hflags & PG_buddy else
            "a free block on a CPU's page list" if hflags & PG_pcp else
            "a large kmalloc" if hflags & PG_large else "an allocated block")
    return ["%s: page %d of %s of order %d headed by PFN %#x (struct page %#x)"
            % (state, pfn - hp, what, o, hp, u(head.address))]
