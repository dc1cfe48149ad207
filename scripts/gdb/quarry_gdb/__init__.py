# quarry_gdb - gdb helpers for a stopped Quarry kernel (memory reads only).
#   mem.py       the build, raw reads, lists, pages, CPUs, per-CPU variables
#   buddy.py     the page allocator: quarry-buddyinfo, free and allocated blocks
#   slab.py, slub.py, slob.py   each object allocator's structures
#   caches.py    what they share: slabinfo, cache lookup, quarry-page's dispatch
#   commands.py  the quarry-* commands;  printers.py  the pretty printers

from . import commands, printers

_registered = False


def register():
    """Add the commands and pretty printers (once per gdb session)."""
    global _registered
    if not _registered:
        commands.register()
        printers.register()
        _registered = True
