# commands.py - the quarry-* gdb commands. Each reads memory only (never
# calls a kernel function), prints to gdb, and on bad input or unreadable
# memory prints one line "quarry-NAME: what went wrong" and changes nothing.

import gdb

from . import caches, buddy
from .mem import QuarryError, build, symbol_value, u, read_bytes, parse_address

HELP = """Quarry's gdb helpers (scripts/gdb/): they read the stopped kernel's memory and
never call kernel code, so they are safe wherever it stopped, locks held or not.

  quarry-slabinfo          slabinfo 2.1 rows as the kernel prints them, plus the
                           objects in each online CPU's array (SLAB) or freelist
                           (SLUB) (': percpu'), and the 'Slab:' line
  quarry-cache NAME        one cache in detail: geometry, nodes and their slab
                           lists, shared arrays, each CPU's array or freelist
                           (SLOB: the heap's lists)
  quarry-page ADDR         the struct page of any address, decoded: reserved,
                           a free or allocated buddy block, or a slab: which
                           cache, which object, free or in use, the freelist
  quarry-buddyinfo [walk]  free blocks per order, each CPU's page list, totals
                           ('walk' follows every list and checks the counts)
  quarry-dmesg [N]         the kernel log ring (printk_log, last 16 KiB);
                           N: only the last N lines
  quarry-percpu VAR [CPU|all]  a per-CPU variable (DEFINE_PER_CPU name) of the
                           current CPU (found from gs_base on x86_64, TPIDR_EL1
                           on arm64), of CPU, or of every online CPU
  quarry-help              this text

ADDR is any gdb expression: 0xffff800001234000, objp, $, $rax.
Pretty printers show struct page, struct kmem_cache, struct array_cache,
struct kmem_cache_cpu (SLUB) and struct slob_hdr (SLOB) decoded; print/r
shows the raw fields. Try: break gdbtest_stop, with the kernel command line
'gdbtest' (see Documentation/debugging.md, "Stepping through the allocator")."""


class QuarryCommand(gdb.Command):
    """Base: run self.run(arg), turning QuarryError and gdb errors into one line."""

    def __init__(self, name):
        super().__init__(name, gdb.COMMAND_DATA)
        self.cmd = name

    def invoke(self, arg, from_tty):
        try:
            for line in self.run(arg.strip()):
                gdb.write(line + "\n")
        except QuarryError as e:
            gdb.write("%s: %s\n" % (self.cmd, e))
        except gdb.MemoryError as e:
            gdb.write("%s: cannot read memory: %s\n" % (self.cmd, e))
        except gdb.error as e:
            gdb.write("%s: %s\n" % (self.cmd, e))


def no_args(cmd, arg):
    if arg:
        raise QuarryError("takes no arguments (got '%s')" % arg)


class Slabinfo(QuarryCommand):
    """quarry-slabinfo: slabinfo 2.1 from memory, with per-CPU object counts."""

    def __init__(self):
        super().__init__("quarry-slabinfo")

    def run(self, arg):
        no_args(self.cmd, arg)
        return caches.slabinfo_lines()


class Cache(QuarryCommand):
    """quarry-cache NAME: one cache in detail."""

    def __init__(self):
        super().__init__("quarry-cache")

    def run(self, arg):
        if not arg:
            raise QuarryError("usage: quarry-cache NAME (quarry-slabinfo lists the names)")
        return caches.cache_lines(arg)


class Page(QuarryCommand):
    """quarry-page ADDR: the struct page of an address, decoded."""

    def __init__(self):
        super().__init__("quarry-page")

    def run(self, arg):
        return caches.page_lines(parse_address(arg, "quarry-page ADDR"))


class Buddyinfo(QuarryCommand):
    """quarry-buddyinfo [walk]: the page allocator's free blocks and CPU lists."""

    def __init__(self):
        super().__init__("quarry-buddyinfo")

    def run(self, arg):
        if arg not in ("", "walk"):
            raise QuarryError("usage: quarry-buddyinfo [walk] (got '%s')" % arg)
        return buddy.buddyinfo_lines(walk=arg == "walk")


def dmesg_text():
    """The bytes of printk_log still in the ring, oldest first (kernel/printk.h)."""
    log = symbol_value("printk_log")
    size = log["buf"].type.range()[1] + 1
    head = u(log["head"])
    base = u(log["buf"].address)
    if head <= size:
        data = read_bytes(base, head)
        lost = 0
    else:
        start = head % size
        data = read_bytes(base + start, size - start) + read_bytes(base, start)
        lost = head - size
    text = data.decode("utf-8", errors="replace")
    if lost:
        text = text.split("\n", 1)[1] if "\n" in text else text	# a cut first line
    return text, lost, size


class Dmesg(QuarryCommand):
    """quarry-dmesg [N]: the kernel log ring (the last N lines)."""

    def __init__(self):
        super().__init__("quarry-dmesg")

    def run(self, arg):
        n = None
        if arg:
            if not arg.isdigit() or int(arg) == 0:
                raise QuarryError("usage: quarry-dmesg [N] with N a positive number of lines (got '%s')" % arg)
            n = int(arg)
        text, lost, size = dmesg_text()
        lines = text.replace("\r", "").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        out = []
        if lost and n is None:
            out.append("[quarry-dmesg: %d earlier bytes were overwritten; the ring keeps %d]"
                       % (lost, size))
        return out + (lines[-n:] if n else lines)


class Percpu(QuarryCommand):
    """quarry-percpu VAR [CPU|all]: a per-CPU variable."""

    def __init__(self):
        super().__init__("quarry-percpu")

    def run(self, arg):
        parts = arg.split()
        if not parts or len(parts) > 2:
            raise QuarryError("usage: quarry-percpu VAR [CPU|all] (VAR as in DEFINE_PER_CPU)")
        b = build()
        var = parts[0]
        b.per_cpu_symbol(var)		# a clear message for an unknown name
        if len(parts) == 1:
            cpu, how = b.current_cpu()
            cpus = [cpu]
            out = ["current CPU %d (from %s)" % (cpu, how)]
        elif parts[1] == "all":
            cpus = b.online_cpus()
            out = []
        else:
            if not parts[1].isdigit():
                raise QuarryError("CPU must be a number or 'all', not '%s'" % parts[1])
            cpus = [int(parts[1])]
            out = []
        for cpu in cpus:
            addr = b.per_cpu_addr(var, cpu)
            out.append("CPU %d: %s at %#x = %s" % (cpu, var, addr, b.per_cpu(var, cpu)))
        return out


class Help(QuarryCommand):
    """quarry-help: the Quarry gdb helpers."""

    def __init__(self):
        super().__init__("quarry-help")

    def run(self, arg):
        return HELP.split("\n")


def register():
    for cls in (Slabinfo, Cache, Page, Buddyinfo, Dmesg, Percpu, Help):
        cls()
