#!/usr/bin/env bash
# run-all.sh - everything `make test` runs, ending with one line
# "N passed, N failed" over all suites; exit status 1 on any failure.
# The matrix is every arch in ARCHES times its page sizes:
#   x86_64: 4K, 64K (GRUB ISOs)    arm64: 4K, 16K, 64K (QEMU virt, the ELF;
#                                  16K with CPU=max, which has the granule)
# and for each configuration (make ARCH=.. PAGE_SIZE=.. images):
#   host unit tests (ASan+UBSan): mm/ does not depend on the arch, so once per
#     page size, with the first arch that has it
#   in-kernel self-tests under QEMU on 1 CPU and on 2 and 4 CPUs (and 8 at
#     x86_64 4K), the CPUs in parallel host threads (MTTCG)
#   boot checks (memory report, exception report) on 1 CPU and on 4 (there
#     also: a fault and a hang on another CPU name it)
#   the NUMA topology read from QEMU's SRAT/SLIT or device tree on 2 and 4
#     nodes, at 4K also on 1 and with the NUMA self-tests (tests/qemu/numa.sh)
#   at 4K pages: the in-kernel self-tests on 2 NUMA nodes x 2 CPUs and on
#     4 nodes x 1 CPU (scripts/numa-flags.sh, as make run NODES=N)
#   the benchmark mode runs to its end and parses into every CSV row (2 CPUs);
#     at 4K also under -icount, twice: the multi-CPU figures must repeat exactly,
#     and the NUMA section on 2 nodes the same way, bad NODES refused
#     (lab/bench/numa_test.sh)
#   at 4K pages: the stress self-tests on 4 CPUs with fault injection on
#     (fail_page_alloc=1,5,-1,1 failslab=2,10,-1,2 on the command line)
# then x86_64 4K built with NR_CPUS=64: its self-tests on 64 CPUs, round-robin
#   (TCG_THREAD=single), once (not with SMP_LIST)
# then, once: every allocator's host tests built with SLAB_DEBUG=1 (4K; SLUB's
# also at 64K, with SLAB_FREELIST_HARDENED), the hardening options' host tests
# with the event counters (SLAB_FREELIST_RANDOM and SLAB_FREELIST_HARDENED,
# each with SLAB_STATS=1, 4K),
# SLAB's and SLUB's host tests on 2 NUMA nodes (QUARRY_NODES=2, 4K),
# SLUB without its sheaves (SLUB_SHEAVES=0: host tests, x86_64 4K self-tests),
# the allocator fuzzer's fixed-seed slice (tests/fuzz/run.sh slice: every
# allocator at 4K and 64K, with and without faults, at 4K also threaded on 2
# NUMA nodes), the host workloads smoke
# test (lab/bench/host/smoke.sh: SLAB and SLUB), the cache-line ownership model
# (tests/coherence/test.sh: sharing patterns moved exactly, refusals, SLAB's and
# SLUB's line moves per operation at 4 threads in lock step), the trace tools (tests/trace/test.sh:
# conversion, bad traces refused, a recorded trace replayed through every
# allocator on the host with exact accounting), the kernel's replay of it
# (tests/trace/kernel.sh: one boot per arch, bad modules; tests/trace/model.sh: the
# loopback trace's replay under the cache model), Debian's prebuilt Linux kernel
# running Quarry's benchmark module and the trace replay (lab/linux/debian_test.sh), bench-scale's host half at 1
# and 2 threads (lab/bench/scale_smoke.sh), the dependency step as a
# user who is not root, bad build
# options refused by make (tests/make-options.sh), make bench's real-time host
# accounting (lab/bench/test_rt64k.py: synthetic logs and one x86_64 4K
# benchmark boot at -smp 2 under hoststat.py), the cache model's tests
# (tools/cachemodel/test.sh: exact misses of the modeltest patterns on x86_64
# and arm64 4K, two runs identical, refused plugins named, SLOB-seg's benchmark
# regions against its figures), the scripts' failure
# paths (tests/qemu/failures.sh: a failed run never exits 0), and the GDB
# tests at 4K pages on each arch: stepping through kmain, and the helpers of
# scripts/gdb stopped in the allocator (tests/gdb/helpers.sh) with each of
# the four allocators. The host-only suites of SLAB_DEBUG, the hardening
# options, SLAB_STATS and SLUB_SHEAVES=0 run two at a time (JOBS), and so do
# the fuzzer slice's runs.
# Every QEMU run has a time limit; a hang or crash is a failure. At the end:
# the time each suite took and the total, then the summary line.
#
# Environment:
#   ARCHES="x86_64 arm64"  the arches to test (`make test ARCHES=arm64`)
#   PAGE_SIZES="4K 16K 64K" narrow the page sizes (each arch keeps those it has)
#   SMP_LIST="N..."        (`make test SMP=N`) replaces the CPU counts of the
#                          SMP self-tests and boot checks with its own
#   CPU                    arm64 QEMU CPU at 4K and 64K (default cortex-a72);
#                          16K always runs on a CPU with the 16K granule (max
#                          unless CPU names another one)
#   ALLOCS="slab slub slob slob-seg"  the object allocators whose suites run
#                          (SLAB's always run; "slab" leaves the others out)
#   JOBS=2                 make -j
set -u
cd "$(dirname "$0")/.." || exit 1
mkdir -p build/test
out=build/test/results.txt
times=build/test/times.txt
: > "$out"
: > "$times"
jobs=${JOBS:-2}
smp_list=${SMP_LIST:-}
user_cpu=${CPU:-}
read -r -a arches <<< "${ARCHES:-x86_64 arm64}"
want_pages=${PAGE_SIZES:-4K 16K 64K}
start_all=$SECONDS

