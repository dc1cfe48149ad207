#!/usr/bin/env bash
# scale.sh - `make bench-scale`: throughput against threads, on whatever machine
# this is, for every allocator.
#
#  1. Host: the multi-threaded workloads of `make bench-host` (larson, mixed,
#     prodcons: lab/bench/host/workloads.c) at 1, 2, 4, ... threads up to the
#     machine's cores (nproc, and nproc itself), for SLAB, SLUB, SLOB and
#     SLOB-seg (mm/ built for Linux user space, threads pinned to cores acting
#     as CPUs), the peers the workloads binary can load (glibc, jemalloc,
#     tcmalloc, mimalloc: lab/bench/host/deps.sh installs them) and
#     "locked" (glibc's malloc behind one kernel spinlock, the yardstick of a
#     one-lock heap). Figures: host wall-clock ns per operation, aggregate
#     (wall time of a run / all threads' operations), median of the runs.
#  2. Kernel: SLAB's and SLUB's x86_64 and arm64 kernels booted with "bench
#     quick" under QEMU MTTCG (one host thread per vCPU) at the same CPU counts
#     (arm64: QEMU virt, GICv3, cortex-a72, whose load/store-exclusive pairs
#     take another path through QEMU than x86's lock-prefixed instructions: a
#     cost only one arch shows points at the emulator); test 3's
#     concurrent_alloc_free figures (kmalloc then kfree of BENCH_OBJECTS
#     objects per CPU at once) in ns of guest time per operation per CPU: real
#     time of a TCG guest, the emulator's own cost included. The same boots
#     print test 3a (lab/bench_atomic.c: compare-and-exchange on each CPU's
#     own line, alone and all at once: what the emulator charges for the
#     atomics SLUB is built on). A third kernel, SLUB with SLAB_STATS=1
#     ("slub-stats"), is booted at each count for test 3's events per
#     operation (slow paths, node and barn locks, page cmpxchgs, slabs made
#     and given back): whether SLUB does more work per operation on more CPUs,
#     or the same work waits longer.
#  3. Profile (SCALE_PROFILE=0 leaves it out): SLAB and SLUB on larson and
#     mixed at 1 thread and at the largest count, each in its own process under
#     perf record -e cpu-clock -F 20000 (a software clock: no PMU needed) over the timed
#     run only, perf report by symbol -> OUT/profile/: where the CPU time per
#     operation goes when it grows with threads (a spin in a lock, the kernel,
#     a function whose loads wait on other cores). perf from PATH, or the
#     bundle's. Where perf is missing or not allowed (kernel.perf_event_paranoid
#     above 2, a container refusing perf_event_open), the workloads sample
#     themselves instead (--sample, lab/bench/host/workloads_sample.h). The
#     same runs, and mimalloc's as the reference, once more under perf stat (SCALE_COUNTERS: cycles, instructions,
#     cache misses, ...) -> OUT/profile/stat-*.csv: per operation, whether more
#     threads make an operation do more work (instructions: spinning, slow paths)
#     or wait longer for the same work (cycles, cache misses: lines moving between
#     cores). Where the machine has no PMU (most virtual machines), perf says
#     "<not supported>" for the hardware events and the report says so.
#  4. report_scale.py writes OUT/report.md (the tables) and OUT/scale.png (the
#     plot, where python3-matplotlib is installed). Beside the figures, per host
#     run (workloads --diag, OUT/diag.csv): turns of spin-waiting in Quarry's
#     spinlocks, page faults and context switches per operation, to tell lock
#     contention and the operating system from cache-line traffic, which shows
#     only as time.
#
# Environment (the Makefile passes its variables of the same names):
#   SCALE_THREADS  thread/CPU counts, commas (default: 1,2,4,... up to nproc, and nproc)
#   SCALE_RUNS     timed runs per (workload, threads, allocator) (3)
#   SCALE_PCT      workloads' operations in percent of their defaults (20)
#   SCALE_PROFILE_PCT  the same for the profile's runs (100: enough samples at 20 kHz)
#   SCALE_PROFILER the profile's sampler: perf (perf record), self (the workloads'
#                  own, --sample: SIGPROF at 20 kHz, no perf or privilege needed) or
#                  auto (perf, else self; the default)
#   SCALE_COUNTERS perf stat's events for the counters (task-clock, cycles, instructions,
#                  cache-references, cache-misses, L1-dcache-load-misses, dTLB-load-misses,
#                  context-switches, cpu-migrations, page-faults; commas between)
#   SCALE_HOST=0 / SCALE_KERNEL=0 / SCALE_PROFILE=0   leave out that part
#   SCALE_KCMD     the kernel's command line ("bench quick"; "bench" for 5 rounds)
#   SCALE_ARCHES   the kernels' arches, commas (x86_64,arm64)
#   WL_SPINS_PER_YIELD  the host spinlocks' yield interval in turns (64; 1: a yield on
#                  every turn, the host shim before, to measure what that cost)
#   OUT            where everything goes (build/bench-scale)
#   SCALE_BUNDLE   set by a bundle's run.sh (lab/bench/scale_bundle.sh): run the
#                  bundle's binaries, ISOs and QEMU through its own dynamic loader,
#                  build nothing
# Binaries are built with NR_CPUS = the largest count asked for (at least 8, the
# default). The run takes about two minutes on a 2-core machine (a minute of it
# the kernels' builds the first time); the host half grows with the cores, SLOB's
# runs the longest (its one lock).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
B=${SCALE_BUNDLE:-}
if [ -z "$B" ]; then
	cd "$here/../.." || exit 1
