#!/usr/bin/env bash
# test.sh X86_ELF [ARM64_ELF [X86_SLOB_SEG_ELF]] - the cache model's tests (part of `make test`):
#   the plugin builds (make cachemodel); its LRU structure's unit tests
#     (sim_test.c: LRU and not FIFO, sets by modulo, bad geometry refused);
#   the kernel's "modeltest" patterns under -icount give exactly the misses
#     check.py works out: x86_64 with its real 2 MiB TLB entries and again
#     with 4 KiB ones (the second-level TLB's reach), arm64 at its granule;
#   two runs give the same report, byte for byte; nodes=1 changes nothing;
#   nodes=8 splits memory accesses into local and remote that add up
#     (numa_check.py: the one-node counts, cycles up by the remote latency);
#   rep strings (x86_64 "modeltest repstrings", strings_check.py): rep stos
#     and rep movs cost exactly rep_start a run plus their bytes / rep_rate
#     plus their misses, at the default and at other rep_start/rep_rate; a
#     plain store loop, and every pattern under fast_strings=off, cost what
#     they did before; fast_strings=off leaves the modeltest report (no rep
#     strings in its regions) byte for byte the same; an altered price is
#     caught; the rep decoding's unit tests (repstr_test.c);
#   check.py fails a report whose counts were altered (so it can fail);
#   QEMU refusing a plugin built for another API version, and bad plugin
#     arguments (the NUMA and rep string ones too), stop the run with a message that names them; modeltest
#     with too little memory says what it needs, and repstrings on arm64 that it has none;
#   with X86_SLOB_SEG_ELF (x86_64 4K SLOB-seg, whose page_emptied QEMU leaves
#     part-way through a translated block many times), every single-CPU benchmark
#     figure of "bench icount quick" matches the model's instructions for its
#     region within one per operation (tools/cachemodel/bench.py).
# Prints PASS/FAIL lines; exit status 1 on any failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.." || exit 1
x86=${1:-build/x86_64-4k/quarry.elf}
arm=${2:-}
slobseg=${3:-}
out=build/cachemodel/test
mkdir -p "$out"
fails=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
icount=(-m 512M -smp 1 -icount shift=0,sleep=off)

if make -s cachemodel > "$out/build.log" 2>&1; then
	pass cachemodel-build
else
	fail cachemodel-build "make cachemodel failed: $(tail -3 "$out/build.log")"
	exit 1
fi

# the LRU structure itself, on the host (ASan+UBSan)
if ${HOSTCC:-cc} -std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
	-o "$out/sim_test" tools/cachemodel/sim_test.c tools/cachemodel/sim.c > "$out/sim_test.log" 2>&1; then
	"$out/sim_test" || fails=$((fails + 1))
else
	fail cachemodel-sim-test-build "$(head -3 "$out/sim_test.log" | tr '\n' ' ')"
fi

# the rep string decoding and transfer cycles, on the host (ASan+UBSan)
if ${HOSTCC:-cc} -std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
	-o "$out/repstr_test" tools/cachemodel/repstr_test.c tools/cachemodel/repstr.c \
	> "$out/repstr_test.log" 2>&1; then
	"$out/repstr_test" || fails=$((fails + 1))
else
	fail cachemodel-repstr-test-build "$(head -3 "$out/repstr_test.log" | tr '\n' ' ')"
fi

# modeltest TAG ELF [env...]: boot the patterns with the plugin and check them
modeltest() {
	local tag=$1 elf=$2 rc
	shift 2
	env "$@" CMDLINE=modeltest tools/cachemodel/run.sh "$elf" 120 "$out/$tag.report" \
		"${icount[@]}" > "$out/$tag.console" 2> "$out/$tag.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "modeltest-$tag" "the boot ended with status $rc ($(tail -2 "$out/$tag.err" | tr '\n' ' '))"
		return 1
	fi
	tools/cachemodel/check.py "$out/$tag.console" "$out/$tag.report" "$tag" || fails=$((fails + 1))
}

modeltest x86_64-2M "$x86"
modeltest x86_64-4K "$x86" MODEL_TLBPAGE=4K
[ -n "$arm" ] && modeltest arm64-granule "$arm"

