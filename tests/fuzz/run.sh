#!/usr/bin/env bash
# run.sh - the allocator fuzzer (tests/fuzz/fuzz.h) over every allocator and
# page size, as `make fuzz` and `make test` run it.
#
#   tests/fuzz/run.sh fuzz SECONDS   (make fuzz FUZZ_SECONDS=)
#       every configuration (ALLOCS x PAGE_SIZES) for about SECONDS of wall
#       time in all, JOBS at once: runs of up to CHUNK seconds each, new
#       seeds from FUZZ_SEED (default: from the clock, printed); each
#       configuration's runs in turn sequential, threaded (4 CPUs), on a
#       24 MiB arena where memory really runs out, threaded with faults.
#       Prints every finding with the command that reproduces it (logs in
#       build/fuzz/findings/), the operations per configuration and per
#       page size, and ends with exactly one line
#           fuzz: N operations, M findings
#       Exit status 0 when M is 0.
#   tests/fuzz/run.sh slice          (tests/run-all.sh)
#       the fixed-seed slice: per allocator and page size a sequential run
#       (seed 1, 400000 operations) and a threaded one (seed 2, 4 CPUs,
#       350000), a run with faults injected (seed 3, 200000, sequential,
#       page allocations failing 1 in 20 and slab allocations 1 in 10 of
#       every third call) and a threaded one on a 24 MiB arena, where memory
#       runs out (seed 4, 200000); at 4K also a threaded run on 2 NUMA nodes
#       (seed 5, 200000, --nodes 2: CPUs 0-1 on node 0, 2-3 on node 1); then
#       the fuzzer's own checks shown to fail (--plant 1..3 at 4K with SLAB)
#       and bad node counts refused (--nodes 9, QUARRY_NODES=0). One PASS or
#       FAIL line per run; JOBS runs at once.
#
# A run that crashes (ASan, UBSan, panic), hangs (killed 60 s past its
# time) or ends without its summary line is a finding too.
#
# Environment: ALLOCS="slab slub slob slob-seg", PAGE_SIZES="4K 64K", JOBS=2,
# FUZZ_SEED=, CHUNK= (seconds per run, default SECONDS * JOBS / (4 * configurations), at least 5),
# SLAB_DEBUG=1 (fuzz the debug builds).
set -u
cd "$(dirname "$0")/../.." || exit 1
mode=${1:-fuzz}
seconds=${2:-60}
allocs=${ALLOCS:-slab slub slob slob-seg}
pages=${PAGE_SIZES:-4K 64K}
jobs=${JOBS:-2}
out=build/fuzz
mkdir -p "$out/findings" "$out/runs"
case $mode in fuzz | slice) ;; *) echo "usage: run.sh fuzz SECONDS | slice" >&2; exit 2 ;; esac
case $seconds in '' | *[!0-9]*) echo "run.sh: FUZZ_SECONDS must be a number of seconds, not '$seconds'" >&2; exit 2 ;; esac

shift_of() { case $1 in 4K) echo 12 ;; 16K) echo 14 ;; 64K) echo 16 ;; *) echo "run.sh: page size '$1'" >&2; exit 2 ;; esac; }

# Build every configuration first (a build failure is a failure of its own).
configs=()
for ps in $pages; do
	for a in $allocs; do
		log=$out/build-$a-$ps.log
		if ! make --no-print-directory -s -j"$jobs" -f tests/fuzz/fuzz.mk PAGE_SHIFT="$(shift_of "$ps")" \
			ALLOC="$a" ${SLAB_DEBUG:+SLAB_DEBUG=1} > "$log" 2>&1; then
			tail -20 "$log"
			echo "FAIL fuzz-build-$a-$ps: the fuzzer does not build (see $log)"
			[ "$mode" = fuzz ] && echo "fuzz: 0 operations, 1 findings"
			exit 1
		fi
		bin=$(make --no-print-directory -s -f tests/fuzz/fuzz.mk PAGE_SHIFT="$(shift_of "$ps")" \
			ALLOC="$a" ${SLAB_DEBUG:+SLAB_DEBUG=1} print-bin)
		configs+=("$a $ps $bin")
	done
done

