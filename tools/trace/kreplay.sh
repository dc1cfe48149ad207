#!/usr/bin/env bash
# kreplay.sh - make replay's kernel half: a converted trace replayed inside
# Quarry under QEMU (the kernel command "replay", lab/replay.h), the trace
# given as the boot module, through each allocator at each page size.
#
#   tools/trace/kreplay.sh QTR OUT [ARCHS] [ALLOCS] [PAGE_SIZES]
#     QTR         a converted trace (tools/trace/replay.sh converts first)
#     OUT         the report's directory: writes OUT/kernel-<arch>/ (the
#                 -icount boots) and OUT/kernel-<arch>-realtime/ (MTTCG)
#     ARCHS       comma list of x86_64, arm64 (default both)
#     ALLOCS      comma list of slab, slub, slob, slob-seg (default all four)
#     PAGE_SIZES  comma list of 4K, 16K, 64K (default all; 16K on arm64 only)
#   Environment: SMP=n replays on n CPUs (default the trace's CPUs, at most
#     8); MERGE=0 boots without slab_merge (default: caches merged, as
#     Linux's); PAGES=1 replays the page events too; ON_FAIL=continue goes
#     past an allocation failure; MEM= the guest's memory (default sized from the
#     trace's peaks); ICOUNT_BOOTS=N boots each -icount run N times and
#     checks the figures identical (default 2); REALTIME=0 leaves out the
#     real-time MTTCG boot; SEEDS=1 adds the seeds' variants (SLAB with
#     SLAB_IDX=4 as slab-idx4, SLUB with SLUB_SHEAVES=0 as slub-nosheaves,
#     where slab and slub are listed) for the report's seeds' questions;
#     MODEL=1 boots each configuration's one-CPU -icount replay twice more
#     under the cache model (tools/cachemodel/run.sh; MODEL_ARGS= its
#     arguments), checks the two reports identical and the figures those of
#     the boot without it, and pairs each event type's figure with the
#     model's counts (tools/trace/model_replay.py); NODES=N (2 to 8) gives the
#     multi-CPU boots (-icount and real time) N QEMU NUMA nodes
#     (scripts/numa-flags.sh): the kernel prints each traced CPU's node and
#     counts the frees of another node's allocations;
#     other mm/ options come through the environment to make.
#
# Each run's files, in the run's directory: <alloc>-<page>.log (the
# console), .summary (the host replay's keys: peak_object, ops_1, ...,
# and the kernel's cost_T, cost_per_op_x10_T per event type), .csv (the
# memory samples, the host's columns). With SMP above 1, a one-CPU -icount
# boot more in OUT/kernel-<arch>-1cpu/ for the check against the host.
# MODEL=1: OUT/kernel-<arch>-model/<alloc>-<page>.{log,report} and
# .boot2.{log,report} (the two boots), .model (model_replay.py's keys,
# model_identical=, model_seconds= the two boots, plain_seconds= the
# one-CPU -icount boot without the model).
# Exit status 1 if a build, a boot or a run's accounting failed, or two
# -icount boots (or two model reports) differed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

die() {
	echo "kreplay: $*" >&2
	exit 1
}

QTR=${1:-}
OUT=${2:-}
ARCHS=${3:-x86_64,arm64}
ALLOCS=${4:-slab,slub,slob,slob-seg}
PAGES_LIST=${5:-4K,16K,64K}
[ -f "$QTR" ] && [ -n "$OUT" ] || die "usage: kreplay.sh QTR OUT [ARCHS] [ALLOCS] [PAGE_SIZES]"
[ "$(head -c 8 "$QTR" | tr -d '\0')" = QUARRYTR ] || die "$QTR is not a converted trace (convert it first)"
mkdir -p "$OUT" || die "cannot make $OUT"

