#!/usr/bin/env bash
# numa-flags.sh NODES SMP MEM_MIB - the QEMU options for a machine of NODES
# NUMA nodes (make run NODES=N): one RAM backend and one -numa node per
# node, memory split evenly (the last node takes the remainder) and CPU c
# on node c * NODES / SMP (with fewer CPUs than nodes some nodes get none),
# then every pair's distance: 10 to itself, 20 to another node. NODES=1
# prints nothing: a machine without a NUMA description.
set -eu
nodes=$1 smp=$2 mib=$3
[ "$nodes" -gt 1 ] || exit 0
per=$((mib / nodes))
flags=
for ((n = 0; n < nodes; n++)); do
	size=$per
	[ $n -eq $((nodes - 1)) ] && size=$((mib - per * (nodes - 1)))
	first= last=
	for ((c = 0; c < smp; c++)); do
		if [ $((c * nodes / smp)) -eq $n ]; then
			[ -z "$first" ] && first=$c
			last=$c
		fi
	done
	cpus=
	if [ -n "$first" ]; then
		cpus=",cpus=$first"
		[ "$last" != "$first" ] && cpus="$cpus-$last"
	fi
	flags="$flags -object memory-backend-ram,id=m$n,size=${size}M -numa node,nodeid=$n$cpus,memdev=m$n"
done
for ((a = 0; a < nodes; a++)); do
	for ((b = 0; b < nodes; b++)); do
		[ $a -eq $b ] && d=10 || d=20
		flags="$flags -numa dist,src=$a,dst=$b,val=$d"
	done
done
echo "${flags# }"