# one_run NAME BIN TIMEOUT FAULTS ARGS...: run the fuzzer once; print
# "ops findings" on stdout, and on a finding its report and the log's name.
one_run() {
	local name=$1 bin=$2 limit=$3 faults=$4 log rc line ops found
	shift 4
	log=$out/runs/$name.log
	if [ "$faults" = 1 ]; then
		QUARRY_FAIL_PAGE_ALLOC=1,5,-1,11 QUARRY_FAILSLAB=3,10,-1,13 \
			timeout "$limit" "$bin" "$@" > "$log.console" 2> "$log"
	else
		timeout "$limit" "$bin" "$@" > "$log.console" 2> "$log"
	fi
	rc=$?
	line=$(grep '^fuzz-run: ' "$log" | tail -1)
	ops=$(sed -n 's/.*: \([0-9]*\) operations, .*/\1/p' <<< "$line")
	found=$(sed -n 's/.* operations, \([0-9]*\) findings.*/\1/p' <<< "$line")
	ops=${ops:-0} found=${found:-0}
	if [ $rc -ne 0 ] || [ -z "$line" ] || [ "$found" != 0 ]; then
		[ "$found" = 0 ] && found=1
		cp "$log" "$out/findings/$name.log"
		cp "$log.console" "$out/findings/$name.console"
		{
			echo "finding in $name (exit status $rc$([ $rc = 124 ] && echo ': hung, killed'))" \
				"$([ "$faults" = 1 ] && echo "with QUARRY_FAIL_PAGE_ALLOC=1,5,-1,11 QUARRY_FAILSLAB=3,10,-1,13")"
			grep -E '^FINDING|ERROR: AddressSanitizer|runtime error|PANIC|BUG' "$log" "$log.console" | head -5
			echo "  command: $bin $*"
			echo "  logs: $out/findings/$name.log, .console"
		} >&2
	fi
	rm -f "$log" "$log.console"
	echo "$ops $found"
}

# slice_run A PS BIN KIND SEED NOPS FAULTS: one run of the slice; its PASS or
# FAIL line (after the finding's report) on stdout.
slice_run() {
	local a=$1 ps=$2 bin=$3 kind=$4 seed=$5 nops=$6 faults=$7 args t0 res ops found
	args=(--seed "$seed" --cpus 4 --ops "$nops")
	[ "$kind" = threads ] && args+=(--threads)
	# Sequential, so that make test's result repeats (make fuzz
	# runs the small arena threaded too).
	[ "$kind" = oom ] && args+=(--arena 24)
	[ "$kind" = nodes2 ] && args+=(--threads --nodes 2)
	t0=$SECONDS
	res=$(one_run "slice-$a-$ps-$kind" "$bin" 600 "$faults" "${args[@]}" 2> "$out/runs/report-$a-$ps-$kind.txt")
	read -r ops found <<< "$res"
	if [ "$found" = 0 ] && [ "$ops" -ge "$nops" ]; then
		echo "PASS fuzz-$a-$ps-$kind: seed $seed, $ops operations, 0 findings ($((SECONDS - t0)) s)"
	else
		cat "$out/runs/report-$a-$ps-$kind.txt"
		echo "FAIL fuzz-$a-$ps-$kind: seed $seed, $ops operations, $found findings"
	fi
	rm -f "$out/runs/report-$a-$ps-$kind.txt"
}

