#!/usr/bin/env bash
# test.sh - make test's checks of the trace tools (tools/trace/): the
# converter on a hand-written trace of every case it handles
# (tests/trace/sample.txt, its expected events in sample.expected), each kind
# of bad text and bad binary input refused with its message, the host replay
# with exact accounting through every allocator (4K; SLUB and SLOB-seg at
# 64K too), an allocation failure reported and handled both ways, and the
# shipped hackbench trace replayed through every allocator at 4K, on one CPU
# and as its two CPUs; the report's targets against Linux on canned results;
# the recorder (refused without root; as root, one
# recording with nothing lost, one losing events). Prints PASS/FAIL lines (tests/run-all.sh counts
# them); exits 1 on any FAIL. About 30 s from a clean tree on 2 loaded
# cores, nearly all of it building mm/ six times (-O2, no sanitizers); the
# replays take a few seconds.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

T=build/replay/test
BIN=build/replay/bin
rm -rf "$T"
mkdir -p "$T" || exit 1
fails=0
pass() { echo "PASS trace: $*"; }
fail() {
	echo "FAIL trace: $*"
	fails=$((fails + 1))
}

build() {	# build ALLOC PAGE_SHIFT
	make --no-print-directory -j2 -f tools/trace/trace.mk ALLOC="$1" PAGE_SHIFT="$2" \
		SLAB_DEBUG= SLAB_STATS= SLAB_IDX= SLUB_SHEAVES= SLAB_FREELIST_HARDENED= \
		SLAB_FREELIST_RANDOM= SLAB_GROW_LOCKED= >> "$T/build.log" 2>&1
}
if ! make --no-print-directory -f tools/trace/trace.mk convert > "$T/build.log" 2>&1; then
	tail -5 "$T/build.log"
	fail "the converter does not build"
	exit 1
fi
# Every allocator at 4K, and the two with per-CPU slabs or size classes that
# depend most on the page size at 64K (six builds: the time of the suite).
VARIANTS="slab-4k slub-4k slob-4k slob-seg-4k slub-64k slob-seg-64k"
for v in $VARIANTS; do
	a=${v%-*}
	ps=12
	[ "${v##*-}" = 64k ] && ps=16
	build $a $ps || fail "replay for $a, PAGE_SHIFT=$ps does not build (see $T/build.log)"
done
REPLAY=$BIN/replay-slub-4k

# 1. The sample: every event as expected (pairing by pointer, implicit and
# dropped frees, stacks, flags), then replayed with exact accounting.
if $BIN/convert -q tests/trace/sample.txt "$T/sample.qtr" && $REPLAY --dump "$T/sample.qtr" > "$T/sample.dump" &&
	diff -u tests/trace/sample.expected "$T/sample.dump" > "$T/sample.diff"; then
	pass "sample converted as expected (sample.expected)"
else
	cat "$T/sample.diff" 2>/dev/null | head -20
	fail "sample not converted as expected"
fi
for v in $VARIANTS; do
	for mode in "" --pages; do
		if $BIN/replay-$v --variant "$v" $mode "$T/sample.qtr" > "$T/r.log" 2> "$T/r.err" &&
			grep -q "accounting exact: every event ran ($([ -n "$mode" ] && echo 3 || echo 5) left out as asked), every free freed its object, 2 left live by the trace freed at the end" "$T/r.err"; then
			pass "sample replayed through $v ${mode:-(slab events)}: accounting exact"
		else
			tail -3 "$T/r.err"
			fail "sample through $v $mode: accounting not exact"
		fi
	done
done

