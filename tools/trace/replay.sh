#!/usr/bin/env bash
# replay.sh - make replay: a recorded trace (text from
# tools/trace/record.sh, plain, .gz or .xz, or a converted Quarry trace)
# replayed through each allocator at each page size on the host, then, for
# each arch asked, inside the kernel (tools/trace/kreplay.sh), then the report.
#
#   tools/trace/replay.sh TRACE [ALLOCS] [PAGE_SIZES] [ARCHS]
#     ALLOCS      comma list of slab, slub, slob, slob-seg (default all four)
#     PAGE_SIZES  comma list of 4K, 16K, 64K (default all three)
#     ARCHS       x86_64, arm64, a comma list of both, or "all": the kernel
#                 half on those arches (default none: the host alone); SMP=n
#                 in the environment, its CPUs (default the trace's)
#   Environment: PAGES=1 replays the page events too (replay --pages);
#     LINUX=1 replays it in the Linux kernels make bench-linux built, too
#     (tools/trace/lreplay.sh: Linux's own allocators beside Quarry's);
#     MERGE=0 makes a cache for each of the trace's caches (default: caches
#     merged, slab_merge, as Linux merges them by default: the comparison's
#     terms); PASSES=N times the fastest of N passes (default 3); ON_FAIL=continue
#     goes past an allocation failure (default stop); ARENA_MB=N sets the
#     memory (default: sized from the trace); OUT=DIR (default
#     build/replay/<trace name>); extra make options for mm/ (SLUB_SHEAVES=0,
#     SLAB_IDX=4) come through the environment as make passes them.
#
# Output in OUT: trace.qtr (the converted trace), per run <alloc>-<page>.csv
# (memory samples), .summary (figures), .log (the allocator's console),
# report.md with the tables, memory.png (matplotlib, where it imports).
# Linux's results of an earlier LINUX=1 run of the same trace are kept.
# Exit status 1 if the trace is refused or a run's accounting is not exact
# or an allocation failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
merge=--merge
[ "${MERGE:-1}" = 0 ] && merge=
export MERGE=${MERGE:-1}

die() {
	echo "replay: $*" >&2
	exit 1
}

TRACE=${1:-}
ALLOCS=${2:-slab,slub,slob,slob-seg}
PAGES_LIST=${3:-4K,16K,64K}
ARCHS=${4:-}
[ "$ARCHS" = all ] && ARCHS=x86_64,arm64
for a in ${ARCHS//,/ }; do
	case $a in x86_64 | arm64) ;; *) die "ARCH '$a': use x86_64, arm64 or all" ;; esac
done
case ${SMP:-1} in [1-9] | [1-9][0-9]) ;; *) die "SMP='$SMP': a CPU count from 1 to 64" ;; esac
[ -n "$TRACE" ] || die "no trace given: make replay TRACE=file [ALLOC=slab,slub] [PAGE_SIZE=4K,64K] [PAGES=1]"
[ -f "$TRACE" ] || die "$TRACE: no such file"
name=$(basename "$TRACE")
name=${name%.xz}
name=${name%.gz}
name=${name%.txt}
name=${name%.qtr}
OUT=${OUT:-build/replay/$name}
mkdir -p "$OUT" || die "cannot make $OUT"
BIN=build/replay/bin

make --no-print-directory -f tools/trace/trace.mk ALLOC=slab PAGE_SHIFT=12 convert > "$OUT/build.log" 2>&1 ||
	{ tail -5 "$OUT/build.log"; die "the converter does not build (see $OUT/build.log)"; }
if [ "$(head -c 8 "$TRACE" | tr -d '\0')" = QUARRYTR ]; then
	cp "$TRACE" "$OUT/trace.qtr"
else
	echo "replay: converting $TRACE"
	$BIN/convert "$TRACE" "$OUT/trace.qtr" > "$OUT/convert.txt" || exit 1
	cat "$OUT/convert.txt"
fi

runs=()
for a in ${ALLOCS//,/ }; do
	case $a in slab | slub | slob | slob-seg) ;; *) die "ALLOC '$a': use slab, slub, slob or slob-seg" ;; esac
	for p in ${PAGES_LIST//,/ }; do
		case $p in 4K) s=12 ;; 16K) s=14 ;; 64K) s=16 ;; *) die "PAGE_SIZE '$p': use 4K, 16K or 64K" ;; esac
		runs+=("$a:$p:$s")
	done
done