# the same boot again: the report must repeat exactly
if [ -s "$out/x86_64-2M.report" ]; then
	CMDLINE=modeltest tools/cachemodel/run.sh "$x86" 120 "$out/again.report" "${icount[@]}" \
		> /dev/null 2>&1
	if cmp -s "$out/x86_64-2M.report" "$out/again.report"; then
		pass cachemodel-deterministic-x86_64
	else
		fail cachemodel-deterministic-x86_64 "two -icount runs differ: $(diff "$out/x86_64-2M.report" \
			"$out/again.report" | head -3 | tr '\n' ' ')"
	fi
	# an altered count must be caught
	sed 's/^\(region id=6 .* dl2_miss=\)\([0-9]*\)/\1999/' "$out/x86_64-2M.report" > "$out/altered.report"
	tools/cachemodel/check.py "$out/x86_64-2M.console" "$out/altered.report" altered \
		> "$out/altered.out"
	if grep -q "^FAIL modeltest-altered-l2-over: dl2_miss expected 36864, measured 999" \
		"$out/altered.out"; then
		pass cachemodel-check-catches-a-wrong-count
	else
		fail cachemodel-check-catches-a-wrong-count "check.py did not report the altered dl2_miss of l2-over"
	fi
	# NUMA arguments on one node change nothing, byte for byte
	MODEL_ARGS=nodes=1,ram=512M,dist=30 CMDLINE=modeltest tools/cachemodel/run.sh "$x86" 120 \
		"$out/one-node.report" "${icount[@]}" > /dev/null 2>&1
	if cmp -s "$out/x86_64-2M.report" "$out/one-node.report"; then
		pass cachemodel-one-node-identical
	else
		fail cachemodel-one-node-identical "nodes=1 changed the report: $(diff "$out/x86_64-2M.report" \
			"$out/one-node.report" | head -3 | tr '\n' ' ')"
	fi
	# eight nodes over the buffer's first 128 MiB (vCPU 0 on node 0): the split adds up
	MODEL_ARGS=nodes=8,ram=128M,dist=30 CMDLINE=modeltest tools/cachemodel/run.sh "$x86" 120 \
		"$out/numa.report" "${icount[@]}" > /dev/null 2>&1
	tools/cachemodel/numa_check.py "$out/x86_64-2M.report" "$out/numa.report" || fails=$((fails + 1))
fi

# rep strings: fast_strings=off leaves a run without rep strings byte for byte the same
if [ -s "$out/x86_64-2M.report" ]; then
	MODEL_ARGS=fast_strings=off CMDLINE=modeltest tools/cachemodel/run.sh "$x86" 120 \
		"$out/no-fast-strings.report" "${icount[@]}" > /dev/null 2>&1
	if cmp -s "$out/x86_64-2M.report" "$out/no-fast-strings.report"; then
		pass cachemodel-no-rep-strings-identical
	else
		fail cachemodel-no-rep-strings-identical "fast_strings=off changed a report without rep strings: \
$(diff "$out/x86_64-2M.report" "$out/no-fast-strings.report" | head -3 | tr '\n' ' ')"
	fi
fi

# string_patterns TAG [off] [env...]: boot the rep string patterns and check their prices
string_patterns() {
	local tag=$1 off= rc
	shift
	[ "${1:-}" = off ] && { off=off; shift; }
	env "$@" CMDLINE="modeltest repstrings" tools/cachemodel/run.sh "$x86" 120 \
		"$out/strings-$tag.report" "${icount[@]}" > "$out/strings-$tag.console" 2> "$out/strings-$tag.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "modeltest-strings-$tag" "the boot ended with status $rc ($(tail -2 "$out/strings-$tag.err" | tr '\n' ' '))"
		return 1
	fi
	tools/cachemodel/strings_check.py "$out/strings-$tag.console" "$out/strings-$tag.report" "$tag" \
		$off || fails=$((fails + 1))
}
string_patterns fast
string_patterns params MODEL_ARGS=rep_start=50,rep_rate=16
string_patterns off off MODEL_ARGS=fast_strings=off
# a rep pattern's price off by one cycle must be caught
if [ -s "$out/strings-fast.report" ]; then
	sed -E 's/^(region id=40 .* modelled_cycles=)([0-9]+)$/\1999999/' "$out/strings-fast.report" \
		> "$out/strings-altered.report"
	tools/cachemodel/strings_check.py "$out/strings-fast.console" "$out/strings-altered.report" \
		altered > "$out/strings-altered.out"
	if grep -q "^FAIL modeltest-strings-altered-rep-stosq-l1: modelled_cycles expected [0-9]*, measured 999999" \
		"$out/strings-altered.out"; then
		pass cachemodel-strings-check-catches-a-wrong-price
	else
		fail cachemodel-strings-check-catches-a-wrong-price "strings_check.py did not report the altered price of rep-stosq-l1"
	fi
fi

# refused: expect_refusal NAME "TEXT" [env...]
expect_refusal() {
	local name=$1 text=$2 rc
	shift 2
	env "$@" CMDLINE=modeltest tools/cachemodel/run.sh "$x86" 30 "$out/refused.report" -m 512M \
		> /dev/null 2> "$out/refused.err"
	rc=$?
	if [ $rc -eq 4 ] && grep -qF -- "$text" "$out/refused.err"; then
		pass "cachemodel-refuses-$name"
	else
		fail "cachemodel-refuses-$name" "status $rc, wanted 4 and '$text' in: $(head -3 "$out/refused.err" | tr '\n' ' ')"
	fi
}
make -s cachemodel CACHEMODEL_CFLAGS=-DCACHEMODEL_API_VERSION=2 \
	CACHEMODEL_SO=build/cachemodel/test/api2.so > /dev/null 2>&1