# 2. Bad text: each refused by the converter with its message, exit status 1.
bad_text() {	# bad_text NAME 'expected message' FILE
	local out rc
	out=$($BIN/convert "$3" "$T/bad.qtr" 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && grep -qF -- "$2" <<< "$out" && [ ! -e "$T/bad.qtr" ]; then
		pass "bad text refused: $1"
	else
		fail "bad text '$1': status $rc, message '$out' (expected '$2')"
	fi
	rm -f "$T/bad.qtr"
}
S=tests/trace/sample.txt
sed '5s/ bytes_alloc=96//' $S > "$T/b1.txt"
bad_text "missing field" "b1.txt:5: kmalloc event without the field 'bytes_alloc'" "$T/b1.txt"
sed '7s/ptr=0000000000000000/ptr=0x00zz/' $S > "$T/b2.txt"
bad_text "bad number" "b2.txt:7: kfree event: field 'ptr' is not a hexadecimal number: '0x00zz'" "$T/b2.txt"
sed '6s/.*/this line is not an event/' $S > "$T/b3.txt"
bad_text "not an event line" "b3.txt:6: not a trace event: no CPU field '[NNN]'" "$T/b3.txt"
head -c -40 $S > "$T/b4.txt"
bad_text "truncated text" "b4.txt:29: the file ends inside a line (truncated?)" "$T/b4.txt"
xz -c $S | head -c 300 > "$T/b5.txt.xz"
bad_text "truncated .xz" "b5.txt.xz: 'xz -dc' failed after line" "$T/b5.txt.xz"
gzip -c $S | head -c 300 > "$T/b6.txt.gz"
bad_text "truncated .gz" "b6.txt.gz: 'gzip -dc' failed after line" "$T/b6.txt.gz"
sed '5s/\[000\]/[005]/' $S > "$T/b7.txt"
bad_text "CPU beyond the header's count" "b7.txt:5: field 'CPU' is 5, but the trace has 2 CPUs" "$T/b7.txt"
head -4 $S > "$T/b8.txt"
bad_text "no events" "b8.txt: no kmem events in 4 lines" "$T/b8.txt"
sed '5s/bytes_alloc=96/bytes_alloc=8/' $S > "$T/b9.txt"
bad_text "bytes_alloc below bytes_req" "b9.txt:5: kmalloc event: bytes_alloc 8 is less than bytes_req 72" "$T/b9.txt"
sed '11s/order=0/order=40/' $S > "$T/b10.txt"
bad_text "order out of range" "b10.txt:11: mm_page_alloc event: field 'order' is 40, more than 20" "$T/b10.txt"
sed '5a\ => allocate_slab' $S > "$T/b11.txt"
bad_text "stack frame outside a stack" "b11.txt:6: stack frame 'allocate_slab' outside a stack trace" "$T/b11.txt"
{ head -5 $S; printf 'bash-1 [000] ..... 1.0: kfree: \0 ptr=1\n'; } > "$T/b12.txt"
bad_text "binary data (NUL)" "b12.txt:6: a NUL byte: this is not a text trace" "$T/b12.txt"
sed '6a CPU:1 [LOST 42 EVENTS]' $S > "$T/b13.txt"
bad_text "lost events" "b13.txt:7: the tracer says 'CPU:1 [LOST 42 EVENTS]': events were lost" "$T/b13.txt"
{ echo "# entries-in-buffer/entries-written: 10/20   #P:2"; cat $S; } > "$T/b14.txt"
bad_text "overwritten events" "b14.txt:1: the tracer kept 10 of 20 events (the rest were overwritten)" "$T/b14.txt"
sed '2s/cpus: 2/cpus: two/' $S > "$T/b15.txt"
bad_text "bad header field" "b15.txt:2: header field 'cpus' is not a CPU count from 1 to 4096: 'two'" "$T/b15.txt"
sed '5s/ 100.000001: / : /' $S > "$T/b16.txt"
bad_text "missing timestamp" "b16.txt:5: field 'timestamp' is not SECONDS.MICROSECONDS before ': '" "$T/b16.txt"
sed "6s/name=filp/name=$(printf 'x%.0s' $(seq 60))/" $S > "$T/b17.txt"
bad_text "cache name too long" "b17.txt:6: field 'name': cache name of 60 characters (at most 47)" "$T/b17.txt"
bad_text "a converted trace given again" "sample.qtr is a converted Quarry trace already" "$T/sample.qtr"

# 3. Bad binary traces: each refused by the replay, naming the field, before any event runs.
bad_bin() {	# bad_bin NAME 'expected message' PYTHON-EDIT (on bytearray d)
	local out rc
	python3 - "$T/sample.qtr" "$T/badbin.qtr" "$3" <<'EOF' || { fail "bad binary '$1': could not make it"; return; }
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
events_off = struct.unpack_from('<Q', d, 56)[0]
def ev(i): return events_off + 24 * i
exec(sys.argv[3])
open(sys.argv[2], 'wb').write(d)
EOF
	out=$($REPLAY "$T/badbin.qtr" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -eq 1 ] && grep -qF -- "$2" <<< "$out" && ! grep -q "accounting" <<< "$out"; then
		pass "bad binary refused: $1"
	else
		fail "bad binary '$1': status $rc, message '$out' (expected '$2')"
	fi
}
cp $S "$T/text.txt"
out=$($REPLAY "$T/text.txt" 2>&1)
if [ $? -eq 1 ] && grep -qF "not a Quarry trace (no 'QUARRYTR' at the start)" <<< "$out"; then
	pass "bad binary refused: text given to the replay"
else
	fail "text given to the replay: '$out'"
fi
bad_bin "unknown version" "format version 9, but this replay reads version 1 only" "struct.pack_into('<I', d, 8, 9)"
bad_bin "truncated" "truncated or overlong: 13 events at offset" "del d[-10:]"
bad_bin "shorter than the header" "truncated: 100 bytes, shorter than the 312-byte header" "del d[100:]"
bad_bin "event type" "event 4: field 'type' is 0 (1 to 6)" "d[ev(4)] = 0"
bad_bin "event CPU" "event 4 (kmalloc): field 'cpu' is 7, the trace has 2 CPUs" "struct.pack_into('<H', d, ev(4) + 2, 7)"
bad_bin "free of an object never allocated" "event 2 (kfree): object 5 is not live (never allocated)" \
	"struct.pack_into('<I', d, ev(2) + 8, 5)"
bad_bin "double free" "event 9 (kfree): object 1 is not live (freed already)" \
	"struct.pack_into('<I', d, ev(9) + 8, 1); struct.pack_into('<I', d, ev(9) + 20, 1)"
bad_bin "free naming the wrong allocation" "event 2 (kfree): field 'alloc_event' is 0, object 1 was allocated by event 1" \
	"struct.pack_into('<I', d, ev(2) + 20, 0)"
bad_bin "cache index" "event 1 (cache alloc): field 'cache' is 9, the trace has 1 caches" \
	"struct.pack_into('<I', d, ev(1) + 4, 9)"
bad_bin "object allocated twice" "event 4 (kmalloc): object 0 was allocated before, by event 0" \
	"struct.pack_into('<I', d, ev(4) + 8, 0)"
bad_bin "allocation naming an allocation event" "event 4 (kmalloc): field 'alloc_event' is 7, an allocation has 4294967295" \
	"struct.pack_into('<I', d, ev(4) + 20, 7)"
bad_bin "header counts" "header field 'counts[kmalloc]' is 5, the file holds 4 such events" \
	"struct.pack_into('<Q', d, 80 + 8, 5)"
bad_bin "string offset" "header field 'kernel_off' (99999) is outside the file" "struct.pack_into('<I', d, 36, 99999)"

# 4. An allocation that fails (a 3 MiB kmalloc in 4 MiB of memory): named with the
# event and the allocator's state; --on-fail stop stops, continue goes on; both
# give every page back.
out=$($REPLAY --variant small --arena-mb 4 "$T/sample.qtr" 2>&1 >/dev/null)
rc=$?
if [ $rc -eq 3 ] && grep -qF "replay: small: event 11 (kmalloc of 3145728 bytes, CPU 0) failed: out of memory" <<< "$out" &&
	grep -qF "allocator state: Slab: " <<< "$out" &&
	grep -qF "replay: small: stopping at event 11 (--on-fail stop); freeing what the replay holds" <<< "$out" &&
	! grep -q "pages not back" <<< "$out"; then
	pass "allocation failure reported (event, allocator state) and the replay stopped cleanly"
else
	fail "allocation failure, --on-fail stop: status $rc, '$out'"
fi
out=$($REPLAY --variant small --arena-mb 4 --on-fail continue "$T/sample.qtr" 2>&1 >/dev/null)
rc=$?
if [ $rc -eq 3 ] && grep -qF "event 11 (kmalloc of 3145728 bytes, CPU 0) failed" <<< "$out" &&
	grep -qF "going on (--on-fail continue)" <<< "$out" && grep -qF "accounting exact" <<< "$out"; then
	pass "allocation failure with --on-fail continue: the replay went on, accounting exact"
else
	fail "allocation failure, --on-fail continue: status $rc, '$out'"
fi

# 5. A real trace (the shipped hackbench one, tests/traces/) through every allocator at 4K.
REAL=tests/traces/hackbench.txt.xz
if [ -f $REAL ]; then
	if $BIN/convert -q $REAL "$T/real.qtr"; then
		for a in slab slub slob slob-seg; do
			for mode in "" --as-cpus; do
				if $BIN/replay-$a-4k --variant "$a 4K" --pages $mode "$T/real.qtr" > "$T/r.log" \
					2> "$T/r.err" && grep -q "accounting exact" "$T/r.err"; then
					pass "$REAL replayed through $a 4K with its page events${mode:+, as its CPUs}: accounting exact"
				else
					tail -3 "$T/r.err"
					fail "$REAL through $a 4K $mode: accounting not exact"
				fi
			done
		done
		# Memory by cause (struct causes in tools/trace/replay.c): the requested part at
		# the end is what the trace leaves live of slab-served requests, as counted here
		# from its events; the parts add up to Slab:; none that cannot be is negative.
		# The paths: a SLAB_STATS=1 build's counters, allocs summed over the caches at
		# least the trace's slab-served allocations.
		C=$T/causes
		mkdir -p "$C"
		if make --no-print-directory -j2 -f tools/trace/trace.mk ALLOC=slub PAGE_SHIFT=12 SLAB_STATS=1 \
			>> "$T/build.log" 2>&1 && $BIN/replay-slub-4k-stats --summary "$C/s" --stats "$C/stats" \
			"$T/real.qtr" > /dev/null 2>&1; then
			$BIN/replay-slub-4k --dump "$T/real.qtr" > "$C/dump"
			msg=$(python3 tests/trace/causes_check.py "$C")
			if [ $? -eq 0 ]; then pass "memory and paths by cause (slub 4K): $msg"
			else fail "memory and paths by cause (slub 4K): $msg"; fi
		else
			fail "the counting replay (slub 4K, SLAB_STATS=1) did not build or run (see $T/build.log)"
		fi
		# make replay keeps Linux's results of the same trace (their trace.sha256 the
		# trace's) replayed with the same cache merging (their 'merge' file; none: not
		# merged), and drops those of another trace or the other merging.
		K=$T/keep
		rm -rf "$K"
		mkdir -p "$K/linux-x86_64" "$K/linux-arm64-smp" "$K/linux-x86_64-smp"
		sha256sum < "$T/sample.qtr" | cut -d' ' -f1 > "$K/linux-x86_64/trace.sha256"
		cp "$K/linux-x86_64/trace.sha256" "$K/linux-x86_64-smp/trace.sha256"
		echo 1 > "$K/linux-x86_64/merge"
		echo 0000 > "$K/linux-arm64-smp/trace.sha256"
		touch "$K/linux-x86_64/linux61-slub-4K.summary"
		if OUT=$K PASSES=1 tools/trace/replay.sh "$T/sample.qtr" slub 4K > "$K/out" 2>&1 &&
			[ -f "$K/linux-x86_64/linux61-slub-4K.summary" ] && [ ! -e "$K/linux-arm64-smp" ] &&
			[ ! -e "$K/linux-x86_64-smp" ] && grep -qx "merge=1" "$K/slub-4K.summary" &&
			grep -qF "replay: kept $K/linux-x86_64: Linux's replay of this same trace" "$K/out"; then
			pass "make replay kept Linux's results of the same trace and merging, dropped another trace's and unmerged ones"
		else
			tail -3 "$K/out"
			fail "make replay: Linux's results of the same trace not kept, or another trace's or unmerged ones kept"
		fi
		if MERGE=0 OUT=$K PASSES=1 tools/trace/replay.sh "$T/sample.qtr" slub 4K > "$K/out" 2>&1 &&
			[ ! -e "$K/linux-x86_64" ] && grep -qx "merge=0" "$K/slub-4K.summary"; then
			pass "make replay MERGE=0 dropped Linux's merged results and replayed unmerged"
		else
			tail -3 "$K/out"
			fail "make replay MERGE=0: Linux's merged results kept, or the host replay merged"
		fi
		# The report's host-against-kernel check (report_replay.py) on a host run posing as
		# the kernel's one-CPU run: identical passes; one sample off, or another Slab: at the
		# start, is a DIFFER naming it, and the report fails.
		A=$T/agree
		mkdir -p "$A/kernel-x86_64"
		$BIN/replay-slob-4k --variant "slob 4K" --csv "$A/slob-4K.csv" --summary "$A/slob-4K.summary" \
			"$T/real.qtr" > /dev/null 2>&1
		# report A KERNEL-EDIT (python on the kernel's csv rows r and summary text s)
		report() {
			python3 - "$A" "$2" <<'EOF'
import sys
a, edit = sys.argv[1], sys.argv[2]
r = open(a + "/slob-4K.csv").read().split("\n")
s = open(a + "/slob-4K.summary").read() + "cpus=1\n"
exec(edit)
open(a + "/kernel-x86_64/slob-4K.csv", "w").write("\n".join(r))
open(a + "/kernel-x86_64/slob-4K.summary", "w").write(s)
EOF
			python3 lab/bench/report.py replay "$A" > "$A/out" 2>&1
			rc=$?
			grep -a "^| slob | 4K |" "$A/report.md" | tail -1 | sed 's/.* | //; s/ |$//'
			return $rc
		}
		v=$(report "$A" "")
		rc=$?
		[ $rc -eq 0 ] && [ "$v" = identical ] && pass "report: host and kernel figures identical: '$v'" ||
			fail "report: identical runs: status $rc, verdict '$v'"
		v=$(report "$A" "f = r[50].split(','); f[2] = str(int(f[2]) + 4096); r[50] = ','.join(f)")
		rc=$?
		ev=$(sed -n 51p "$A/slob-4K.csv" | cut -d, -f1)
		[ $rc -ne 0 ] && [ "$v" = "DIFFER in the samples" ] &&
			grep -qF "| 1 of 202 (first: event $ev) | DIFFER in the samples |" "$A/report.md" &&
			pass "report: one sample 4 kB off caught: '$v', first: event $ev" ||
			fail "report: one sample off: status $rc, verdict '$v'"
		v=$(report "$A" "s = s.replace('slab_start=4096', 'slab_start=8192').replace('end_object=', 'end_object=1')")
		rc=$?
		[ $rc -ne 0 ] && [[ "$v" == "DIFFER by "*" kB, Slab: at the start 4 / 8 kB" ]] &&
			pass "report: another start and end caught: '$v'" ||
			fail "report: another start and end: status $rc, verdict '$v'"
		# Allocations failing all along (24 MiB for 36 MiB of pages), gone past: the frees
		# of what failed are left out, so the accounting is still exact.
		out=$($BIN/replay-slub-4k --variant small --pages --arena-mb 24 --on-fail continue \
			"$T/real.qtr" 2>&1 >/dev/null)
		rc=$?
		if [ $rc -eq 3 ] && grep -q "failed: out of memory" <<< "$out" &&
			grep -qF "accounting exact" <<< "$out" && ! grep -q "accounting:" <<< "$out"; then
			pass "$REAL in 24 MiB with --on-fail continue: many allocations failed, the frees of them left out, accounting exact"
		else
			fail "$REAL in 24 MiB, --on-fail continue: status $rc, '$(grep -v "failed: out of\|allocator state\|going on" <<< "$out" | tail -3)'"
		fi
	else
		fail "$REAL does not convert"
	fi
else
	fail "$REAL is missing"
fi

# 5b. The report's "Targets against Linux" (tools/trace/report_targets.py) on canned
# results: met, missed with its cause, not measured (tests/trace/targets_check.py).
out=$(python3 tests/trace/targets_check.py "$T/targets" 2>&1)
echo "$out" | grep "^PASS trace: \|^FAIL trace: "
fails=$((fails + $(grep -c "^FAIL trace: " <<< "$out")))
grep -q "^PASS trace: " <<< "$out" || fail "report targets: the check printed no result: $(tail -3 <<< "$out")"

# 6. The recorder: refused without root; as root with tracefs, a short command
# recorded with nothing lost (and the header, slabinfo and Slab: beside it),
# and a buffer far too small for a busy command failing with the counters.
as_user=()
[ "$(id -u)" -eq 0 ] && as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
out=$("${as_user[@]}" tools/trace/record.sh -o /tmp/quarry-rec-nobody.txt -- true 2>&1)
if [ $? -eq 1 ] && grep -qF "record.sh: recording the kernel's allocations needs root" <<< "$out"; then
	pass "record.sh refused without root, saying so"
else
	fail "record.sh without root: '$out'"
fi
if [ "$(id -u)" -eq 0 ] && { [ -e /sys/kernel/tracing/trace_pipe ] || [ -e /sys/kernel/debug/tracing/trace_pipe ]; }; then
	out=$(tools/trace/record.sh -o "$T/rec/ls.txt" -- sh -c 'ls -R tools > /dev/null' 2>&1)
	if [ $? -eq 0 ] && grep -q "none lost" <<< "$out" && grep -q "^# quarry-trace kernel: " "$T/rec/ls.txt" &&
		grep -q "^Slab:" "$T/rec/ls.txt.meminfo.after" && [ -s "$T/rec/ls.txt.slabinfo.before" ] &&
		$BIN/convert -q "$T/rec/ls.txt" "$T/rec/ls.qtr"; then
		pass "record.sh recorded a command with nothing lost, and the recording converts"
	else
		fail "record.sh of 'ls -R tools': '$out'"
	fi
	out=$(tools/trace/record.sh -b 4 -o "$T/rec/lost.txt" -- sh -c 'ls -R /usr/share/doc /usr/lib > /dev/null' 2>&1)
	if [ $? -eq 1 ] && grep -qE "record.sh: events were lost, the trace is incomplete \(kept as $T/rec/lost.txt.incomplete, [0-9]+ events\): CPU [0-9]+ lost events \(overrun [1-9]" <<< "$out" &&
		[ ! -e "$T/rec/lost.txt" ]; then
		pass "record.sh with a 4 KiB buffer under load failed, naming the CPU and its overrun"
	else
		fail "record.sh -b 4: '$out'"
	fi
	rm -f "$T"/rec/*.incomplete
else
	echo "(record.sh not run: needs root and tracefs)"
fi

echo "trace tools: $fails failed"
[ $fails -eq 0 ]
