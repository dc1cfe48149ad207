/*
 * test_numa_host.c - kernel/numa.c's checks on firmware records built here:
 * good two- and four-node layouts (one node without memory, one without
 * CPUs) are taken as given; each broken record gets its own "numa: ..."
 * line, once, and the single node 0 with all RAM and CPUs. Each broken
 * record is a good one with one change, and the good one is checked to pass
 * first, so no case passes for another reason.
 */
#include "host_shim.h"
#include "kernel/numa.h"
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include <stdio.h>
#include <string.h>

#define MB		(1ULL << 20)

/* 256 MiB of RAM with the PC's hole below 1 MiB. */
static const struct mem_range ram[] = {
	{ 0, 0x9fc00 },
	{ 0x100000, 256 * MB },
};

/* Quarry's CPUs 0 and 1 are APIC IDs 0 and 2: numbering is not the ID. */
static const uint64_t hwid2[] = { 0, 2 };

static void fw_init(struct numa_firmware *fw)
{
	memset(fw, 0, sizeof(*fw));
	fw->present = true;
	fw->source = "SRAT";
	fw->dist_source = "SLIT";
	fw->hwid_name = "APIC";
	fw->bad_dist_node = NUMA_NO_NODE;
}

static void fw_mem(struct numa_firmware *fw, uint64_t start, uint64_t end, uint32_t node)
{
	fw->mem[fw->n_mem++] = (struct numa_fw_mem){ start, end, node };
}

static void fw_cpu(struct numa_firmware *fw, uint64_t hwid, uint32_t node)
{
	fw->cpu[fw->n_cpu++] = (struct numa_fw_cpu){ hwid, node };
}

/* distance[a][b] from a row-major n x n list. */
static void fw_dist(struct numa_firmware *fw, unsigned int n, const uint32_t *d)
{
	fw->has_distance = true;
	fw->dist_nodes = n;
	for (unsigned int a = 0; a < n; a++)
		for (unsigned int b = 0; b < n; b++)
			fw->distance[a][b] = d[a * n + b];
}

/* Two nodes, 128 MiB and a CPU each, SLIT 10/20. */
static void good2(struct numa_firmware *fw)
{
	static const uint32_t d[] = { 10, 20, 20, 10 };

	fw_init(fw);
	fw_mem(fw, 0, 0xa0000, 0);
	fw_mem(fw, 0x100000, 128 * MB, 0);
	fw_mem(fw, 128 * MB, 256 * MB, 1);
	fw_cpu(fw, 0, 0);
	fw_cpu(fw, 2, 1);
	fw_cpu(fw, 5, 1);	/* a processor Quarry did not start: not checked */
	fw_dist(fw, 2, d);
}

SELFTEST_HOST(numa_host_two_nodes)
{
	static struct numa_firmware fw;
	static struct numa_topology t;
	int ret;

	good2(&fw);
	host_console_clear();
	ret = numa_build(&t, &fw, ram, 2, hwid2, 2);
	ST_EXPECT(ret == 0 && !t.fallback, "numa_build returned %d", ret);
	ST_EXPECT(!host_console_contains("numa:"), "a good topology was complained about");
	ST_EXPECT(t.nr_nodes == 2 && t.online == 3, "%u nodes, online 0x%x", t.nr_nodes, t.online);
	ST_EXPECT(t.n_cpus == 2 && t.cpu_node[0] == 0 && t.cpu_node[1] == 1, "CPU nodes %u %u",
		  t.cpu_node[0], t.cpu_node[1]);
	ST_EXPECT(t.distance[0][1] == 20 && t.distance[1][0] == 20 && t.distance[0][0] == 10 &&
			  t.distance[1][1] == 10,
		  "distances %u %u", t.distance[0][1], t.distance[1][0]);
	ST_EXPECT(t.n_ranges == 3 && t.ranges[2].start == 128 * MB && t.ranges[2].node == 1,
		  "%u ranges", t.n_ranges);
	host_console_clear();
	numa_print(&t);
	ST_EXPECT(host_console_contains("NUMA: 2 nodes (SRAT, SLIT)\n"), "no header line");
	ST_EXPECT(host_console_contains("NUMA: node 0: [mem 0x00000000-0x0009ffff]\n") &&
			  host_console_contains("NUMA: node 0: [mem 0x00100000-0x07ffffff]\n") &&
			  host_console_contains("NUMA: node 1: [mem 0x08000000-0x0fffffff]\n"),
		  "range lines wrong");
	ST_EXPECT(host_console_contains("NUMA: node 0 CPUs: 0\n") &&
			  host_console_contains("NUMA: node 1 CPUs: 1\n"),
		  "CPU lines wrong");
	ST_EXPECT(host_console_contains("node distances:\nnode    0   1\n   0:  10  20\n   1:  20  10\n"),
		  "distance matrix wrong");
	return 0;
}

