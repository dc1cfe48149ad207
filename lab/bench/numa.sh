#!/usr/bin/env bash
# numa.sh NAME ELF CPU OUT NODES - `make bench NODES=N`'s NUMA boots (lab/bench/run.sh
# calls it for each allocator's natural build when NODES > 1): boot ELF with
# "bench icount quick numaonly" (the NUMA section alone, lab/bench_numa.c) on
# a QEMU machine of NODES nodes (scripts/numa-flags.sh) and NODES CPUs (at
# least 2, one a node), 1 GiB, under -icount shift=0,sleep=off, twice: the
# two boots' BENCH lines must be identical (parse.py --compare) and the first
# must have every NUMA row (parse.py --check). With MODEL set, the same boot
# twice more with the cache model given the same nodes (nodes=, ram=;
# tools/cachemodel/README.md): the reports must be identical, the BENCH lines
# those of the boot without the model, and tools/cachemodel/numa_bench.py
# pairs them into OUT/logs/NAME-numa-model.csv (report_numa.py reads it).
# Logs: OUT/logs/NAME-numa-{1,2}.log, NAME-numa-model-{1,2}.{log,report}.
# Exit status 1 on a failed boot, a difference or missing rows; 2 on bad arguments.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.." || exit 1
if [ $# -ne 5 ]; then
	echo "usage: lab/bench/numa.sh NAME ELF CPU OUT NODES" >&2
	exit 2
fi
name=$1 elf=$2 cpu=$3 out=$4 nodes=$5
case $nodes in [2-8]) ;; *) echo "bench: NODES must be 2 to 8 for the NUMA boots, not '$nodes'" >&2; exit 2 ;; esac
smp=$nodes
mib=1024
flags=$(scripts/numa-flags.sh "$nodes" "$smp" $mib)
status=0
log=$out/logs/$name-numa
for r in 1 2; do
	echo "== $name: $nodes NUMA nodes, $smp CPUs, -icount, run $r of 2"
	# shellcheck disable=SC2086 # $flags: QEMU options, one word each
	CPU=$cpu CMDLINE="bench icount quick numaonly" tests/qemu/run.sh "$elf" 600 -m ${mib}M -smp $smp \
		$flags -icount shift=0,sleep=off > "$log-$r.log" 2>&1 ||
		{ echo "   boot failed (see $log-$r.log)"; exit 1; }
done
if cmp=$(python3 lab/bench/parse.py --compare "$log-1.log" "$log-2.log"); then
	echo "   $cmp"
else
	echo "   NOT deterministic: $cmp"
	status=1
fi
python3 lab/bench/parse.py --check "$log-1.log" > "$log-check.txt" || {
	echo "   rows missing: $(head -3 "$log-check.txt" | tr '\n' ' ')"
	status=1
}
[ -n "${MODEL:-}" ] || exit $status
make -s cachemodel || exit 1
for r in 1 2; do
	echo "== $name: $nodes NUMA nodes, -icount, with the cache model (nodes=$nodes), run $r of 2"
	# shellcheck disable=SC2086
	MODEL_ARGS=entries=on,nodes=$nodes,ram=${mib}M${MODEL_ARGS:+,$MODEL_ARGS} CPU=$cpu \
		CMDLINE="bench icount quick numaonly" tools/cachemodel/run.sh "$elf" 900 \
		"$log-model-$r.report" -m ${mib}M -smp $smp $flags -icount shift=0,sleep=off \
		> "$log-model-$r.log" 2>&1 || { echo "   boot failed (see $log-model-$r.log)"; exit 1; }
done
if cmp -s "$log-model-1.report" "$log-model-2.report"; then
	echo "   model deterministic: both reports identical"
else
	echo "   model NOT deterministic: $log-model-{1,2}.report differ"
	status=1
fi
a=$(grep '^BENCH ' "$log-1.log" | tr -d '\r')
b=$(grep '^BENCH ' "$log-model-1.log" | tr -d '\r')
if [ "$a" != "$b" ]; then
	echo "   the cache model changed the BENCH figures (it must not):"
	diff <(echo "$a") <(echo "$b") | head -6
	status=1
fi
tools/cachemodel/numa_bench.py "$log-model-1.log" "$log-model-1.report" "$name" \
	> "$out/logs/$name-numa-model.csv" || { echo "   the model's NUMA table for $name did not pair up"; status=1; }
echo "   local and remote, modelled: $out/logs/$name-numa-model.csv"
exit $status
