#!/usr/bin/env bash
# helpers.sh NAME ELF - the gdb helpers (scripts/gdb/) against a live kernel
# of either arch and any allocator: boot ELF with the command line "gdbtest"
# on 2 CPUs (lab/gdbtest.c: a cache warmed with 8 objects, slabinfo
# printed, one object allocated and freed, gdbtest_stop() after each step)
# paused under QEMU, and drive gdb-multiarch in batch mode:
#   at "slabinfo printed": quarry-slabinfo must give the rows the kernel just
#     printed on the serial console, field for field, and the same Slab:
#     line; the warm cache's row shows the objects on CPU 0 (SLAB's array,
#     SLUB's freelist); quarry-dmesg has the kernel's last line;
#     quarry-percpu reads CPU 1's cpu_number, by number and from thread 2
#     (the per-CPU base register); quarry-cache describes the cache;
#   inside kmem_cache_alloc on the warm cache: bt ends at the entry
#     (long_mode_high or _start) with no frame gdb could not name; the
#     pretty printer decodes *cachep;
#   after the allocation returns, and at "allocated": quarry-page on the
#     object names its cache and says "in use"; at "freed": "free";
#   quarry-page on gdbtest's large kmalloc (4 pages from the buddy
#     allocator) and inside it: the block, its order, in use;
#   bad input (an address outside mem_map, an unknown cache, variable or
#     CPU) gets one line naming it, and no command raises a Python error.
# QEMU is bounded by run.sh's time limit, gdb by timeout(1). Prints one
# PASS/FAIL line per check; logs in build/test/NAME.log, NAME-serial.log.
set -u
name=$1 elf=$2
here=$(dirname "$0")
root=$(cd "$here/../.." && pwd)
mkdir -p build/test
log=build/test/$name.log
serial=build/test/$name-serial.log

if ! info=$("$here/../qemu/elfinfo.sh" "$elf"); then
	echo "FAIL $name: $elf is not an x86_64 or arm64 kernel ELF"
	exit 0
fi
case ${info% *} in
x86_64) gdb_arch=i386:x86-64 entry=long_mode_high base=gs_base ;;
arm64)  gdb_arch=aarch64 entry=_start base=TPIDR_EL1 ;;
esac

port=$((20000 + RANDOM % 20000))
pidfile=build/test/$name-qemu.pid
rm -f "$pidfile"
CMDLINE=gdbtest "$here/../qemu/run.sh" "$elf" 120 -m 256M -smp 2 -gdb tcp:127.0.0.1:$port -S \
	-pidfile "$pidfile" > "$serial" 2>&1 < /dev/null &
run=$!
for _ in $(seq 1 50); do
	grep -q ":$(printf '%04X' $port) " /proc/net/tcp 2>/dev/null && break
	kill -0 $run 2>/dev/null || break
	sleep 0.2
done
timeout -k 5 120 gdb-multiarch -nx -batch \
	-ex "set architecture $gdb_arch" -ex 'set pagination off' -ex 'set confirm off' \
	-ex "file $elf" -ex "source $root/scripts/gdb/quarry.py" \
	-ex "target remote 127.0.0.1:$port" \
	-ex 'hbreak kmain' -ex 'continue' -ex 'delete' \
	-ex "source $root/tests/gdb/stops.py" \
	-ex 'break gdbtest_stop' -ex 'test-continue-to gdbtest_stop slabinfo printed' \
	-ex 'echo ==slabinfo==\n' -ex 'quarry-slabinfo' -ex 'echo ==end==\n' \
	-ex 'echo ==dmesg==\n' -ex 'quarry-dmesg' -ex 'echo ==end==\n' \
	-ex 'quarry-percpu cpu_number 1' -ex 'thread 2' -ex 'quarry-percpu cpu_number' -ex 'thread 1' \
	-ex 'quarry-cache gdbtest-96' \
	-ex 'break kmem_cache_alloc if $_caller_is("gdbtest_run")' -ex 'test-continue-to kmem_cache_alloc' \
	-ex 'echo ==bt==\n' -ex 'bt 32' -ex 'echo ==end==\n' \
	-ex 'print *cachep' \
	-ex 'finish' -ex 'echo ==returned==\n' -ex 'quarry-page $' -ex 'echo ==end==\n' \
	-ex 'delete $bpnum' -ex 'test-continue-to gdbtest_stop allocated' -ex 'echo ==allocated==\n' -ex 'quarry-page obj' -ex 'echo ==end==\n' \
	-ex 'test-continue-to gdbtest_stop freed' -ex 'echo ==freed==\n' -ex 'quarry-page obj' -ex 'echo ==end==\n' \
	-ex 'print *mem_map' -ex 'quarry-buddyinfo' \
	-ex 'echo ==large==\n' -ex 'quarry-page gdbtest_large' \
	-ex 'quarry-page (char *)gdbtest_large + 2 * (1 << mm_debug_info.page_shift) + 100' \
	-ex 'echo ==end==\n' \
	-ex 'quarry-page 0x10' -ex 'quarry-cache no-such-cache' -ex 'quarry-percpu no_such_var' \
	-ex 'quarry-percpu cpu_number 99' \
	-ex 'kill' > "$log" 2>&1