expect_refusal api-version-2 "plugin requires API version 2, but this QEMU supports only up to version 1" \
	MODEL_PLUGIN=build/cachemodel/test/api2.so
grep -qF "cachemodel: QEMU refused the plugin build/cachemodel/test/api2.so over its plugin API version" \
	"$out/refused.err" && pass cachemodel-names-the-refused-version ||
	fail cachemodel-names-the-refused-version "run.sh did not explain the refusal"
expect_refusal bad-geometry "cachemodel: l1d of 33000 bytes does not divide into 8-way sets of 64-byte lines" \
	MODEL_ARGS=l1d=33000:8
expect_refusal unknown-argument "cachemodel: unknown argument 'colour=blue'" MODEL_ARGS=colour=blue
expect_refusal bad-value "cachemodel: bad value in 'dtlb=72'" MODEL_ARGS=dtlb=72
expect_refusal numa-too-many-nodes "cachemodel: bad value in 'nodes=9'" MODEL_ARGS=nodes=9
expect_refusal numa-local-distance "cachemodel: bad value in 'dist=10'" MODEL_ARGS=dist=10
expect_refusal numa-bad-ram "cachemodel: bad value in 'ram=lots'" MODEL_ARGS=ram=lots
expect_refusal numa-no-ram "cachemodel: nodes=2 needs ram=SIZE, the guest's memory (-m)" \
	MODEL_ARGS=nodes=2
expect_refusal numa-small-ram "cachemodel: ram=12582912 must be whole MiB, at least 8M for each of nodes=2" \
	MODEL_ARGS=nodes=2,ram=12M
expect_refusal numa-x86-high-ram "cachemodel: ram=4294967296 with nodes=2: x86_64's node map is modelled below 3584M only" \
	MODEL_ARGS=nodes=2,ram=4G
expect_refusal rep-rate-zero "cachemodel: bad value in 'rep_rate=0'" MODEL_ARGS=rep_rate=0
expect_refusal rep-rate-too-high "cachemodel: bad value in 'rep_rate=4097'" MODEL_ARGS=rep_rate=4097
expect_refusal rep-start-not-a-number "cachemodel: bad value in 'rep_start=fast'" MODEL_ARGS=rep_start=fast
expect_refusal fast-strings-not-on-off "cachemodel: bad value in 'fast_strings=maybe'" \
	MODEL_ARGS=fast_strings=maybe
expect_refusal missing-symbols "cachemodel: cannot open the symbol file syms=/nonexistent.sym" \
	MODEL_ARGS=syms=/nonexistent.sym

# the rep string patterns asked of arm64, which has none: the kernel says so and fails
if [ -n "$arm" ]; then
	CMDLINE="modeltest repstrings" tests/qemu/run.sh "$arm" 60 -m 512M > "$out/arm-strings.log" 2>&1
	rc=$?
	want="modeltest: FAILED: the rep string patterns are x86_64's only"
	if [ $rc -eq 1 ] && grep -qF "$want" "$out/arm-strings.log"; then
		pass cachemodel-modeltest-repstrings-names-its-arch
	else
		fail cachemodel-modeltest-repstrings-names-its-arch "status $rc, wanted 1 and '$want'"
	fi
fi

# too little memory for the patterns' buffer: the kernel says so and fails
CMDLINE=modeltest tests/qemu/run.sh "$x86" 60 -m 128M > "$out/small.log" 2>&1
rc=$?
want="modeltest: FAILED: no 37 consecutive 4096 KiB blocks free (boot with more memory, -m 512M or more)"
if [ $rc -eq 1 ] && grep -qF "$want" "$out/small.log"; then
	pass cachemodel-modeltest-names-missing-memory
else
	fail cachemodel-modeltest-names-missing-memory "status $rc, wanted 1 and '$want'"
fi

# the benchmark regions' instructions against the figures
if [ -n "$slobseg" ]; then
	if MODEL_ARGS=entries=on CMDLINE="bench icount quick" tools/cachemodel/run.sh "$slobseg" 600 \
		"$out/bench.report" -m 1G -smp 1 -icount shift=0,sleep=off > "$out/bench.log" 2>&1 &&
		tools/cachemodel/bench.py "$out/bench.log" "$out/bench.report" > "$out/bench.md" \
			2> "$out/bench.err"; then
		pass "cachemodel-bench-regions-match-figures ($(grep -c '^| ' "$out/bench.md") rows)"
	else
		fail cachemodel-bench-regions-match-figures "$(head -3 "$out/bench.err" "$out/bench.log" | tr '\n' ' ')"
	fi
fi
exit $((fails > 0))