fi
OUT=${OUT:-build/bench-scale}
RUNS=${SCALE_RUNS:-3}
PCT=${SCALE_PCT:-20}
PPCT=${SCALE_PROFILE_PCT:-100}
PROFILER=${SCALE_PROFILER:-auto}
case $PROFILER in
auto | perf | self) ;;
*) echo "bench-scale: SCALE_PROFILER '$PROFILER': auto, perf or self" >&2; exit 2 ;;
esac
counters=task-clock,cycles,instructions,cache-references,cache-misses
counters+=,L1-dcache-load-misses,dTLB-load-misses,context-switches,cpu-migrations,page-faults
SCALE_COUNTERS=${SCALE_COUNTERS:-$counters}
case $SCALE_COUNTERS in
'' | *[!a-zA-Z0-9:,_.-]* | ,* | *, | *,,*)
	echo "bench-scale: SCALE_COUNTERS '$SCALE_COUNTERS': perf event names separated by commas" >&2
	exit 2 ;;
esac
KCMD=${SCALE_KCMD:-bench quick}
SCALE_ARCHES=${SCALE_ARCHES:-x86_64,arm64}
IFS=, read -r -a alist <<< "$SCALE_ARCHES"
[ ${#alist[@]} -gt 0 ] || { echo "bench-scale: SCALE_ARCHES is empty: x86_64, arm64 or both" >&2; exit 2; }
for arch in "${alist[@]}"; do
	case $arch in
	x86_64 | arm64) ;;
	*) echo "bench-scale: SCALE_ARCHES '$SCALE_ARCHES': '$arch' is no arch (x86_64, arm64)" >&2; exit 2 ;;
	esac
done
cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
if [ -n "${SCALE_THREADS:-}" ]; then
	threads=$SCALE_THREADS
else
	threads=
	for ((n = 1; n < cores; n *= 2)); do threads+="$n,"; done
	threads+=$cores
fi
maxn=1
IFS=, read -r -a tlist <<< "$threads"
for n in "${tlist[@]}"; do
	case $n in
	'' | *[!0-9]*) echo "bench-scale: SCALE_THREADS '$threads': '$n' is no count" >&2; exit 2 ;;
	esac
	[ "$n" -gt "$maxn" ] && maxn=$n
done
if [ "$maxn" -gt 64 ]; then
	echo "bench-scale: at most 64 threads (Quarry's NR_CPUS); asked for $maxn" >&2
	exit 2
fi
ncpus=$((maxn > 8 ? maxn : 8))
if [ -n "$B" ]; then	# the bundle's binaries were built for its own NR_CPUS
	ncpus=$(cat "$B/nr_cpus")
	[ "$maxn" -le "$ncpus" ] ||
		{ echo "bench-scale: this bundle was built for $ncpus CPUs; asked for $maxn" >&2; exit 2; }
fi
suffix=$([ "$ncpus" != 8 ] && echo "-cpus$ncpus")
mkdir -p "$OUT/logs"
rm -f "$OUT/host.csv" "$OUT/diag.csv" "$OUT/kernel.csv"
start=$(date +%s)
elapsed() { echo "$(($(date +%s) - start))s"; }
status=0

# How to start a program: directly, or through the bundle's loader.
if [ -n "$B" ]; then
	run_prog() { "$B/lib/ld-linux-x86-64.so.2" --library-path "$B/lib" "$@"; }
	BIN=$B/bin
