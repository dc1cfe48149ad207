#!/usr/bin/env bash
# check.sh NAME ELF SMP - the test `make test` runs on the benchmark mode, on
# either arch and either allocator (SLAB's build/<arch>-<page>/quarry.elf or
# SLUB's build/<arch>-<page>-slub/quarry.elf: the same rows are expected):
# boot ELF (tests/qemu/run.sh) with the command line "bench quick" at
# -smp SMP, and PASS when the run reaches its end and its output parses into
# every expected CSV row of one configuration (tests/bench/parse.py --check).
# Timings are never judged. Log in build/test/NAME.log. Exit status 0 for
# PASS, 1 for FAIL.
set -u
name=$1 elf=$2 smp=$3
mkdir -p build/test
log=build/test/$name.log
here=$(dirname "$0")
CMDLINE="bench quick" "$here/../qemu/run.sh" "$elf" 300 -m 1G -smp "$smp" > "$log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	echo "FAIL $name: benchmark boot ended with status $rc (see $log)"
	exit 1
elif out=$(python3 "$here/parse.py" --check "$log"); then
	echo "PASS $name: ran to the end; $(echo "$out" | tail -1 | sed 's/^parse.py: [^:]*: //')"
else
	echo "FAIL $name: $(echo "$out" | head -3 | tr '\n' ' ')"
	exit 1
fi