# The trace's header: CPUs, events, objects, peaks (qtrace.h offsets).
read -r tcpus tpage nev nobj peak_obj peak_req peak_pages < <(python3 - "$QTR" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read(312)
cpus, page = struct.unpack_from('<II', d, 16)
nev, nobj = struct.unpack_from('<QQ', d, 64)
pobj, preq, ppages = struct.unpack_from('<QQQ', d, 216)
print(cpus, page, nev, nobj, pobj, preq, ppages)
EOF
) || die "$QTR: cannot read its header"
smp=${SMP:-$((tcpus < 8 ? tcpus : 8))}
case $smp in [1-9] | [1-9][0-9]) ;; *) die "SMP=$smp: a CPU count from 1 to 64" ;; esac
unset SMP	# make's own (QEMU's CPUs for make run) is not this script's business
nodes=${NODES:-1}
case $nodes in [1-8]) ;; *) die "NODES=$nodes: a NUMA node count from 1 to 8" ;; esac
boots=${ICOUNT_BOOTS:-2}
module_mb=$(( $(stat -c %s "$QTR") >> 20 ))

# The guest's memory at page size $1 (bytes): as the host replay sizes its
# arena, plus the module and the object table, at most 8 GiB.
mem_for() {
	local page=$1 need
	need=$(( peak_req * 4 + peak_obj * 64 + nobj * 8 ))
	if [ -n "${PAGES:-}" ]; then
		local f=$(( page > tpage ? page / tpage : 1 ))
		need=$(( need + peak_pages * f * 2 ))
	fi
	need=$(( need / 1048576 + 192 + module_mb + page / 1024 ))
	[ $need -lt 256 ] && need=256
	[ $need -gt 8192 ] && need=8192
	echo "${MEM:-${need}M}"
}

opts="replay"
[ "${MERGE:-1}" != 0 ] && opts+=" slab_merge"
[ -n "${PAGES:-}" ] && opts+=" replay_pages"
[ -n "${ON_FAIL:-}" ] && opts+=" replay_fail=$ON_FAIL"
limit=$(( 300 + nev / 500 ))

# numa_flags MEM: the QEMU options of NODES nodes for the multi-CPU boots (none on one node)
numa_flags() {
	local mib=${1%[MG]}
	[ "${1: -1}" = G ] && mib=$((mib * 1024))
	[ "$nodes" -gt 1 ] && [ "$smp" -gt 1 ] && scripts/numa-flags.sh "$nodes" "$smp" "$mib"
}

# boot LABEL ELF CMDLINE LOG QEMU-OPTIONS...: one boot with a progress line; its status.
boot() {
	local label=$1 elf=$2 cmd=$3 log=$4 rc
	shift 4
	# (no percentages from a multi-CPU -icount replay: the kernel prints nothing during it)
	[ -t 2 ] && printf '\r%-100s' "kreplay: $label: running" >&2
	CMDLINE="$cmd" MODULE="$QTR" tests/qemu/run.sh "$elf" "$limit" "$@" 2>&1 |
		while IFS= read -r line; do
			printf '%s\n' "$line" >> "$log"
			case $line in
			"replay: "*"% ("*) [ -t 2 ] && printf '\r%-100s' "kreplay: $label: ${line#replay: }" >&2 ;;
			esac
		done
	rc=${PIPESTATUS[0]}
	[ -t 2 ] && printf '\r%-100s\r' "" >&2
	return "$rc"
}

# replay_collect LOG DIR BASE VARIANT: the REPLAY lines as BASE.summary, the samples as BASE.csv.
. tools/trace/collect.sh

if [ "${MODEL:-}" = 1 ]; then
	# (the options of the make that runs this one, lists for make replay, come through MAKEFLAGS)
	make --no-print-directory -s ARCH=x86_64 PAGE_SIZE=4K ALLOC=slab cachemodel >> "$OUT/kernel-build.log" 2>&1 ||
		die "the cache model's plugin does not build (see $OUT/kernel-build.log)"
fi

