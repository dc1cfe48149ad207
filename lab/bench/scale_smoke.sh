#!/usr/bin/env bash
# scale_smoke.sh - make test's check of `make bench-scale` (lab/bench/scale.sh):
# its host half at 1 and 2 threads on a tiny scale, into a scratch directory,
# then that the report has every allocator's row at both counts for each
# workload, the contention table, and that bad settings are refused with a
# message. The kernel half is left out (make test boots the benchmark mode
# elsewhere). Prints PASS/FAIL lines; exits 1 on any FAIL. About 15 s once the
# workloads are built (lab/bench/host/smoke.sh builds them).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=build/test/bench-scale-smoke
rm -rf "$out"
mkdir -p build/test
fails=0
pass() { echo "PASS bench-scale: $*"; }
fail() {
	echo "FAIL bench-scale: $*"
	fails=$((fails + 1))
}

if OUT=$out SCALE_THREADS=1,2 SCALE_RUNS=1 SCALE_PCT=2 SCALE_PROFILE_PCT=5 SCALE_KERNEL=0 lab/bench/scale.sh \
	> "$out.log" 2>&1; then
	pass "host half at 1 and 2 threads ran (report in $out)"
else
	fail "lab/bench/scale.sh failed (see $out.log)"
fi
rep=$out/report.md
# The profile (perf's cpu-clock) of SLAB and SLUB, where perf is installed and allowed.
if perf record -q -e cpu-clock -o /dev/null true > /dev/null 2>&1 ||
	perf record -q -e cpu-clock:u -o /dev/null true > /dev/null 2>&1; then
	missing=
	for a in SLAB SLUB; do
		for wl in larson mixed; do
			for n in 1 2; do
				grep -Eq "^\| $a \| $wl \| $n \| [0-9]+ \| [^|(]+ [0-9.]+%" "$rep" 2>/dev/null ||
					missing+=" $a/$wl/$n"
			done
		done
	done
	if [ -z "$missing" ]; then
		pass "profile: perf's largest shares for SLAB and SLUB, larson and mixed, 1 and 2 threads"
	else
		fail "profile: no row of shares for:$missing (see $rep, $out/profile)"
	fi
elif grep -q "perf is missing or refused for slab-larson-1 .*: the workloads sample it themselves" \
	"$out.log" && grep -Eq "^\| SLAB \| larson \| 1 \| [0-9]+ \| [^|(]+ [0-9.]+%" "$rep"; then
	pass "profile: perf is missing or refused here; the run says so and the workloads sampled themselves"
else
	fail "profile: no perf here, and no self-sampled rows or no note (see $out.log, $rep)"
fi
# The workloads' own sampler (--sample), used where perf cannot run: SLAB's larson at two
# threads must put most samples in the workload and the allocator, and the report must
# read its file as a profile row.
smp=$out-sample
rm -rf "$smp"
mkdir -p "$smp/profile"
if build/bench-host/workloads-4k --allocators quarry --workloads larson --threads 2 --runs 1 \
	--scale 20 --sample "$smp/profile/sample-slab-larson-2.txt" > "$smp/log" 2>&1; then
	n=$(sed -n 's/^# workloads --sample: .* samples \([0-9]*\),.*/\1/p' "$smp/profile/sample-slab-larson-2.txt")
	top=$(awk '$3 ~ /^(quarry_larson|kmalloc|kfree)$/ {s += $1} END {printf "%d", s}' \
		"$smp/profile/sample-slab-larson-2.txt")
	python3 lab/bench/report_scale.py --dir "$smp" > /dev/null 2>&1
	if [ "${n:-0}" -ge 100 ] && [ "$top" -ge 50 ] &&
		grep -Eq "^\| SLAB \| larson \| 2 \| $n \| [^|]*quarry_larson [0-9.]+%" "$smp/report.md"; then
		pass "--sample: $n samples, $top% in quarry_larson, kmalloc and kfree, read as a profile row"
	else
		fail "--sample: $n samples, $top% in the workload and the allocator (see $smp)"
	fi
else
	fail "--sample: the run failed (see $smp/log)"