for a in "${arches[@]}"; do
	case $a in x86_64 | arm64) ;;
	*) echo "run-all.sh: unknown arch '$a' in ARCHES (x86_64, arm64)"; echo "0 passed, 1 failed"; exit 1 ;;
	esac
done

page_sizes() {	# page_sizes ARCH: the page sizes to test on ARCH
	local all ps
	case $1 in x86_64) all="4K 64K" ;; arm64) all="4K 16K 64K" ;; esac
	for ps in $all; do
		case " $want_pages " in *" $ps "*) echo "$ps" ;; esac
	done
}

# QEMU's arm64 CPU for a page size: 16K needs the 16K granule (cortex-a57
# and a72 have none); otherwise the caller's CPU or run.sh's default.
cpu_for() {
	if [ "$1" = 16K ]; then
		case $user_cpu in "" | cortex-a57 | cortex-a72) echo max ;; *) echo "$user_cpu" ;; esac
	else
		echo "$user_cpu"
	fi
}

timed() {	# timed TITLE COMMAND...: run, and note how long it took
	local title=$1 t0=$SECONDS rc
	shift
	"$@"
	rc=$?
	printf '%5d s  %s\n' $((SECONDS - t0)) "$title" >> "$times"
	return $rc
}

suite() {	# suite TITLE COMMAND...: run, show and collect PASS/FAIL lines; a command
		# that fails without a FAIL line of its own (a host test that does
		# not build, say) gets one, so no failure goes uncounted
	local title=$1 t0=$SECONDS rc log=build/test/suite.log
	shift
	echo "== $title"
	"$@" > "$log" 2>&1
	rc=$?
	cat "$log" >> "$out"
	grep -E '^(PASS|FAIL) ' "$log"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$log"; then
		tail -5 "$log"
		echo "FAIL $title: exited with status $rc and no FAIL line (see the output above)" |
			tee -a "$out"
	fi
	printf '%5d s  %s\n' $((SECONDS - t0)) "$title" >> "$times"
}

