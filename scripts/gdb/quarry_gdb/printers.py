# printers.py - pretty printers: a one-line decoded summary of struct page,
# struct kmem_cache (whichever allocator's), struct array_cache (SLAB),
# struct kmem_cache_cpu (SLUB) and struct slob_hdr (SLOB), followed by the
# raw fields as children, so nothing is hidden (print/r skips the printers).
# Memory only; a summary that cannot be read says so instead of failing.

import gdb
import gdb.printing

from .mem import QuarryError, build, u, flag_names, PG_slab, PG_buddy, PG_head, PG_pcp
from . import slab, slub, slob


def flatten(val):
    """(name, value) of every field, the members of anonymous unions and
    structs lifted to the top (as C code names them)."""
    for f in val.type.strip_typedefs().fields():
        if not f.name:
            yield from flatten(val[f])
        else:
            yield f.name, val[f.name]


class Printer:
    def __init__(self, val):
        self.val = val

    def children(self):
        return flatten(self.val)

    def to_string(self):
        try:
            return self.summary()
        except (QuarryError, gdb.error, gdb.MemoryError) as e:
            return "<%s: %s>" % (self.val.type, e)


class PagePrinter(Printer):
    def summary(self):
        b = build()
        v = self.val
        flags = u(v["flags"])
        pfn = b.page_addr_to_pfn(u(v.address))
        s = "struct page PFN %#x [%s]" % (pfn, flag_names(flags & 0xff))
        if flags & PG_slab:
            if b.allocator == "slab":
                s += " slab of %s, %d/%d in use, node %d" % (
                    v["slab_cache"]["name"].string(), int(v["active"]),
                    int(v["slab_cache"]["num"]), (flags >> slab.SLAB_NODE_SHIFT) & 0xff)
            elif b.allocator == "slub":
                cnt = u(v["counters"])
                s += " slab of %s, inuse %d/%d%s" % (
                    v["slab_cache"]["name"].string(), slub.inuse(cnt), slub.objects(cnt),
                    " frozen" if cnt & slub.SLUB_FROZEN else "")
            elif u(v["slab_cache"]):
                s += " big object of %s" % v["slab_cache"]["name"].string()
            else:
                s += " heap page, %d bytes free" % (int(v["active"]) * slob.SLOB_UNIT)
        elif flags & PG_buddy:
            s += " free block, order %d" % int(v["order"])
        elif flags & PG_pcp:
            s += " free, on a CPU's page list"
        elif flags & PG_head:
            s += " allocated block, order %d" % int(v["order"])
        return s


class CachePrinter(Printer):
    def summary(self):
        b = build()
        v = self.val
        s = "kmem_cache '%s' (%s): object_size %d" % (v["name"].string(), b.allocator,
                                                       int(v["object_size"]))
        if b.allocator in ("slab", "slub"):
            s += ", size %d, %d per slab of order %d" % (int(v["size"]), int(v["num"]),
                                                         int(v["order"]))
        else:
            s += ", %d units, %d in use%s" % (int(v["units"]), u(v["inuse"]),
                                              ", big order %d" % int(v["order"]) if v["big"] else "")
        return s


class ArrayCachePrinter(Printer):
    def summary(self):
        v = self.val
        objs = slab.array_entries(v)
        return "array_cache avail %d/%d batch %d%s%s" % (
            len(objs), u(v["limit"]), int(v["batchcount"]),
            " (top first) " if objs else "", slab.fmt_objs(objs))

    def children(self):
        for name in ("avail", "limit", "batchcount", "touched"):
            yield name, self.val[name]


class CpuPairPrinter(Printer):
    def summary(self):
        fl = u(self.val["freelist"])
        if fl == slub.SLUB_NO_SLAB:
            what = "no CPU slab"
        elif fl & slub.SLUB_END_TAG:
            what = "CPU slab %#x used up" % (fl & ~1)
        else:
            what = "next free object %#x" % fl
        return "kmem_cache_cpu tid %d: %s" % (u(self.val["tid"]), what)


class SlobHdrPrinter(Printer):
    def summary(self):
        v = self.val
        units, info = int(v["units"]), int(v["info"])
        tag_ok = int(v["tag"]) == slob.slob_tag(u(v.address))
        if info & slob.SLOB_FREE:
            what = "free"
        elif info == slob.SLOB_DEAD:
            what = "dead"
        elif info == slob.SLOB_PAGE_HDR:
            what = "page header"
        else:
            c = slob.cache_of(info)
            what = "in use by %s" % (c["name"].string() if c is not None else "id %d?" % info)
        return "slob block %d bytes, %s%s" % (units * slob.SLOB_UNIT, what,
                                              "" if tag_ok else ", BAD TAG")


def build_printers():
    pp = gdb.printing.RegexpCollectionPrettyPrinter("quarry")
    pp.add_printer("page", "^page$", PagePrinter)
    pp.add_printer("kmem_cache", "^kmem_cache$", CachePrinter)
    pp.add_printer("array_cache", "^array_cache$", ArrayCachePrinter)
    pp.add_printer("kmem_cache_cpu", "^kmem_cache_cpu$", CpuPairPrinter)
    pp.add_printer("slob_hdr", "^slob_hdr$", SlobHdrPrinter)
    return pp


def register():
    gdb.printing.register_pretty_printer(gdb.current_objfile(), build_printers(), replace=True)