else
	run_prog() { "$@"; }
	BIN=build/bench-host
fi
# jemalloc's initial-exec TLS needs room in glibc's static TLS surplus when dlopen'ed.
export GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.rtld.optional_static_tls=65536"

{
	echo "cores=$cores"
	echo "threads=$threads"
	echo "nr_cpus=$ncpus"
	echo "runs=$RUNS"
	echo "scale=$PCT"
	echo "kcmd=$KCMD"
	echo "arches=$SCALE_ARCHES"
	echo "spins_per_yield=${WL_SPINS_PER_YIELD:-64}"
	echo "cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
	# A virtual machine often names its CPU only "Intel(R) Xeon(R) Processor": the
	# family, model and stepping say which one (family 6 model 207: Emerald Rapids).
	echo "cpu_id=$(awk -F': *' '/^cpu family/ && !f {f = $2} /^model\t/ && !m {m = $2}
		/^stepping/ && !s {s = $2} END {printf "family %s model %s stepping %s", f, m, s}' \
		/proc/cpuinfo 2>/dev/null)"
	caches=
	for d in /sys/devices/system/cpu/cpu0/cache/index*; do
		[ -r "$d/size" ] || continue
		[ "$(cat "$d/type")" = Instruction ] && continue
		caches+="${caches:+, }L$(cat "$d/level") $(cat "$d/size") $(cat "$d/ways_of_associativity" 2>/dev/null)-way"
	done
	echo "caches=$caches"
	echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
	echo "bundle=${B:+yes}"
	echo "loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
} > "$OUT/meta.txt"

# ---- host workloads ----
if [ "${SCALE_HOST:-1}" != 0 ]; then
	if [ -z "$B" ]; then
		echo "bench-scale: [$(elapsed)] building the workloads (NR_CPUS=$ncpus)"
		"$here/host/deps.sh"
		for a in slab slub slob slob-seg; do
			make --no-print-directory -f "$here/host/bench-host.mk" BH_VARIANT_BUILD=1 \
				PAGE_SHIFT=12 SLAB_IDX= SLAB_DEBUG= SLAB_GROW_LOCKED= SLAB_FREELIST_HARDENED= \
				SLAB_STATS= SLUB_SHEAVES= BH_ALLOC=$a NR_CPUS=$ncpus > "$OUT/logs/build-host-$a.log" 2>&1 ||
				{ echo "bench-scale: build failed (see $OUT/logs/build-host-$a.log)" >&2; exit 1; }
		done
	fi
	for a in slab slub slob slob-seg; do
		tag=$([ $a = slab ] || echo "-$a")
		bin=$BIN/workloads-4k$tag$suffix
		allocs=quarry
		[ $a = slab ] && allocs=quarry,glibc,jemalloc,tcmalloc,mimalloc,locked
		echo "bench-scale: [$(elapsed)] host: $a${allocs#quarry} at threads $threads," \
			"$RUNS runs at $PCT%"
		run_prog "$bin" --variant $a --allocators $allocs --threads "$threads" --runs "$RUNS" \
			--scale "$PCT" --csv "$OUT/host.csv" --diag "$OUT/diag.csv" \
			--meta "$OUT/logs/host-$a.meta" \
			> "$OUT/logs/host-$a.log" 2>&1 ||
			{ echo "bench-scale: workloads-4k$tag failed (see $OUT/logs/host-$a.log)" >&2; status=1; }
	done
fi

