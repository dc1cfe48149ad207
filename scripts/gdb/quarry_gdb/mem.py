# mem.py - reading a stopped Quarry kernel's memory: the build (mm_debug_info),
# raw words, struct fields, lists, pages, CPUs and per-CPU variables.
#
# Everything here only reads target memory through gdb; nothing calls a kernel
# function, so the helpers are safe wherever the kernel stopped (inside the
# allocator, with a node lock or the console lock held). A read that fails
# (an address nothing maps) raises QuarryError naming the address.
#
# Constants that only exist as C macros (page flags, SLUB's tag bit, ...) are
# written here beside the header that defines them; the GDB test
# (tests/gdb/helpers.sh) decodes live objects with them, so a change on the
# C side that is not made here fails it.

import gdb

MASK64 = (1 << 64) - 1

# mm/page.h: page flag bits.
PG_reserved = 1 << 0
PG_buddy = 1 << 1
PG_head = 1 << 2
PG_slab = 1 << 3
PG_large = 1 << 4
PG_pcp = 1 << 5
# mm/slab.h: kmem_cache_create flags.
SLAB_FLAG_NAMES = [(0x1, "hwcache_align"), (0x2, "red_zone"), (0x4, "poison"), (0x8, "no_debug")]
SLAB_DEBUG = 0x2 | 0x4

PG_NAMES = [(PG_reserved, "reserved"), (PG_buddy, "buddy"), (PG_head, "head"),
            (PG_slab, "slab"), (PG_large, "large"), (PG_pcp, "pcp")]


class QuarryError(Exception):
    """A helper could not do what it was asked: the message says why."""


def flag_names(flags):
    """'slab|head' for a page's flags (low byte only; SLAB's node is above)."""
    names = [n for bit, n in PG_NAMES if flags & bit]
    return "|".join(names) if names else "none"


def cache_flag_names(flags):
    """'red_zone|poison (debug)' for a cache's SLAB_* flags."""
    names = [n for bit, n in SLAB_FLAG_NAMES if flags & bit]
    s = "|".join(names) if names else "none"
    return s + (" (debug: checked under the node lock, nothing cached per CPU)"
                if flags & SLAB_DEBUG else "")


def inferior():
    inf = gdb.selected_inferior()
    if inf is None or inf.pid == 0:
        raise QuarryError("no kernel attached (target remote first: make gdb does it)")
    return inf


def read_bytes(addr, n):
    try:
        return bytes(inferior().read_memory(addr, n))
    except gdb.MemoryError:
        raise QuarryError("cannot read %d bytes at %#x (not mapped)" % (n, addr))


def read_uint(addr, size):
    """An unsigned little-endian integer of size bytes at addr (both arches are LE)."""
    return int.from_bytes(read_bytes(addr, size), "little")


def read_u64(addr):
    return read_uint(addr, 8)


def u(v):
    """A gdb.Value (integer or pointer) as a Python unsigned integer."""
    return int(v) & MASK64


def lookup_type(name):
    try:
        return gdb.lookup_type(name)
    except gdb.error:
        raise QuarryError("the kernel's symbols have no type '%s' (wrong ELF?)" % name)


def offsetof(type_, field):
    for f in type_.strip_typedefs().fields():
        if f.name == field:
            return f.bitpos // 8
    raise QuarryError("%s has no field '%s'" % (type_, field))


def has_field(type_, field):
    return any(f.name == field for f in type_.strip_typedefs().fields())


def symbol_value(name):
    """A global or file-static variable's gdb.Value."""
    sym = gdb.lookup_global_symbol(name)
    if sym is None:
        sym = gdb.lookup_static_symbol(name)
    if sym is None:
        raise QuarryError("the kernel has no variable '%s'" % name)
    return sym.value()


def symbol_addr(name):
    return u(symbol_value(name).address)


def at(addr, type_):
    """The object of type_ at addr, as a gdb.Value (read lazily)."""
    return gdb.Value(addr).cast(type_.pointer()).dereference()


def cstring(v):
    """A char array field as a Python string."""
    try:
        return v.string(errors="replace")
    except gdb.MemoryError:
        raise QuarryError("cannot read the string at %#x" % u(v.address))


def list_entries(head, type_, member, limit=1 << 20):
    """The entries of type_ on the list_head head (a gdb.Value), linked by member."""
    off = offsetof(type_, member)
    head_addr = u(head.address)
    node = read_u64(head_addr)
    n = 0
    while node != head_addr:
        if node == 0:
            raise QuarryError("the list at %#x has a NULL link after %d entries" % (head_addr, n))
        n += 1
        if n > limit:
            raise QuarryError("the list at %#x does not end after %d entries (a loop?)"
                              % (head_addr, limit))
        yield at(node - off, type_)
        node = read_u64(node)


