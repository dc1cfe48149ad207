#!/usr/bin/env bash
# profile.sh - where Quarry's time goes on the host workloads (workloads.c), for
# the engineers who shorten its fast paths. Called by `make bench-host-profile`
# after the binaries are built (bench-host-build, and the SLAB_STATS=1 builds in
# $OUT/../bench-host-stats).
#
# For SLAB and SLUB, each workload (larson, mixed, prodcons) at 1 and 2 threads,
# Quarry alone, in its own process (one warm-up and one timed run):
#   1. perf record -e cpu-clock over the timed run only (a software clock: this machine's PMU may be
#      hidden, as in most VMs; a sample lands on the instruction after the one
#      the CPU was waiting for when the timer fired, so a stalled load shows as
#      samples on its consumer), then perf report by symbol and perf annotate of
#      kmalloc and kfree (the fast paths are inlined into them);
#   2. the same run in the SLAB_STATS=1 build with --stats: how many allocations
#      and frees took the fast path.
# profile_report.py sums it up in $OUT/profile/profile.md.
#
# Environment: OUT (build/bench-host), PROF_SCALE (100: workloads' default size),
# PROF_FREQ (10000 samples a second).
set -euo pipefail

OUT=${OUT:-build/bench-host}
STATS=${STATS_OUT:-build/bench-host-stats}
SCALE=${PROF_SCALE:-100}
FREQ=${PROF_FREQ:-10000}
HERE=$(cd "$(dirname "$0")" && pwd)
P="$OUT/profile"

if ! command -v perf >/dev/null 2>&1; then
	echo "bench-host-profile: no perf (Debian: linux-perf); as root: apt-get install -y linux-perf" >&2
	exit 1
fi
export GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.rtld.optional_static_tls=65536"
rm -rf "$P"
mkdir -p "$P"

for tag in 4k 4k-slub; do
	variant=slab
	[ "$tag" = 4k-slub ] && variant=slub
	# The functions of mm/ (to tell Quarry's own samples from the workload's).
	nm --defined-only "$OUT"/obj-"$tag"/mm/*.o | awk '$2 ~ /[tT]/ { print $3 }' | sort -u \
		> "$P/mm-symbols-$tag.txt"
	for wl in larson mixed prodcons; do
		for t in 1 2; do
			name="$variant-$wl-$t"
			echo "bench-host-profile: $name"
			args=(--variant "$variant" --allocators quarry --workloads "$wl" --threads "$t"
			      --runs 1 --scale "$SCALE")
			# Events on only in the timed run (workloads.c writes to perf's
			# control fifo around it): not the set-up nor the warm-up.
			rm -f "$P/ctl.fifo" "$P/ack.fifo"
			mkfifo "$P/ctl.fifo" "$P/ack.fifo"
			WL_PERF_CTL="$P/ctl.fifo,$P/ack.fifo" perf record -q -e cpu-clock -F "$FREQ" -D -1 \
				--control "fifo:$P/ctl.fifo,$P/ack.fifo" -o "$P/perf-$name.data" \
				"$OUT/workloads-$tag" "${args[@]}" > "$P/console-$name.log" 2>&1
			rm -f "$P/ctl.fifo" "$P/ack.fifo"
			perf report -i "$P/perf-$name.data" --no-children --sort symbol --stdio \
				--percent-limit 0.1 2> /dev/null > "$P/report-$name.txt"
			for fn in kfree kmalloc; do
				perf annotate -i "$P/perf-$name.data" --stdio --no-source -s "$fn" \
					2> /dev/null > "$P/annotate-$name-$fn.txt" || true
			done
			"$STATS/workloads-$tag-stats" "${args[@]}" --stats > "$P/stats-$name.txt" 2>&1
		done
	done
done
python3 "$HERE/../report.py" profile --dir "$P" > "$P/profile.md"
echo "bench-host-profile: $P/profile.md"
