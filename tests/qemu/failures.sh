#!/usr/bin/env bash
# failures.sh X86_ELF ARM64_ELF - the scripts' failure paths: a run that
# fails must never exit 0. QEMU's own failures (a bad -m or -smp, a missing
# image) give run.sh statuses other than the kernel's 0 and 1; a kernel
# that never finishes its self-tests makes selftest.sh exit non-zero; a bad
# MEM makes `make run` fail; numa.sh refuses a mode it does not know. Prints PASS/FAIL lines; logs in build/test/.
set -u
x86=$1 arm=$2
here=$(dirname "$0")
mkdir -p build/test

expect() {	# expect NAME WANT CMD...: CMD's status must be WANT ("nonzero": any but 0)
	local name=$1 want=$2 log=build/test/failures-$1.log rc
	shift 2
	"$@" > "$log" 2>&1
	rc=$?
	if [ "$want" = nonzero ] && [ $rc -ne 0 ] || [ "$rc" = "$want" ]; then
		echo "PASS failures-$name: status $rc ($(grep -m1 -E 'run.sh:|Error|FAIL' "$log" | cut -c1-90))"
	else
		echo "FAIL failures-$name: want status $want, got $rc (see $log)"
	fi
}

expect missing-image 2 "$here/run.sh" build/test/no-such-image.elf 30
expect x86-bad-mem 3 env CMDLINE= "$here/run.sh" "$x86" 60 -m foo
expect x86-bad-smp 3 env CMDLINE= "$here/run.sh" "$x86" 60 -smp banana
expect arm64-bad-mem 3 env CMDLINE= "$here/run.sh" "$arm" 60 -m foo
expect arm64-bad-smp 3 env CMDLINE= "$here/run.sh" "$arm" 60 -smp banana
expect arm64-ok 0 env CMDLINE= "$here/run.sh" "$arm" 60
expect numa-bad-mode 2 "$here/numa.sh" numa-bad-mode "$arm" quick
expect arm64-kernel-failure 1 env CMDLINE=faulttest "$here/run.sh" "$arm" 60
expect selftest-not-finished nonzero env CMDLINE=faulttest "$here/selftest.sh" failures-st "$arm" 60
expect make-run-bad-mem nonzero make --no-print-directory run ARCH=arm64 MEM=foo TIMEOUT=60

# expect_says NAME WANT TEXT CMD...: as expect, and the output must contain TEXT
expect_says() {
	local name=$1 want=$2 text=$3 log=build/test/failures-$1.log rc
	shift 3
	"$@" > "$log" 2>&1
	rc=$?
	if { [ "$want" = nonzero ] && [ $rc -ne 0 ] || [ "$rc" = "$want" ]; } && grep -qF -- "$text" "$log"; then
		echo "PASS failures-$name: status $rc, says \"$text\""
	else
		echo "FAIL failures-$name: want status $want and \"$text\", got $rc (see $log)"
	fi
}

# run.sh's TCG_THREAD (single or multi; multi cannot go with -icount) is checked before QEMU starts.
expect_says bad-tcg-thread 2 "TCG_THREAD must be single or multi, not 'many'" \
	env TCG_THREAD=many "$here/run.sh" "$x86" 60 -smp 2
expect_says tcg-thread-multi-icount 2 "TCG_THREAD=multi cannot be combined with -icount" \
	env TCG_THREAD=multi "$here/run.sh" "$arm" 60 -icount shift=0
# X86_LOADER (qemu or grub) is checked before QEMU starts; QEMU's loader takes no
# module whose name has a comma (its -initrd separates modules with commas).
expect_says bad-x86-loader 2 "X86_LOADER must be qemu or grub, not 'lilo'" \
	env X86_LOADER=lilo "$here/run.sh" "$x86" 60
expect_says x86-loader-comma-module 2 "QEMU's loader takes no module whose name has a comma" \
	env X86_LOADER=qemu MODULE="$x86,x" "$here/run.sh" "$x86" 60

# Fault injection options (mm/fault_inject.h): a bad value stops the boot
# with the reason, on both arches; make run's CMDLINE reaches the kernel.
expect_says x86-bad-failslab 1 "failslab=1,2: no times (field 3)" \
	env CMDLINE="failslab=1,2" "$here/run.sh" "$x86" 60
expect_says arm64-bad-fail-page-alloc 1 "fail_page_alloc=1,5,x,1: bad times (field 3)" \
	env CMDLINE="fail_page_alloc=1,5,x,1" "$here/run.sh" "$arm" 60
expect_says make-run-cmdline-x86 nonzero "failslab=0,1,1,1: interval must be at least 1" \
	make --no-print-directory run ARCH=x86_64 CMDLINE="failslab=0,1,1,1" TIMEOUT=60
expect_says make-run-cmdline-arm64 nonzero "fail_page_alloc=1,101,1,1: probability is a percentage" \
	make --no-print-directory run ARCH=arm64 CMDLINE="fail_page_alloc=1,101,1,1" TIMEOUT=60