/*
 * Four nodes: 0 and 1 with memory and CPUs, 2 with CPUs and no memory, 3
 * with memory and no CPU; distances 10/20/30, symmetric.
 */
static int four_nodes_body(void)
{
	static const uint32_t d[] = {
		10, 20, 30, 30,
		20, 10, 30, 30,
		30, 30, 10, 20,
		30, 30, 20, 10,
	};
	static const uint64_t hwid[] = { 0, 1, 2, 3, 4 };
	static struct numa_firmware fw;
	struct mem_range r;

	fw_init(&fw);
	fw_mem(&fw, 0, 64 * MB, 0);
	fw_mem(&fw, 192 * MB, 256 * MB, 3);	/* out of order: sorted in the topology */
	fw_mem(&fw, 64 * MB, 192 * MB, 1);
	fw_cpu(&fw, 0, 0);
	fw_cpu(&fw, 1, 0);
	fw_cpu(&fw, 2, 1);
	fw_cpu(&fw, 3, 2);
	fw_cpu(&fw, 4, 2);
	fw_dist(&fw, 4, d);
	host_console_clear();
	numa_init(&fw, ram, 2, hwid, 5);
	ST_EXPECT(!host_console_contains("numa:"), "a good topology was complained about");
	ST_EXPECT(numa_num_nodes() == 4, "%u nodes", numa_num_nodes());
	ST_EXPECT(numa_node_online(2) && numa_node_online(3) && !numa_node_online(4) &&
			  !numa_node_online(99),
		  "online nodes wrong");
	ST_EXPECT(cpu_to_node(0) == 0 && cpu_to_node(1) == 0 && cpu_to_node(2) == 1 &&
			  cpu_to_node(3) == 2 && cpu_to_node(4) == 2 && cpu_to_node(50) == 0,
		  "cpu_to_node wrong");
	ST_EXPECT(node_distance(0, 2) == 30 && node_distance(2, 3) == 20 &&
			  node_distance(3, 3) == 10 && node_distance(0, 6) == 20,
		  "node_distance wrong: %u %u", node_distance(0, 2), node_distance(2, 3));
	ST_EXPECT(numa_node_range(1, 0, &r) && r.start == 64 * MB && r.end == 192 * MB &&
			  !numa_node_range(1, 1, &r) && !numa_node_range(2, 0, &r),
		  "node ranges wrong");
	ST_EXPECT(numa_node_range(3, 0, &r) && r.start == 192 * MB, "node 3's range");
	ST_EXPECT(host_console_contains("NUMA: 4 nodes (SRAT, SLIT)\n") &&
			  host_console_contains("NUMA: node 0 CPUs: 0-1\n") &&
			  host_console_contains("NUMA: node 2: no memory\nNUMA: node 2 CPUs: 3-4\n") &&
			  host_console_contains("NUMA: node 3: [mem 0x0c000000-0x0fffffff]\nNUMA: node 3 CPUs: none\n") &&
			  host_console_contains("   2:  30  30  10  20\n"),
		  "boot log lines wrong");
	return 0;
}

