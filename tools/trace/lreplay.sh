#!/usr/bin/env bash
# lreplay.sh - make replay's Linux half (LINUX=1): the converted trace
# replayed inside every Linux kernel `make bench-linux` built for ARCH
# (build/linux/linux<ver>-<alloc>-<arch>-<page>/: its kbuild/ tree and
# kernel.img) whose allocator and page size make replay was asked for
# (SLOB-seg's is Linux's SLOB), by lab/linux/replay/replay.sh, on one CPU
# under -icount. Each one's summary and samples land in OUT/linux-ARCH/ as
# linux<ver>-<alloc>-<page>.summary and .csv, where report_replay.py puts
# them beside Quarry's one-CPU kernel replays. ARCHS may name x86_64 and
# arm64 (make replay's ARCH=all: both); replay.sh takes each kernel's arch
# and page size from its .config. Then, as Quarry's kernel replay does, on
# the trace's CPUs (at most 8; SMP=n says how many) into OUT/linux-ARCH-smp/,
# beside Quarry's replays on as many CPUs: on the arches in LINUX_SMP_ARCHES
# (default both; an arch left out is said as "not measured"; Linux 6.1 on
# x86_64 brings its other CPUs up from /init, lab/linux/replay/replay.sh). MODEL=1: each kernel's one-CPU
# replay booted twice more under the cache model (replay.sh MODEL_REPORT=),
# paired with its figures by tools/trace/model_replay.py into
# OUT/linux-ARCH-model/linux<ver>-<alloc>-<page>.model, where report_replay.py
# puts it beside Quarry's kernel-ARCH-model/ rows.
#
#   tools/trace/lreplay.sh TRACE.qtr OUT ARCHS ALLOCS PAGE_SIZES
#
# Exit status 1, with a message, when no kernel was built for what was
# asked (run make bench-linux first) or a replay failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
[ $# -eq 5 ] || { echo "usage: lreplay.sh TRACE.qtr OUT ARCHS ALLOCS PAGE_SIZES" >&2; exit 2; }
QTR=$1 OUT=$2 ARCHS=$3 ALLOCS=$4 PAGES_LIST=$5
status=0
tcpus=$(python3 -c 'import struct, sys; print(struct.unpack_from("<I", open(sys.argv[1], "rb").read(20), 16)[0])' "$QTR") ||
	{ echo "lreplay: $QTR: cannot read its header" >&2; exit 1; }
smp=${SMP:-$((tcpus < 8 ? tcpus : 8))}
# Each result folder names the trace it replayed and whether caches merged
# (replay.sh keeps it for that trace and that MERGE).
trace_sum=$(sha256sum < "$QTR" | cut -d' ' -f1)
case $smp in [1-8]) ;; *) echo "lreplay: SMP=$smp: the Linux replay runs on 1 to 8 CPUs" >&2; exit 1 ;; esac
# stamp DIR: the result folder DIR names its trace and its merging.
stamp() {
	echo "$trace_sum" > "$1/trace.sha256"
	echo "${MERGE:-1}" > "$1/merge"
}
if [ "${MODEL:-}" = 1 ]; then
	make --no-print-directory -s ARCH=x86_64 PAGE_SIZE=4K ALLOC=slab cachemodel > "$OUT/linux-model-build.log" 2>&1 ||
		{ echo "lreplay: the cache model's plugin does not build (see $OUT/linux-model-build.log)" >&2; exit 1; }
fi

