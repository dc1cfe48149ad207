#!/bin/bash
# tools/coherence/run.sh - cache-line moves between CPUs per operation, modelled:
# the host workloads (larson, mixed) in lock step under qemu-user with the
# coherence plugin, for each allocator and thread count -> build/coherence/report.md
#
#   make coherence-report [CO_ALLOCATORS=...] [CO_THREADS=2,4,16] [CO_WORKLOADS=larson,mixed]
#                         [CO_SCALE=1] [CO_LIMIT=600]
#
# CO_SCALE is the workloads' --scale (percent of their million operations per
# thread); at 1, 16 threads take 10-60 s a run, SLOB's several minutes (a run
# over CO_LIMIT seconds is left out, and the exit status says so). Needs qemu-user (Debian:
# qemu-user), and the peers' libraries for the peers (lab/bench/host/deps.sh).
set -u
cd "$(dirname "$0")/../.."
OUT=build/coherence
PLUGIN=$OUT/coherence.so
BH=build/bench-host
ALLOCS=${CO_ALLOCATORS:-slab,slub,glibc,jemalloc,tcmalloc,mimalloc,slob-seg,slob}
THREADS=${CO_THREADS:-2,4,16}
WORKLOADS=${CO_WORKLOADS:-larson,mixed}
SCALE=${CO_SCALE:-1}
LIMIT=${CO_LIMIT:-600}
status=0
QEMU=${QEMU_USER:-qemu-x86_64}

die() { echo "coherence: $*" >&2; exit 1; }
command -v "$QEMU" >/dev/null || die "$QEMU not found (Debian: apt-get install qemu-user)"
for n in ${THREADS//,/ }; do
	[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 16 ] ||
		die "CO_THREADS: '$n' is not a thread count from 1 to 16"
done
for w in ${WORKLOADS//,/ }; do
	[[ $w == larson || $w == mixed ]] || die "CO_WORKLOADS: '$w' is not larson or mixed"
done
[[ $SCALE =~ ^[0-9]+$ ]] && [ "$SCALE" -ge 1 ] || die "CO_SCALE: '$SCALE' is not a percentage"
[[ $LIMIT =~ ^[0-9]+$ ]] && [ "$LIMIT" -ge 1 ] || die "CO_LIMIT: '$LIMIT' is not a number of seconds"
# binary_of A: sets bin and args, the program and options that run allocator A.
binary_of() {
	case $1 in
	slab) bin=$BH/workloads-4k-cpus16; args="--allocators quarry --variant slab" ;;
	slub|slob|slob-seg) bin=$BH/workloads-4k-$1-cpus16; args="--allocators quarry --variant $1" ;;
	glibc|jemalloc|tcmalloc|mimalloc|locked) bin=$BH/workloads-4k-cpus16; args="--allocators $1" ;;
	*) die "CO_ALLOCATORS: '$1' is not one of slab, slub, slob, slob-seg, glibc, jemalloc, tcmalloc, mimalloc, locked" ;;
	esac
}
for a in ${ALLOCS//,/ }; do binary_of "$a"; done
mkdir -p $OUT/runs
rm -f $OUT/runs/*.txt

# The program must not re-execute itself (peers.c sets this for jemalloc and
# starts again otherwise; a new exec would leave QEMU).
export GLIBC_TUNABLES=glibc.rtld.optional_static_tls=65536
total=0; for a in ${ALLOCS//,/ }; do for w in ${WORKLOADS//,/ }; do for n in ${THREADS//,/ }; do
	total=$((total + 1)); done; done; done
i=0
for a in ${ALLOCS//,/ }; do
	binary_of "$a"
	[ -x "$bin" ] || die "$bin is missing (make coherence-report builds it)"
	for w in ${WORKLOADS//,/ }; do
		for n in ${THREADS//,/ }; do
			i=$((i + 1))
			f=$OUT/runs/$a-$w-$n.txt
			csv=$OUT/runs/$a-$w-$n.csv
			printf '  [%d/%d] %s %s %s threads ...' $i $total $a $w $n >&2
			t0=$(date +%s)
			rm -f "$csv"
			timeout "$LIMIT" "$QEMU" -plugin "$PLUGIN,out=$f.raw" "$bin" $args --workloads $w \
				--threads $n --runs 1 --no-warm-each --scale "$SCALE" --lockstep \
				--arena-mb 256 --csv "$csv" > $OUT/runs/$a-$w-$n.log 2>&1
			rc=$?
			if [ $rc = 124 ]; then
				# SLOB's page walks under the plugin can take long: say so, go on.
				echo " over ${LIMIT} s, left out (CO_LIMIT=seconds)" >&2
				rm -f "$f.raw"
				status=1
				continue
			elif [ $rc != 0 ]; then
				echo " failed" >&2
				tail -5 $OUT/runs/$a-$w-$n.log >&2
				die "the run of $a $w $n threads failed (log: $OUT/runs/$a-$w-$n.log)"
			fi
			# The warm-up run and the timed one are both inside the window.
			ops=$(awk -F, '{s += $7} END {print 2 * s}' "$csv")
			{ echo "run allocator=$a workload=$w threads=$n ops=$ops"; cat "$f.raw"; } > "$f"
			rm -f "$f.raw"
			echo " $(( $(date +%s) - t0 )) s" >&2
		done
	done
done
python3 tools/coherence/report.py $OUT/report.md $OUT/runs/*.txt || exit 1
exit $status
