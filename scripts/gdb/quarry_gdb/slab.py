# slab.py - SLAB (ALLOC=slab) read from memory: mm/slab/slab_def.h's structures.
#
# slabinfo counts as mm/slab/slabinfo.c does (every node's counters added up;
# objects in CPU and shared arrays count as active); a cache's detail shows
# each node's lists and shared array and each CPU's array; an object is free
# when its index is on its slab's freelist stack (freelist[active..num-1]) or
# its pointer sits in a CPU's array or a node's shared array. Min-order slabs
# (made when no block of the cache's order is free) belong to the cache's
# twin (c->min_cache, whose min_of names the cache): their pages' slab_cache
# is the twin, whose num, order and layout are those slabs' geometry; the
# twin has no arrays, and its counts add to the cache's in slabinfo. Nodes are
# memory nodes (node[] has MAX_NUMNODES slots; a SLAB_NODE_PER_CPU=1 build's
# has NR_CPUS, one per CPU); a CPU's alien caches (objects of other nodes it
# freed, on their way home) hang on its array (array_cache.alien) and count
# as active too.

from .mem import QuarryError, cache_flag_names, build, at, u, read_u64, read_uint, lookup_type, offsetof, list_entries

SLAB_NODE_SHIFT = 8		# mm/slab/slab_def.h: a slab's home node in its head page's flags
SLAB_NODE_MASK = 0xff
LAYOUTS = {0: "on-slab", 1: "off-slab", 2: "in-object"}
SHOW_MAX = 16			# array and freelist entries listed before "..."


def no_array_addr():
    from .mem import symbol_addr
    return symbol_addr("slab_no_array")


def array_entries(ac):
    """The objects of an array_cache (gdb.Value), bottom first: entry[1..avail]."""
    avail = u(ac["avail"])
    limit = u(ac["limit"])
    if avail > limit:
        raise QuarryError("array_cache at %#x: avail %d > limit %d (corrupt?)"
                          % (u(ac.address), avail, limit))
    base = u(ac.address) + offsetof(lookup_type("struct array_cache"), "entry")
    return [read_u64(base + 8 * i) for i in range(1, avail + 1)]


def cpu_array(c, cpu):
    """cpu's array of cache c, or None while it has none (slab_no_array)."""
    p = u(c["cpu_array"][cpu])
    if p == 0 or p == no_array_addr():
        return None
    return at(p, lookup_type("struct array_cache"))


def nodes(c):
    """(node id, struct kmem_cache_node) for every node the cache has."""
    t = lookup_type("struct kmem_cache_node")
    out = []
    for i in range(c["node"].type.range()[1] + 1):
        p = u(c["node"][i])
        if p:
            out.append((i, at(p, t)))
    return out


def counts(c):
    total = free_slabs = free_objects = shared = 0
    for _, n in nodes(c):
        total += u(n["total_slabs"])
        free_slabs += u(n["free_slabs"])
        free_objects += u(n["free_objects"])
        if u(n["shared"]):
            shared += u(n["shared"]["avail"])
    return total, free_slabs, free_objects, shared


def min_twin(c):
    """The cache's min-order twin (its min-order slabs' cache), or None."""
    return c["min_cache"].dereference() if u(c["min_cache"]) else None


def slabinfo_row(c):
    """The fields of SLAB's kmem_cache_slabinfo (mm/slab/slabinfo.c), and the cache's pages (twin's included)."""
    total, free_slabs, free_objects, shared = counts(c)
    num = int(c["num"])
    order = int(c["order"])
    objs, pages = total * num, total << order
    t = min_twin(c)
    if t is not None:
        ttotal, tfree_slabs, tfree_objects, _ = counts(t)
        total += ttotal
        free_slabs += tfree_slabs
        free_objects += tfree_objects
        objs += ttotal * int(t["num"])
        pages += ttotal << int(t["order"])
    row = (objs - free_objects, objs, int(c["size"]), num, 1 << order,
           int(c["limit"]), int(c["batchcount"]), int(c["shared"]),
           total - free_slabs, total, shared)
    return row, pages


def aliens(ac):
    """(node id, objects) for each of a CPU array's alien caches."""
    if not has_field(ac, "alien") or not u(ac["alien"]):
        return []
    al = ac["alien"].dereference()
    out = []
    for nid in range(al["ac"].type.range()[1] + 1):
        p = u(al["ac"][nid])
        if p:
            out.append((nid, array_entries(at(p, lookup_type("struct array_cache")))))
    return out


