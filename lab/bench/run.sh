#!/usr/bin/env bash
# run.sh [quick] [ARCH...] [alloc=LIST] - `make bench`: build and boot each
# configuration with the benchmarks, gather build/bench/results.csv,
# report.md and plots.
#
#   quick       the natural configuration only, one boot at -smp 1 and 2
#               (and no multi-CPU -icount mode)
#   mcpu        the multi-CPU -icount mode only (below), nothing else
#   nomcpu      everything but the multi-CPU -icount mode
#   ARCH...     x86_64 and/or arm64: the arches to run (default: both). Without
#               ARCH arguments the environment variable BENCH_ARCHES (a
#               space-separated list) is read, then the default.
#   alloc=LIST  the object allocators to run: slab, slub, slob and/or
#               slob-seg, separated by commas or spaces (default: all four);
#               a bare allocator name or comma list says the same. Without it the
#               environment variable BENCH_ALLOCS is read, then the default.
#   `make bench ARCH=arm64 ALLOC=slub` runs arm64's SLUB only: the Makefile
#   passes ARCH and ALLOC as arguments when they were given on make's command
#   line:
#     @lab/bench/run.sh $(if $(QUICK),quick) \
#       $(if $(filter command line,$(origin ARCH)),$(ARCH)) \
#       $(if $(filter command line,$(origin ALLOC)),alloc=$(ALLOC))
#   (the ARCH and ALLOC environment variables themselves are not read: make
#   exports them whenever they are set, command line or not; and since make
#   also hands its command-line variables to every make run below through
#   MAKEFLAGS, each build below names its ARCH and ALLOC explicitly)
#
# Configurations: x86_64 at 4K and 64K pages, arm64 at 4K, 16K and 64K pages
# (QEMU virt; 16K with CPU=max, the others with $CPU, default cortex-a72).
# SLAB (ALLOC=slab, build/<arch>-<page>/) with the natural freelist index and
# the two seed-post variants (SLAB_IDX=4, SLAB_GROW_LOCKED=1; not with quick);
# SLUB (ALLOC=slub, build/<arch>-<page>-slub/) in its natural configuration,
# run exactly as SLAB's natural build is. The hardening options, single CPU
# only and not with quick, for their cost: SLAB with SLAB_FREELIST_RANDOM=1
# (slab-random) and SLUB with SLAB_FREELIST_HARDENED=1 (slub-hardened). SLOB and SLOB-seg (ALLOC=slob,
# slob-seg) single CPU only: one lock per heap, built for small machines, so
# their concurrent figures would say nothing seed 004 asks about.
#
#   single CPU: QEMU TCG -icount shift=0,sleep=off (the cycle counter, rdtsc
#     or PMCCNTR_EL0, counts guest instructions), every configuration booted
#     twice: the figures must be identical, and the run fails if they are not;
#   multi-CPU: MTTCG at -smp 2 and -smp 4 in real time, 5 boots each, and
#     -smp 1 in real time as the base of the concurrent ratio (quick: 1 boot
#     at -smp 1 and 2), reported as median and range; for SLAB's natural
#     build, its grow-locked variant and SLUB.
#   multi-CPU -icount (mcpu_run, not with quick): SLAB, SLAB grow-locked and
#     SLUB at each arch's 4K pages, booted with "bench icount quick" at -smp
#     2, 4 and 8 under -icount shift=0,sleep=off (QEMU runs the vCPUs
#     round-robin in one thread; the kernel makes test 3's CPUs take turns,
#     lab/bench.h bench_turn), twice each: test 3's whole-machine figures
#     (test=concurrent_span) and every other BENCH line must be identical in
#     both boots, and the run fails if not (x86_64's kernel starts through
#     QEMU's own loader under -icount, tests/qemu/run.sh, so nothing before
#     it waits on the host).
# NODES=N (2 to 8; environment, `make bench NODES=N`): after each configuration's
# -icount runs, SLAB's, SLUB's, SLOB's and SLOB-seg's natural builds are also
# booted on N QEMU NUMA nodes with the NUMA section alone (lab/bench/numa.sh:
# twice under -icount, and with MODEL=1 twice more with the cache model given
# the nodes); the report gets its "NUMA: local and remote" section.
# Logs: build/bench/logs/<arch>-<page>-<alloc>-{icount-R,smpN-R,mcpuN-R,build}.log,
# <alloc> being slab, slab-idx4, slab-growlocked, slub, slob or slob-seg (the kernel's
# alloc= in its BENCH lines).
# Exit status 1 when a build, a boot or the determinism check failed (the
# report is still written from what ran); 2 for bad arguments.
set -u
cd "$(dirname "$0")/../.." || exit 1
quick=
arches=()
allocs=()
usage="usage: lab/bench/run.sh [quick] [mcpu|nomcpu] [x86_64] [arm64] [alloc=slab,slub,slob,slob-seg]"
mcpu=1	# 1: run the multi-CPU -icount mode too; only: nothing else; empty: not
add_allocs() {	# add_allocs LIST: slab, slub, slob, slob-seg, by commas or spaces
	local x xs
	IFS=', ' read -r -a xs <<< "$1"
	for x in "${xs[@]}"; do
		case $x in
		slab | slub | slob | slob-seg) allocs+=("$x") ;;
		*) echo "bench: unknown allocator '$x' (slab, slub, slob, slob-seg)" >&2; exit 2 ;;
		esac
	done
}
for a in "$@"; do
	case $a in
	quick | QUICK) quick=1 ;;
	mcpu | MCPU) mcpu=only ;;
	nomcpu | NOMCPU) mcpu= ;;
	x86_64 | arm64) arches+=("$a") ;;
	alloc=* | ALLOC=*) add_allocs "${a#*=}" ;;
	slab | slub | slob | slob-seg | slab,* | slub,* | slob,* | slob-seg,*) add_allocs "$a" ;;
	"") ;;
	*) echo "$usage  (not '$a')" >&2; exit 2 ;;
	esac
