#!/usr/bin/env bash
# model.sh - make replay's cache model (MODEL=1) in make test: the shipped
# loopback trace (the smallest) replayed in an x86_64 SLUB 4K kernel on one
# CPU under -icount, once without and once under the cache model's plugin;
# tools/trace/model_replay.py must pair every event type's figure with its
# region exactly (passes = operations, region instructions = the figure's
# plus one counter read per operation) and find the REPLAY lines of both
# boots identical; then a figure altered by one instruction, a region
# missing and a boot without the model's plugin must each be caught.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

fails=0
pass() { echo "PASS mtrace: $*"; }
fail() {
	echo "FAIL mtrace: $*"
	fails=$((fails + 1))
}

T=$(mktemp -d "${TMPDIR:-/tmp}/quarry-mtrace.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
TRACE=tests/traces/loopback.txt.xz
elf=build/x86_64-4k-slub/quarry.elf

{ make --no-print-directory -f tools/trace/trace.mk ALLOC=slab PAGE_SHIFT=12 convert &&
	make --no-print-directory -s ARCH=x86_64 PAGE_SIZE=4K ALLOC=slab cachemodel &&
	make --no-print-directory -j2 ARCH=x86_64 PAGE_SIZE=4K ALLOC=slub kernel; } > "$T/build.log" 2>&1 ||
	{ tail -5 "$T/build.log"; echo "FAIL mtrace: the converter, the plugin or the kernel does not build"; exit 1; }
build/replay/bin/convert -q $TRACE "$T/t.qtr" || { echo "FAIL mtrace: $TRACE does not convert"; exit 1; }

t0=$(date +%s%N)
CMDLINE="replay icount" MODULE="$T/t.qtr" tests/qemu/run.sh $elf 120 -m 256M -smp 1 \
	-icount shift=0,sleep=off > "$T/plain.log" 2>&1 || fail "the plain -icount boot failed (status $?)"
t1=$(date +%s%N)
CMDLINE="replay icount" MODULE="$T/t.qtr" tools/cachemodel/run.sh $elf 120 "$T/model.report" \
	-m 256M -smp 1 -icount shift=0,sleep=off > "$T/model.log" 2>&1 || fail "the boot under the model failed (status $?)"
t2=$(date +%s%N)
echo "mtrace: boot without the model $(( (t1 - t0) / 1000000 )) ms, under it $(( (t2 - t1) / 1000000 )) ms"

if tools/trace/model_replay.py "$T/model.log" "$T/model.report" "$T/plain.log" > "$T/out" 2> "$T/err" &&
	[ "$(grep -c '^model_ops_' "$T/out")" -eq 4 ] && grep -q '^geometry=l1d=' "$T/out"; then
	pass "x86_64 SLUB 4K: the model's instructions per operation are the replay's figure plus its one counter read, for all four event types: $(sed -n 's/^model_\(figure\|insns\)_1=//p' "$T/out" | tr '\n' ' ')(kmalloc)"
else
	fail "the model's counts do not pair with the figures: $(cat "$T/err") $(head -3 "$T/out")"
fi

# expect NAME 'message' CONSOLE REPORT [PLAIN]: model_replay.py must fail with the message.
expect() {
	local name=$1 msg=$2
	shift 2
	if ! tools/trace/model_replay.py "$@" > /dev/null 2> "$T/err" && grep -qF -- "$msg" "$T/err"; then
		pass "$name caught: $(head -1 "$T/err")"
	else
		fail "$name not caught (expected '$msg', got '$(head -2 "$T/err")')"
	fi
}
c1=$(tr -d '\r' < "$T/model.log" | sed -n 's/^REPLAY cost_1=//p')
sed "s/^REPLAY cost_1=$c1/REPLAY cost_1=$((c1 + 1))/" "$T/model.log" > "$T/alt.log"
expect "a kmalloc figure one instruction off" "kmalloc: region 22 has" "$T/alt.log" "$T/model.report"
expect "the same against the boot without the model" "the REPLAY lines under the model differ" \
	"$T/alt.log" "$T/model.report" "$T/plain.log"
grep -v "^region id=24 " "$T/model.report" > "$T/noregion.report"
expect "the cache alloc region missing" "cache_alloc: 0 passes through region 24" \
	"$T/model.log" "$T/noregion.report"
expect "a console with no replay under -icount" "is not a one-CPU replay under -icount" \
	"$T/build.log" "$T/model.report"

echo "mtrace: $fails failed"
[ $fails -eq 0 ]
