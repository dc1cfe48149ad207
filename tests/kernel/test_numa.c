/*
 * test_numa.c - the topology the kernel booted with (kernel/numa.h), whatever
 * the machine: at least one node; every CPU that was started on an online
 * node; every online node with memory or a CPU; its ranges in address order
 * and apart; distances 10 to itself, above 10 and the same both ways between
 * nodes; the accessors agreeing with the record. Then the page allocator
 * on that topology: alloc_pages_node(n) returns pages of node n's ranges
 * (or of the nearest node with memory, for a node without), they go back
 * to node n, and every zone passes buddy_check. Kernel only: it reads what
 * numa_init found at boot.
 */
#include "kernel/numa.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "mm/buddy.h"

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

/* in_node_ranges - is page wholly inside one of node's ranges? */
static bool in_node_ranges(const struct page *page, unsigned int order, unsigned int node)
{
	uint64_t start = (uint64_t)page_to_pfn(page) << PAGE_SHIFT;
	uint64_t end = start + (PAGE_SIZE << order);
	struct mem_range r;

	for (unsigned int i = 0; numa_node_range(node, i, &r); i++)
		if (r.start <= start && end <= r.end)
			return true;
	return false;
}

SELFTEST(numa_alloc_pages_node_in_range)
{
	static const unsigned int orders[] = { 0, 3, 5 };
	struct mem_range r;

	for (unsigned int n = 0; n < MAX_NUMNODES; n++) {
		if (!numa_node_online(n))
			continue;
		for (unsigned int i = 0; i < ARRAY_SIZE(orders); i++) {
			struct page *p = alloc_pages_node(n, orders[i]);
			unsigned int got;

			ST_EXPECT(p, "alloc_pages_node(%u, %u) failed", n, orders[i]);
			got = page_to_nid(p);
			if (numa_node_range(n, 0, &r))
				ST_EXPECT(got == n && in_node_ranges(p, orders[i], n),
					  "alloc_pages_node(%u, %u): pfn 0x%lx is node %u's", n,
					  orders[i], page_to_pfn(p), got);
			else	/* no memory: the nearest node with some */
				ST_EXPECT(got != n && in_node_ranges(p, orders[i], got),
					  "alloc_pages_node(%u, %u) on memoryless node: pfn 0x%lx",
					  n, orders[i], page_to_pfn(p));
			ST_EXPECT(free_pages(p, orders[i]) == 0, "free_pages failed");
		}
	}
	ST_EXPECT(buddy_check() == 0, "buddy_check failed");
	return 0;
}
