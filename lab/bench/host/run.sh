#!/usr/bin/env bash
# run.sh - run the host-native benchmark binaries built by bench-host.mk and
# write $OUT/results.csv and $OUT/report.md. Called by `make bench-host`.
#
# Environment: OUT (build/bench-host), PROCS (5), ROUNDS (7), COUNT (10000), CG_COUNT (1000),
# WL_PROCS (3), WL_RUNS (2), WL_SCALE (50), WL_CG_SCALE (5).
#
# 1. Timed runs, PROCS processes per binary, each with every allocator in turn:
#    bench-4k and bench-64k with all allocators; the SLAB_IDX=4 builds with
#    Quarry only.
# 2. Callgrind (cache simulation on, fixed cache geometry, ASLR off) with
#    CG_COUNT objects per size: bench-4k with every allocator, bench-64k with
#    Quarry and the free list, the SLAB_IDX=4 builds with Quarry. One dump per
#    measured loop.
# 3. The multi-threaded workloads (workloads.c: larson, mixed, prodcons at 1 and 2
#    threads): WL_PROCS processes of SLAB's binary (Quarry SLAB and the four peers)
#    alternating with SLUB's, SLOB's and SLOB-seg's (Quarry alone), WL_RUNS timed runs each after a warm-up
#    and each right after an untimed run of its own,
#    WL_SCALE percent of the default operations; then each at one thread under
#    callgrind (WL_CG_SCALE percent), one dump per workload and allocator.
# 4. report.py turns the rows and dumps into results.csv and report.md.
# Nothing here fails on a timing: only a binary that does not run fails it.
set -euo pipefail

OUT=${OUT:-build/bench-host}
ROUNDS=${ROUNDS:-7}
PROCS=${PROCS:-5}
COUNT=${COUNT:-10000}
CG_COUNT=${CG_COUNT:-1000}
WL_PROCS=${WL_PROCS:-3}
WL_RUNS=${WL_RUNS:-2}
WL_SCALE=${WL_SCALE:-50}
WL_CG_SCALE=${WL_CG_SCALE:-5}
HERE=$(cd "$(dirname "$0")" && pwd)

# jemalloc's initial-exec TLS needs room in glibc's static TLS surplus when dlopen'ed.
export GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.rtld.optional_static_tls=65536"

mkdir -p "$OUT"
rm -f "$OUT"/timed-*.csv "$OUT"/meta-*.txt "$OUT"/results.csv "$OUT"/report.md
rm -rf "$OUT"/cg-* "$OUT"/wlcg-*
rm -f "$OUT"/wl-*.csv "$OUT"/wl-meta-*.txt

start=$(date +%s)
elapsed() { echo "$(( $(date +%s) - start )) s"; }

# timed TAG VARIANT ALLOCATORS: PROCS processes, since each one's address
# layout (ASLR) moves a loop of a few nanoseconds by up to a third; report.py
# takes the median of the processes' medians.
timed() {
	local tag=$1 variant=$2 allocs=$3 p
	echo "bench-host: [$(elapsed)] timed run: bench-$tag (allocators: ${allocs//,/ }), $PROCS processes x $ROUNDS rounds x $COUNT objects"
	for p in $(seq "$PROCS"); do
		"$OUT/bench-$tag" --csv "$OUT/timed-$tag.p$p.csv" --meta "$OUT/meta-$tag.txt" \
			--variant "$variant" --allocators "$allocs" --rounds "$ROUNDS" --count "$COUNT" \
			> "$OUT/console-$tag.log"
	done
}

ALL=slab,glibc,jemalloc,tcmalloc,mimalloc,freelist
timed 4k slab "$ALL"
timed 64k slab "$ALL"
timed 4k-idx4 slab-idx4 slab
timed 64k-idx4 slab-idx4 slab