if [ "$mode" = slice ]; then
	# JOBS runs at once, each into its own file; printed in the slice's order.
	failed=0 i=0 running=0
	for cfg in "${configs[@]}"; do
		read -r a ps bin <<< "$cfg"
		runs=("seq 1 400000 0" "threads 2 350000 0" "faults 3 200000 1" "oom 4 200000 0")
		[ "$ps" = 4K ] && runs+=("nodes2 5 200000 0")
		for run in "${runs[@]}"; do
			read -r kind seed nops faults <<< "$run"
			if [ $running -ge "$jobs" ]; then
				wait -n
				running=$((running - 1))
			fi
			slice_run "$a" "$ps" "$bin" "$kind" "$seed" "$nops" "$faults" > "$out/runs/slice-$i.txt" &
			running=$((running + 1)) i=$((i + 1))
		done
	done
	wait
	for ((k = 0; k < i; k++)); do
		cat "$out/runs/slice-$k.txt"
		grep -q '^FAIL ' "$out/runs/slice-$k.txt" && failed=1
		rm -f "$out/runs/slice-$k.txt"
	done
	# the checks themselves: each planted fault must be found
	bin=$(make --no-print-directory -s -f tests/fuzz/fuzz.mk PAGE_SHIFT=12 ALLOC=slab print-bin)
	if [ -x "$bin" ]; then
		for p in 1 2 3; do
			what=("" "a flipped byte" "an overlap" "a leaked allocation")
			if "$bin" --seed 1 --ops 100000 --plant $p > /dev/null 2> "$out/runs/plant.txt"; then
				echo "FAIL fuzz-plant-$p: ${what[$p]} planted and not found"
				failed=1
			elif grep -q '^FINDING' "$out/runs/plant.txt"; then
				echo "PASS fuzz-plant-$p: ${what[$p]} planted and found"
			else
				tail -3 "$out/runs/plant.txt"
				echo "FAIL fuzz-plant-$p: the run failed without a finding"
				failed=1
			fi
		done
		# bad node counts: refused before any run, naming the value and where it came from
		for bad in "--nodes 9|quarry-fuzz: --nodes=9: not a NUMA node count from 1 to 8" \
			"QUARRY_NODES=0|host: QUARRY_NODES=0: not a NUMA node count from 1 to 8"; do
			arg=${bad%%|*} want=${bad#*|}
			if [ "${arg#--}" != "$arg" ]; then
				"$bin" --ops 10 $arg > /dev/null 2> "$out/runs/nodes.txt"
			else
				env "$arg" "$bin" --ops 10 > /dev/null 2> "$out/runs/nodes.txt"
			fi
			rc=$?
			if [ $rc = 2 ] && grep -qxF -- "$want" "$out/runs/nodes.txt"; then
				echo "PASS fuzz-bad-nodes ($arg): refused, status 2: $want"
			else
				echo "FAIL fuzz-bad-nodes ($arg): status $rc and: $(head -2 "$out/runs/nodes.txt" | tr '\n' ' ')"
				failed=1
			fi
		done
		rm -f "$out/runs/nodes.txt"
	fi
	exit $failed
fi

# make fuzz: JOBS workers, each cycling through its share of the configurations.
base=${FUZZ_SEED:-$(( $(date +%s) % 1000000 * 1000 ))}
n=${#configs[@]}
chunk=${CHUNK:-$(( seconds * jobs / (n * 4) ))}
[ "$chunk" -lt 5 ] && chunk=5
echo "fuzz: ${seconds} s over ${n} configurations ($allocs; $pages), $jobs at once, runs of up to ${chunk} s, seeds from $base"
end=$((SECONDS + seconds))
worker() {	# worker W: configurations W, W+jobs, ...; "cfgindex ops findings" lines
	local w=$1 i=$1 k=0 left seed kind faults args t t0 extra=1 mode
	local m=$(((n - w + jobs - 1) / jobs))	# configurations in this worker's cycle
	while :; do
		# a run takes its --seconds plus start-up and the final accounting
		# (extra, as the last run took): it must end by the deadline
		left=$((end - SECONDS - extra))
		[ $left -lt 1 ] && break
		t=$((left < chunk ? left : chunk))
		read -r a ps bin <<< "${configs[$i]}"
		seed=$((base + w * 100000 + k))
		args=(--seed "$seed" --cpus 4 --seconds "$t")
		# each configuration's successive runs: sequential, threaded, on a
		# small arena where memory runs out, threaded with faults injected
		mode=$(((k / m + k % m) % 4))
		kind=seq faults=0
		[ $((mode % 2)) = 1 ] && { args+=(--threads); kind=threads; }
		[ $mode = 3 ] && faults=1
		[ $mode = 2 ] && { args+=(--arena 24); kind=$kind-oom; }
		t0=$SECONDS
		echo "$i $(one_run "$a-$ps-$kind-$seed" "$bin" $((chunk + 60)) "$faults" "${args[@]}")"
		extra=$((SECONDS - t0 - t))
		[ $extra -lt 1 ] && extra=1
		k=$((k + 1))
		i=$((i + jobs))
		[ $i -ge $n ] && i=$w
	done
}
for ((w = 0; w < jobs && w < n; w++)); do
	worker $w > "$out/runs/worker$w.txt" &
done
wait
cat "$out"/runs/worker*.txt > "$out/runs/all.txt"
total_ops=0 total_found=0
declare -A ps_ops=()
for ((i = 0; i < n; i++)); do
	read -r a ps bin <<< "${configs[$i]}"
	read -r ops found runs <<< "$(awk -v i=$i '$1 == i { o += $2; f += $3; r++ } END { print o + 0, f + 0, r + 0 }' "$out/runs/all.txt")"
	printf 'fuzz: %-8s %-3s pages: %10d operations in %d runs, %d findings\n' "$a" "$ps" "$ops" "$runs" "$found"
	total_ops=$((total_ops + ops)) total_found=$((total_found + found))
	ps_ops[$ps]=$(( ${ps_ops[$ps]:-0} + ops ))
done
for ps in $pages; do
	printf 'fuzz: %s pages: %d operations\n' "$ps" "${ps_ops[$ps]:-0}"
done
echo "fuzz: $total_ops operations, $total_found findings"
[ "$total_found" -eq 0 ]