done
if [ ${#arches[@]} -eq 0 ]; then
	read -r -a arches <<< "${BENCH_ARCHES:-x86_64 arm64}"
fi
for a in "${arches[@]}"; do
	case $a in x86_64 | arm64) ;; *) echo "bench: unknown arch '$a' (x86_64, arm64)" >&2; exit 2 ;; esac
done
[ ${#allocs[@]} -eq 0 ] && add_allocs "${BENCH_ALLOCS:-slab slub slob slob-seg}"
[ ${#allocs[@]} -eq 0 ] && { echo "bench: no allocator to run (slab, slub, slob, slob-seg)" >&2; exit 2; }
# SLAB, SLUB, SLOB, SLOB-seg, each once, whatever order they were given in
want_slab= want_slub= want_slob= want_slob_seg=
for a in "${allocs[@]}"; do
	case $a in slab) want_slab=1 ;; slub) want_slub=1 ;; slob) want_slob=1 ;; slob-seg) want_slob_seg=1 ;; esac
done
nodes=${NODES:-1}
case $nodes in [1-8]) ;; *) echo "bench: NODES must be a NUMA node count from 1 to 8, not '$nodes'" >&2; exit 2 ;; esac
out=build/bench
mkdir -p "$out/logs"
rm -f "$out"/logs/*.log "$out"/logs/*-numa-model.csv
jobs=2


# Configurations per arch and page size: "<alloc> <make variables...>"
configs=()
if [ -n "$want_slab" ]; then
	configs+=("slab ALLOC=slab")
	[ -z "$quick" ] && configs+=("slab-idx4 ALLOC=slab SLAB_IDX=4" "slab-growlocked ALLOC=slab SLAB_GROW_LOCKED=1"
		"slab-random ALLOC=slab SLAB_FREELIST_RANDOM=1")
fi
[ -n "$want_slub" ] && configs+=("slub ALLOC=slub")
[ -n "$want_slub" ] && [ -z "$quick" ] && configs+=("slub-hardened ALLOC=slub SLAB_FREELIST_HARDENED=1")
[ -n "$want_slob" ] && configs+=("slob ALLOC=slob")
[ -n "$want_slob_seg" ] && configs+=("slob-seg ALLOC=slob-seg")
smps=(1 2 4)	# -smp 1 in real time too: the base of the concurrent ratio
boots=5
if [ -n "$quick" ]; then smps=(1 2); boots=1; fi
cmd_extra=${quick:+ quick}
status=0

# The build directory's suffix of a configuration (Makefile: BUILD).
bdir() { case "$1" in slab) ;; slab-idx4) echo -idx4 ;; slab-growlocked) echo -growlocked ;; slub) echo -slub ;; slab-random) echo -random ;; slub-hardened) echo -slub-hardened ;; slob) echo -slob ;; slob-seg) echo -slob-seg ;; esac; }
page_sizes() { case "$1" in x86_64) echo 4K 64K ;; arm64) echo 4K 16K 64K ;; esac; }
# QEMU's arm64 CPU for a page size: 16K needs a CPU with the 16K granule
# (max); otherwise the caller's CPU, or run.sh's default (cortex-a72).
cpu_for() {
	if [ "$1" = 16K ]; then
		case ${CPU:-} in "" | cortex-a57 | cortex-a72) echo max ;; *) echo "$CPU" ;; esac
	else
		echo "${CPU:-}"
	fi
}

# The multi-CPU -icount mode alone leaves the main loop nothing to do.
main_arches=("${arches[@]}")
[ "$mcpu" = only ] && main_arches=()
[ -n "$quick" ] && [ "$mcpu" != only ] && mcpu=

# mcpu_run ARCH - the multi-CPU -icount mode (see the header) on ARCH's 4K
# pages: build, boot each configuration twice at 2, 4 and 8 CPUs, compare.
mcpu_run() {
	local arch=$1 ps=4K tag=4k cpu= c alloc vars name elf n r cmp
	[ "$arch" = arm64 ] && cpu=$(cpu_for $ps)
	for c in "${configs[@]}"; do
		read -r alloc vars <<< "$c"
		case $alloc in slab | slab-growlocked | slub) ;; *) continue ;; esac
		name="$arch-$tag-$alloc"
		echo "== $name: build (multi-CPU -icount)"
		# shellcheck disable=SC2086 # $vars: make variables, one word each
		if ! make --no-print-directory -j$jobs ARCH=$arch PAGE_SIZE=$ps $vars ${cpu:+CPU=$cpu} kernel \
			> "$out/logs/$name-mcpu-build.log" 2>&1; then
			tail -20 "$out/logs/$name-mcpu-build.log"; status=1; continue
		fi
		elf=build/$arch-$tag$(bdir "$alloc")/quarry.elf
		for n in 2 4 8; do
			for r in 1 2; do
				echo "== $name: $n CPUs, -icount, run $r of 2"
				CPU=$cpu CMDLINE="bench icount quick" tests/qemu/run.sh "$elf" 900 -m 1G -smp $n \
					-icount shift=0,sleep=off > "$out/logs/$name-mcpu$n-$r.log" 2>&1 ||
					{ echo "   boot failed (see $out/logs/$name-mcpu$n-$r.log)"; status=1; }
			done
			cmp=$(python3 lab/bench/parse.py --compare "$out/logs/$name-mcpu$n-1.log" \
				"$out/logs/$name-mcpu$n-2.log")
			case $? in
			0) echo "   $cmp" ;;
			*) echo "   NOT deterministic: $cmp"; status=1 ;;
			esac
		done
	done
}

for arch in "${main_arches[@]}"; do
	for ps in $(page_sizes $arch); do
		tag=$(echo $ps | tr K k)
		cpu=
		[ $arch = arm64 ] && cpu=$(cpu_for $ps)
		for c in "${configs[@]}"; do
			read -r alloc vars <<< "$c"
			name="$arch-$tag-$alloc"
			echo "== $name: build"
			# shellcheck disable=SC2086 # $vars: make variables, one word each
			if ! make --no-print-directory -j$jobs ARCH=$arch PAGE_SIZE=$ps $vars ${cpu:+CPU=$cpu} kernel \
				> "$out/logs/$name-build.log" 2>&1; then
				tail -20 "$out/logs/$name-build.log"; status=1; continue
			fi
			elf=build/$arch-$tag$(bdir "$alloc")/quarry.elf
			for r in 1 2; do
				echo "== $name: single CPU, -icount, run $r of 2"
				CPU=$cpu CMDLINE="bench icount$cmd_extra" tests/qemu/run.sh "$elf" 600 -m 1G -smp 1 \
					-icount shift=0,sleep=off > "$out/logs/$name-icount-$r.log" 2>&1 ||
					{ echo "   boot failed (see $out/logs/$name-icount-$r.log)"; status=1; }
			done
			a=$(grep '^BENCH .*cpus=1 mode=icount' "$out/logs/$name-icount-1.log" | tr -d '\r')
			b=$(grep '^BENCH .*cpus=1 mode=icount' "$out/logs/$name-icount-2.log" | tr -d '\r')
			if [ -n "$a" ] && [ "$a" = "$b" ]; then
				echo "   deterministic: $(echo "$a" | wc -l) BENCH lines identical in both runs"
			else
				echo "   NOT deterministic: the two -icount runs differ:"
				diff <(echo "$a") <(echo "$b") | head -10
				status=1
			fi
			# MODEL=1: the cache model's misses and modelled cycles per operation -> $out/model.md
			[ -n "${MODEL:-}" ] && { tools/cachemodel/bench.sh "$name" "$elf" "$cpu" "$out" "$cmd_extra" || status=1; }
			# NODES > 1: the NUMA section on that many nodes (with MODEL=1 modelled too)
			if [ "$nodes" -gt 1 ]; then
				case $alloc in
				slab | slub | slob | slob-seg) lab/bench/numa.sh "$name" "$elf" "$cpu" "$out" "$nodes" || status=1 ;;
				esac
			fi
			# multi-CPU runs only where they compare something: SLAB's natural build,
			# its grow-locked variant (seed 001's concurrent table) and SLUB
			case $alloc in slab-idx4 | slab-random | slub-hardened | slob | slob-seg) continue ;; esac
			for n in "${smps[@]}"; do
				for r in $(seq 1 $boots); do
					echo "== $name: -smp $n real time, boot $r of $boots"
					# hoststat.py: HOST lines (the vCPU threads' host run and wait
					# times, named by debug-threads) for report_rt64k.py
					CPU=$cpu CMDLINE="bench$cmd_extra" lab/bench/hoststat.py tests/qemu/run.sh "$elf" 900 \
						-m 1G -smp $n -name quarry,debug-threads=on > "$out/logs/$name-smp$n-$r.log" 2>&1 ||
						{ echo "   boot failed (see $out/logs/$name-smp$n-$r.log)"; status=1; }
				done
			done
		done
	done
done

# MODEL=1: Linux's rows beside Quarry's, from the kernels `make bench-linux`
# built (lab/linux/model.sh; "not measured" for one that is not built): for
# each arch and page size of this run that Linux has, the Linux allocators
# that match this run's (SLOB and SLOB-seg both against Linux 6.1's SLOB).
if [ -n "${MODEL:-}" ] && [ "$mcpu" != only ]; then
	lnames=()
	[ -n "$want_slab" ] && lnames+=(linux61-slab)
	[ -n "$want_slub" ] && lnames+=(linux61-slub linux612-slub)
	[ -n "$want_slob$want_slob_seg" ] && lnames+=(linux61-slob)
	for arch in "${main_arches[@]}"; do
		for ps in $(page_sizes $arch); do
			[ "$arch/$ps" = x86_64/64K ] && continue	# Linux's x86_64 has 4K pages only
			for ln in "${lnames[@]}"; do
				lab/linux/model.sh "$ln-$arch-$ps" "$out"
				[ $? -eq 1 ] && status=1
			done
		done
	done
	tools/cachemodel/model_md.sh "$out"
fi

if [ -n "$mcpu" ]; then
	for arch in "${arches[@]}"; do
		mcpu_run "$arch"
	done
fi

echo "== report"
python3 lab/bench/report.py bench "$out" || status=1
echo "wrote $out/results.csv, $out/raw.csv, $out/report.md and $out/*.png"
exit $status