for _ in $(seq 1 25); do
	kill -0 $run 2>/dev/null || break
	sleep 0.2
done
if kill -0 $run 2>/dev/null && [ -s "$pidfile" ]; then
	kill "$(cat "$pidfile")" 2>/dev/null
fi
wait $run 2>/dev/null
rm -f "$pidfile"

section() {	# section NAME: the gdb log's lines between ==NAME== and the next ==end==
	tr -d '\r' < "$log" | sed -n "/^==$1==\$/,/^==end==\$/p" | sed '1d;$d'
}
t() {	# t TEST PATTERN [TEXT]: PASS when TEXT (default: the gdb log) has a line matching PATTERN
	local text
	if [ $# -ge 3 ]; then text=$3; else text=$(tr -d '\r' < "$log"); fi
	if grep -qE -- "$2" <<< "$text"; then
		echo "PASS $name: $1"
	else
		echo "FAIL $name: $1: no line matching '$2' (see $log)"
	fi
}

# slabinfo: the kernel's table printed by gdbtest (after its "allocated and
# freed" line) against quarry-slabinfo's rows without the ': percpu' column.
kernel_rows=$(tr -d '\r' < "$serial" | sed -n '/^gdbtest: 8 objects of gdbtest-96 allocated and freed$/,/^Slab:/p' |
	grep -E ' : tunables |^Slab:')
gdb_rows=$(section slabinfo | grep -E ' : tunables |^Slab:' | sed 's/ : percpu .*//')
if [ -n "$kernel_rows" ] && grep -q '^gdbtest-96 ' <<< "$kernel_rows" && [ "$kernel_rows" = "$gdb_rows" ]; then
	echo "PASS $name: quarry-slabinfo agrees with the kernel's slabinfo ($(grep -c tunables <<< "$kernel_rows") caches and Slab:)"
else
	echo "FAIL $name: quarry-slabinfo differs from the kernel's slabinfo (see $log, $serial):"
	diff <(echo "$kernel_rows") <(echo "$gdb_rows") | head -10
fi
if grep -q '^  object_size .* (debug: ' "$log"; then	# SLAB_DEBUG=1: no per-CPU caching
	t "quarry-slabinfo shows a debug cache has nothing on CPU 0" \
		'^gdbtest-96 .* : percpu - ' "$(section slabinfo)"
else case $(section slabinfo | head -1) in
*", slab)" | *", slub)")
	t "quarry-slabinfo shows the warm cache's objects on CPU 0" \
		'^gdbtest-96 .* : percpu [1-9][0-9]* ' "$(section slabinfo)" ;;
*)	t "quarry-slabinfo says SLOB keeps nothing per CPU" \
		'^gdbtest-96 .* : percpu - \(nothing per CPU\)' "$(section slabinfo)" ;;
esac; fi
case $(section slabinfo | head -1) in *", slub)")	# SLUB: each node's partial slabs / slabs
	t "quarry-slabinfo shows node 0's partial and total slabs (SLUB)" \
		'^gdbtest-96 .* : nodes 0:[0-9]+/[1-9][0-9]*$' "$(section slabinfo)"
	t "quarry-cache lists node 0's slabs and partial list (SLUB)" \
		'^  node 0: [0-9]+ slabs in all, [0-9]+ on the partial list' ;;