# psuite TITLE COMMAND...: as suite, but in the background, at most $plimit
# at once (host tests, whose test binaries run on one host thread; 1 while
# the QEMU matrix runs in the foreground, $jobs after it); psuite_wait
# waits for them all and shows each one's lines and time in the order given.
pjobs=()
plimit=1
psuite() {
	local k=${#pjobs[@]}
	while [ "$(jobs -rp | wc -l)" -ge "$plimit" ]; do wait -n; done
	pjobs+=("$1")
	shift
	( t0=$SECONDS; "$@" > "build/test/psuite-$k.log" 2>&1; echo "$? $((SECONDS - t0))" > "build/test/psuite-$k.rc" ) &
}
psuite_wait() {
	local k rc secs log
	wait
	for k in "${!pjobs[@]}"; do
		log=build/test/psuite-$k.log
		read -r rc secs < "build/test/psuite-$k.rc" || { rc=1 secs=0; }
		echo "== ${pjobs[$k]}"
		cat "$log" >> "$out"
		grep -E '^(PASS|FAIL) ' "$log"
		if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$log"; then
			tail -5 "$log"
			echo "FAIL ${pjobs[$k]}: exited with status $rc and no FAIL line (see the output above)" |
				tee -a "$out"
		fi
		printf '%5d s  %s (beside another)\n' "$secs" "${pjobs[$k]}" >> "$times"
		rm -f "$log" "build/test/psuite-$k.rc"
	done
	pjobs=()
}

build() {	# build ARCH PAGE_SIZE CPU: the kernel and its images; a build failure is a test failure
	local arch=$1 ps=$2 cpu=$3 log=build/test/build-$1-$2.log
	if ! timed "build, $arch $ps pages" make --no-print-directory -j"$jobs" ARCH=$arch PAGE_SIZE=$ps \
		${cpu:+CPU=$cpu} images > "$log" 2>&1; then
		tail -20 "$log"
		echo "FAIL build-$arch-$ps: make ARCH=$arch PAGE_SIZE=$ps images failed (see $log)" | tee -a "$out"
		return 1
	fi
}

build_dir() {	# build_dir ARCH PAGE_SIZE CPU: where make put it (ALLOC=, SLAB_DEBUG=... from
		# `make test`'s command line reach the sub-make and name the directory)
	make --no-print-directory -s ARCH=$1 PAGE_SIZE=$2 ${3:+CPU=$3} -f Makefile -f - print-build \
		<<< 'print-build: ; @echo $(BUILD)' 2>/dev/null | tail -1 | grep . ||
		echo "build/$1-$(echo "$2" | tr K k)"
}

host_done=" " built=" "
for arch in "${arches[@]}"; do
	for ps in $(page_sizes $arch); do
		tag=$(echo "$ps" | tr K k)
		name=$arch-$tag
		if [ "${host_done/ $ps /}" = "$host_done" ]; then
			psuite "host unit tests, $ps pages (ASan+UBSan)" \
				make --no-print-directory -j"$jobs" test-host PAGE_SIZE=$ps
			host_done="$host_done$ps "
		fi
		cpu=
		[ $arch = arm64 ] && cpu=$(cpu_for $ps)
		build $arch $ps "$cpu" || continue
		built="$built$name "
		dir=$(build_dir $arch $ps "$cpu")
		elf=$dir/quarry.elf
		if [ $arch = x86_64 ]; then
			test_image=$dir/quarry-test.iso	# default entry: "selftest"
			smp_default="2 4 $([ $ps = 4K ] && echo 8)"
		else
			test_image=$elf			# run.sh: -append "$CMDLINE"
			smp_default="2 4"
		fi
		export CPU=$cpu
		suite "in-kernel self-tests, $arch $ps pages" \
			env CMDLINE=selftest tests/qemu/selftest.sh kernel-$name $test_image 300 -m 256M
		if [ $ps = 4K ]; then	# the stress test with allocations failing (mm/fault_inject.h)
			n=4
			[ -n "$smp_list" ] && n=${smp_list##* }
			suite "stress test with faults injected, $arch $ps pages, $n CPUs" \
				env CMDLINE="stresstest fail_page_alloc=1,5,-1,1 failslab=2,10,-1,2" \
				tests/qemu/selftest.sh kernel-$name-faults-smp$n $elf 300 -m 256M -smp $n
		fi
		for n in ${smp_list:-$smp_default}; do
			[ "$n" -gt 1 ] || continue
			suite "in-kernel self-tests, $arch $ps pages, $n CPUs" \
				env CMDLINE=selftest tests/qemu/selftest.sh kernel-$name-smp$n $test_image 300 \
				-m 256M -smp $n
		done
		suite "boot checks, $arch $ps pages" \
			tests/qemu/boot.sh $name $elf 120 -m 256M
		for n in ${smp_list:-4}; do
			[ "$n" -gt 1 ] || continue
			suite "boot checks, $arch $ps pages, $n CPUs" \
				tests/qemu/boot.sh $name-smp$n $elf 120 -m 256M -smp $n
		done
		# the firmware's NUMA topology on 1, 2 and 4 QEMU nodes (make run NODES=N);
		# at the other page sizes the 2- and 4-node boots alone
		suite "NUMA topology from the firmware, $arch $ps pages (tests/qemu/numa.sh)" \
			tests/qemu/numa.sh numa-$name $elf $([ "$ps" = 4K ] || echo boots)
		# every self-test on NUMA machines (scripts/numa-flags.sh, as make run
		# NODES=N SMP=M): 2 nodes of 2 CPUs, 4 nodes with one CPU (3 without)
		if [ "$ps" = 4K ]; then
			for shape in "2 2 CPUs" "4 1 CPU"; do
				read -r nn nc cpus <<< "$shape"
				suite "in-kernel self-tests, $arch $ps pages, $nn NUMA nodes x $nc $cpus" \
					env CMDLINE=selftest tests/qemu/selftest.sh kernel-$name-numa${nn}x$nc $elf 300 \
					-m 256M -smp $nc $(scripts/numa-flags.sh $nn $nc 256)
			done
		fi
		suite "benchmark mode runs and parses, $arch $ps pages, 2 CPUs" \
			lab/bench/check.sh bench-$name $elf 2
		# multi-CPU -icount (make bench's mcpu mode): two boots, identical figures; 4K only
		[ "$ps" = 4K ] && suite "benchmark mode under -icount repeats exactly, $arch $ps pages, 2 CPUs" \
			lab/bench/check.sh bench-$name-icount $elf 2 icount
		# the NUMA section on 2 nodes (make bench NODES=2): its rows, two boots identical; bad NODES refused
		[ "$ps" = 4K ] && suite "benchmark NUMA section on 2 nodes under -icount repeats exactly, $arch $ps pages" \
			lab/bench/numa_test.sh bench-$name-numa $elf
	done
done
# 64 CPUs (issue 14): x86_64 4K built with NR_CPUS=64 (build/x86_64-4k-cpus64/),
# its self-tests booted once on 64 CPUs, round-robin in one host thread
# (TCG_THREAD=single: a spinning CPU's pause hands the thread to the next;
# 64 MTTCG threads on 2 cores wait a host time slice per lock hand-over and
# can outlast the call time limit). About 35 s; only when SMP_LIST is unset.
case " ${arches[*]} :$smp_list: $want_pages " in *" x86_64 "*"::"*" 4K "*)
	log=build/test/build-x86_64-4K-cpus64.log
	if timed "build, x86_64 4K pages, NR_CPUS=64" make --no-print-directory -j"$jobs" \
		ARCH=x86_64 PAGE_SIZE=4K NR_CPUS=64 kernel > "$log" 2>&1; then
		suite "in-kernel self-tests, x86_64 4K pages, NR_CPUS=64, 64 CPUs round-robin" \
			env CMDLINE=selftest TCG_THREAD=single tests/qemu/selftest.sh \
			kernel-x86_64-4k-cpus64-smp64 build/x86_64-4k-cpus64/quarry.elf 300 -m 256M -smp 64
	else
		tail -20 "$log"
		echo "FAIL build-x86_64-4K-cpus64: make NR_CPUS=64 kernel failed (see $log)" | tee -a "$out"
	fi ;;
esac
# SLUB, SLOB and SLOB-seg beside SLAB: each one's host tests, in-kernel
# self-tests (common, its own, SMP and stress; 1 and 4 CPUs) and boot checks
# on each arch at 4K and 64K pages (16K: SLAB's host tests and kernels cover
# the granule; the other allocators' code is the same at every page size, and
# 4K and 64K bound what depends on it; `make test-host ALLOC=.. PAGE_SIZE=16K`
# runs them there, as make test did before its time budget). The two SLOBs, built for small machines, also boot in 16 MB at 4K;
# SLUB's self-tests also run on 2 NUMA nodes x 2 CPUs at 4K.
alloc_title() { case $1 in slub) echo SLUB ;; slob) echo SLOB ;; slob-seg) echo SLOB-seg ;; esac; }
for alloc in ${ALLOCS:-slab slub slob slob-seg}; do
	case $alloc in
	slab) continue ;;	# above
	slub | slob | slob-seg) ;;
	*) echo "FAIL allocator: unknown '$alloc' in ALLOCS (slab, slub, slob, slob-seg)" | tee -a "$out"
	   continue ;;
	esac
	title=$(alloc_title $alloc)
	for ps in $want_pages; do
		[ $ps = 16K ] && continue	# SLAB's host tests and arm64 kernel cover 16K
		psuite "$title host unit tests, $ps pages (ASan+UBSan)" \
			make --no-print-directory -j"$jobs" test-host ALLOC=$alloc PAGE_SIZE=$ps
	done
	for arch in "${arches[@]}"; do
		for ps in $(page_sizes $arch); do
			[ $ps = 16K ] && continue
			tag=$(echo "$ps" | tr K k)
			log=build/test/build-$arch-$ps-$alloc.log
			CPU=
			[ $arch = arm64 ] && CPU=$(cpu_for $ps)
			export CPU
			if ! timed "build, $arch $ps pages, $title" make --no-print-directory -j"$jobs" \
				ARCH=$arch PAGE_SIZE=$ps ALLOC=$alloc kernel > "$log" 2>&1; then
				tail -20 "$log"
				echo "FAIL build-$arch-$ps-$alloc: see $log" | tee -a "$out"
				continue
			fi
			name=$arch-$tag-$alloc
			built="$built$name "
			elf=build/$name/quarry.elf
			suite "$title in-kernel self-tests, $arch $ps pages" \
				env CMDLINE=selftest tests/qemu/selftest.sh kernel-$name $elf 300 -m 256M
			suite "$title in-kernel self-tests, $arch $ps pages, 4 CPUs" \
				env CMDLINE=selftest tests/qemu/selftest.sh kernel-$name-smp4 $elf 300 \
				-m 256M -smp 4
			# SLUB's per-node paths: its self-tests on 2 NUMA nodes of 2 CPUs
			[ $alloc-$ps = slub-4K ] && suite "$title in-kernel self-tests, $arch $ps pages, 2 NUMA nodes x 2 CPUs" \
				env CMDLINE=selftest tests/qemu/selftest.sh kernel-$name-numa2x2 $elf 300 \
				-m 256M -smp 2 $(scripts/numa-flags.sh 2 2 256)
			suite "$title boot checks, $arch $ps pages" \
				tests/qemu/boot.sh $name $elf 120 -m 256M
			case $alloc-$ps in slob-4K | slob-seg-4K)
				suite "$title boot checks in 16 MB, $arch $ps pages" \
					tests/qemu/boot.sh $name-16m $elf 120 -m 16M ;;
			esac
		done
	done
