#!/usr/bin/env bash
# make-options.sh - bad build options are refused by make itself, before
# anything is built, with one line naming the option and what it accepts.
# Prints PASS/FAIL lines.
set -u
cd "$(dirname "$0")/.."

refuse() {	# refuse NAME PATTERN MAKE-ARGS...: make -n must fail, saying PATTERN
	local name=$1 pat=$2 out rc
	shift 2
	out=$(make -n "$@" kernel 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && echo "$out" | grep -qE -- "$pat"; then
		echo "PASS make-options-$name: 'make $*' refused: $(echo "$out" | grep -E -- "$pat" | head -1 | sed 's/.*\*\*\* //')"
	else
		echo "FAIL make-options-$name: 'make $*' gave status $rc and: $(echo "$out" | head -2 | tr '\n' ' ')"
	fi
}

refuse arch "ARCH must be x86_64 or arm64, not 'riscv'" ARCH=riscv
refuse page-size "PAGE_SIZE must be 4K, 16K \\(arm64 only\\) or 64K, not '8K'" PAGE_SIZE=8K
refuse x86-16k "PAGE_SIZE=16K is not available on x86_64" PAGE_SIZE=16K
refuse arm64-16k-cpu "PAGE_SIZE=16K needs a CPU with the 16K granule: CPU=cortex-a72 has none" \
	ARCH=arm64 PAGE_SIZE=16K CPU=cortex-a72
refuse opt "OPT must be 2 \\(-O2, the default\\) or g \\(-Og, for stepping\\), not '3'" OPT=3