status=0
rm -f "$OUT"/*.summary "$OUT"/*.csv "$OUT"/*.stats
i=0
for r in "${runs[@]}"; do
	IFS=: read -r a p s <<< "$r"
	i=$((i + 1))
	echo "replay: [$i/${#runs[@]}] $a $p: building"
	if ! make --no-print-directory -j2 -f tools/trace/trace.mk ALLOC="$a" PAGE_SHIFT="$s" \
		>> "$OUT/build.log" 2>&1; then
		tail -5 "$OUT/build.log"
		die "replay for $a $p does not build (see $OUT/build.log)"
	fi
	tag=$(make --no-print-directory -s -f tools/trace/trace.mk ALLOC="$a" PAGE_SHIFT="$s" \
		-f - print-tag <<< 'print-tag: ; @echo $(RP_TAG)')
	echo "replay: [$i/${#runs[@]}] $a $p: replaying"
	$BIN/replay-"$tag" --variant "$a $p" --progress --passes "${PASSES:-3}" \
		${PAGES:+--pages} $merge ${ON_FAIL:+--on-fail "$ON_FAIL"} ${ARENA_MB:+--arena-mb "$ARENA_MB"} \
		--csv "$OUT/$a-$p.csv" --summary "$OUT/$a-$p.summary" "$OUT/trace.qtr" \
		> "$OUT/$a-$p.log" 2> "$OUT/$a-$p.err"
	rc=$?
	grep -v "^replay $a $p: pass [2-9]" "$OUT/$a-$p.err" | sed 's/^/  /'
	[ $rc -eq 0 ] || { echo "replay: $a $p exited with status $rc (see $OUT/$a-$p.err, .log)"; status=1; }
	# The paths its calls took: once more, one pass, built with the event
	# counters (SLAB_STATS=1; they would cost the timed run its speed).
	if make --no-print-directory -j2 -f tools/trace/trace.mk ALLOC="$a" PAGE_SHIFT="$s" SLAB_STATS=1 \
		>> "$OUT/build.log" 2>&1; then
		$BIN/replay-"$tag"-stats --variant "$a $p" ${PAGES:+--pages} $merge ${ON_FAIL:+--on-fail "$ON_FAIL"} \
			${ARENA_MB:+--arena-mb "$ARENA_MB"} --stats "$OUT/$a-$p.stats" "$OUT/trace.qtr" \
			> /dev/null 2>&1 || echo "replay: $a $p: the counting run failed (no paths in the report)"
	else
		echo "replay: $a $p: the counting build failed (see $OUT/build.log; no paths in the report)"
	fi
done
$BIN/replay-"$tag" --dump "$OUT/trace.qtr" | sed -n '1,4p' > "$OUT/trace-facts.txt"
rm -rf "$OUT"/kernel-*
# Linux's results (OUT/linux-*, from LINUX=1) stay when they replayed this
# very trace (the sum lreplay.sh left beside them) with the same MERGE (its
# 'merge' file; none: from before merging, which booted slab_nomerge):
# Linux does not change with Quarry's code, and they are slow to make.
# LINUX=1 makes them anew.
trace_sum=$(sha256sum < "$OUT/trace.qtr" | cut -d' ' -f1)
for d in "$OUT"/linux-*/; do
	[ -d "$d" ] || continue
	d=${d%/}
	if [ "${LINUX:-}" != 1 ] && [ "$(cat "$d/trace.sha256" 2>/dev/null)" = "$trace_sum" ] &&
		[ "$(cat "$d/merge" 2>/dev/null || echo 0)" = "$MERGE" ]; then
		echo "replay: kept $d: Linux's replay of this same trace (LINUX=1 replays it again)"
	else
		rm -rf "$d"
	fi
done
if [ -n "$ARCHS" ]; then
	echo "replay: the kernel half: $ARCHS"
	tools/trace/kreplay.sh "$OUT/trace.qtr" "$OUT" "$ARCHS" "$ALLOCS" "$PAGES_LIST" || status=1
fi
if [ "${LINUX:-}" = 1 ]; then
	echo "replay: Linux's own allocators, the same trace: ${ARCHS:-x86_64}"
	tools/trace/lreplay.sh "$OUT/trace.qtr" "$OUT" "${ARCHS:-x86_64}" "$ALLOCS" "$PAGES_LIST" ||
		status=1
fi
python3 lab/bench/report.py replay "$OUT" || status=1
echo "replay: report in $OUT/report.md"
exit $status
