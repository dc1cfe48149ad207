#!/usr/bin/env bash
# make-options.sh - bad build options (ARCH, PAGE_SIZE, CPU for 16K, SMP,
# MEM, NODES, ALLOC) are refused by make itself, before anything is built, with one
# line naming the option and what it accepts; the edges of the accepted
# ranges get through. Prints PASS/FAIL lines.
set -u
cd "$(dirname "$0")/.."

refuse() {	# refuse NAME PATTERN MAKE-ARGS...: make -n must fail, saying PATTERN
	local name=$1 pat=$2 out rc goal=kernel
	shift 2
	[ "$1" = -f ] && goal=	# another makefile: its default goal
	out=$(make -n "$@" $goal 2>&1)
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
refuse smp-0 "SMP must be a CPU count from 1 to 8, not '0'" SMP=0
refuse smp-word "SMP must be a CPU count from 1 to 8, not 'banana'" SMP=banana
refuse smp-9 "SMP=9 is more CPUs than Quarry starts \\(NR_CPUS is 8\\)" SMP=9
refuse smp-64 "SMP=64 is more CPUs than Quarry starts \\(NR_CPUS is 8\\)" SMP=64 ARCH=arm64
refuse nr-cpus-word "NR_CPUS must be a CPU count from 1 to 64 \\(default 8\\), not 'many'" NR_CPUS=many
refuse nr-cpus-0 "NR_CPUS must be a CPU count from 1 to 64 \\(default 8\\), not '0'" NR_CPUS=0
refuse nr-cpus-65 "NR_CPUS=65 is out of range: Quarry starts at most 64 CPUs" NR_CPUS=65 ARCH=arm64
refuse smp-65 "SMP=65 is more CPUs than Quarry starts \\(NR_CPUS is 64\\)" SMP=65 NR_CPUS=64
refuse smp-above-nr-cpus "SMP=8 is more CPUs than Quarry starts \\(NR_CPUS is 4\\)" SMP=8 NR_CPUS=4
refuse host-nr-cpus "NR_CPUS=99 is out of range" -f tests/host/host.mk NR_CPUS=99
refuse mem-word "MEM must be a RAM size such as 256M or 1G, not 'foo'" MEM=foo
refuse mem-fraction "MEM must be a RAM size such as 256M or 1G, not '1.5G'" MEM=1.5G
refuse mem-small "MEM=4M is out of range: Quarry boots with 8M to 8G" MEM=4M
refuse linux "LINUX must be 1 \\(make replay: the trace in the Linux kernels of make bench-linux too\\) or unset, not 'yes'" LINUX=yes
refuse merge "MERGE must be 0 \\(make replay: no cache merging\\) or 1 \\(merging, the default\\), not 'yes'" MERGE=yes
refuse mem-large "MEM=16G is out of range: Quarry boots with 8M to 8G" MEM=16G ARCH=arm64
refuse nodes-0 "NODES must be a NUMA node count from 1 to 8, not '0'" NODES=0
refuse nodes-9 "NODES must be a NUMA node count from 1 to 8, not '9'" NODES=9
refuse nodes-word "NODES must be a NUMA node count from 1 to 8, not 'two'" NODES=two ARCH=arm64
refuse host-page-size "PAGE_SIZE must be 4K, 16K or 64K, not '32K'" -f tests/host/host.mk PAGE_SIZE=32K
refuse host-page-size-shift "PAGE_SIZE=64K and PAGE_SHIFT=12 disagree" -f tests/host/host.mk PAGE_SIZE=64K \
	PAGE_SHIFT=12
# PAGE_SIZE names the host build's page size as it does the kernel's (it was once ignored)
if make -n -f tests/host/host.mk PAGE_SIZE=64K 2>&1 | grep -q "build/host-64k/"; then
	echo "PASS make-options-host-page-size-64k: 'make -f tests/host/host.mk PAGE_SIZE=64K' builds into build/host-64k"
else
	echo "FAIL make-options-host-page-size-64k: 'make -f tests/host/host.mk PAGE_SIZE=64K' does not build into build/host-64k"
fi
refuse host-nodes-0 "NODES must be a NUMA node count from 1 to 8, not '0'" -f tests/host/host.mk NODES=0
refuse host-nodes-9 "NODES must be a NUMA node count from 1 to 8, not '9'" -f tests/host/host.mk NODES=9
refuse nodes-small-mem "NODES=8 with MEM=32M: each node needs at least 8M, give MEM=64M or more" NODES=8 MEM=32M
refuse alloc "ALLOC must be one of slab slob slob-seg slub, not 'slab2'" ALLOC=slab2

accept() {	# accept NAME MAKE-ARGS...: make -n must get past the checks
	local name=$1 out rc
	shift
	out=$(make -n "$@" kernel 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "PASS make-options-$name: 'make $*' accepted"
	else
		echo "FAIL make-options-$name: 'make $*' refused: $(echo "$out" | head -2 | tr '\n' ' ')"
	fi
}
accept good-edges SMP=8 MEM=8M
accept good-nodes NODES=8 MEM=64M SMP=2
accept good-sizes ARCH=arm64 SMP=1 MEM=8G ALLOC=slob-seg
accept good-mib MEM=512 ALLOC=slub
accept good-nr-cpus SMP=64 NR_CPUS=64
accept good-nr-cpus-arm64 ARCH=arm64 SMP=64 NR_CPUS=64 ALLOC=slub

builds_in() {	# builds_in NAME DIR MAKE-ARGS...: make's build directory must be DIR
	local name=$1 dir=$2 got
	shift 2
	got=$(make --no-print-directory -s "$@" -f Makefile -f - print-build \
		<<< 'print-build: ; @echo $(BUILD)' 2>&1 | tail -1)
	if [ "$got" = "$dir" ]; then
		echo "PASS make-options-$name: 'make $*' builds into $dir"
	else
		echo "FAIL make-options-$name: 'make $*' builds into '$got', not $dir"
	fi
}
builds_in dir-default build/x86_64-4k
builds_in dir-nr-cpus-8 build/x86_64-4k NR_CPUS=8
builds_in dir-nr-cpus-64 build/x86_64-4k-cpus64 NR_CPUS=64
builds_in dir-nr-cpus-64-slub build/arm64-64k-slub-cpus64 NR_CPUS=64 ALLOC=slub ARCH=arm64 PAGE_SIZE=64K
