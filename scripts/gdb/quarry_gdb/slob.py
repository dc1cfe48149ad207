# slob.py - SLOB (ALLOC=slob, sequential fit) and SLOB-seg (ALLOC=slob-seg,
# segregated lists) read from memory: mm/slob/slob_def.h's heap of blocks.
#
# Every block starts with an 8-byte header (units, prev, info, tag); a heap
# page (PG_slab, slab_cache NULL) is tiled by blocks from its first byte, so
# the block holding an address is found by walking the page's headers. An
# allocated block's info is its cache's id (slob_cache_of[id]); a free one's
# has SLOB_FREE. Big objects are whole buddy blocks whose head page has
# PG_slab and slab_cache. Nothing is per CPU. slabinfo counts as
# mm/slob/slob_info.c does.

from .mem import QuarryError, cache_flag_names, build, at, u, read_u64, lookup_type, symbol_value, list_entries

SLOB_UNIT = 8				# mm/slob/slob_def.h
SLOB_FREE = 0x8000
SLOB_POISONED = 0x4000
SLOB_LINK_MASK = 0x3fff
SLOB_DEAD = 0x7fff
SLOB_PAGE_HDR = 0x7ffe
SLOB_CLASS_MASK = 0x7f			# mm/slob/slob_seg.h
MASK64 = (1 << 64) - 1


def is_seg():
    return build().allocator == "slob-seg"


def slob_tag(h):
    return ((h * 0x9e3779b97f4a7c15) & MASK64) >> 48


def header(h):
    """(units, prev, info, tag) of the block header at h."""
    v = read_u64(h)
    return v & 0xffff, (v >> 16) & 0xffff, (v >> 32) & 0xffff, (v >> 48) & 0xffff


def stride(c):
    units, align = int(c["units"]), int(c["align"])
    return (units * SLOB_UNIT + align - 1) // align * align


def big_pages():
    return u(symbol_value("big_pages"))


def slabinfo_row(c):
    b = build()
    n = u(c["inuse"])
    big = bool(c["big"])
    per = 1 if big else b.page_size // stride(c)
    slabs = n if big else (n + per - 1) // per
    row = (n, n, int(c["object_size"]), per, (1 << int(c["order"])) if big else 1,
           0, 0, 0, slabs, slabs, 0)
    return row, 0		# pages are the heap's, shared: see total_pages


def total_pages():
    return u(symbol_value("slob_heap")["nr_pages"]) + big_pages()


def percpu_objects(c, cpus):
    return None			# SLOB keeps nothing per CPU


def cache_of(cid):
    p = u(symbol_value("slob_cache_of")[cid])
    return at(p, lookup_type("struct kmem_cache")) if p else None


def heap_lines():
    b = build()
    heap = symbol_value("slob_heap")
    spare = u(heap["spare"])
    lines = ["heap: %d pages (%d kB), spare page %s, big objects %d pages, heap lock %s"
             % (u(heap["nr_pages"]), u(heap["nr_pages"]) * b.page_size // 1024,
                "%#x" % spare if spare else "none", big_pages(),
                "held" if int(heap["locked"]) else "free")]
    page_t = lookup_type("struct page")
    if is_seg():
        nonempty = []
        for cl in range(heap["cls"].type.range()[1] + 1):
            n = sum(1 for _ in list_entries(heap["cls"][cl], lookup_type("struct list_head"),
                                            "next", limit=1 << 16))
            if n:
                nonempty.append("%d:%d" % (cl, n))
        lines.append("  free blocks by class (class:blocks): " + (" ".join(nonempty) or "none"))
    else:
        for i, nm in enumerate(("small", "medium", "large")):
            pages = list(list_entries(heap["list"][i], page_t, "lru", limit=1 << 16))
            units = sum(int(p["active"]) for p in pages)
            lines.append("  %s list: %d pages, %d free bytes" % (nm, len(pages), units * SLOB_UNIT))
    return lines


def cache_lines(c):
    lines = ["cache %s at %#x (%s)%s" % (c["name"].string(), u(c.address), build().allocator,
                                         " dead" if c["dead"] else "")]
    lines.append("  object_size %d, block %d units (%d bytes with its header), align %d, "
                 "flags %#x %s, id %d" % (int(c["object_size"]), int(c["units"]),
                                          int(c["units"]) * SLOB_UNIT, int(c["align"]),
                                          int(c["flags"]), cache_flag_names(int(c["flags"])),
                                          int(c["id"])))
    if c["big"]:
        lines.append("  big: each object is 2^%d pages from the buddy allocator" % int(c["order"]))
    lines.append("  objects in use: %d; %s%s" % (u(c["inuse"]),
                 "slow path (ctor, debug or big)" if c["slow"] else "fast path",
                 ", debug checks" if c["debug"] else ""))
    lines.append("  nothing per CPU: every object is a block of the one heap")
    return lines + heap_lines()


def find_block(page_base, addr, page_size):
    """(header address, units, info, tag) of the block holding addr, walking the
    page's headers from its first; raises QuarryError on a broken tiling."""
    h = page_base
    end = page_base + page_size
    while h < end:
        units, _, info, tag = header(h)
        if units == 0:
            raise QuarryError("heap page %#x: block header at %#x has 0 units (corrupt)"
                              % (page_base, h))
        if h <= addr < h + units * SLOB_UNIT:
            return h, units, info, tag
        h += units * SLOB_UNIT
    raise QuarryError("heap page %#x: its blocks run past the page's end" % page_base)


def page_lines(addr, pfn, page):
    b = build()
    if u(page["slab_cache"]):
        c = page["slab_cache"].dereference()
        return ["%#x: big object of cache %s (2^%d pages at %#x): in use"
                % (addr, c["name"].string(), int(c["order"]), b.page_address(page))]
    base = b.page_address(page)
    h, units, info, tag = find_block(base, addr, b.page_size)
    lines = []
    bad_tag = "" if tag == slob_tag(h) else " (its tag is wrong: corrupt or stale header)"
    where = "in its header" if addr < h + SLOB_UNIT else "+%d into the object" % (addr - h - SLOB_UNIT)
    if info & SLOB_FREE:
        extra = " (poisoned)" if info & SLOB_POISONED else ""
        lines.append("%#x: in a free block of %d bytes at %#x%s%s: free"
                     % (addr, units * SLOB_UNIT, h, extra, bad_tag))
    elif info == SLOB_DEAD:
        lines.append("%#x: in a dead header's block at %#x (swallowed by a merge)" % (addr, h))
    elif info == SLOB_PAGE_HDR:
        lines.append("%#x: in the page header block of heap page %#x (allocated blocks: %d)"
                     % (addr, base, read_u64(h + 8) & 0xffffffff))
    else:
        c = cache_of(info)
        name = c["name"].string() if c is not None else "<no cache with id %d>" % info
        obj = h + SLOB_UNIT
        lines.append("%#x: object of cache %s at %#x (%s), block of %d bytes: in use%s"
                     % (addr, name, obj, where if addr != obj else "its start",
                        units * SLOB_UNIT, bad_tag))
    if is_seg():
        lines.append("heap page %#x: %d allocated blocks" % (base, read_u64(base + 8) & 0xffffffff))
    else:
        lists = {0: "on no list (full)", 1: "on the small list", 2: "on the medium list",
                 3: "on the large list"}
        fl = u(page["freelist"])
        lines.append("heap page %#x: %d free bytes, first free block %s, %s"
                     % (base, int(page["active"]) * SLOB_UNIT, "%#x" % fl if fl else "none",
                        lists.get(u(page["private"]), "private %d?" % u(page["private"]))))
    return lines