def has_field(v, name):
    return any(f.name == name for f in v.type.strip_typedefs().fields())


def node_pages(c, nid_of):
    """Slabs per node of their pages (page->nid), over every node's lists: {nid: slabs}."""
    out = {}
    for _, n in nodes(c):
        for which in ("slabs_full", "slabs_partial", "slabs_free"):
            for p in list_entries(n[which], lookup_type("struct page"), "lru"):
                k = nid_of(p)
                out[k] = out.get(k, 0) + 1
    return out


def node_rows(c):
    """{node of the pages: [active_objs, num_objs, active_slabs, num_slabs, pages]} for the
    cache and its twin, as kmem_cache_slabinfo_node counts (page->nid of each slab)."""
    out = {}
    if not any(f.name == "nid" for f in lookup_type("struct page").fields()):
        return out
    for cc in (c, min_twin(c)):
        if cc is None:
            continue
        num, order = int(cc["num"]), int(cc["order"])
        for _, n in nodes(cc):
            for which in ("slabs_full", "slabs_partial", "slabs_free"):
                for p in list_entries(n[which], lookup_type("struct page"), "lru"):
                    r = out.setdefault(int(p["nid"]), [0, 0, 0, 0, 0])
                    active = int(p["active"])
                    r[0] += active
                    r[1] += num
                    r[2] += active != 0
                    r[3] += 1
                    r[4] += 1 << order
    return out


def percpu_objects(c, cpus):
    """Objects in each CPU's array (None: the CPU has no array of this cache)."""
    out = []
    for cpu in cpus:
        ac = cpu_array(c, cpu)
        out.append(None if ac is None else u(ac["avail"]))
    return out


def fmt_objs(objs):
    shown = ", ".join("%#x" % o for o in reversed(objs[-SHOW_MAX:]))
    return shown + (", ... (%d more)" % (len(objs) - SHOW_MAX) if len(objs) > SHOW_MAX else "")


def slab_list_count(n, which):
    return sum(1 for _ in list_entries(n[which], lookup_type("struct page"), "lru"))


def cache_lines(c):
    b = build()
    lines = []
    name = c["name"].string()
    flags = int(c["flags"])
    layout = LAYOUTS.get(int(c["layout"]), str(int(c["layout"])))
    if int(c["layout"]) == 1 and u(c["freelist_cache"]):
        layout += " (%s)" % c["freelist_cache"]["name"].string()
    lines.append("cache %s at %#x (SLAB)%s" % (name, u(c.address), " dead" if c["dead"] else ""))
    lines.append("  object_size %d, size %d (object to object), obj_offset %d, align %d, flags %#x %s"
                 % (int(c["object_size"]), int(c["size"]), int(c["obj_offset"]),
                    int(c["align"]), flags, cache_flag_names(flags)))
    lines.append("  slab: %d objects in 2^%d pages (%d bytes), freelist %s, waste %d bytes"
                 % (int(c["num"]), int(c["order"]), b.page_size << int(c["order"]), layout,
                    int(c["waste"])))
    t = min_twin(c)
    if t is not None:
        tt, tf, tfo, _ = counts(t)
        lines.append("  min-order slabs: %d objects in 2^%d pages (twin at %#x); %d of them, "
                     "%d empty, %d free objects" % (int(t["num"]), int(t["order"]),
                                                    u(t.address), tt, tf, tfo))
    lines.append("  tunables: limit %d, batchcount %d, shared %d; CPUs with an array: %d"
                 % (int(c["limit"]), int(c["batchcount"]), int(c["shared"]),
                    int(c["nr_arrays"]["counter"])))
    for i, n in nodes(c):
        full = slab_list_count(n, "slabs_full")
        partial = slab_list_count(n, "slabs_partial")
        free = slab_list_count(n, "slabs_free")
        lines.append("  node %d at %#x: slabs full %d, partial %d, free %d (total_slabs %d, "
                     "free_slabs %d), free_objects %d, free_limit %d"
                     % (i, u(n.address), full, partial, free, u(n["total_slabs"]),
                        u(n["free_slabs"]), u(n["free_objects"]), u(n["free_limit"])))
        if full + partial + free != u(n["total_slabs"]):
            lines.append("    !! the lists hold %d slabs, total_slabs says %d"
                         % (full + partial + free, u(n["total_slabs"])))
        if u(n["shared"]):
            sh = at(u(n["shared"]), lookup_type("struct array_cache"))
            objs = array_entries(sh)
            lines.append("    shared array at %#x: %d of %d objects%s%s"
                         % (u(sh.address), len(objs), u(sh["limit"]), ": " if objs else "",
                            fmt_objs(objs)))
        else:
            lines.append("    no shared array yet")
    t_page = lookup_type("struct page")
    if any(f.name == "nid" for f in t_page.fields()):
        by_page = node_pages(c, lambda p: int(p["nid"]))
        if any(k != 0 for k in by_page):
            lines.append("  slabs by the node of their pages: " +
                         ", ".join("node %d: %d" % (k, by_page[k]) for k in sorted(by_page)))
    for cpu in b.online_cpus():
        ac = cpu_array(c, cpu)
        if ac is None:
            lines.append("  CPU %d: no array (slab_no_array)" % cpu)
            continue
        objs = array_entries(ac)
        lines.append("  CPU %d array at %#x: avail %d of limit %d, batchcount %d, touched %d%s"
                     % (cpu, u(ac.address), len(objs), u(ac["limit"]), int(ac["batchcount"]),
                        int(ac["touched"]), "" if objs else " (empty)"))
        if objs:
            lines.append("    top first (next handed out first): " + fmt_objs(objs))
        for nid, aobjs in aliens(ac):
            lines.append("    alien cache for node %d: %d objects%s%s"
                         % (nid, len(aobjs), ": " if aobjs else "", fmt_objs(aobjs)))
    return lines