done
psuite_wait	# the host unit tests started beside the QEMU matrix above
plimit=$jobs
# The option builds' host unit tests, combined where the options are
# independent, so each ASan build and run (about 30 s on 2 cores) covers two:
#   SLAB_DEBUG=1 (red zones, poison, freelist corruption, their offsets; the
#     misuse tests, the debug-only ones among them) for every allocator at 4K;
#     at 64K SLUB's, with SLAB_FREELIST_HARDENED=1 on too (every allocator's
#     at 64K when ALLOCS names them, without the hardening);
#   the hardening options with the event counters (SLAB_STATS=1, off in every
#     other build; the counters' checks are empty without it), at 4K: SLAB's
#     freelist order random in every new slab, SLUB's free pointers never in
#     memory as themselves; every other test passes with them on.
case " ${ALLOCS:-slab slub} " in *" slub "*) hard_slub=1 ;; *) hard_slub= ;; esac
for ps in 4K 64K; do
	case " $want_pages " in *" $ps "*) ;; *) continue ;; esac
	for alloc in ${ALLOCS:-slab slub slob slob-seg}; do
		case $alloc in slab | slub | slob | slob-seg) ;; *) continue ;; esac
		extra= extra_title=
		case $ps:$alloc in
		64K:slub) [ -n "${ALLOCS:-}" ] || { extra=SLAB_FREELIST_HARDENED=1 extra_title=" SLAB_FREELIST_HARDENED=1"; } ;;
		64K:*) [ -n "${ALLOCS:-}" ] || continue ;;
		esac
		psuite "$alloc SLAB_DEBUG=1$extra_title host unit tests, $ps pages (ASan+UBSan)" \
			make --no-print-directory -j"$jobs" test-host ALLOC=$alloc SLAB_DEBUG=1 $extra \
			PAGE_SIZE=$ps
	done