# model TAG ELF ARCH BASE MEM PLAIN PLAIN_SECS: the one-CPU -icount replay booted twice
# under the cache model; its keys in OUT/kernel-ARCH-model/BASE.model; status 1 on a failure.
model() {
	local tag=$1 elf=$2 arch=$3 base=$4 mem=$5 plain=$6 plain_secs=$7 dm rc b t0 secs=0
	dm=$OUT/kernel-$arch-model
	mkdir -p "$dm"
	rm -f "$dm/$base".*
	for b in 1 2; do
		local sfx=
		[ $b -gt 1 ] && sfx=.boot$b
		[ -t 2 ] && printf '\r%-100s' "kreplay: $tag: under the cache model, boot $b of 2" >&2
		t0=$(date +%s%N)
		CMDLINE="$opts icount" MODULE="$QTR" tools/cachemodel/run.sh "$elf" "$limit" \
			"$dm/$base$sfx.report" -m "$mem" -smp 1 -icount shift=0,sleep=off \
			> "$dm/$base$sfx.log" 2>&1
		rc=$?
		[ -t 2 ] && printf '\r%-100s\r' "" >&2
		secs=$(awk -v s="$secs" -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", s + (b - a) / 1e9 }')
		if [ $rc -ne 0 ]; then
			echo "kreplay: $tag: boot $b under the cache model failed (status $rc, see $dm/$base$sfx.log)"
			return 1
		fi
	done
	if ! tools/trace/model_replay.py "$dm/$base.log" "$dm/$base.report" "$plain" > "$dm/$base.model"; then
		echo "kreplay: $tag: the model's counts do not pair with the figures (above)"
		return 1
	fi
	{
		echo "model_seconds=$secs"
		echo "plain_seconds=$plain_secs"
	} >> "$dm/$base.model"
	if cmp -s "$dm/$base.report" "$dm/$base.boot2.report"; then
		echo "model_identical=2" >> "$dm/$base.model"
		echo "kreplay: $tag: cache model: both reports identical, figures as without it ($secs s for the two boots)"
	else
		echo "model_identical=0" >> "$dm/$base.model"
		echo "kreplay: $tag: cache model: the two reports differ ($dm/$base.report, .boot2.report)"
		return 1
	fi
}

runs=()
for arch in ${ARCHS//,/ }; do
	case $arch in x86_64 | arm64) ;; *) die "ARCH '$arch': use x86_64 or arm64" ;; esac
	for a in ${ALLOCS//,/ }; do
		case $a in slab | slub | slob | slob-seg) ;; *) die "ALLOC '$a': use slab, slub, slob or slob-seg" ;; esac
		for p in ${PAGES_LIST//,/ }; do
			case $p in 4K | 64K) ;; 16K) [ "$arch" = arm64 ] || continue ;;
			*) die "PAGE_SIZE '$p': use 4K, 16K or 64K" ;; esac
			runs+=("$arch:$a:$p:")
			if [ "${SEEDS:-}" = 1 ]; then
				[ "$a" = slab ] && runs+=("$arch:$a:$p:SLAB_IDX=4")
				[ "$a" = slub ] && runs+=("$arch:$a:$p:SLUB_SHEAVES=0")
			fi
		done
	done
done

