#!/usr/bin/env bash
# check.sh NAME ELF SMP [icount] - the test `make test` runs on the benchmark
# mode, on either arch and either allocator (SLAB's build/<arch>-<page>/quarry.elf
# or SLUB's build/<arch>-<page>-slub/quarry.elf: the same rows are expected):
# boot ELF (tests/qemu/run.sh) with the command line "bench quick" at
# -smp SMP, and PASS when the run reaches its end and its output parses into
# every expected CSV row of one configuration (lab/bench/parse.py --check).
# Timings are never judged. Log in build/test/NAME.log.
# With icount: boot twice with "bench icount quick" under QEMU -icount
# shift=0,sleep=off (all CPUs round-robin in one host thread, as `make bench`'s
# multi-CPU -icount mode runs them), check the first boot as above, and PASS
# only if the two boots' BENCH lines, the multi-CPU figures
# (test=concurrent_span) among them, are identical (parse.py --compare);
# logs build/test/NAME-1.log and NAME-2.log.
# With NODES=N (2 to 8) in the environment: the machine has N NUMA nodes
# (scripts/numa-flags.sh) and the command line adds "numaonly": the NUMA
# section alone (lab/bench_numa.c), whose rows parse.py --check then expects.
# Exit status 0 for PASS, 1 for FAIL.
set -u
name=$1 elf=$2 smp=$3 icount=${4:-} cmp=
mkdir -p build/test
here=$(dirname "$0")
nodes=${NODES:-1} numa=() only=
case $nodes in
1) ;;
[2-8]) read -r -a numa <<< "$("$here/../../scripts/numa-flags.sh" "$nodes" "$smp" 1024)"; only=" numaonly" ;;
*) echo "FAIL $name: NODES must be 1 to 8, not '$nodes'"; exit 1 ;;
esac
if [ "$icount" != icount ]; then
	log=build/test/$name.log
	CMDLINE="bench quick$only" "$here/../../tests/qemu/run.sh" "$elf" 300 -m 1G -smp "$smp" "${numa[@]}" \
		> "$log" 2>&1
	rc=$?
else
	log=build/test/$name-1.log
	for r in 1 2; do
		CMDLINE="bench icount quick$only" "$here/../../tests/qemu/run.sh" "$elf" 600 -m 1G -smp "$smp" \
			"${numa[@]}" -icount shift=0,sleep=off > "build/test/$name-$r.log" 2>&1
		rc=$?
		[ $rc -ne 0 ] && { log=build/test/$name-$r.log; break; }
	done
fi
if [ $rc -ne 0 ]; then
	echo "FAIL $name: benchmark boot ended with status $rc (see $log)"
	exit 1
elif ! out=$(python3 "$here/parse.py" --check "$log"); then
	echo "FAIL $name: $(echo "$out" | head -3 | tr '\n' ' ')"
	exit 1
fi
crc=0
[ "$icount" = icount ] && { cmp=$(python3 "$here/parse.py" --compare "$log" "build/test/$name-2.log"); crc=$?; }
if [ $crc -ne 0 ]; then
	echo "FAIL $name: the two -icount boots differ: $cmp"
	exit 1
else
	echo "PASS $name: ran to the end; $(echo "$out" | tail -1 | sed 's/^parse.py: [^:]*: //')${cmp:+; $cmp}"
fi