done
case " $want_pages " in *" 4K "*)
	psuite "SLAB host unit tests with SLAB_FREELIST_RANDOM=1 SLAB_STATS=1, 4K pages" \
		make --no-print-directory -j"$jobs" test-host ALLOC=slab SLAB_FREELIST_RANDOM=1 SLAB_STATS=1 \
		PAGE_SIZE=4K
	[ -n "$hard_slub" ] && psuite "SLUB host unit tests with SLAB_FREELIST_HARDENED=1 SLAB_STATS=1, 4K pages" \
		make --no-print-directory -j"$jobs" test-host ALLOC=slub SLAB_FREELIST_HARDENED=1 SLAB_STATS=1 \
		PAGE_SIZE=4K ;;
esac
# SLAB's and SLUB's host unit tests on 2 NUMA nodes (QUARRY_NODES=2: the arena
# split in two as make run NODES=2 splits QEMU's RAM, host CPUs 0-3 on node 0
# and 4-7 on node 1), 4K; the same binaries as their one-node suites.
case " $want_pages " in *" 4K "*)
	psuite "SLAB host unit tests on 2 NUMA nodes, 4K pages" \
		make --no-print-directory -j"$jobs" test-host ALLOC=slab NODES=2 PAGE_SIZE=4K
	[ -n "$hard_slub" ] && psuite "SLUB host unit tests on 2 NUMA nodes, 4K pages" \
		make --no-print-directory -j"$jobs" test-host ALLOC=slub NODES=2 PAGE_SIZE=4K ;;