status=0
i=0
for r in "${runs[@]}"; do
	IFS=: read -r arch a p var <<< "$r"
	case $var in SLAB_IDX=4) name=$a-idx4 ;; SLUB_SHEAVES=0) name=$a-nosheaves ;; *) name=$a ;; esac
	i=$((i + 1))
	secs_first=- secs1=-
	tag="[$i/${#runs[@]}] kernel $arch $name $p"
	echo "kreplay: $tag: building"
	dir=$OUT/kernel-$arch
	mkdir -p "$dir"
	if ! env $var make --no-print-directory -j2 ARCH="$arch" PAGE_SIZE="$p" ALLOC="$a" kernel >> "$OUT/kernel-build.log" 2>&1; then
		tail -5 "$OUT/kernel-build.log"
		echo "kreplay: $tag: does not build (see $OUT/kernel-build.log)"
		status=1
		continue
	fi
	elf=$(env $var make --no-print-directory -s ARCH="$arch" PAGE_SIZE="$p" ALLOC="$a" -f Makefile -f - print-elf \
		<<< 'print-elf: ; @echo $(ELF)')
	pb=$(( ${p%K} * 1024 ))
	mem=$(mem_for $pb)
	base=$name-$p
	rm -f "$dir/$base".*
	for b in $(seq 1 "$boots"); do
		log=$dir/$base.log
		[ "$b" -gt 1 ] && log=$dir/$base.boot$b.log
		rm -f "$log"
		t0=$(date +%s%N)
		# shellcheck disable=SC2046 # the NUMA flags are words
		boot "$tag: -icount boot $b" "$elf" "$opts icount" "$log" -m "$mem" -smp "$smp" \
			$(numa_flags "$mem") -icount shift=0,sleep=off
		rc=$?
		secs=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
		if [ $rc -ne 0 ]; then
			grep -E "^replay: (accounting|trace module|no |event|stopping)" "$log" | head -5 | sed 's/^/  /'
			echo "kreplay: $tag: -icount boot $b failed (status $rc, see $log)"
			status=1
			break
		fi
		if [ "$b" -eq 1 ]; then
			secs_first=$secs
			replay_collect "$log" "$dir" "$base" "$arch $name $p"
			echo "boot_seconds=$secs" >> "$dir/$base.summary"
			echo "kreplay: $tag: -icount on $smp CPU(s), $mem: $(grep -m1 '^replay: accounting exact' "$log" | cut -c9-60)... ($secs s)"
		elif ! diff -q <(grep -a "^REPLAY" "$dir/$base.log") <(grep -a "^REPLAY" "$log") > /dev/null; then
			echo "kreplay: $tag: -icount boot $b gave other figures than boot 1 (diff $dir/$base.log $log)"
			echo "icount_identical=0" >> "$dir/$base.summary"
			status=1
		else
			[ "$b" -eq "$boots" ] && echo "icount_identical=$boots" >> "$dir/$base.summary"
			echo "kreplay: $tag: -icount boot $b: every REPLAY line identical to boot 1"
		fi
	done
	if [ "$smp" -gt 1 ]; then
		d1=$OUT/kernel-$arch-1cpu
		mkdir -p "$d1"
		t0=$(date +%s%N)
		if boot "$tag: -icount on 1 CPU" "$elf" "$opts icount" "$d1/$base.log" -m "$mem" -smp 1 \
			-icount shift=0,sleep=off; then
			secs1=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
			replay_collect "$d1/$base.log" "$d1" "$base" "$arch $name $p"
		else
			echo "kreplay: $tag: the one-CPU -icount boot failed (see $d1/$base.log)"
			status=1
		fi
	fi
	if [ "${MODEL:-}" = 1 ]; then
		if [ "$smp" -gt 1 ]; then
			model "$tag" "$elf" "$arch" "$base" "$mem" "$OUT/kernel-$arch-1cpu/$base.log" "$secs1" || status=1
		else
			model "$tag" "$elf" "$arch" "$base" "$mem" "$dir/$base.log" "$secs_first" || status=1
		fi
	fi
	if [ "${REALTIME:-1}" != 0 ]; then
		dr=$OUT/kernel-$arch-realtime
		mkdir -p "$dr"
		rm -f "$dr/$base".*
		# shellcheck disable=SC2046
		if boot "$tag: real time" "$elf" "$opts" "$dr/$base.log" -m "$mem" -smp "$smp" $(numa_flags "$mem"); then
			replay_collect "$dr/$base.log" "$dr" "$base" "$arch $name $p"
		else
			echo "kreplay: $tag: the real-time boot failed (see $dr/$base.log)"
			status=1
		fi
	fi
done
exit $status
