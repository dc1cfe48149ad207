#!/usr/bin/env bash
# kernel.sh - the kernel's trace replay (lab/replay.h) in make test: per arch
# (ARCHES, default both) one SLUB 4K kernel boot replaying the shipped
# hackbench trace with its page events on its two CPUs under -icount, which
# must end with exact accounting within 60 s, booted twice more beside a host
# I/O load with every REPLAY line identical to the first boot's; then bad modules, each refused
# with its message and a clean failure (no panic): a trace with a spoiled
# magic, one cut short, one whose event frees an object twice, the recorded
# text instead of a converted trace, and no module at all, and bad options;
# then the same trace in too little memory, stopped and gone past. Last, per
# arch, the host against the kernel on one CPU for both SLOBs (every size
# shares their heap pages, so any difference in where the replay starts moves
# every object after it) at 4K and 64K: the same trace through the same mm/
# code from the same start, so the kernel's memory figures (start, peaks, end
# and every sample) must equal the host replay's exactly.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

fails=0
pass() { echo "PASS ktrace: $*"; }
fail() {
	echo "FAIL ktrace: $*"
	fails=$((fails + 1))
}

T=$(mktemp -d "${TMPDIR:-/tmp}/quarry-ktrace.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
BIN=build/replay/bin
REAL=tests/traces/hackbench.txt.xz

make --no-print-directory -f tools/trace/trace.mk ALLOC=slab PAGE_SHIFT=12 convert > "$T/build.log" 2>&1 ||
	{ tail -5 "$T/build.log"; echo "the converter does not build"; exit 1; }
$BIN/convert -q $REAL "$T/real.qtr" || { echo "$REAL does not convert"; exit 1; }
$BIN/convert -q tests/trace/sample.txt "$T/sample.qtr" || { echo "the sample does not convert"; exit 1; }

# spoil IN OUT PYTHON-EDIT (on bytearray d, ev(i) the offset of event i)
spoil() {
	python3 - "$1" "$2" "$3" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
events_off = struct.unpack_from('<Q', d, 56)[0]
def ev(i): return events_off + 24 * i
exec(sys.argv[3])
open(sys.argv[2], 'wb').write(d)
EOF
}
spoil "$T/sample.qtr" "$T/magic.qtr" "d[0:8] = b'QUARRYXX'"
spoil "$T/sample.qtr" "$T/cut.qtr" "del d[-10:]"
spoil "$T/sample.qtr" "$T/dfree.qtr" \
	"struct.pack_into('<I', d, ev(9) + 8, 1); struct.pack_into('<I', d, ev(9) + 20, 1)"
xz -dc $REAL | head -2000 > "$T/text.txt"

# io_load: until killed, the host I/O load under which GRUB-booted replays once
# differed: 256 MiB written and synced, and (as root) the page cache dropped, in
# a loop; the file in $T.
io_load() {
	while :; do
		dd if=/dev/zero of="$T/io-load" bs=1M count=256 conv=fsync status=none 2>/dev/null
		rm -f "$T/io-load"
		[ -w /proc/sys/vm/drop_caches ] && echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
	done
}

# boot ELF LOG MODULE CMDLINE QEMU-OPTIONS...: the console in LOG; run.sh's status.
boot() {
	local elf=$1 log=$2 module=$3 cmd=$4
	shift 4
	CMDLINE="$cmd" MODULE="$module" tests/qemu/run.sh "$elf" 90 "$@" > "$log" 2>&1
}

# refused ELF ARCH NAME MODULE 'expected message' [more command line words]
refused() {
	local log=$T/bad.log rc
	boot "$1" "$log" "$4" "replay${6:+ $6}" -m 256M -smp 1
	rc=$?
	if [ $rc -eq 1 ] && grep -qF -- "$5" "$log" && grep -q "Quarry: done, FAILED" "$log" &&
		! grep -q "PANIC" "$log"; then
		pass "$2: refused: $3"
	else
		fail "$2: '$3' not refused: status $rc (expected 1), '$(grep -a "replay:" "$log" | head -3)' (expected '$5')"
	fi
}

for arch in ${ARCHES:-x86_64 arm64}; do
	if ! make --no-print-directory -j2 ARCH="$arch" PAGE_SIZE=4K ALLOC=slub kernel > "$T/kbuild.log" 2>&1; then
		tail -5 "$T/kbuild.log"
		fail "$arch: the SLUB 4K kernel does not build"
		continue
	fi
	elf=build/$arch-4k-slub/quarry.elf
	t0=$(date +%s)
	boot "$elf" "$T/real-$arch.log" "$T/real.qtr" "replay icount replay_pages" -m 512M -smp 2 \
		-icount shift=0,sleep=off
	rc=$?
	secs=$(($(date +%s) - t0))
	if [ $rc -eq 0 ] && grep -q "^replay: accounting exact: every event ran" "$T/real-$arch.log" &&
		grep -q "^REPLAY cpus=2" "$T/real-$arch.log" && grep -q "^REPLAY remote_frees=[1-9]" "$T/real-$arch.log" &&
		[ $secs -lt 60 ]; then
		pass "$arch: $REAL replayed in the kernel on 2 CPUs with its page events, frees remote: accounting exact ($secs s)"
	else
		grep -a "^replay: \(accounting\|event\|trace\)" "$T/real-$arch.log" | head -5
		fail "$arch: $REAL in the kernel: status $rc, $secs s (see the lines above)"
	fi
	# The same boot twice more, beside the host I/O load that once moved them: a
	# multi-CPU -icount replay repeats every REPLAY line (booted from GRUB's CD,
	# whose reads complete in host time, the kernel started after a different
	# number of instructions, and one boot in three under this load gave other
	# figures; tests/qemu/run.sh now starts it through QEMU's own loader).
	io_load &
	load=$!
	same=0
	for b in 2 3; do
		boot "$elf" "$T/real-$arch.$b.log" "$T/real.qtr" "replay icount replay_pages" -m 512M -smp 2 \
			-icount shift=0,sleep=off
		rc=$?
		if [ $rc -ne 0 ]; then
			fail "$arch: $REAL in the kernel, 2 CPUs, -icount boot $b: status $rc"
		elif ! why=$(diff <(grep -a "^REPLAY" "$T/real-$arch.log") <(grep -a "^REPLAY" "$T/real-$arch.$b.log")); then
			fail "$arch: $REAL in the kernel, 2 CPUs, -icount boot $b gave other figures than boot 1: $(echo "$why" | grep '^[<>]' | head -4 | tr '\n' ' ')"
		else
			same=$((same + 1))
		fi
	done
	kill $load 2>/dev/null
	wait $load 2>/dev/null
	[ $same -eq 2 ] && pass "$arch: $REAL on 2 CPUs under -icount, three boots (two beside a host I/O load): every REPLAY line identical ($(grep -c "^REPLAY" "$T/real-$arch.log") lines)"
	refused "$elf" "$arch" "bad magic" "$T/magic.qtr" \
		"replay: trace module refused: not a Quarry trace (no 'QUARRYTR' at the start)"
	refused "$elf" "$arch" "truncated" "$T/cut.qtr" \
		"replay: trace module refused: truncated or overlong: 13 events at offset"
	refused "$elf" "$arch" "double free" "$T/dfree.qtr" \
		"replay: trace module refused: event 9 (kfree): object 1 is not live (freed already)"
	refused "$elf" "$arch" "recorded text, not converted" "$T/text.txt" \
		"replay: trace module refused: not a Quarry trace (no 'QUARRYTR' at the start)"
	refused "$elf" "$arch" "no module" "" \
		"replay: no trace module: boot with one (x86_64: GRUB's module2 line, arm64: QEMU's -initrd"
	refused "$elf" "$arch" "bad replay_fail=" "$T/sample.qtr" \
		"replay: replay_fail=maybe: use stop or continue" "replay_fail=maybe"
	refused "$elf" "$arch" "bad replay_samples=" "$T/sample.qtr" \
		"replay: replay_samples=0: a number from 1 to 50000" "replay_samples=0"
	# Memory running out (40 MiB for the trace's 36 MiB of pages and its objects): the
	# event and the allocator's state said; stop ends the replay, continue goes past,
	# leaving the frees of what failed out; every page back, no panic, a failure status.
	for mode in stop continue; do
		log=$T/fail-$arch-$mode.log
		boot "$elf" "$log" "$T/real.qtr" "replay icount replay_pages replay_fail=$mode" -m 40M \
			-smp 2 -icount shift=0,sleep=off
		rc=$?
		if [ $mode = stop ]; then
			want="replay: stopping at event [0-9]+ \(replay_fail=stop\); freeing what the replay holds"
		else
			want="replay: going on \(replay_fail=continue\): the object's free will be left out"
		fi
		if [ $rc -eq 1 ] && grep -qE "^replay: event [0-9]+ \((page alloc|kmalloc|cache alloc) of [0-9]+ bytes.*, CPU [01], on CPU [01]\) failed: out of memory" "$log" &&
			grep -q "^  allocator state: Slab: [0-9]* kB, pages in use" "$log" && grep -qE "$want" "$log" &&
			grep -q "^REPLAY accounting_ok=1" "$log" && ! grep -q "PANIC\|^replay: accounting:" "$log"; then
			pass "$arch: allocations failing in 40 MiB, replay_fail=$mode: said with the event and the allocator's state, accounting exact"
		else
			fail "$arch: allocation failure, replay_fail=$mode: status $rc, '$(grep -a "^replay: \(event\|acc\|stop\|going\)" "$log" | head -3)'"
		fi
	done
done

# same_memory HOST_BASE KERNEL_LOG: the host replay's memory figures (HOST_BASE.summary
# and .csv) against the kernel's REPLAY lines; silent and 0 if every one is equal, else
# what differs (the first differing sample in full) and 1.
same_memory() {
	python3 - "$1.summary" "$1.csv" "$2" <<'EOF'
import sys
keys = ["slab_start", "peak_slab", "peak_used", "peak_object", "peak_req", "peak_linux",
        "end_slab", "end_used", "end_object", "end_req", "end_linux", "end_live"]
cols = "event,Slab:,pages in use,object memory,live requested,live Linux,page blocks".split(",")
host = dict(l.rstrip("\n").split("=", 1) for l in open(sys.argv[1]) if "=" in l)
hrows = [l.strip() for l in open(sys.argv[2])][1:]
kern, krows = {}, []
for l in open(sys.argv[3], errors="replace"):
    l = l.strip()
    if l.startswith("REPLAY-SAMPLE "):
        krows.append(l[len("REPLAY-SAMPLE "):])
    elif l.startswith("REPLAY ") and "=" in l:
        k, v = l[len("REPLAY "):].split("=", 1)
        kern[k] = v
out = ["%s %s host, %s kernel" % (k, host.get(k), kern.get(k))
       for k in keys if host.get(k) is None or host.get(k) != kern.get(k)]
bad = [i for i, (a, b) in enumerate(zip(hrows, krows)) if a != b]
if len(hrows) != len(krows) or not hrows:
    out.append("%d samples host, %d kernel" % (len(hrows), len(krows)))
if bad:
    a, b = hrows[bad[0]].split(","), krows[bad[0]].split(",")
    out.append("%d of %d samples differ, the first at event %s: %s" % (
        len(bad), len(hrows), a[0], ", ".join("%s %s host, %s kernel" % (c, x, y)
                                              for c, x, y in zip(cols, a, b) if x != y)))
print("; ".join(out))
sys.exit(1 if out else 0)
EOF
}

# Both halves built alike: the mm/ options from the environment cleared for both.
MMOPTS="SLAB_DEBUG= SLAB_STATS= SLAB_IDX= SLUB_SHEAVES= SLAB_FREELIST_HARDENED= SLAB_FREELIST_RANDOM= SLAB_GROW_LOCKED="
for alloc in slob slob-seg; do
	for ps in 4K 64K; do
		tag=$alloc-$(echo $ps | tr K k)
		if ! make --no-print-directory -j2 -f tools/trace/trace.mk ALLOC=$alloc $MMOPTS \
			PAGE_SHIFT=$([ $ps = 4K ] && echo 12 || echo 16) > "$T/rbuild.log" 2>&1; then
			tail -5 "$T/rbuild.log"
			fail "the host replay of $alloc $ps does not build"
			continue
		fi
		if ! $BIN/replay-$tag --variant "$alloc $ps" --csv "$T/host-$tag.csv" \
			--summary "$T/host-$tag.summary" "$T/real.qtr" > "$T/host-$tag.log" 2>&1; then
			fail "$alloc $ps: the host replay of $REAL failed: $(tail -2 "$T/host-$tag.log")"
			continue
		fi
		for arch in ${ARCHES:-x86_64 arm64}; do
			if ! make --no-print-directory -j2 ARCH="$arch" PAGE_SIZE=$ps ALLOC=$alloc $MMOPTS kernel \
				> "$T/kbuild.log" 2>&1; then
				tail -5 "$T/kbuild.log"
				fail "$arch: the $alloc $ps kernel does not build"
				continue
			fi
			log=$T/agree-$arch-$tag.log
			boot build/$arch-$(echo $ps | tr K k)-$alloc/quarry.elf "$log" "$T/real.qtr" "replay icount" -m 512M -smp 1 \
				-icount shift=0,sleep=off
			rc=$?
			if [ $rc -ne 0 ] || ! grep -q "^replay: accounting exact" "$log"; then
				fail "$arch $alloc $ps: the one-CPU kernel replay of $REAL failed: status $rc, '$(grep -a "^replay: \(acc\|event\|trace\)" "$log" | head -2)'"
			elif why=$(same_memory "$T/host-$tag" "$log"); then
				pass "$arch $alloc $ps: host and kernel replays of $REAL on one CPU agree exactly: start, peaks, end and all $(grep -c "^REPLAY-SAMPLE" "$log") samples"
			else
				fail "$arch $alloc $ps: host and kernel replays of $REAL on one CPU differ: $why"
			fi
		done
	done
done

echo "kernel trace replay: $fails failed"
[ $fails -eq 0 ]
