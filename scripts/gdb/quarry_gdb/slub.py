# slub.py - SLUB (ALLOC=slub) read from memory: mm/slub/slub_def.h's structures.
#
# Each CPU's (freelist, tid) pair is in its per-CPU area (per_cpu__slub_cpu +
# the cache's cpu_off); a freelist is a chain through each free object
# ('offset' bytes from the caller's pointer) that ends in its slab's base | 1.
# Each link is stored XORed with the cache's fp_secret (and, in a
# SLAB_FREELIST_HARDENED build, with the link's own address: tried when the
# first decoding leaves the slab).
# slabinfo counts as mm/slub/slub_info.c does (free = the free objects of the
# node's partial slabs; CPU freelists, CPU partial slabs and sheaves count as
# active; tunables = sheaf capacity twice and 0; sharedavail = the objects of
# the barn's full sheaves). Sheaves (SLUB_SHEAVES=1): each CPU's main sheaf
# pointer is in its per-CPU area (per_cpu__slub_sheaf + 8 * the cache's slot),
# its spare in c->cpu[cpu].spare, the barn's full and empty sheaves on lists
# linked by 'next'; a sheaf is {next, size, capacity, objects[]}. A build
# without sheaves has no slub_sheaf symbol and no sheaf_capacity field.
# Min-order slabs (made when no block of the cache's order is free): their
# pages' slab_cache is the cache's twin (c->min_cache; the twin's min_of names
# the cache), whose num, order and layout fields are that slab's geometry; a
# cache without debugging keeps them frozen on node.min_slabs.
# Nodes: c->node[] has one struct kmem_cache_node per possible memory node
# (partial list, counts, min-order list, barn); a slab is node N's when its
# head page's 'active' says N (slub_slab_nid). slabinfo adds every node up;
# quarry-slabinfo's rows end in ' : nodes' and each node's partial slabs /
# slabs where a node has any, quarry-cache lists each such node.

from .mem import QuarryError, cache_flag_names, build, at, u, read_u64, lookup_type, list_entries

SLUB_END_TAG = 1			# mm/slub/slub_def.h
SLUB_NO_SLAB = (1 << 64) - 1
SLUB_FROZEN = 1 << 63
SHOW_MAX = 16


def inuse(counters):
    return counters & 0xffffffff


def objects(counters):
    return (counters >> 32) & 0x7fffffff


def cpu_pair(c, cpu):
    """(freelist, tid) of cpu's pair for cache c."""
    b = build()
    addr = b.per_cpu_addr("slub_cpu", cpu) + u(c["cpu_off"])
    return read_u64(addr), read_u64(addr + 8), addr


def chain(c, start):
    """The objects of a freelist chain from start, and its end value."""
    objs = []
    p = start
    limit = int(c["num"]) + 1
    off = int(c["offset"])
    key = u(c["fp_secret"])
    mask = u(c["slab_mask"])
    while not p & SLUB_END_TAG:
        objs.append(p)
        if len(objs) > limit:
            raise QuarryError("freelist from %#x of cache %s runs past %d objects (a loop?)"
                              % (start, c["name"].string(), limit))
        nxt = read_u64(p + off) ^ key
        if (nxt ^ p) & ~mask & ((1 << 64) - 1):
            nxt ^= p + off
        p = nxt
    return objs, p


def cpu_freelist(c, cpu):
    fl, tid, addr = cpu_pair(c, cpu)
    if fl == SLUB_NO_SLAB:
        return None, [], tid, addr
    objs, end = chain(c, fl)
    return end & ~SLUB_END_TAG, objs, tid, addr


def has_sheaves(c):
    try:
        return int(c["sheaf_capacity"]) > 0
    except Exception:
        return False


def sheaf_objects(addr):
    """The objects of the sheaf at addr, bottom first (the top is the last)."""
    if addr == 0:
        return []
    sh = at(addr, lookup_type("struct slub_sheaf"))
    size, cap = u(sh["size"]), u(sh["capacity"])
    if size > cap or cap > 4096:
        raise QuarryError("sheaf at %#x: size %d, capacity %d (corrupt?)" % (addr, size, cap))
    base = u(sh["objects"].address)
    return [read_u64(base + 8 * i) for i in range(size)]


