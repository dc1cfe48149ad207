#!/usr/bin/env bash
# boot.sh NAME ELF TIMEOUT [QEMU options...] - boot checks of one build:
#   NAME-boot:  the default boot reports memory and slab state and exits 0
#               (and "smp: N CPUs online", N from -smp N, default 1);
#   NAME-fault: a write to an unmapped address prints the exception report
#               (vector, error code, CR2, registers) and QEMU exits non-zero.
# With -smp N, N > 1, also:
#   NAME-fault-ap: the same fault on the last CPU is reported as CPU N-1's;
#   NAME-hang-ap:  the last CPU spinning with interrupts off is named by the
#                  watchdog, with where it was, and the run fails.
# Prints PASS/FAIL lines; logs in build/test/.
set -u
name=$1 elf=$2 limit=$3
shift 3
cpus=1
prev=
for a in "$@"; do
	[ "$prev" = -smp ] && cpus=${a%%,*}
	prev=$a
done
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
	'^kmalloc-32 ' '^Slab: +[0-9]+ kB$' "^smp: $cpus CPUs online\$"; then
	echo "PASS $name-boot: memory report, buddyinfo, slabinfo, $cpus CPUs online, exit 0"
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

[ "$cpus" -gt 1 ] || exit 0
last=$((cpus - 1))

iso=build/test/$name-fault-ap.iso
log=build/test/$name-fault-ap.log
"$here/mkiso.sh" "$elf" "$iso" "faulttest-ap" && "$here/run.sh" "$iso" "$limit" "$@" > "$log" 2>&1
rc=$?
if [ $rc -ne 1 ]; then
	echo "FAIL $name-fault-ap: want status 1 (kernel failure), got $rc (see $log)"
elif check "$name-fault-ap" "$log" \
	"^EXCEPTION 14 \\(#PF page fault\\) on CPU $last: error 0x2 cr2 0x8\$" \
	'^  rip [0-9a-f]{16} ' "^PANIC on CPU $last: unhandled exception 14"; then
	echo "PASS $name-fault-ap: page fault on CPU $last reported as CPU $last's; exit 1"
fi

iso=build/test/$name-hang-ap.iso
log=build/test/$name-hang-ap.log
"$here/mkiso.sh" "$elf" "$iso" "hangtest-ap" && "$here/run.sh" "$iso" "$limit" "$@" > "$log" 2>&1
rc=$?
if [ $rc -ne 1 ]; then
	echo "FAIL $name-hang-ap: want status 1 (kernel failure), got $rc (see $log)"
elif check "$name-hang-ap" "$log" "^watchdog: CPU $last has taken no timer tick for [0-9]+ s" \
	"^CPU $last was interrupted here \\(NMI\\):\$" '^  rip [0-9a-f]{16} ' \
	"^PANIC on CPU [0-9]+: watchdog: CPU $last stuck\$"; then
	echo "PASS $name-hang-ap: CPU $last stuck with interrupts off named by the watchdog; exit 1"
fi