# Callgrind: the cache geometry is given, not taken from this CPU, so the
# counts are the same on any machine.
CG_CACHE="--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64"
# cg TAG VARIANT ALLOCATORS
cg() {
	local tag=$1 variant=$2 allocs=$3 dir="$OUT/cg-$1"
	echo "bench-host: [$(elapsed)] callgrind: bench-$tag (allocators: ${allocs//,/ }), $CG_COUNT objects per size"
	mkdir -p "$dir"
	setarch "$(uname -m)" -R valgrind --tool=callgrind --cache-sim=yes $CG_CACHE \
		--collect-atstart=no --dump-instr=no --dump-line=no \
		--callgrind-out-file="$dir/callgrind.out" \
		"$OUT/bench-$tag" --callgrind --variant "$variant" --allocators "$allocs" \
		--count "$CG_COUNT" --arena-mb 256 --meta "$dir/meta.txt" \
		> "$dir/console.log" 2> "$dir/valgrind.log" ||
		{ tail -20 "$dir/valgrind.log"; return 1; }
}

if command -v valgrind >/dev/null 2>&1 && grep -q "^callgrind=1" "$OUT/meta-4k.txt"; then
	cg 4k slab "$ALL"
	cg 4k-idx4 slab-idx4 slab
	cg 64k slab slab,freelist
	cg 64k-idx4 slab-idx4 slab
else
	echo "bench-host: no valgrind (or built without <valgrind/callgrind.h>): no instruction counts"
fi

# The workloads: the allocators' processes take turns, so all see the same load.
WL_ALL=quarry,glibc,jemalloc,tcmalloc,mimalloc
WL_OTHERS="slub slob slob-seg"
echo "bench-host: [$(elapsed)] workloads: $WL_PROCS x (workloads-4k: Quarry SLAB and the peers; workloads-4k-{${WL_OTHERS// /,}}), $WL_RUNS runs each, scale $WL_SCALE%"
for p in $(seq "$WL_PROCS"); do
	"$OUT/workloads-4k" --variant slab --allocators "$WL_ALL" --runs "$WL_RUNS" \
		--scale "$WL_SCALE" --csv "$OUT/wl-4k.csv" --meta "$OUT/wl-meta-4k.p$p.txt" \
		> "$OUT/wl-console-4k.log"
	for v in $WL_OTHERS; do
		"$OUT/workloads-4k-$v" --variant "$v" --allocators quarry --runs "$WL_RUNS" \
			--scale "$WL_SCALE" --csv "$OUT/wl-4k-$v.csv" \
			--meta "$OUT/wl-meta-4k-$v.p$p.txt" > "$OUT/wl-console-4k-$v.log"
	done
done

# wlcg TAG VARIANT ALLOCATORS: the workloads at one thread under callgrind.
wlcg() {
	local tag=$1 variant=$2 allocs=$3 dir="$OUT/wlcg-$1"
	echo "bench-host: [$(elapsed)] callgrind: workloads-$tag (allocators: ${allocs//,/ }), one thread, scale $WL_CG_SCALE%"
	mkdir -p "$dir"
	setarch "$(uname -m)" -R valgrind --tool=callgrind --cache-sim=yes $CG_CACHE \
		--collect-atstart=no --dump-instr=yes \
		--callgrind-out-file="$dir/callgrind.out" \
		"$OUT/workloads-$tag" --callgrind --threads 1 --variant "$variant" \
		--allocators "$allocs" --scale "$WL_CG_SCALE" --arena-mb 256 \
		> "$dir/console.log" 2> "$dir/valgrind.log" ||
		{ tail -20 "$dir/valgrind.log"; return 1; }
}
if command -v valgrind >/dev/null 2>&1 && grep -q "^callgrind=1" "$OUT/meta-4k.txt"; then
	wlcg 4k slab "$WL_ALL"
	for v in $WL_OTHERS; do
		wlcg "4k-$v" "$v" quarry
	done
fi

echo "bench-host: [$(elapsed)] report"
python3 "$HERE/../report.py" host --out "$OUT" --procs "$PROCS" --rounds "$ROUNDS" --count "$COUNT" --cg-count "$CG_COUNT"
echo "bench-host: done in $(elapsed): $OUT/report.md, $OUT/results.csv"