fi
rm -rf "$smp"
# The counters (perf stat): a row per allocator, workload and count, hardware events
# where the machine has a PMU, else the note that it has none.
if perf stat -e task-clock -o /dev/null true > /dev/null 2>&1; then
	missing=
	for a in SLAB SLUB; do
		for wl in larson mixed; do
			for n in 1 2; do
				sed -n '/^### Counters per operation/,/^##/p' "$rep" 2>/dev/null |
					grep -Eq "^\| $a \| $wl \| $n \| [0-9.]+ \|" || missing+=" $a/$wl/$n"
			done
		done
	done
	if [ -z "$missing" ]; then
		pass "counters: CPU ns per operation for SLAB and SLUB, larson and mixed, 1 and 2 threads"
	else
		fail "counters: no row for:$missing (see $rep, $out/profile)"
	fi
elif grep -q "no counters of slab-larson-1: perf is missing or refused" "$out.log"; then
	pass "counters: perf is missing or refused here, and the run says so"
else
	fail "counters: no perf here, and the run did not say it left the counters out (see $out.log)"
fi
# The counters' arithmetic on a machine with a PMU, from perf stat -x, output as
# perf 6.1 writes it (this machine may have none): 2,000,000 operations, task-clock
# 30 ms, 40,000,000 instructions, 60,000,000 cycles, a cache-miss count not supported,
# 1,000,000 dTLB load misses.
fake=$out-counters
rm -rf "$fake"
mkdir -p "$fake/profile"
printf '%s\n' '# started on Fri Nov 27 02:48:51 2026' '' \
	'30.00,msec,task-clock,30000000,100.00,1.900,CPUs utilized' \
	'60000000,,cycles,30000000,100.00,2.000,GHz' \
	'40000000,,instructions,30000000,100.00,0.67,insn per cycle' \
	'<not supported>,,cache-misses,0,100.00,,' \
	'1000000,,dTLB-load-misses,30000000,100.00,,' \
	'3,,context-switches,30000000,100.00,0.100,K/sec' > "$fake/profile/stat-slab-mixed-2.csv"
echo 'slab,2,mixed,1,15000000,30000000,2000000' > "$fake/profile/ops-slab-mixed-2.csv"
python3 lab/bench/report_scale.py --dir "$fake" > /dev/null 2>&1
if grep -Eq '^\| SLAB \| mixed \| 2 \| 15\.00 \| 20\.00 \| 30\.00 \| - \| n/s \| - \| 0\.50 \| 0\.00 \| - \| 0\.67 \|$' \
	"$fake/report.md" 2>/dev/null; then
	pass "counters: per operation from perf stat's output (15 CPU ns, 20 instructions, 30 cycles, n/s, 0.5 dTLB misses, IPC 0.67)"
else
	fail "counters: canned perf stat output not read as expected (see $fake/report.md)"
fi
rm -rf "$fake"
# The kernel half's report for both arches, from canned figures (make test boots the
# kernels elsewhere): x86_64's SLUB at 200 and 300 ns per pair on 1 and 2 vCPUs, arm64's
# at 250 and 500; arm64's test 3a with all CPUs twice as slow as one; its counting
# SLUB's events for kmalloc-64 over 20,000 pairs (348 node locks, 20 barn locks).
fake=$out-kernel
rm -rf "$fake"
mkdir -p "$fake/logs"
printf '%s\n' slub,1,64,100,100,1000000 slub,2,64,150,150,1000000 \
	arm64-slub,1,64,120,130,1000000 arm64-slub,2,64,200,300,1000000 > "$fake/kernel.csv"
echo 'BENCH arch=arm64 page=4K alloc=slub cpus=2 mode=realtime test=atomic_probe size=1 cpus=2 alone_cost=39 all_cost=78 ratio_x100=200 unit=cycles' \
	> "$fake/logs/kernel-arm64-slub-smp2.log"
printf '%s\n' '  events over the last run on 2 CPUs, 20000 kmallocs and as many kfrees:' \
	'  kmalloc-64        alloc fast 0 slow 0 retry 0; free fast 0 slow 953 retry 0; page cmpxchg 1577; locks node 348 barn 20; node lock waited 5 times, 11 turns; allocs 20000' \
	'  page allocator: zone lock waited 2 times, 3 turns' > "$fake/logs/kernel-arm64-slub-stats-smp2.log"
