/*
 * test_numa.c - the topology the kernel booted with (kernel/numa.h), whatever
 * the machine: at least one node; every CPU that was started on an online
 * node; every online node with memory or a CPU; its ranges in address order
 * and apart; distances 10 to itself, above 10 and the same both ways between
 * nodes; the accessors agreeing with the record. Kernel only: it reads what
 * numa_init found at boot.
 */
#include "kernel/numa.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"

SELFTEST(numa_boot_topology_consistent)
{
	const struct numa_topology *t = numa_topology();
	unsigned int online = 0;
	struct mem_range r, prev = { 0, 0 };

	ST_EXPECT(numa_num_nodes() >= 1 && numa_num_nodes() <= MAX_NUMNODES, "%u nodes",
		  numa_num_nodes());
	ST_EXPECT(t->n_cpus == num_possible_cpus(), "topology has %u CPUs, %u possible",
		  t->n_cpus, num_possible_cpus());
	for (unsigned int c = 0; c < t->n_cpus; c++)
		ST_EXPECT(numa_node_online(cpu_to_node(c)), "CPU %u on node %u, not online", c,
			  cpu_to_node(c));
	for (unsigned int n = 0; n < MAX_NUMNODES; n++) {
		bool has_cpu = false, has_mem = numa_node_range(n, 0, &r);

		if (!numa_node_online(n)) {
			ST_EXPECT(!has_mem, "offline node %u has memory", n);
			continue;
		}
		online++;
		for (unsigned int c = 0; c < t->n_cpus; c++)
			has_cpu |= cpu_to_node(c) == n;
		ST_EXPECT(has_cpu || has_mem, "online node %u has neither memory nor a CPU", n);
		for (unsigned int m = 0; m < MAX_NUMNODES; m++) {
			if (!numa_node_online(m))
				continue;
			ST_EXPECT(node_distance(n, m) == node_distance(m, n),
				  "distance %u->%u is %u, back %u", n, m, node_distance(n, m),
				  node_distance(m, n));
			ST_EXPECT(n == m ? node_distance(n, m) == NUMA_LOCAL_DISTANCE :
					   node_distance(n, m) > NUMA_LOCAL_DISTANCE,
				  "distance %u->%u is %u", n, m, node_distance(n, m));
		}
	}
	ST_EXPECT(online == numa_num_nodes(), "%u nodes online, %u counted", online,
		  numa_num_nodes());
	for (unsigned int i = 0; i < t->n_ranges; i++) {
		ST_EXPECT(t->ranges[i].start < t->ranges[i].end && t->ranges[i].start >= prev.end,
			  "range %u [0x%llx-0x%llx) out of order or overlapping", i,
			  (unsigned long long)t->ranges[i].start,
			  (unsigned long long)t->ranges[i].end);
		prev = (struct mem_range){ t->ranges[i].start, t->ranges[i].end };
	}
	ST_EXPECT(t->n_ranges > 0, "no memory on any node");
	return 0;
}