/* The four-node topology, then one node again: later tests (SLAB's) follow the topology. */
SELFTEST_HOST(numa_host_four_nodes_memoryless_cpuless)
{
	uint64_t ids[NR_CPUS];
	int ret = four_nodes_body();

	for (unsigned int c = 0; c < NR_CPUS; c++)
		ids[c] = c;
	numa_init(NULL, host_arena.avail, host_arena.n_avail, ids, NR_CPUS);
	return ret;
}

SELFTEST_HOST(numa_host_no_firmware_topology)
{
	static struct numa_topology t;
	static struct numa_firmware fw;
	int ret;

	host_console_clear();
	ret = numa_build(&t, NULL, ram, 2, hwid2, 2);
	ST_EXPECT(ret == 0 && !t.fallback && t.nr_nodes == 1 && t.n_ranges == 2 && t.n_cpus == 2,
		  "no record: %d, %u nodes", ret, t.nr_nodes);
	memset(&fw, 0, sizeof(fw));	/* a record the firmware left empty */
	ret = numa_build(&t, &fw, ram, 2, hwid2, 2);
	ST_EXPECT(ret == 0 && t.nr_nodes == 1, "absent record: %d", ret);
	ST_EXPECT(!host_console_contains("numa:"), "no topology is not a fault");
	numa_print(&t);
	ST_EXPECT(host_console_contains("NUMA: 1 node (no topology from the firmware)\n") &&
			  host_console_contains("NUMA: node 0 CPUs: 0-1\n"),
		  "single node not printed");
	return 0;
}

static void edit_overlap(struct numa_firmware *fw)
{
	fw->mem[2].start = 112 * MB;
}

static void edit_cpu_no_node(struct numa_firmware *fw)
{
	fw->cpu[1].hwid = 3;	/* APIC 2 no longer listed */
}

static void edit_asymmetric(struct numa_firmware *fw)
{
	fw->distance[1][0] = 30;
}

static void edit_self_distance(struct numa_firmware *fw)
{
	fw->distance[1][1] = 20;
}

static void edit_mem_node_too_big(struct numa_firmware *fw)
{
	fw->mem[2].node = 9;
}

static void edit_cpu_node_too_big(struct numa_firmware *fw)
{
	fw->cpu[1].node = 8;
}

static void edit_dist_node_too_big(struct numa_firmware *fw)
{
	fw->bad_dist_node = 9;
}

static void edit_empty(struct numa_firmware *fw)
{
	fw->n_mem = 0;
	fw->n_cpu = 0;
}

static void edit_outside_ram(struct numa_firmware *fw)
{
	fw_mem(fw, 0x100000000ULL, 0x110000000ULL, 1);
}

static void edit_ram_uncovered(struct numa_firmware *fw)
{
	fw->mem[2].end = 192 * MB;
}

static void edit_no_memory(struct numa_firmware *fw)
{
	fw->n_mem = 0;
}

static void edit_distance_missing(struct numa_firmware *fw)
{
	fw->dist_nodes = 1;
}

static void edit_remote_is_local(struct numa_firmware *fw)
{
	fw->distance[0][1] = fw->distance[1][0] = 10;
}

static void edit_distance_huge(struct numa_firmware *fw)
{
	fw->distance[0][1] = fw->distance[1][0] = 300;
}

static void edit_malformed(struct numa_firmware *fw)
{
	fw->bad = true;
}

static void edit_mem_no_node(struct numa_firmware *fw)
{
	fw->mem[0].node = NUMA_NO_NODE;
}

static void edit_empty_range(struct numa_firmware *fw)
{
	fw->mem[2].end = fw->mem[2].start;
}

static void edit_too_many_ranges(struct numa_firmware *fw)
{
	fw->n_mem_dropped = 1;
}

