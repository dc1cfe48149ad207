#!/usr/bin/env bash
# run-all.sh - everything `make test` runs, ending with one line
# "N passed, N failed" over all suites; exit status 1 on any failure.
#   host unit tests (ASan+UBSan) at 4K and 64K pages
#   in-kernel self-tests under QEMU at 4K and 64K pages, on 1 CPU and on
#     2 and 4 CPUs (and 8 at 4K pages), the CPUs in parallel host threads
#   boot checks (memory report, exception report) at 4K and 64K pages, on
#     1 CPU and on 4 (there also: a fault and a hang on another CPU name it)
# SMP_LIST="N..." (`make test SMP=N`) replaces those CPU counts with its own.
#   the benchmark mode runs to its end and parses into every CSV row
#   the dependency step as a user who is not root
#   the GDB stepping test
# Every QEMU run has a time limit; a hang or crash is a failure.
set -u
cd "$(dirname "$0")/.."
mkdir -p build/test
out=build/test/results.txt
: > "$out"
jobs=${JOBS:-2}
smp_list=${SMP_LIST:-}

suite() {	# suite TITLE COMMAND...: run, show and collect PASS/FAIL lines
	local title=$1
	shift
	echo "== $title"
	"$@" 2>&1 | tee -a "$out" | grep -E '^(PASS|FAIL) ' || true
}

build() {	# build PAGE_SIZE: the kernel and its ISOs; a build failure is a test failure
	if ! make --no-print-directory -j"$jobs" PAGE_SIZE=$1 iso > build/test/build-$1.log 2>&1; then
		tail -20 build/test/build-$1.log
		echo "FAIL build-x86_64-$1: make PAGE_SIZE=$1 failed (see build/test/build-$1.log)" | tee -a "$out"
		return 1
	fi
}

for ps in 4K 64K; do
	tag=$(echo "$ps" | tr K k)
	suite "host unit tests, $ps pages (ASan+UBSan)" \
		make --no-print-directory -j"$jobs" test-host PAGE_SIZE=$ps
	if build $ps; then
		dir=build/x86_64-$tag
		suite "in-kernel self-tests, x86_64 $ps pages" \
			tests/qemu/selftest.sh kernel-x86_64-$tag $dir/quarry-test.iso 300 -m 256M
		for n in ${smp_list:-2 4 $([ $ps = 4K ] && echo 8)}; do
			[ "$n" -gt 1 ] || continue
			suite "in-kernel self-tests, x86_64 $ps pages, $n CPUs" \
				tests/qemu/selftest.sh kernel-x86_64-$tag-smp$n $dir/quarry-test.iso 300 \
				-m 256M -smp $n
		done
		suite "boot checks, x86_64 $ps pages" \
			tests/qemu/boot.sh x86_64-$tag $dir/quarry.elf 120 -m 256M
		for n in ${smp_list:-4}; do
			[ "$n" -gt 1 ] || continue
			suite "boot checks, x86_64 $ps pages, $n CPUs" \
				tests/qemu/boot.sh x86_64-$tag-smp$n $dir/quarry.elf 120 -m 256M -smp $n
		done
		suite "benchmark mode runs and parses, x86_64 $ps pages, 2 CPUs" \
			tests/bench/check.sh bench-x86_64-$tag $dir/quarry.elf 2
	fi
done
suite "dependency step (scripts/deps.sh)" tests/deps-test.sh
suite "GDB stepping through kmain" \
	tests/gdb/stepping.sh gdb-x86_64-4k build/x86_64-4k/quarry.elf build/x86_64-4k/quarry.iso

passed=$(grep -c '^PASS ' "$out")
failed=$(grep -c '^FAIL ' "$out")
echo
if [ "$failed" -ne 0 ]; then
	echo "Failures:"
	grep '^FAIL ' "$out"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
