#!/usr/bin/env bash
# boot.sh NAME ELF TIMEOUT [QEMU options...] - boot checks of one build:
#   NAME-boot:  the default boot reports memory and slab state and exits 0;
#   NAME-fault: a write to an unmapped address prints the exception report
#               (vector, error code, CR2, registers) and QEMU exits non-zero.
# Prints PASS/FAIL lines; logs in build/test/.
set -u
name=$1 elf=$2 limit=$3
shift 3
here=$(dirname "$0")
mkdir -p build/test

check() {	# check TEST LOG PATTERN...: every pattern must be in the log
	local test=$1 log=$2
	shift 2
	for pat in "$@"; do
		if ! tr -d '\r' < "$log" | grep -qE -- "$pat"; then
			echo "FAIL $test: no line matching '$pat' (see $log)"
			return 1
		fi
	done
	return 0
}

iso=build/test/$name-boot.iso
log=build/test/$name-boot.log
"$here/mkiso.sh" "$elf" "$iso" "" && "$here/run.sh" "$iso" "$limit" "$@" > "$log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	echo "FAIL $name-boot: status $rc (see $log)"
elif check "$name-boot" "$log" '^Memory: [0-9]+ kB available$' \
	'^Node 0, zone   Normal( +[0-9]+)+$' '^slabinfo - version: 2\.1$' \
	'^kmalloc-32 ' '^Slab: +[0-9]+ kB$'; then
	echo "PASS $name-boot: memory report, buddyinfo and slabinfo printed, exit 0"
fi

iso=build/test/$name-fault.iso
log=build/test/$name-fault.log
"$here/mkiso.sh" "$elf" "$iso" "faulttest" && "$here/run.sh" "$iso" "$limit" "$@" > "$log" 2>&1
rc=$?
if [ $rc -ne 1 ]; then
	echo "FAIL $name-fault: want status 1 (kernel failure), got $rc (see $log)"
elif check "$name-fault" "$log" '^EXCEPTION 14 \(#PF page fault\) on CPU 0: error 0x2 cr2 0x8$' \
	'^  rip [0-9a-f]{16} ' '^  rax [0-9a-f]{16} ' '^PANIC on CPU 0: unhandled exception 14'; then
	echo "PASS $name-fault: page fault reported with vector, error, CR2, registers; exit 1"
fi