esac
# SLUB without sheaves (SLUB_SHEAVES=0: seed 002's classic lockless paths, the
# lab's comparison point; the default SLUB has per-CPU sheaves in front of
# them): its host tests at 4K, and its in-kernel self-tests on
# x86_64 4K at 1 and 4 CPUs (build/x86_64-4k-slub-nosheaves/; about a minute).
if [ -n "$hard_slub" ]; then
	for ps in 4K; do
		case " $want_pages " in *" $ps "*) ;; *) continue ;; esac
		psuite "SLUB host unit tests with SLUB_SHEAVES=0, $ps pages" \
			make --no-print-directory -j"$jobs" test-host ALLOC=slub SLUB_SHEAVES=0 PAGE_SIZE=$ps
	done
fi
psuite_wait	# the host suites above, two at a time
# The kernel's replay of a trace (lab/replay.h): one boot per arch tested (SLUB 4K,
# the hackbench trace on 2 CPUs under -icount), and bad modules refused.
# It and Debian's Linux below boot in the background from here on, beside each
# other and the suites after them up to the bad build options (QEMU under
# -icount is one host thread each); the trace converter both use is built first.
if ! make --no-print-directory -s -f tools/trace/trace.mk ALLOC=slab PAGE_SHIFT=12 convert \
	> build/test/convert-build.log 2>&1; then
	tail -5 build/test/convert-build.log
	echo "FAIL trace-converter: make -f tools/trace/trace.mk convert failed (see build/test/convert-build.log)" |
		tee -a "$out"