class Build:
    """The build of the kernel: mm_debug_info plus what the types say."""

    def __init__(self):
        info = symbol_value("mm_debug_info")
        self.version = int(info["version"])
        self.page_shift = int(info["page_shift"])
        self.page_size = 1 << self.page_shift
        self.phys_offset = u(info["phys_offset"])
        self.direct_map = u(info["direct_map"])
        self.kernel_vma = u(info["kernel_vma"])
        self.allocator = cstring(info["allocator"])
        self.pfn_offset = self.phys_offset >> self.page_shift
        self.page_type = lookup_type("struct page")
        self.page_sizeof = self.page_type.sizeof
        pco = symbol_value("__per_cpu_offset")
        self.nr_cpus = pco.type.range()[1] + 1
        arch = gdb.selected_inferior().architecture().name() if gdb.selected_inferior() else ""
        self.arch = "arm64" if "aarch64" in arch else "x86_64"

    # Memory layout (asm/memlayout.h).
    def virt_to_phys(self, addr):
        if self.kernel_vma and addr >= self.kernel_vma:
            return addr - self.kernel_vma
        if addr >= self.direct_map:
            return addr - self.direct_map
        raise QuarryError("%#x is below the direct map (%#x): no RAM there" % (addr, self.direct_map))

    def phys_to_virt(self, phys):
        return phys + self.direct_map

    # mem_map (mm/page.h).
    def max_pfn(self):
        return u(symbol_value("max_pfn"))

    def pfn_valid(self, pfn):
        return self.pfn_offset <= pfn < self.max_pfn()

    def pfn_to_page_addr(self, pfn):
        return u(symbol_value("mem_map_pfn0")) + pfn * self.page_sizeof

    def page_addr_to_pfn(self, page_addr):
        return (page_addr - u(symbol_value("mem_map_pfn0"))) // self.page_sizeof

    def page(self, pfn):
        return at(self.pfn_to_page_addr(pfn), self.page_type)

    def page_address(self, page):
        """The direct-map address of the memory a struct page (gdb.Value) describes."""
        return self.phys_to_virt(self.page_addr_to_pfn(u(page.address)) << self.page_shift)

    def addr_to_pfn(self, addr):
        """The PFN of a kernel address (direct map or kernel image), checked against mem_map."""
        pfn = self.virt_to_phys(addr) >> self.page_shift
        if not self.pfn_valid(pfn):
            raise QuarryError("%#x (PFN %#x) is outside mem_map (PFNs %#x..%#x)"
                              % (addr, pfn, self.pfn_offset, self.max_pfn() - 1))
        return pfn

    # CPUs.
    def online_cpus(self):
        """The online CPUs (kernel/smp.c's online_mask)."""
        try:
            mask = u(symbol_value("online_mask"))
        except QuarryError:
            mask = 1
        return [c for c in range(self.nr_cpus) if mask >> c & 1]

    def per_cpu_offset(self, cpu):
        if not 0 <= cpu < self.nr_cpus:
            raise QuarryError("CPU %d is out of range (0..%d)" % (cpu, self.nr_cpus - 1))
        return u(symbol_value("__per_cpu_offset")[cpu])

    def per_cpu_addr(self, name, cpu):
        """The address of CPU cpu's copy of the per-CPU variable name (DEFINE_PER_CPU)."""
        return (self.per_cpu_symbol(name)[1] + self.per_cpu_offset(cpu)) & MASK64

    def per_cpu_symbol(self, name):
        mangled = name if name.startswith("per_cpu__") else "per_cpu__" + name
        sym = gdb.lookup_global_symbol(mangled) or gdb.lookup_static_symbol(mangled)
        if sym is None:
            raise QuarryError("no per-CPU variable '%s' (no symbol %s)" % (name, mangled))
        return sym, u(sym.value().address)

    def per_cpu(self, name, cpu):
        sym, _ = self.per_cpu_symbol(name)
        return at(self.per_cpu_addr(name, cpu), sym.type)

    def current_cpu(self):
        """(cpu, how) for the CPU gdb's selected thread is: from the per-CPU base
        register when the kernel has set it (x86_64: gs_base holds the CPU's
        offset; arm64: TPIDR_EL1 the CPU's area), else from QEMU's thread id
        (thread N is CPU N-1)."""
        offsets = [self.per_cpu_offset(c) for c in range(self.nr_cpus)]
        try:
            frame = gdb.selected_frame()
            if self.arch == "x86_64":
                reg = u(frame.read_register("gs_base"))
                if reg in offsets:
                    return offsets.index(reg), "gs_base %#x" % reg
            else:
                reg = u(frame.read_register("TPIDR_EL1"))
                start = symbol_addr("__percpu_start")
                areas = [(o + start) & MASK64 for o in offsets]
                if reg in areas:
                    return areas.index(reg), "TPIDR_EL1 %#x" % reg
        except (gdb.error, ValueError, QuarryError):
            pass
        th = gdb.selected_thread()
        if th is None:
            raise QuarryError("no thread selected")
        cpu = th.ptid[1] - 1 if th.ptid[1] > 0 else th.num - 1
        return cpu, "gdb thread %d (the per-CPU base register is not set yet)" % th.num


_build = None


def build():
    """The Build of the kernel ELF loaded now (re-read when the file changes)."""
    global _build
    key = gdb.current_progspace().filename
    if _build is None or _build.key != key:
        try:
            b = Build()
        except gdb.error as e:
            raise QuarryError("cannot read the kernel's build info: %s" % e)
        b.key = key
        _build = b
    return _build


def parse_address(arg, what):
    """An expression (number, symbol, $var) evaluated by gdb, as an address."""
    if not arg.strip():
        raise QuarryError("%s needs an address or expression" % what)
    try:
        v = gdb.parse_and_eval(arg)
    except gdb.error as e:
        raise QuarryError("%s: cannot evaluate '%s': %s" % (what, arg, e))
    if v.type.strip_typedefs().code == gdb.TYPE_CODE_ARRAY:
        v = v.address
    return u(v)
