#!/usr/bin/env bash
# numa_test.sh NAME ELF - the NUMA benchmarks' test in `make test` (4K pages,
# either arch): the NUMA section on 2 QEMU nodes and 2 CPUs booted twice under
# -icount (NODES=2 lab/bench/check.sh ... icount: every NUMA row, identical
# figures), then the refusals of a bad NODES: lab/bench/run.sh (make bench),
# lab/bench/numa.sh and check.sh each name it and stop before booting.
# Prints PASS/FAIL lines; exit status 1 on a failure.
set -u
name=$1 elf=$2
here=$(cd "$(dirname "$0")" && pwd)
fails=0
NODES=2 "$here/check.sh" "$name" "$elf" 2 icount || fails=$((fails + 1))

# refused TEST STATUS TEXT COMMAND...: COMMAND must exit STATUS and print TEXT
refused() {
	local test=$1 want=$2 text=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq "$want" ] && grep -qF -- "$text" <<< "$out"; then
		echo "PASS $name-refuses-$test"
	else
		echo "FAIL $name-refuses-$test: status $rc, wanted $want and '$text' in: $(head -2 <<< "$out" | tr '\n' ' ')"
		fails=$((fails + 1))
	fi
}
refused run-nodes-9 2 "bench: NODES must be a NUMA node count from 1 to 8, not '9'" \
	env NODES=9 "$here/run.sh" quick
refused numa-nodes-1 2 "bench: NODES must be 2 to 8 for the NUMA boots, not '1'" \
	"$here/numa.sh" "$name" "$elf" "" build/test 1
refused check-nodes-x 1 "FAIL $name-x: NODES must be 1 to 8, not 'x'" \
	env NODES=x "$here/check.sh" "$name-x" "$elf" 2
exit $((fails > 0))