fi
psuite "kernel trace replay: a recorded trace as the boot module, bad modules refused (tests/trace/kernel.sh)" \
	env ARCHES="${arches[*]}" tests/trace/kernel.sh
# A real Linux without a kernel build: Debian's own prebuilt x86_64 kernel (downloaded
# once, headers installed) runs Quarry's benchmark module and the trace replay (about 90 s).
if [[ " ${arches[*]} " == *" x86_64 "* ]]; then
	psuite "Linux's allocators in Debian's prebuilt kernel: the module's rows, the trace replay's exact accounting (lab/linux/debian_test.sh)" \
		lab/linux/debian_test.sh
fi
if [ -n "$hard_slub" ]; then
	case " ${arches[*]} $want_pages " in *" x86_64 "*" 4K "*)
		log=build/test/build-x86_64-4K-slub-nosheaves.log
		elf=build/x86_64-4k-slub-nosheaves/quarry.elf
		if timed "build, x86_64 4K pages, SLUB, SLUB_SHEAVES=0" make --no-print-directory \
			-j"$jobs" ARCH=x86_64 PAGE_SIZE=4K ALLOC=slub SLUB_SHEAVES=0 kernel > "$log" 2>&1; then
			suite "SLUB_SHEAVES=0 in-kernel self-tests, x86_64 4K pages" \
				env CMDLINE=selftest tests/qemu/selftest.sh kernel-x86_64-4k-slub-nosheaves \
				$elf 300 -m 256M
			suite "SLUB_SHEAVES=0 in-kernel self-tests, x86_64 4K pages, 4 CPUs" \
				env CMDLINE=selftest tests/qemu/selftest.sh kernel-x86_64-4k-slub-nosheaves-smp4 \
				$elf 300 -m 256M -smp 4
		else
			tail -20 "$log"
			echo "FAIL build-x86_64-4K-slub-nosheaves: see $log" | tee -a "$out"
		fi ;;
	esac
fi
# The allocator fuzzer's fixed-seed slice on the host (tests/fuzz/run.sh): every
# allocator at 4K and 64K pages, sequential, threaded, with faults injected and
# with memory running out, 1.15 million operations each; then its checks shown to catch planted faults.
suite "allocator fuzzer slice (host, ASan+UBSan)" tests/fuzz/run.sh slice
suite "host workloads smoke test (SLAB, SLUB; lab/bench/host/smoke.sh)" lab/bench/host/smoke.sh
suite "cache-line moves between CPUs, modelled: patterns, refusals, SLAB and SLUB in lock step (tests/coherence/test.sh)" \
	tests/coherence/test.sh
suite "trace tools: conversion, bad traces refused, host replay with exact accounting (tests/trace/test.sh)" \
	tests/trace/test.sh
