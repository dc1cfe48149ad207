#!/usr/bin/env bash
# cov.sh - `make fuzz-cov`: coverage-guided fuzzing with libFuzzer on the
# fuzzer's interpreter (tests/fuzz/fuzz_libfuzzer.c), then the line
# coverage of mm/ that the inputs reached, measured with clang's
# source-based coverage (llvm-profdata, llvm-cov).
#
#   tests/fuzz/cov.sh SECONDS [ALLOCS] [PAGE_SIZE]
#
# ALLOCS is one allocator or a comma-separated list (default: all four);
# each gets SECONDS / (number of allocators) of libFuzzer time on one core
# (-max_total_time), its corpus kept in build/fuzz/corpus-<alloc>-<page>/
# (so later runs start from what earlier ones found), its crashes in
# build/fuzz/crashes/. Printed: libFuzzer's last status line per
# allocator, each allocator's mm/ line coverage by file and in total, and
# at the end the coverage of all mm/ files over every allocator run (a
# line counts as covered when any allocator's build ran it):
#   fuzz-cov: mm/ line coverage N.N% (covered of total lines, ALLOCS, PAGE_SIZE)
# Exit status 1 when libFuzzer found a crash (a finding).
set -u
cd "$(dirname "$0")/../.." || exit 1
seconds=${1:-60}
allocs=$(echo "${2:-slab,slub,slob,slob-seg}" | tr ',' ' ')
ps=${3:-4K}
case $ps in 4K) shift_=12 ;; 16K) shift_=14 ;; 64K) shift_=16 ;; *) echo "cov.sh: page size '$ps'" >&2; exit 2 ;; esac
case $seconds in '' | *[!0-9]*) echo "cov.sh: FUZZ_SECONDS must be a number, not '$seconds'" >&2; exit 2 ;; esac
n=$(echo $allocs | wc -w)
per=$((seconds / n))
[ $per -lt 5 ] && per=5
out=build/fuzz
mkdir -p "$out/crashes" "$out/cov"
status=0
lcovs=()
for a in $allocs; do
	log=$out/cov/build-$a.log
	if ! make --no-print-directory -s -j2 -f tests/fuzz/fuzz.mk PAGE_SHIFT=$shift_ ALLOC=$a libfuzzer > "$log" 2>&1; then
		tail -20 "$log"
		echo "fuzz-cov: the libFuzzer build of $a failed (see $log)"
		exit 1
	fi
	bin=$(make --no-print-directory -s -f tests/fuzz/fuzz.mk PAGE_SHIFT=$shift_ ALLOC=$a print-lf-bin)
	corpus=$out/corpus-$a-$(echo $ps | tr K k)
	prof=$out/cov/$a
	rm -rf "$prof"
	mkdir -p "$corpus" "$prof"
	echo "== libFuzzer, $a, $ps pages, $per s"
	LLVM_PROFILE_FILE="$prof/%p.profraw" "$bin" -max_total_time=$per -max_len=4096 -len_control=0 \
		-artifact_prefix="$out/crashes/$a-" -print_final_stats=0 "$corpus" \
		> "$prof/console.txt" 2> "$prof/libfuzzer.txt"
	rc=$?
	grep -E '^#[0-9]+' "$prof/libfuzzer.txt" | tail -1
	if [ $rc -ne 0 ]; then
		grep -E 'FINDING|ERROR|SUMMARY|Test unit written' "$prof/libfuzzer.txt" | head -8
		echo "fuzz-cov: $a: libFuzzer stopped with status $rc: a finding (input in $out/crashes/)"
		status=1
	fi
	llvm-profdata merge -sparse "$prof"/*.profraw -o "$prof/merged.profdata" || exit 1
	srcs=$(ls mm/*.c)
	llvm-cov report "$bin" -instr-profile="$prof/merged.profdata" $srcs 2>/dev/null |
		awk 'BEGIN { printf "%-24s %8s %8s %8s\n", "file", "lines", "missed", "cover" }
		     /\.c / || /^TOTAL/ { printf "%-24s %8s %8s %8s\n", ($1 == "TOTAL" ? "" : "mm/") $1, $8, $9, $10 }'
	llvm-cov export -format=lcov "$bin" -instr-profile="$prof/merged.profdata" $srcs \
		> "$prof/lcov.info" 2>/dev/null
	lcovs+=("$prof/lcov.info")
done
# union over the allocators: a line is covered when any build ran it
python3 - "$allocs" "$ps" "${lcovs[@]}" <<'PY'
import sys
allocs, ps, files = sys.argv[1], sys.argv[2], sys.argv[3:]
lines = {}
for f in files:
    src = None
    for l in open(f):
        l = l.strip()
        if l.startswith('SF:'):
            src = l[3:]
            i = src.find('/mm/')
            src = src[i + 1:] if i >= 0 else src
        elif l.startswith('DA:') and src and src.startswith('mm/'):
            n, c = l[3:].split(',')[:2]
            k = (src, int(n))
            lines[k] = lines.get(k, 0) + int(c)
total = len(lines)
covered = sum(1 for v in lines.values() if v > 0)
print("fuzz-cov: mm/ line coverage %.1f%% (%d of %d lines, %s, %s pages)" %
      (100.0 * covered / max(total, 1), covered, total, allocs.replace(' ', ','), ps))
PY
exit $status