# lmodel NAME D BASE PLAIN_DIR: NAME's one-CPU replay (kernel dir D) twice under
# the cache model, paired with the figures of the plain replay in PLAIN_DIR;
# keys in OUT/linux-ARCH-model/BASE.model. Status 1, said, on a failure.
lmodel() {
	local name=$1 d=$2 base=$3 plain=$4 dm=$OUT/linux-$arch-model t0=$SECONDS tname
	tname=$(basename "$QTR" .qtr)
	mkdir -p "$dm"
	stamp "$dm"
	rm -f "$dm/$base.model"
	if ! MODEL_REPORT="$dm/$name/model.report" PAGES=${PAGES:-0} BOOTS=2 lab/linux/replay/replay.sh \
		"$QTR" "$d/kbuild" "$d/kernel.img" "$dm/$name" > "$dm/$name.out" 2>&1; then
		tail -3 "$dm/$name.out" | sed 's/^/  /'
		echo "lreplay: $name: the replay under the cache model failed (see $dm/$name.out)" >&2
		return 1
	fi
	if ! tools/trace/model_replay.py "$dm/$name/console.log" "$dm/$name/model.report" \
		"$plain/console.log" > "$dm/$base.model"; then
		echo "lreplay: $name: the model's counts do not pair with the figures (above)" >&2
		return 1
	fi
	{
		echo "model_seconds=$((SECONDS - t0))"
		sed -n 's/^boot_seconds=/plain_seconds=/p' "$plain/$tname.summary" | head -1
		sed -n 's/^model_identical=/model_identical=/p' "$dm/$name/$tname.summary" | head -1
	} >> "$dm/$base.model"
	echo "lreplay: $name: cache model: both reports identical, figures as without it ($((SECONDS - t0)) s)"
}
for arch in ${ARCHS//,/ }; do
	want=()
	for a in ${ALLOCS//,/ }; do
		[ "$a" = slob-seg ] && a=slob
		for p in ${PAGES_LIST//,/ }; do
			for d in build/linux/linux*-"$a"-"$arch"-"$p"; do
				[ -f "$d/kbuild/.config" ] && [ -f "$d/kernel.img" ] && want+=("$d")
			done
		done
	done
	mapfile -t want < <(printf '%s\n' "${want[@]}" | sort -u | grep .)
	if [ ${#want[@]} -eq 0 ]; then
		echo "lreplay: no Linux kernel built for $arch with ${ALLOCS} at ${PAGES_LIST}: run make bench-linux first" >&2
		status=1
		continue
	fi
	dir=$OUT/linux-$arch
	mkdir -p "$dir"
	stamp "$dir"
	i=0
	for d in "${want[@]}"; do
		i=$((i + 1))
		name=$(basename "$d")			# linux61-slub-x86_64-4K
		ver=${name%%-*} rest=${name#*-}
		alloc=${rest%%-*} page=${name##*-}
		echo "lreplay: [$i/${#want[@]}] $name: replaying on one CPU under -icount"
		if PAGES=${PAGES:-0} BOOTS=${BOOTS:-2} lab/linux/replay/replay.sh "$QTR" "$d/kbuild" \
			"$d/kernel.img" "$dir/$name" > "$dir/$name.out" 2>&1; then
			base=$(basename "$QTR" .qtr)
			cp "$dir/$name/$base.summary" "$dir/$ver-$alloc-$page.summary"
			cp "$dir/$name/$base.csv" "$dir/$ver-$alloc-$page.csv"
			echo "lreplay: [$i/${#want[@]}] $name: $(grep -a '^replay: accounting' "$dir/$name/console.log" | head -1)"
			if [ "${MODEL:-}" = 1 ]; then
				echo "lreplay: [$i/${#want[@]}] $name: under the cache model, two boots"
				lmodel "$name" "$d" "$ver-$alloc-$page" "$dir/$name" || status=1
			fi
			[ "$smp" -gt 1 ] || continue
			case " ${LINUX_SMP_ARCHES:-x86_64 arm64} " in
			*" $arch "*) ;;
			*) echo "lreplay: [$i/${#want[@]}] $name on $smp CPUs: not measured ($arch is not in LINUX_SMP_ARCHES)"
				continue ;;
			esac
			ds=$OUT/linux-$arch-smp
			mkdir -p "$ds"
			stamp "$ds"
			echo "lreplay: [$i/${#want[@]}] $name: replaying on $smp CPUs under -icount"
			if CPUS=$smp PAGES=${PAGES:-0} BOOTS=${BOOTS:-2} lab/linux/replay/replay.sh "$QTR" "$d/kbuild" \
				"$d/kernel.img" "$ds/$name" > "$ds/$name.out" 2>&1; then
				cp "$ds/$name/$base.summary" "$ds/$ver-$alloc-$page.summary"
				cp "$ds/$name/$base.csv" "$ds/$ver-$alloc-$page.csv"
				echo "lreplay: [$i/${#want[@]}] $name on $smp CPUs: $(grep -a '^replay: accounting' "$ds/$name/console.log" | head -1)"
			else
				tail -3 "$ds/$name.out" | sed 's/^/  /'
				echo "lreplay: $name on $smp CPUs: the replay failed (see $ds/$name.out)" >&2
				status=1
			fi
		else
			tail -3 "$dir/$name.out" | sed 's/^/  /'
			echo "lreplay: $name: the replay failed (see $dir/$name.out)" >&2
			status=1
		fi
	done
done
exit $status