echo 'arches=x86_64,arm64' > "$fake/meta.txt"
python3 lab/bench/report_scale.py --dir "$fake" > /dev/null 2>&1
krep=$fake/report.md
if grep -q '^## The kernel under QEMU MTTCG (x86_64, arm64;' "$krep" 2>/dev/null &&
	sed -n '/^### Kernel SLUB (x86_64) under MTTCG/,/^###/p' "$krep" | grep -q '^| 64 | 200\.0 | 300\.0 (1\.33x) |$' &&
	sed -n '/^### Kernel SLUB (arm64) under MTTCG/,/^###/p' "$krep" | grep -q '^| 64 | 250\.0 | 500\.0 (1\.00x) |$' &&
	grep -q '^| SLUB (arm64) | 2 | - | 39 / 78 (2\.00x) | - |$' "$krep" &&
	grep -Eq '^\| arm64 \| 64 \| 2 \| 17\.4 \| 1\.0 \| 78\.[89] \|' "$krep"; then
	pass "kernel report: x86_64's and arm64's tables, arm64's test 3a and events apart"
else
	fail "kernel report: canned x86_64 and arm64 figures not read as expected (see $krep)"
fi
rm -rf "$fake"
for wl in larson mixed prodcons; do
	missing=
	for a in SLAB SLUB SLOB SLOB-seg glibc+lock; do
		re=$(sed 's/[+.]/\\&/g' <<< "$a")
		sed -n "/^### $wl:/,/^###/p" "$rep" 2>/dev/null |
			grep -Eq "^\| $re \| [0-9.]+ \| [0-9.]+ \([0-9.]+x\) \|$" || missing+=" $a"
	done
	if [ -z "$missing" ]; then
		pass "$wl: a row of ns per operation at 1 and 2 threads for every allocator"
	else
		fail "$wl: no row at 1 and 2 threads for:$missing (see $rep)"
	fi
done
if grep -Eq '^\| mixed \| SLOB-seg \| [0-9.]+ / [0-9.]+ / [0-9.]+ \| [0-9.]+ / [0-9.]+ / [0-9.]+ \|$' "$rep" 2>/dev/null; then
	pass "the contention table has spin turns, faults and switches per 1000 operations"
else
	fail "no contention row for SLOB-seg on mixed in $rep"
fi

check_refused() {	# check_refused WHAT EXPECTED ENV...
	local what=$1 expect=$2 msg
	shift 2
	msg=$(env "$@" OUT=$out-bad SCALE_KERNEL=0 lab/bench/scale.sh 2>&1 >/dev/null)
	if [ $? -ne 0 ] && grep -qF "$expect" <<< "$msg"; then
		pass "$what refused: $(grep -F "$expect" <<< "$msg" | head -1)"
	else
		fail "$what not refused with '$expect' (said: $msg)"
	fi
}
check_refused "SCALE_THREADS=1,x" "'x' is no count" SCALE_THREADS=1,x
check_refused "SCALE_THREADS=65" "at most 64 threads" SCALE_THREADS=65
check_refused "SCALE_PROFILER=gprof" "auto, perf or self" SCALE_PROFILER=gprof
check_refused "SCALE_COUNTERS=cycles,,x" "perf event names separated by commas" SCALE_COUNTERS=cycles,,x
check_refused "SCALE_ARCHES=x86" "'x86' is no arch" SCALE_ARCHES=x86
msg=$(WL_SPINS_PER_YIELD=0 build/bench-host/workloads-4k --allocators quarry --workloads mixed \
	--threads 1 --runs 1 --scale 1 2>&1 >/dev/null)
if [ $? -ne 0 ] && grep -q "WL_SPINS_PER_YIELD wants a number from 1" <<< "$msg"; then
	pass "WL_SPINS_PER_YIELD=0 refused: $msg"
else
	fail "WL_SPINS_PER_YIELD=0 not refused (said: $msg)"
fi
rm -rf "$out-bad"
exit $((fails > 0))