def cpu_sheaves(c, cpu):
    """(main sheaf address, its objects, spare address, its objects) of cpu; zeros without."""
    if not has_sheaves(c):
        return 0, [], 0, []
    main = read_u64(build().per_cpu_addr("slub_sheaf", cpu) + 8 * int(c["slot"]))
    spare = u(c["cpu"][cpu]["spare"])
    # slub_sheaf_none (no sheaf yet) has capacity 0 and size 0: no objects.
    return main, sheaf_objects(main), spare, sheaf_objects(spare)


def nodes(c):
    """[(nid, struct kmem_cache_node)] of every node slot of the cache."""
    arr = c["node"]
    lo, hi = arr.type.range()
    return [(i, arr[i]) for i in range(lo, hi + 1)]


def node_used(n):
    """Whether a node of a cache has slabs or sheaves in its barn."""
    b = n["barn"]
    return (u(n["nr_slabs"]["counter"]) or u(n["nr_partial"]) or u(b["nr_full"])
            or u(b["nr_empty"]))


def barn_sheaves(c, which, nid=None):
    """[(address, objects)] of the barns' 'full' or 'empty' lists (nid: that node's only)."""
    out = []
    if not has_sheaves(c):
        return out
    for i, n in nodes(c):
        if nid is not None and i != nid:
            continue
        p = u(n["barn"][which])
        while p and len(out) <= 64 * 8:
            out.append((p, sheaf_objects(p)))
            p = read_u64(p)		# next is the first field
    return out


def partial_pages(head):
    return list(list_entries(head, lookup_type("struct page"), "lru", limit=1 << 16))


def owner(c):
    """The cache a page's slab_cache stands for (a min-order slab's names the twin)."""
    return c["min_of"].dereference() if u(c["min_of"]) else c


def min_twin(c):
    return c["min_cache"].dereference() if u(c["min_cache"]) else None


def slabinfo_row(c):
    num = int(c["num"])
    t = min_twin(c)
    tnum, torder = (int(t["num"]), int(t["order"])) if t is not None else (num, int(c["order"]))
    slabs = objs = free = empty = pages = 0
    for _, n in nodes(c):
        ns = u(n["nr_slabs"]["counter"])
        nmin = min(u(n["nr_min"]["counter"]), ns)
        slabs += ns
        objs += (ns - nmin) * num + nmin * tnum
        pages += ((ns - nmin) << int(c["order"])) + (nmin << torder)
        if not ns:
            continue
        for p in partial_pages(n["partial"]) + partial_pages(n["min_slabs"]):
            g = p["slab_cache"].dereference()
            n_in = inuse(u(p["counters"]))
            free += int(g["num"]) - n_in
            empty += n_in == 0
    cap = int(c["sheaf_capacity"]) if has_sheaves(c) else 0
    in_barn = sum(len(objs) for _, objs in barn_sheaves(c, "full"))
    row = (objs - free, objs, int(c["size"]), num, 1 << int(c["order"]),
           cap, cap, 0, slabs - empty, slabs, in_barn)
    return row, pages


def node_tail(c):
    """' : nodes N:partial/slabs ...' for the nodes with slabs (node 0 always)."""
    parts = []
    for i, n in nodes(c):
        if i == 0 or node_used(n):
            parts.append("%d:%d/%d" % (i, u(n["nr_partial"]), u(n["nr_slabs"]["counter"])))
    return " : nodes " + " ".join(parts)


def percpu_objects(c, cpus):
    """Per CPU: objects on its freelist and in its sheaves (None: no CPU slab, no sheaf)."""
    out = []
    for cpu in cpus:
        base, objs, _, _ = cpu_freelist(c, cpu)
        main, mobjs, spare, sobjs = cpu_sheaves(c, cpu)
        held = len(mobjs) + len(sobjs)
        out.append(None if base is None and not held else len(objs) + held)
    return out