SELFTEST_HOST(numa_host_bad_topologies_fall_back)
{
	static const struct {
		const char *what;
		void (*edit)(struct numa_firmware *fw);
		const char *msg;
	} cases[] = {
		{ "overlap", edit_overlap,
		  "numa: node 1 range [0x7000000-0x10000000) overlaps node 0's [0x100000-0x8000000): using one node\n" },
		{ "CPU on no node", edit_cpu_no_node,
		  "numa: CPU 1 (APIC 2) is on no node: using one node\n" },
		{ "asymmetric distances", edit_asymmetric,
		  "numa: distance table not symmetric: node 0->1 is 20, 1->0 is 30: using one node\n" },
		{ "self distance", edit_self_distance,
		  "numa: distance from node 1 to itself is 20, not 10: using one node\n" },
		{ "memory node id too large", edit_mem_node_too_big,
		  "numa: memory [0x8000000-0x10000000) is on node 9, above the highest node 7: using one node\n" },
		{ "CPU node id too large", edit_cpu_node_too_big,
		  "numa: CPU 1 (APIC 2) is on node 8, above the highest node 7: using one node\n" },
		{ "distance node id too large", edit_dist_node_too_big,
		  "numa: the SLIT names node 9, above the highest node 7: using one node\n" },
		{ "empty", edit_empty,
		  "numa: the SRAT puts no memory and no CPU on any node: using one node\n" },
		{ "range outside RAM", edit_outside_ram,
		  "numa: node 1 range [0x100000000-0x110000000) is outside RAM: using one node\n" },
		{ "RAM on no node", edit_ram_uncovered,
		  "numa: RAM [0xc000000-0x10000000) is on no node: using one node\n" },
		{ "no node has memory", edit_no_memory,
		  "numa: RAM [0x0-0x9fc00) is on no node: using one node\n" },
		{ "distance missing", edit_distance_missing,
		  "numa: the SLIT gives no distance from node 0 to node 1: using one node\n" },
		{ "remote distance 10", edit_remote_is_local,
		  "numa: distance from node 0 to node 1 is 10: a remote distance must be above 10: using one node\n" },
		{ "distance above 255", edit_distance_huge,
		  "numa: distance from node 0 to node 1 is 300, above 255: using one node\n" },
		{ "malformed tables", edit_malformed,
		  "numa: the SRAT is malformed (see above): using one node\n" },
		{ "memory on no node", edit_mem_no_node,
		  "numa: memory [0x0-0xa0000) is on no node: using one node\n" },
		{ "empty range", edit_empty_range,
		  "numa: node 1 range [0x8000000-0x8000000) is empty: using one node\n" },
		{ "too many ranges", edit_too_many_ranges,
		  "numa: the SRAT has more than 64 memory ranges: using one node\n" },
	};
	static struct numa_firmware fw;
	static struct numa_topology t;

	for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret;

		good2(&fw);
		host_console_clear();
		ret = numa_build(&t, &fw, ram, 2, hwid2, 2);
		ST_EXPECT(ret == 0 && t.nr_nodes == 2, "%s: the unedited record is refused",
			  cases[i].what);
		cases[i].edit(&fw);
		memset(&t, 0xa5, sizeof(t));
		ret = numa_build(&t, &fw, ram, 2, hwid2, 2);
		ST_EXPECT(ret == -1 && t.fallback, "%s: numa_build returned %d", cases[i].what, ret);
		ST_EXPECT(host_console_contains(cases[i].msg), "%s: no message '%s'", cases[i].what,
			  cases[i].msg);
		ST_EXPECT(host_console_count("numa:") == 1, "%s: %u numa: lines, not one",
			  cases[i].what, host_console_count("numa:"));
		ST_EXPECT(t.nr_nodes == 1 && t.online == 1 && t.n_cpus == 2 && t.cpu_node[0] == 0 &&
				  t.cpu_node[1] == 0 && t.distance[0][0] == 10,
			  "%s: not one node with both CPUs", cases[i].what);
		ST_EXPECT(t.n_ranges == 2 && t.ranges[0].start == 0 && t.ranges[0].end == 0x9fc00 &&
				  t.ranges[1].start == 0x100000 && t.ranges[1].end == 256 * MB &&
				  t.ranges[0].node == 0 && t.ranges[1].node == 0,
			  "%s: node 0 does not hold all RAM", cases[i].what);
	}
	return 0;
}
