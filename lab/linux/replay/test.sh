#!/usr/bin/env bash
# test.sh - check the Linux replay (replay.sh, quarry_replay.ko) against one
# built kernel: two bad traces refused with the module's message, a guest
# too small refused before booting, the shipped hackbench trace replayed
# with exact accounting and identical figures on two boots.
#   lab/linux/replay/test.sh KDIR BZIMAGE [OUTDIR]   (default build/lreplay/test)
# Needs build/replay/bin/convert (make -f tools/trace/trace.mk ALLOC=slab PAGE_SHIFT=12 convert).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 KDIR BZIMAGE [OUTDIR]" >&2; exit 2; }
KDIR=$1 BZ=$2 OUT=${3:-$ROOT/build/lreplay/test}
mkdir -p "$OUT"
fails=0
ok() { echo "PASS linux-replay: $*"; }
bad() { echo "FAIL linux-replay: $*"; fails=$((fails + 1)); }
CONVERT=$ROOT/build/replay/bin/convert
[ -x "$CONVERT" ] || (cd "$ROOT" && make -s -f tools/trace/trace.mk ALLOC=slab PAGE_SHIFT=12 convert) ||
	{ echo "test: the converter does not build" >&2; exit 1; }
"$CONVERT" -q "$ROOT/tests/traces/hackbench.txt.xz" "$OUT/hackbench.qtr" || exit 1
"$CONVERT" -q "$ROOT/tests/traces/loopback.txt.xz" "$OUT/loopback.qtr" || exit 1
python3 - "$OUT" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1] + "/loopback.qtr", "rb").read())
ev = struct.unpack_from("<Q", d, 56)[0]
b = bytearray(d)
struct.pack_into("<I", b, ev + 10 * 24 + 8, 0xfffffff0)	# event 10: object out of range
open(sys.argv[1] + "/bad-object.qtr", "wb").write(b)
b = bytearray(d)
struct.pack_into("<I", b, 8, 2)				# version 2
open(sys.argv[1] + "/bad-version.qtr", "wb").write(b)
PY
expect_refused() {	# TRACE TEXT
	local msg
	msg=$(BOOTS=1 "$HERE/replay.sh" "$1" "$KDIR" "$BZ" "$OUT/$(basename "$1" .qtr)" 2>&1)
	if [ $? -ne 0 ] && grep -qF "$2" <<< "$msg"; then ok "$(basename "$1") refused: ${msg#linux-replay: }"
	else bad "$(basename "$1"): wanted '$2', got: $msg"; fi
}
# The two refusals boot at once (one host thread each), their lines in order.
expect_refused "$OUT/bad-object.qtr" "the module refused the trace: event 10 (kmalloc): field 'object' is 4294967280" \
	> "$OUT/refused-1.txt" &
expect_refused "$OUT/bad-version.qtr" "the module refused the trace: format version 2" > "$OUT/refused-2.txt"
wait
for f in "$OUT/refused-1.txt" "$OUT/refused-2.txt"; do
	cat "$f"
	grep -q '^FAIL ' "$f" && fails=$((fails + 1))
done
msg=$(MEM=64M "$HERE/replay.sh" "$OUT/hackbench.qtr" "$KDIR" "$BZ" "$OUT/small" 2>&1)
if [ $? -ne 0 ] && grep -q "too large for the guest's memory" <<< "$msg"; then ok "64M refused: ${msg#linux-replay: }"
else bad "MEM=64M: $msg"; fi
if "$HERE/replay.sh" "$OUT/hackbench.qtr" "$KDIR" "$BZ" "$OUT/hackbench" &&
	grep -qx "all_passes_ok=1" "$OUT/hackbench/hackbench.summary" &&
	grep -qx "icount_identical=2" "$OUT/hackbench/hackbench.summary" &&
	[ "$(wc -l < "$OUT/hackbench/hackbench.csv")" -ge 200 ]; then
	ok "hackbench replayed: exact accounting, two identical boots"
else
	bad "hackbench replay (see $OUT/hackbench)"
fi
[ $fails -eq 0 ] && echo "test: all passed" || echo "test: $fails failed"
[ $fails -eq 0 ]