# ---- where the time goes: perf's cpu-clock samples of SLAB and SLUB ----
if [ "${SCALE_HOST:-1}" != 0 ] && [ "${SCALE_PROFILE:-1}" != 0 ]; then
	P=$OUT/profile
	rm -rf "$P"
	mkdir -p "$P"
	if [ -n "$B" ] && [ -x "$B/bin/perf" ]; then
		perf_cmd() { "$B/lib/ld-linux-x86-64.so.2" --library-path "$B/lib" "$B/bin/perf" "$@"; }
	elif command -v perf > /dev/null 2>&1; then
		perf_cmd() { perf "$@"; }
	else
		perf_cmd() { return 127; }
	fi
	pthreads=1
	[ "$maxn" -gt 1 ] && pthreads="1 $maxn"
	# perf_run WHAT NAME BINARY-ARGS...: perf WHAT (record or stat, its options first,
	# up to --) over the timed run only, through the control fifos; the console in
	# console-NAME.log. Fails where perf is missing or refused.
	perf_run() {
		local name=$1 rc
		shift
		rm -f "$P/ctl.fifo" "$P/ack.fifo"
		mkfifo "$P/ctl.fifo" "$P/ack.fifo"
		WL_PERF_CTL="$P/ctl.fifo,$P/ack.fifo" perf_cmd "$@" > "$P/console-$name.log" 2>&1
		rc=$?
		rm -f "$P/ctl.fifo" "$P/ack.fifo"
		return $rc
	}
	loader=$( [ -n "$B" ] && echo "$B/lib/ld-linux-x86-64.so.2 --library-path $B/lib" )
	# SLAB and SLUB sampled and counted; mimalloc (the peer that scales best) counted
	# only, as the reference for what an operation costs in instructions and cycles.
	for a in slab slub mimalloc; do
		tag=
		[ $a = slub ] && tag=-slub
		allocs=quarry
		[ $a = mimalloc ] && allocs=mimalloc
		for w in larson mixed; do
			for n in $pthreads; do
				name=$a-$w-$n
				prog=("$BIN/workloads-4k$tag$suffix" --variant "$a" \
					--allocators $allocs --workloads $w --threads $n --runs 1 --scale "$PPCT")
				if [ $a != mimalloc ]; then
					ok=
					# The kernel's samples too where allowed, else the program's own.
					[ "$PROFILER" = self ] || for ev in cpu-clock cpu-clock:u; do
						echo "bench-scale: [$(elapsed)] profile: $a $w at $n threads (perf, $ev)"
						perf_run "$name" record -q -e $ev -F 20000 -D -1 \
							--control "fifo:$P/ctl.fifo,$P/ack.fifo" -o "$P/perf-$name.data" \
							-- $loader "${prog[@]}" && { ok=$ev; break; }
					done
					if [ -n "$ok" ]; then
						echo "$ok" > "$P/event-$name.txt"
						perf_cmd report -i "$P/perf-$name.data" --no-children --sort symbol \
							--stdio --percent-limit 0.5 2> /dev/null > "$P/report-$name.txt"
						rm -f "$P/perf-$name.data"
					elif [ "$PROFILER" != perf ]; then
						# No perf here: the workloads sample themselves (--sample).
						[ "$PROFILER" = self ] ||
							echo "bench-scale: perf is missing or refused for $name" \
								"(see $P/console-$name.log): the workloads sample it themselves" >&2
						echo "bench-scale: [$(elapsed)] profile: $a $w at $n threads (--sample)"
						run_prog "${prog[@]}" --sample "$P/sample-$name.txt" \
							> "$P/console-$name.log" 2>&1 ||
							echo "bench-scale: no profile of $name (see $P/console-$name.log)" >&2
					else
						echo "bench-scale: no profile of $name: perf is missing or refused" \
							"(see $P/console-$name.log)" >&2
					fi
				fi
				# Counters: whether an operation does more work with more threads
				# (instructions) or the same work waits longer (cycles, cache misses).
				# A machine without a PMU says <not supported>, and the report says so.
				echo "bench-scale: [$(elapsed)] counters: $a $w at $n threads (perf stat)"
				rm -f "$P/ops-$name.csv"
				perf_run "stat-$name" stat -x, -e "$SCALE_COUNTERS" -D -1 \
					--control "fifo:$P/ctl.fifo,$P/ack.fifo" -o "$P/stat-$name.csv" \
					-- $loader "${prog[@]}" --csv "$P/ops-$name.csv" ||
					echo "bench-scale: no counters of $name: perf is missing or refused" \
						"(see $P/console-stat-$name.log)" >&2
			done
		done
	done
fi

