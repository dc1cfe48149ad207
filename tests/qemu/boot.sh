#!/usr/bin/env bash
# boot.sh NAME ELF TIMEOUT [QEMU options...] - boot checks of one build, either
# arch (from the ELF header; tests/qemu/run.sh boots it with each command line):
#   NAME-boot:  the default boot reports memory and slab state and exits 0
#               (and "smp: N CPUs online", N from -smp N, default 1);
#   NAME-fault: "faulttest", a write to address 8 (unmapped), prints the
#               exception report and QEMU exits non-zero:
#                 x86_64: vector 14, error code, CR2, registers (rip, rax...)
#                 arm64:  data abort, EC 0x25, ESR, FAR, registers (elr, x0...)
#   NAME-no-granule (arm64 16K kernels, 1 CPU): booted on cortex-a72, which
#               has no 16K granule, the kernel says so and fails.
# With -smp N, N > 1, also:
#   NAME-slow-call: "slowcall", on_each_cpu_wait's caller spinning in its own
#                  share with interrupts on, is reported by its own tick when
#                  the call limit (cut to 3 s) passes, and the run fails;
#   NAME-fault-ap: "faulttest-ap", the same fault on the last CPU, is reported
#                  as CPU N-1's;
#   NAME-hang-ap:  "hangtest-ap", the last CPU spinning with interrupts off, is
#                  named by the watchdog (cut to 3 s) with where it was
#                  (x86_64: by NMI, arm64: by FIQ), and the run fails.
#   These three boot at once.
# Prints PASS/FAIL lines; logs in build/test/NAME-*.log.
set -u
name=$1 elf=$2 limit=$3
shift 3
cpus=1
prev=
for a in "$@"; do
	if [ "$prev" = -smp ]; then
		cpus=${a%%,*}
		cpus=${cpus#cpus=}
	fi
	prev=$a
done
here=$(dirname "$0")
mkdir -p build/test

if ! info=$("$here/elfinfo.sh" "$elf"); then
	echo "FAIL $name-boot: $elf is not an x86_64 or arm64 kernel ELF"
	exit 0
fi
arch=${info% *}

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

qemu_opts=("$@")
boot() {	# boot TEST CMDLINE: log in build/test/TEST.log; status is run.sh's
	local test=$1 cmdline=$2
	CMDLINE=$cmdline "$here/run.sh" "$elf" "$limit" "${qemu_opts[@]}" > "build/test/$test.log" 2>&1
}

# The exception report of a write to address 8 on CPU $1 (a regex per line).
fault_report() {
	case $arch in
	x86_64)
		printf '%s\n' "^EXCEPTION 14 \\(#PF page fault\\) on CPU $1: error 0x2 cr2 0x8\$" \
			'^  rip [0-9a-f]{16} ' '^  rax [0-9a-f]{16} ' \
			"^PANIC on CPU $1: unhandled exception 14" ;;
	arm64)
		printf '%s\n' "^EXCEPTION sync on CPU $1: data abort \\(EC 0x25\\) ESR 0x9600004[4-7] FAR 0x0000000000000008\$" \
			'^  elr [0-9a-f]{16}( |$)' '^  x0  [0-9a-f]{16}( |$)' \
			"^PANIC on CPU $1: unhandled exception: " ;;
	esac
}
case $arch in
x86_64) fault_what="page fault reported with vector, error, CR2, registers" nmi=NMI pc=rip ;;
arm64)  fault_what="data abort reported with EC, ESR, FAR, registers" nmi=FIQ pc=elr ;;
esac

test=$name-boot
boot "$test" ""
rc=$?
log=build/test/$test.log
if [ $rc -ne 0 ]; then
	echo "FAIL $test: status $rc (see $log)"
elif check "$test" "$log" '^Memory: [0-9]+ kB available$' \
	'^Node 0, zone   Normal( +[0-9]+)+$' '^slabinfo - version: 2\.1$' \
	'^kmalloc-32 ' '^Slab: +[0-9]+ kB$' "^smp: $cpus CPUs online\$"; then
	echo "PASS $test: memory report, buddyinfo, slabinfo, $cpus CPUs online, exit 0"
fi

test=$name-fault
boot "$test" faulttest
rc=$?
log=build/test/$test.log
if [ $rc -ne 1 ]; then
	echo "FAIL $test: want status 1 (kernel failure), got $rc (see $log)"
else
	mapfile -t pats < <(fault_report 0)
	check "$test" "$log" "${pats[@]}" && echo "PASS $test: $fault_what; exit 1"
fi

# arm64 16K: a CPU without the 16K granule is refused with a message, not left to hang.
if [ "$info" = "arm64 16K" ] && [ "$cpus" -eq 1 ]; then
	test=$name-no-granule
	CPU=cortex-a72 boot "$test" ""
	rc=$?
	log=build/test/$test.log
	if [ $rc -ne 1 ]; then
		echo "FAIL $test: want status 1 (kernel failure) on cortex-a72, got $rc (see $log)"
	elif check "$test" "$log" '^Quarry: this CPU has no 16K translation granule'; then
		echo "PASS $test: a 16K kernel on cortex-a72 says the CPU has no 16K granule; exit 1"
	fi
fi

[ "$cpus" -gt 1 ] || exit 0
last=$((cpus - 1))

# The three failure boots at once (each mostly waits on a time limit): the
# caller of on_each_cpu_wait slow in its own share (interrupts on), reported
# by its own tick at the call limit (cut to 3 s by "slowcall"); a fault on
# the last CPU; the last CPU stuck with interrupts off, named by the
# watchdog (cut to 3 s by "hangtest-ap").
boot "$name-slow-call" slowcall & pid_slow=$!
boot "$name-fault-ap" faulttest-ap & pid_fault=$!
boot "$name-hang-ap" hangtest-ap & pid_hang=$!

test=$name-slow-call
wait $pid_slow
rc=$?
log=build/test/$test.log
if [ $rc -ne 1 ]; then
	echo "FAIL $test: want status 1 (kernel failure), got $rc (see $log)"
elif check "$test" "$log" "^slowcall: CPU 0 spinning in its own share" \
	"^smp: CPU 0 has not finished call 0x[0-9a-f]+ after 3 s \\(reported by its own tick\\)\$" \
	"^PANIC on CPU 0: smp: CPU 0 stuck in a call\$"; then
	echo "PASS $test: the caller's own slow share of on_each_cpu_wait reported at the limit; exit 1"
fi

test=$name-fault-ap
wait $pid_fault
rc=$?
log=build/test/$test.log
if [ $rc -ne 1 ]; then
	echo "FAIL $test: want status 1 (kernel failure), got $rc (see $log)"
else
	mapfile -t pats < <(fault_report $last)
	check "$test" "$log" "${pats[@]}" &&
		echo "PASS $test: fault on CPU $last reported as CPU $last's; exit 1"
fi

test=$name-hang-ap
wait $pid_hang
rc=$?
log=build/test/$test.log
if [ $rc -ne 1 ]; then
	echo "FAIL $test: want status 1 (kernel failure), got $rc (see $log)"
elif check "$test" "$log" "^watchdog: CPU $last has taken no timer tick for 3 s" \
	"^CPU $last was interrupted here \\($nmi\\):\$" "^  $pc [0-9a-f]{16} " \
	"^PANIC on CPU [0-9]+: watchdog: CPU $last stuck\$"; then
	echo "PASS $test: CPU $last stuck with interrupts off named by the watchdog ($nmi); exit 1"
fi
