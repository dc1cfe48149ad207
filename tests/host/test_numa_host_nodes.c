/*
 * test_numa_host_nodes.c - the host harness's own NUMA nodes (tests/host/
 * shim.c: QUARRY_NODES, the fuzzer's --nodes): bad node counts refused with
 * a message naming the value and where it came from; the record the shim
 * builds for N nodes is the layout make run NODES=N gives QEMU (memory
 * split evenly, CPU c on node c * N / CPUs, distances 10/20) and passes
 * numa_build; and the default arena this binary runs on has host_nodes
 * nodes, in the topology and in the page allocator's zones.
 */
#include "host_shim.h"
#include "kernel/numa.h"
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include <stdio.h>
#include <string.h>

SELFTEST_HOST(numa_host_nodes_parse)
{
	static const char *const bad[] = { "0", "9", "", "x", "2x", "-1", "+2", " 2",
					   "99999999999999999999" };
	char msg[128], want[128];

	for (unsigned int n = 1; n <= MAX_NUMNODES; n++) {
		char val[4];

		snprintf(val, sizeof(val), "%u", n);
		ST_EXPECT(host_nodes_parse(val, "QUARRY_NODES", msg, sizeof(msg)) == n,
			  "QUARRY_NODES=%s not taken", val);
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		msg[0] = '\0';
		ST_EXPECT(host_nodes_parse(bad[i], "--nodes", msg, sizeof(msg)) == 0,
			  "node count '%s' taken", bad[i]);
		snprintf(want, sizeof(want), "--nodes=%s: not a NUMA node count from 1 to %d", bad[i],
			 MAX_NUMNODES);
		ST_EXPECT(!strcmp(msg, want), "'%s': message '%s'", bad[i], msg);
	}
	return 0;
}

/* record_checks - host_numa_firmware's record of nodes nodes, built and checked, not used. */
static int record_checks(unsigned int nodes)
{
	static struct numa_firmware fw;
	static struct numa_topology t;
	static uint64_t hwid[NR_CPUS];
	uint64_t base = host_arena.phys_base;
	uint64_t per = ALIGN_DOWN((uint64_t)host_arena.bytes / nodes, (uint64_t)PAGE_SIZE);

	host_numa_firmware(&fw, nodes, hwid);
	ST_EXPECT(fw.n_mem == nodes && fw.n_cpu == NR_CPUS && fw.has_distance,
		  "%u nodes: %u ranges, %u CPUs", nodes, fw.n_mem, fw.n_cpu);
	for (unsigned int n = 0; n < nodes; n++) {
		uint64_t end = n + 1 == nodes ? base + host_arena.bytes : base + (n + 1) * per;

		ST_EXPECT(fw.mem[n].node == n && fw.mem[n].start == base + n * per &&
				  fw.mem[n].end == end,
			  "%u nodes: node %u's range [0x%llx, 0x%llx)", nodes, n,
			  (unsigned long long)fw.mem[n].start, (unsigned long long)fw.mem[n].end);
		for (unsigned int m = 0; m < nodes; m++)
			ST_EXPECT(fw.distance[n][m] == (n == m ? 10u : 20u),
				  "%u nodes: distance %u->%u is %u", nodes, n, m, fw.distance[n][m]);
	}
	for (unsigned int c = 0; c < NR_CPUS; c++)
		ST_EXPECT(hwid[c] == c && fw.cpu[c].hwid == c && fw.cpu[c].node == c * nodes / NR_CPUS,
			  "%u nodes: CPU %u on node %u", nodes, c, fw.cpu[c].node);
	host_console_clear();
	ST_EXPECT(numa_build(&t, &fw, host_arena.avail, host_arena.n_avail, hwid, NR_CPUS) == 0 &&
			  t.nr_nodes == nodes && !host_console_contains("numa:"),
		  "%u nodes: the record was refused", nodes);
	return 0;
}

/* The records for 2 to 8 nodes over the running arena, whatever host_nodes is. */
SELFTEST_HOST(numa_host_nodes_record)
{
	ST_EXPECT(host_node_cpus == 0, "host_node_cpus %u: this test expects NR_CPUS", host_node_cpus);
	for (unsigned int nodes = 2; nodes <= MAX_NUMNODES; nodes++) {
		int ret = record_checks(nodes);

		if (ret)
			return ret;
	}
	return 0;
}

/* Whether physical address phys lies in one of node n's memory ranges (a node may have several). */
static bool node_holds(unsigned int n, uint64_t phys)
{
	struct mem_range r;

	for (unsigned int i = 0; numa_node_range(n, i, &r); i++)
		if (phys >= r.start && phys < r.end)
			return true;
	return false;
}

/*
 * The running topology: host_nodes nodes on the default arena, CPU c on
 * node c * host_nodes / NR_CPUS, every node's zone holding free pages of
 * its own range only, and alloc_pages_node(n) served from node n.
 */
SELFTEST_HOST(numa_host_nodes_running)
{
	unsigned int nodes = host_nodes;
	unsigned long sum = 0;
	struct mem_range r;

	ST_EXPECT(nodes >= 1 && nodes <= MAX_NUMNODES, "host_nodes is %u", nodes);
	ST_EXPECT(host_arena.nodes == nodes && numa_num_nodes() == nodes,
		  "host_nodes %u, arena %u, topology %u nodes", nodes, host_arena.nodes,
		  numa_num_nodes());
	for (unsigned int c = 0; c < NR_CPUS; c++)
		ST_EXPECT(cpu_to_node(c) == c * nodes / NR_CPUS, "CPU %u on node %u", c,
			  cpu_to_node(c));
	for (unsigned int n = 0; n < nodes; n++) {
		struct page *p;
		uint64_t phys;

		ST_EXPECT(numa_node_online(n) && numa_node_range(n, 0, &r), "node %u has no range", n);
		sum += nr_free_pages_node(n);
		p = alloc_pages_node(n, 0);
		ST_EXPECT(p, "alloc_pages_node(%u, 0) failed", n);
		phys = (uint64_t)page_to_pfn(p) << PAGE_SHIFT;
		free_pages(p, 0);
		ST_EXPECT(page_to_nid(p) == n && node_holds(n, phys),
			  "alloc_pages_node(%u) gave node %u's page at 0x%llx", n, page_to_nid(p),
			  (unsigned long long)phys);
	}
	ST_EXPECT(!numa_node_online(nodes), "node %u online", nodes);
	ST_EXPECT(sum == nr_free_pages(), "nodes hold %lu free pages, all %lu", sum, nr_free_pages());
	ST_EXPECT(buddy_check() == 0, "buddy_check failed");
	return 0;
}
