#!/usr/bin/env bash
# selftest.sh NAME IMAGE TIMEOUT [QEMU options...] - boot a kernel that runs
# its self-tests; echo the kernel's PASS/FAIL lines, prefixed with NAME, and
# add a FAIL of our own when the kernel hung, crashed, or its exit status
# disagrees with its own summary. The full log is kept in build/test/NAME.log.
# Exit status 1 when any FAIL line was printed (so make test-kernel fails).
# IMAGE is what tests/qemu/run.sh boots: an ELF of either arch, booted with
# the command line in CMDLINE (default "selftest"), or an x86_64 ISO whose
# default entry runs the self-tests (quarry-test.iso).
set -u
name=$1 image=$2 limit=$3
shift 3
mkdir -p build/test
log=build/test/$name.log
CMDLINE=${CMDLINE:-selftest} "$(dirname "$0")/run.sh" "$image" "$limit" "$@" > "$log" 2>&1
rc=$?
{
	tr -d '\r' < "$log" | grep -E '^(PASS|FAIL) ' | sed "s/^\(PASS\|FAIL\) /\1 $name: /"
	summary=$(tr -d '\r' < "$log" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
	failed=$(echo "$summary" | sed -n 's/.* \([0-9]*\) failed/\1/p')
	if [ -z "$summary" ]; then
		why=$(tr -d '\r' < "$log" | grep -E 'PANIC|EXCEPTION|run.sh:' | head -2 | tr '\n' ' ')
		echo "FAIL $name: kernel did not finish its self-tests (status $rc) ${why:-see $log}"
	elif [ "$failed" = 0 ] && [ $rc -ne 0 ]; then
		echo "FAIL $name: all tests passed but the kernel exited with status $rc"
	elif [ "$failed" != 0 ] && [ $rc -eq 0 ]; then
		echo "FAIL $name: $failed tests failed but QEMU reported success"
	else
		echo "PASS $name: exit status $rc matches '$summary'"
	fi
} > "$log.lines"
cat "$log.lines"
# Any FAIL line, the kernel's or ours, makes the status non-zero (make test-kernel).
! grep -q '^FAIL ' "$log.lines"