def fmt_objs(objs):
    return ", ".join("%#x" % o for o in objs[:SHOW_MAX]) + (
        ", ... (%d more)" % (len(objs) - SHOW_MAX) if len(objs) > SHOW_MAX else "")


def slab_desc(c, page):
    cnt = u(page["counters"])
    b = build()
    return ("slab %#x (struct page %#x): inuse %d of %d%s, page freelist %#x"
            % (b.page_address(page), u(page.address), inuse(cnt), objects(cnt),
               ", frozen" if cnt & SLUB_FROZEN else "", u(page["slub_freelist"])))


def cache_lines(c):
    b = build()
    name = c["name"].string()
    lines = ["cache %s at %#x (SLUB)%s" % (name, u(c.address), " dead" if c["dead"] else "")]
    lines.append("  object_size %d, size %d, obj_offset %d, free pointer at +%d, align %d, "
                 "flags %#x %s" % (int(c["object_size"]), int(c["size"]), int(c["obj_offset"]),
                               int(c["offset"]), int(c["align"]), int(c["flags"]),
                               cache_flag_names(int(c["flags"]))))
    lines.append("  slab: %d objects in 2^%d pages (mask %#x), waste %d; min_partial %d, "
                 "cpu_partial %d; pair slot %d (cpu_off %#x)"
                 % (int(c["num"]), int(c["order"]), u(c["slab_mask"]), int(c["waste"]),
                    int(c["min_partial"]), int(c["cpu_partial"]), int(c["slot"]),
                    u(c["cpu_off"])))
    if has_sheaves(c):
        lines.append("  sheaves of %d objects" % int(c["sheaf_capacity"]))
    t = min_twin(c)
    for nid, node in nodes(c):
        if nid != 0 and not node_used(node):
            continue
        if has_sheaves(c):
            full, empty = barn_sheaves(c, "full", nid), barn_sheaves(c, "empty", nid)
            lines.append("  node %d barn: %d full (%d objects), %d empty"
                         % (nid, len(full), sum(len(o) for _, o in full), len(empty)))
        parts = partial_pages(node["partial"])
        lines.append("  node %d: %d slabs in all, %d on the partial list (nr_partial %d)"
                     % (nid, u(node["nr_slabs"]["counter"]), len(parts), u(node["nr_partial"])))
        for p in parts[:SHOW_MAX]:
            lines.append("    " + slab_desc(c, p))
        if t is not None:
            mins = partial_pages(node["min_slabs"])
            lines.append("  node %d min-order slabs: %d objects in 2^%d pages (twin at %#x); "
                         "%d of them, %d on the min-order list"
                         % (nid, int(t["num"]), int(t["order"]), u(t.address),
                            u(node["nr_min"]["counter"]), len(mins)))
            for p in mins[:SHOW_MAX]:
                lines.append("    " + slab_desc(c, p))
    for cpu in b.online_cpus():
        base, objs, tid, addr = cpu_freelist(c, cpu)
        if base is None:
            lines.append("  CPU %d: no CPU slab (pair at %#x, tid %d)" % (cpu, addr, tid))
        else:
            lines.append("  CPU %d: CPU slab %#x, pair at %#x, tid %d, %d objects on its freelist%s"
                         % (cpu, base, addr, tid, len(objs), ": " + fmt_objs(objs) if objs else ""))
        main, mobjs, spare, sobjs = cpu_sheaves(c, cpu)
        if has_sheaves(c):
            lines.append("    CPU %d sheaves: main %#x with %d%s; spare %s"
                         % (cpu, main, len(mobjs), " (top last): " + fmt_objs(mobjs) if mobjs else "",
                            "%#x with %d" % (spare, len(sobjs)) if spare else "none"))
        cp = c["cpu"][cpu]
        cparts = partial_pages(cp["partial"])
        if cparts:
            lines.append("    CPU %d partial list: %d slabs (nr_partial %d)"
                         % (cpu, len(cparts), int(cp["nr_partial"])))
            for p in cparts[:SHOW_MAX]:
                lines.append("      " + slab_desc(c, p))
    return lines