# Linux's own allocators (make bench-linux, lab/linux/): nothing built or booted here,
# a real boot's captured console parsed and the bad inputs refused, in seconds.
suite "Linux's allocators: a captured boot's BENCH lines parse, bad inputs refused (lab/linux/test.sh)" \
	lab/linux/test.sh
suite "bench-scale smoke test (host half, 1 and 2 threads; lab/bench/scale_smoke.sh)" lab/bench/scale_smoke.sh
suite "dependency step (scripts/deps.sh)" tests/deps-test.sh
suite "bad build options refused by make" tests/make-options.sh
psuite_wait	# the trace replay and Debian's Linux, started above
# make bench's real-time host accounting (hoststat.py, report_rt64k.py): synthetic
# logs, then one "bench quick" boot at -smp 2 under hoststat.py (x86_64 4K)
case $built in *" x86_64-4k "*) rt_elf=$(build_dir x86_64 4K "")/quarry.elf ;; *) rt_elf= ;; esac
suite "real-time host accounting (lab/bench/test_rt64k.py)" lab/bench/test_rt64k.py $rt_elf
case $built in *" x86_64-4k "*)	# the cache model (tools/cachemodel/), arm64 too when built
	suite "cache model: exact misses of the modeltest patterns, determinism, refusals" \
		tools/cachemodel/test.sh "$(build_dir x86_64 4K "")/quarry.elf" \
		"$(case $built in *" arm64-4k "*) echo "$(build_dir arm64 4K "$(cpu_for 4K)")/quarry.elf" ;; esac)" \
		"$(case $built in *" x86_64-4k-slob-seg "*) echo build/x86_64-4k-slob-seg/quarry.elf ;; esac)" ;;
esac
case " ${arches[*]} " in *" x86_64 "*)	# make replay MODEL=1 (tools/trace/model_replay.py)
	suite "kernel trace replay under the cache model: figures and model paired exactly (tests/trace/model.sh)" \
		tests/trace/model.sh ;;
esac
case $built in *" x86_64-4k "*" arm64-4k "* | *" arm64-4k "*" x86_64-4k "*)
	suite "failures never exit 0 (run.sh, selftest.sh, make run)" \
		tests/qemu/failures.sh build/x86_64-4k/quarry.elf build/arm64-4k/quarry.elf ;;
esac
for arch in "${arches[@]}"; do
	case $built in *" $arch-4k "*) ;; *) continue ;; esac	# not tested, or its build failed
	CPU=
	[ $arch = arm64 ] && CPU=$(cpu_for 4K)
	export CPU
	dir=$(build_dir $arch 4K "$CPU")
	if [ $arch = x86_64 ]; then image=$dir/quarry.iso; else image=$dir/quarry.elf; fi
	suite "GDB stepping through kmain, $arch 4K pages" \
		tests/gdb/stepping.sh gdb-$arch-4k $dir/quarry.elf $image
	suite "GDB helpers (scripts/gdb) in the allocator, $arch 4K pages" \
		tests/gdb/helpers.sh gdb-helpers-$arch-4k $dir/quarry.elf
	# the other allocators' 4K kernels built above (unless left out by ALLOCS, or failed)
	for alloc in slub slob slob-seg; do
		case $built in *" $arch-4k-$alloc "*) ;; *) continue ;; esac
		suite "GDB helpers (scripts/gdb) in the allocator, $arch 4K pages, $(alloc_title $alloc)" \
			tests/gdb/helpers.sh gdb-helpers-$arch-4k-$alloc build/$arch-4k-$alloc/quarry.elf
	done
done

passed=$(grep -c '^PASS ' "$out")
failed=$(grep -c '^FAIL ' "$out")
echo
echo "Time per suite:"
cat "$times"
printf '%5d s  total (%dm%02ds)\n' $((SECONDS - start_all)) $(((SECONDS - start_all) / 60)) \
	$(((SECONDS - start_all) % 60))
if [ "$failed" -ne 0 ]; then
	echo
	echo "Failures:"
	grep '^FAIL ' "$out"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
