#!/usr/bin/env bash
# numa.sh NAME ELF [boots] - the NUMA topology the kernel reads from the firmware,
# booted (no command line: boot reports, then exit) on QEMU machines of the
# node counts make run NODES=N gives (scripts/numa-flags.sh), either arch
# (from the ELF header):
#   NAME-1node:     no -numa options: one node, "no topology from the firmware";
#   NAME-2nodes:    NODES=2, 2 CPUs, 256M: the SRAT and SLIT (x86_64) or the
#                   device tree's numa-node-id and distance-map (arm64) give two
#                   nodes of 128M and a CPU each, distances 10/20;
#   NAME-4nodes:    NODES=4, 2 CPUs: nodes 1 and 3 have memory and no CPU.
# Each boot must exit 0 and print no "numa: ..." complaint; the page
# allocator's zones must follow the nodes (a buddyinfo line per node).
# Then NAME-4nodes-selftest boots the 4-node machine with
# "selftest_prefix=numa_": the topology's and the page allocator's in-kernel
# NUMA tests (tests/kernel/test_numa.c) must pass. (On 2 nodes they run with
# every other self-test: make test boots 2 nodes x 2 CPUs with "selftest".)
# With "boots" (make test at 16K and 64K pages): NAME-2nodes and NAME-4nodes
# alone (another mode: a FAIL line and status 2).
# Prints PASS/FAIL lines; logs in build/test/NAME-*.log. About 2 s a boot.
set -u
name=$1 elf=$2 mode=${3:-all}
case $mode in all | boots) ;; *) echo "FAIL $name: numa.sh: mode '$mode' is not 'boots' (or none)"; exit 2 ;; esac
here=$(dirname "$0")
mkdir -p build/test

if ! info=$("$here/elfinfo.sh" "$elf"); then
	echo "FAIL $name-2nodes: $elf is not an x86_64 or arm64 kernel ELF"
	exit 0
fi
arch=${info% *}
case $arch in
x86_64) src='SRAT, SLIT' lo=0x00100000 base=0 ;;
arm64)  src='device tree, distance-map' lo=0x40000000 base=$((0x40000000)) ;;
esac
hex() { printf '0x%08x' $(($1)); }

# numa_boot TEST NODES CPUS PATTERN...: boot, then every pattern must be a line of the log
numa_boot() {
	local test=$1 nodes=$2 cpus=$3 log=build/test/$1.log rc
	shift 3
	# shellcheck disable=SC2046 # the flags are words
	CMDLINE=${boot_cmdline:-} "$here/run.sh" "$elf" 60 -smp "$cpus" -m 256M \
		$("$here/../../scripts/numa-flags.sh" "$nodes" "$cpus" 256) > "$log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL $test: status $rc (see $log)"
		return
	fi
	if tr -d '\r' < "$log" | grep -q '^numa: '; then
		echo "FAIL $test: the kernel refused the topology: $(grep '^numa: ' "$log" | head -1)"
		return
	fi
	for pat in "$@"; do
		if ! tr -d '\r' < "$log" | grep -qxE -- "$pat"; then
			echo "FAIL $test: no line matching '$pat' (see $log)"
			return
		fi
	done
	echo "PASS $test: $nodes node(s), $cpus CPUs, topology printed as QEMU built it"
}

mb=$((1 << 20))
[ "$mode" = all ] && numa_boot "$name-1node" 1 2 \
	'NUMA: 1 node \(no topology from the firmware\)' 'NUMA: node 0 CPUs: 0-1' \
	'node distances:' 'node    0' '   0:  10'

n0_first="NUMA: node 0: \[mem $lo-$(hex $base+128*mb-1)\]"
numa_boot "$name-2nodes" 2 2 \
	"NUMA: 2 nodes \($src\)" "$n0_first" \
	"NUMA: node 1: \[mem $(hex $base+128*mb)-$(hex $base+256*mb-1)\]" \
	'NUMA: node 0 CPUs: 0' 'NUMA: node 1 CPUs: 1' \
	'node distances:' 'node    0   1' '   0:  10  20' '   1:  20  10' \
	'buddy: 2 zones, one per node; allocation falls back nearest node first' \
	'Node 0, zone   Normal.*' 'Node 1, zone   Normal.*'

numa_boot "$name-4nodes" 4 2 \
	"NUMA: 4 nodes \($src\)" \
	"NUMA: node 1: \[mem $(hex $base+64*mb)-$(hex $base+128*mb-1)\]" \
	"NUMA: node 3: \[mem $(hex $base+192*mb)-$(hex $base+256*mb-1)\]" \
	'NUMA: node 0 CPUs: 0' 'NUMA: node 1 CPUs: none' 'NUMA: node 2 CPUs: 1' \
	'NUMA: node 3 CPUs: none' 'node    0   1   2   3' '   3:  20  20  20  10' \
	'Node 0, zone   Normal.*' 'Node 3, zone   Normal.*'

[ "$mode" = boots ] && exit 0
boot_cmdline=selftest_prefix=numa_
numa_boot "$name-4nodes-selftest" 4 2 'PASS numa_alloc_pages_node_in_range.*' 'Quarry: done, ok'
