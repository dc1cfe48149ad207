#!/usr/bin/env bash
# check.sh NAME ELF SMP - the test `make test` runs on the benchmark mode:
# boot with "bench quick" at -smp SMP, and PASS when the run reaches its end
# and its output parses into every expected CSV row (tests/bench/parse.py
# --check). Timings are never judged.
set -u
name=$1 elf=$2 smp=$3
mkdir -p build/test
iso=build/test/$name.iso
log=build/test/$name.log
here=$(dirname "$0")
if ! "$here/../qemu/mkiso.sh" "$elf" "$iso" "bench quick"; then
	echo "FAIL $name: could not make the ISO"
	exit 0
fi
"$here/../qemu/run.sh" "$iso" 300 -m 1G -smp "$smp" > "$log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	echo "FAIL $name: benchmark boot ended with status $rc (see $log)"
elif out=$(python3 "$here/parse.py" --check "$log"); then
	echo "PASS $name: ran to the end; $(echo "$out" | tail -1 | sed 's/^parse.py: [^:]*: //')"
else
	echo "FAIL $name: $(echo "$out" | head -3 | tr '\n' ' ')"
fi