def sheaf_state(c, obj, cpus):
    """'free (in ...)' if obj is in a CPU's sheaf or the barn, else None."""
    for cpu in cpus:
        _, mobjs, _, sobjs = cpu_sheaves(c, cpu)
        for what, objs in (("main", mobjs), ("spare", sobjs)):
            if obj in objs:
                return ("free (in CPU %d's %s sheaf, %d from the top)"
                        % (cpu, what, len(objs) - 1 - objs.index(obj)))
    for nid, _ in nodes(c):
        for addr, objs in barn_sheaves(c, "full", nid):
            if obj in objs:
                return "free (in node %d's barn, full sheaf %#x)" % (nid, addr)
    return None


def page_lines(addr, pfn, page):
    """quarry-page for a PG_slab page of SLUB."""
    b = build()
    g = page["slab_cache"].dereference()	# the slab's geometry: its cache's, or the twin's
    c = owner(g)
    is_min = u(g.address) != u(c.address)
    name = c["name"].string()
    head_addr = u(page["private"])
    head = at(head_addr, b.page_type)
    base = b.page_address(head)
    num, size, ooff = int(g["num"]), int(g["size"]), int(g["obj_offset"])
    cnt = u(head["counters"])
    page_free, _ = chain(g, u(head["slub_freelist"]))
    state_of_slab = None
    cpu_free = []
    for cpu in b.online_cpus():
        cb, objs, _, _ = cpu_freelist(c, cpu)
        if cb == base:
            state_of_slab = "CPU %d's slab" % cpu
            cpu_free = [(cpu, objs)]
        elif state_of_slab is None:
            for p in partial_pages(c["cpu"][cpu]["partial"]):
                if u(p.address) == head_addr:
                    state_of_slab = "on CPU %d's partial list" % cpu
    nid = int(head["active"])		# slub_slab_nid
    if is_min:
        state_of_slab = ("a min-order slab (2^%d pages), " % int(g["order"]) +
                         ("on node %d's min-order list" % nid if cnt & SLUB_FROZEN
                          else "on node %d's partial list" % nid if inuse(cnt) < objects(cnt)
                          else "full (on no list)"))
    if state_of_slab is None:
        if cnt & SLUB_FROZEN:
            state_of_slab = "frozen, but no online CPU's slab or partial list has it"
        elif inuse(cnt) < objects(cnt):
            state_of_slab = "on node %d's partial list" % nid
        else:
            state_of_slab = "full (on no list)"
    lines = []
    idx = (addr - base) // size
    if idx >= num:
        lines.append("%#x: not an object: past the last object of slab %#x (slack)" % (addr, base))
    else:
        obj = base + ooff + idx * size
        inside = addr - obj
        pos = "" if inside == 0 else " (+%d into it)" % inside if inside > 0 else " (in its front guard)"
        state = "in use"
        if obj in page_free:
            state = "free (on the slab's page freelist, %d from the head)" % page_free.index(obj)
        for cpu, objs in cpu_free:
            if obj in objs:
                state = "free (on CPU %d's freelist, %d from the head)" % (cpu, objs.index(obj))
        state = sheaf_state(c, obj, b.online_cpus()) or state
        lines.append("%#x: object %d of cache %s at %#x%s: %s" % (addr, idx, name, obj, pos, state))
    lines.append("slab %#x of cache %s: head struct page %#x, node %d, inuse %d of %d%s, %s"
                 % (base, name, head_addr, nid, inuse(cnt), objects(cnt),
                    ", frozen" if cnt & SLUB_FROZEN else "", state_of_slab))
    lines.append("page freelist (%d): %s" % (len(page_free), fmt_objs(page_free) or "empty"))
    for cpu, objs in cpu_free:
        lines.append("CPU %d freelist (%d): %s" % (cpu, len(objs), fmt_objs(objs) or "empty"))
    return lines