def where_free(c, obj):
    """Where a SLAB object pointer sits while free, or None."""
    b = build()
    for cpu in range(b.nr_cpus):
        ac = cpu_array(c, cpu)
        if ac is None:
            continue
        objs = array_entries(ac)
        if obj in objs:
            return "in CPU %d's array, %d from the top" % (cpu, len(objs) - 1 - objs.index(obj))
        for nid, aobjs in aliens(ac):
            if obj in aobjs:
                return "in CPU %d's alien cache for node %d" % (cpu, nid)
    for i, n in nodes(c):
        if u(n["shared"]):
            objs = array_entries(at(u(n["shared"]), lookup_type("struct array_cache")))
            if obj in objs:
                return "in node %d's shared array" % i
    return None


def page_lines(addr, pfn, page):
    """quarry-page for a PG_slab page of SLAB: the slab, the object, free or in use."""
    b = build()
    head_addr = u(page["private"])
    head = at(head_addr, b.page_type)
    c = head["slab_cache"].dereference()
    name = c["name"].string()
    num, size, off = int(c["num"]), int(c["size"]), int(c["obj_offset"])
    s_mem = u(head["s_mem"])
    active = int(head["active"])
    node = (u(head["flags"]) >> SLAB_NODE_SHIFT) & SLAB_NODE_MASK
    lst = "full" if active == num else "free" if active == 0 else "partial"
    lines = ["slab page of cache %s: slab head struct page %#x (PFN %#x), %d of %d objects "
             "handed out, home node %d (%s list)"
             % (name, head_addr, b.page_addr_to_pfn(head_addr), active, num, node, lst)]
    isz = lookup_type("freelist_idx_t").sizeof
    fl = u(head["freelist"])
    stack = [read_uint(fl + i * isz, isz) for i in range(active, num)] if active < num else []
    first = s_mem - off
    rel = addr - first
    if rel < 0 or rel // size >= num:
        where = "before object 0" if rel < 0 else "after the last object"
        lines.insert(0, "%#x: not an object: %s of slab %#x (freelist or slack)" % (addr, where, s_mem))
    else:
        idx = rel // size
        obj = s_mem + idx * size
        inside = addr - obj
        pos = "" if inside == 0 else " (+%d into it)" % inside if inside > 0 else " (in its front red zone)"
        if idx in stack:
            state = "free (on the slab's freelist stack, %d from the top)" % stack.index(idx)
        else:
            w = where_free(c, obj)
            state = "free (%s)" % w if w else "in use"
        lines.insert(0, "%#x: object %d of cache %s at %#x%s: %s" % (addr, idx, name, obj, pos, state))
    shown = " ".join(str(i) for i in stack[:32]) + (" ..." if len(stack) > 32 else "")
    lines.append("slab freelist stack (free indexes, top first: next handed out first): "
                 + (shown if stack else "empty (all handed out)"))
    return lines