esac
# quarry-dmesg: the kernel's output up to the stop, as the serial console has it.
dmesg=$(section dmesg)
if [ "$(grep -c . <<< "$dmesg")" -ge 20 ] && grep -q '^gdbtest: 8 objects of gdbtest-96' <<< "$dmesg" &&
	python3 -c 'import sys; d, s = (open(f, errors="replace").read().replace("\r", "") for f in sys.argv[1:]); sys.exit(d not in s)' \
		<(echo "$dmesg") "$serial"; then
	echo "PASS $name: quarry-dmesg gives the kernel's output as the console printed it ($(grep -c . <<< "$dmesg") lines)"
else
	echo "FAIL $name: quarry-dmesg's text is not the console's (see $log, $serial)"
fi
t "quarry-percpu VAR CPU reads CPU 1's copy" '^CPU 1: cpu_number at 0x[0-9a-f]+ = 1$'
t "quarry-percpu VAR on thread 2 finds CPU 1 from $base" "^current CPU 1 \\(from $base 0x[0-9a-f]+\\)\$"
t "quarry-cache describes the cache" '^cache gdbtest-96 at 0x[0-9a-f]+ \('
case $(section slabinfo | head -1) in
*", slab)")	# SLAB: the cache's memory nodes, each with its lists
	t "quarry-cache shows SLAB's node 0 and its slab lists" \
		'^  node 0 at 0x[0-9a-f]+: slabs full [0-9]+, partial [0-9]+, free [0-9]+ ' ;;
esac

bt=$(section bt)
t "the breakpoint is inside kmem_cache_alloc" '^#0 +kmem_cache_alloc \(cachep=' "$bt"
last=$(grep -E '^#[0-9]+ ' <<< "$bt" | tail -1)
if grep -qE "^#[0-9]+ +0x[0-9a-f]+ in $entry \(\)" <<< "$last" && ! grep -qE '\?\? \(\)|Backtrace stopped' <<< "$bt" &&
	[ "$(grep -cE '^#[0-9]+ ' <<< "$bt")" -le 8 ]; then
	echo "PASS $name: bt ends at $entry with no garbage frames ($(grep -cE '^#[0-9]+ ' <<< "$bt") frames)"
else
	echo "FAIL $name: bt does not end cleanly at $entry (last frame: '$last'; see $log)"
fi
t "the pretty printer decodes *cachep" "^\\\$[0-9]+ = kmem_cache 'gdbtest-96' \\("
t "the pretty printer decodes a struct page" '^\$[0-9]+ = struct page PFN 0x[0-9a-f]+ \['
t "quarry-page on the object kmem_cache_alloc returned: its cache, in use" \
	'^0x[0-9a-f]+: object .*of cache gdbtest-96 at 0x[0-9a-f]+.*: in use$' "$(section returned)"
t "quarry-page at gdbtest's 'allocated' stop: in use" \
	'^0x[0-9a-f]+: object .*of cache gdbtest-96 at 0x[0-9a-f]+.*: in use$' "$(section allocated)"
t "quarry-page after kmem_cache_free: free" '^0x[0-9a-f]+: .*: free( \(.*\))?$' "$(section freed)"
t "quarry-buddyinfo prints the zone's free blocks" '^Node 0, zone   Normal( +[0-9]+)+$'
t "quarry-page on a large kmalloc (4 pages): its head block, in use" \
	'^0x[0-9a-f]+: in use: heads a large kmalloc of order 2 ' "$(section large)"
t "quarry-page inside a large kmalloc: page 2 of its block, in use" \
	'^0x[0-9a-f]+: in use: page 2 of a large kmalloc of order 2 headed by PFN 0x[0-9a-f]+' "$(section large)"
t "quarry-page refuses an address outside mem_map" '^quarry-page: 0x10 .*(outside mem_map|below the direct map)'
t "quarry-cache refuses an unknown cache, naming it" "^quarry-cache: no cache named 'no-such-cache'"
t "quarry-percpu refuses an unknown variable, naming it" "^quarry-percpu: no per-CPU variable 'no_such_var'"
t "quarry-percpu refuses a CPU out of range" '^quarry-percpu: CPU 99 is out of range'
if grep -qE 'Python Exception|Traceback|Error occurred in Python' "$log"; then
	echo "FAIL $name: a helper raised a Python error: $(grep -m1 -E 'Python Exception|Traceback|Error occurred in Python' "$log")"
else
	echo "PASS $name: no helper raised a Python error"
fi
