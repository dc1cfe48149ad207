#!/usr/bin/env bash
# smoke.sh - make test's check of the host workloads (lab/bench/host/workloads.c)
# with each of Quarry's allocators (SLAB, SLUB, SLOB, SLOB-seg): each workload at 1 and 2 threads, a small scale,
# Quarry alone, every object's tag checked; then that the checks can fail (a
# spoiled tag, --plant), and that bad options are refused with a message.
# Prints PASS/FAIL lines (tests/run-all.sh counts them); exits 1 on any FAIL.
# About 2 minutes, most of it building mm/ four times (-O2, no sanitizers).
set -uo pipefail

OUT=${OUT:-build/bench-host}
mkdir -p "$OUT" || exit 1
fails=0
pass() { echo "PASS host workloads: $*"; }
fail() {
	echo "FAIL host workloads: $*"
	fails=$((fails + 1))
}

for alloc in slab slub slob slob-seg; do
	tag=4k
	[ $alloc = slab ] || tag=4k-$alloc
	if ! make --no-print-directory -f lab/bench/host/bench-host.mk BH_VARIANT_BUILD=1 \
		PAGE_SHIFT=12 SLAB_IDX= SLAB_DEBUG= SLAB_GROW_LOCKED= SLAB_STATS= \
		SLAB_FREELIST_HARDENED= SLAB_FREELIST_RANDOM= BH_ALLOC=$alloc BH_OUT="$OUT" \
		"$OUT/workloads-$tag" > "$OUT/smoke-build-$alloc.log" 2>&1; then
		tail -5 "$OUT/smoke-build-$alloc.log"
		fail "$alloc: the workloads do not build"
		continue
	fi
	bin="$OUT/workloads-$tag"
	# 1. Every workload, 1 and 2 threads: no allocation fails, no tag is overwritten.
	if "$bin" --variant $alloc --allocators quarry --runs 1 --scale 2 --arena-mb 128 \
		> "$OUT/smoke-$alloc.log" 2>&1; then
		pass "$alloc: larson, mixed, prodcons at 1 and 2 threads, every object's tag intact"
	else
		tail -5 "$OUT/smoke-$alloc.log"
		fail "$alloc: a workload failed (see above)"
	fi
	# 2. A spoiled tag is caught and fails the run, naming the allocator and workload.
	"$bin" --variant $alloc --allocators quarry --workloads larson,prodcons --threads 2 \
		--runs 1 --scale 1 --arena-mb 128 --plant 50 > "$OUT/smoke-plant-$alloc.log" 2>&1
	rc=$?
	if [ $rc -eq 1 ] && grep -q "workloads: $alloc, larson, thread .*: object .*: first 8 bytes overwritten" \
		"$OUT/smoke-plant-$alloc.log" && grep -q "workloads: $alloc, prodcons, 2 threads: 1 objects with bad tags" \
		"$OUT/smoke-plant-$alloc.log"; then
		pass "$alloc: a spoiled tag (--plant) fails the run and is named"
	else
		tail -5 "$OUT/smoke-plant-$alloc.log"
		fail "$alloc: a spoiled tag was not reported as expected (exit $rc)"
	fi
done

# 3. Bad options: a message naming the option and the value, exit 2, nothing run.
bin="$OUT/workloads-4k"
if [ -x "$bin" ]; then
	for bad in "--threads 0" "--scale x" "--runs 0" "--plant -1"; do
		# shellcheck disable=SC2086
		msg=$("$bin" $bad 2>&1 >/dev/null)
		rc=$?
		if [ $rc -eq 2 ] && { echo "$msg" | grep -q -- "${bad%% *}"; }; then
			pass "'$bad' refused: $msg"
		else
			fail "'$bad': exit $rc, message '$msg'"
		fi
	done
fi
# 4. Started through the dynamic loader run explicitly (as a bundle starts it), without
# GLIBC_TUNABLES: the re-exec that raises glibc's static TLS for jemalloc must run the
# loader again with its own options, and the run must go through.
loader=$(ldd "$bin" 2>/dev/null | awk '/ld-linux/ { print ($3 ~ /^\// ? $3 : $1) }')
if [ -x "$bin" ] && [ -n "$loader" ]; then
	msg=$(env -u GLIBC_TUNABLES "$loader" "$bin" --allocators quarry --workloads mixed \
		--threads 1 --runs 1 --scale 1 --csv /dev/stdout 2>&1)
	if [ $? -eq 0 ] && grep -q '^slab,1,mixed,1,' <<< "$msg"; then
		pass "started through $loader without GLIBC_TUNABLES: the re-exec keeps the loader and the options"
	else
		fail "started through $loader without GLIBC_TUNABLES: $(tail -2 <<< "$msg")"
	fi
fi
[ $fails -eq 0 ]