# ---- the kernel under MTTCG ----
# Variants: SLAB, SLUB and the counting SLUB per arch; arm64's carry the arch in
# their names (arm64-slab, ...), x86_64's none (slab, ...).
kvariants() {	# kvariants ARCH
	local p=$([ "$1" = arm64 ] && echo arm64-)
	echo "${p}slab ${p}slub ${p}slub-stats"
}
if [ "${SCALE_KERNEL:-1}" != 0 ]; then
	if [ -n "$B" ]; then
		qemu_run() {	# qemu_run VARIANT SMP
			local q args
			case $1 in
			arm64-*)
				q=qemu-system-aarch64
				args=(-M virt,gic-version=3 -cpu cortex-a72
					-semihosting-config enable=on,target=native
					-kernel "$B/iso/quarry-$1.elf" -append "$KCMD") ;;
			*)
				q=qemu-system-x86_64
				args=(-L "$B/fw" -M pc -cdrom "$B/iso/quarry-$1.iso" -boot d -vga none
					-device isa-debug-exit,iobase=0xf4,iosize=0x04) ;;
			esac
			QEMU_MODULE_DIR=$B/qemu timeout --foreground -k 5 600 \
				"$B/lib/ld-linux-x86-64.so.2" --library-path "$B/qemu:$B/lib" "$B/qemu/$q" \
				"${args[@]}" -accel tcg,thread=multi -smp "$2" -m 1G -serial stdio \
				-display none -monitor none -no-reboot -nic none
			[ $? = 33 ]
		}
		# A bundle made before arm64 was added has no arm64 kernels.
		have_variant() { [ -e "$B/iso/quarry-$1.iso" ] || [ -e "$B/iso/quarry-$1.elf" ]; }
	else
		qemu_run() {	# qemu_run VARIANT SMP
			case $1 in
			arm64-*) CMDLINE=$KCMD TCG_THREAD=multi tests/qemu/run.sh "$OUT/quarry-$1.elf" \
					600 -m 1G -smp "$2" ;;
			*) TCG_THREAD=multi tests/qemu/run.sh "$OUT/quarry-$1.iso" 600 -m 1G -smp "$2" ;;
			esac
		}
		have_variant() { true; }
		for arch in "${alist[@]}"; do
			for v in $(kvariants "$arch"); do
				a=${v#arm64-}
				echo "bench-scale: [$(elapsed)] building the $v kernel ($arch, 4K, NR_CPUS=$ncpus)"
				elf=build/$arch-4k$([ "$a" = slab ] || echo "-$a")$suffix/quarry.elf
				log=$OUT/logs/build-kernel-$v.log
				make --no-print-directory -j"$cores" ARCH="$arch" PAGE_SIZE=4K ALLOC=${a%-stats} \
					NR_CPUS=$ncpus SLAB_DEBUG= SLAB_STATS=$([ "$a" = slub-stats ] && echo 1) \
					kernel > "$log" 2>&1 ||
					{ echo "bench-scale: kernel build failed (see $log)" >&2; exit 1; }
				if [ "$arch" = arm64 ]; then
					cp "$elf" "$OUT/quarry-$v.elf"
				else
					tests/qemu/mkiso.sh "$elf" "$OUT/quarry-$v.iso" "$KCMD" >> "$log" 2>&1 ||
						{ echo "bench-scale: no ISO of $elf (see $log)" >&2; exit 1; }
				fi
			done
		done
	fi
	for arch in "${alist[@]}"; do
		for v in $(kvariants "$arch"); do
			if ! have_variant "$v"; then
				echo "bench-scale: this bundle has no $v kernel: left out" >&2
				continue
			fi
			for n in "${tlist[@]}"; do
				echo "bench-scale: [$(elapsed)] kernel: $v, MTTCG -smp $n"
				log=$OUT/logs/kernel-$v-smp$n.log
				qemu_run "$v" "$n" > "$log" 2>&1 ||
					{ echo "bench-scale: the $v kernel at -smp $n failed (see $log)" >&2; status=1; }
				# The counting build's timings are not the allocator's (shared counters): its
				# events and the atomics probe are read from its log by report_scale.py.
				[ "${v%-stats}" != "$v" ] && continue
				khz=$(sed -n 's/.*test=header .*counter_khz=\([0-9]*\).*/\1/p' "$log" | head -1)
				sed -n 's/^BENCH .* cpus=\([0-9]*\) mode=realtime test=concurrent_alloc_free size=\([0-9]*\) alloc_cost=\([0-9]*\) free_cost=\([0-9]*\) .*/\1,\2,\3,\4/p' \
					"$log" | tr -d '\r' | sed "s/^/$v,/; s/\$/,${khz:-0}/" >> "$OUT/kernel.csv"
			done
		done
	done
fi

echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" >> "$OUT/meta.txt"
# (report.py moves to a python3 that has matplotlib where this one lacks it)
py=$(command -v python3 || command -v /usr/bin/python3)
if [ -n "$py" ]; then
	"$py" "$here/report.py" scale --dir "$OUT" || status=1
else
	echo "bench-scale: no python3 here: copy $OUT back and run" \
		"python3 lab/bench/report_scale.py --dir DIR there" >&2
fi
echo "bench-scale: [$(elapsed)] $OUT/report.md"
exit $status
