/*
 * test_buddy_host_numa.c - the page allocator on several NUMA nodes, on a
 * private 32 MiB arena split into four 8 MiB nodes whose boundaries cut
 * through 4 MiB blocks, with unequal distances and ties: each node gets
 * its own zone (buddy_check per zone), alloc_pages_node(n) returns node n's
 * pages, allocation falls back nearest first (ties by id), frees go back to
 * the page's own node and never onto another node's CPU list, the numastat
 * counters move as Linux's do, and bad node ids get their message. The
 * topology comes from a numa_firmware record, as boot/acpi.c fills one.
 */
#include "host_shim.h"
#include "kernel/numa.h"
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include "mm/buddy.h"
#include <asm/processor.h>
#include <stdlib.h>
#include <string.h>

#define MB		(1ULL << 20)
#define NODES		4
#define NODE_BYTES	(8 * MB)
#define ARENA_BYTES	(NODES * NODE_BYTES)

/* node n: [1 MiB + 8n MiB, 1 MiB + 8(n+1) MiB): boundaries 1 MiB off 4 MiB alignment */
static uint64_t node_start(unsigned int n)
{
	return HOST_PHYS_BASE + n * NODE_BYTES;
}

/*
 * Distances: node 0 falls back to 2, then 1 and 3 (a tie: 1 first); node 1
 * to 3, 0, 2; node 2 to 0, 3, 1; node 3 to 1, then 0 and 2 (a tie: 0 first).
 */
static const uint32_t dist[NODES * NODES] = {
	10, 30, 20, 30,
	30, 10, 40, 20,
	20, 40, 10, 30,
	30, 20, 30, 10,
};
static const unsigned int fallback2[NODES] = { 2, 0, 3, 1 };

static struct host_mm_saved saved;
static struct numa_firmware fw;
static uint64_t hwid[NR_CPUS];

/* numa_setup_arena - a fresh arena, its 4-node topology, and the node zones. */
static void numa_setup_arena(void)
{
	const struct mem_range avail[] = { { HOST_PHYS_BASE, HOST_PHYS_BASE + ARENA_BYTES } };
	const struct mem_range reserved[] = { { HOST_PHYS_BASE, HOST_PHYS_BASE + (64 << 10) } };

	host_mm_save(&saved);
	host_mm_setup_layout(ARENA_BYTES, HOST_PHYS_BASE, avail, 1, reserved, 1);
	memset(&fw, 0, sizeof(fw));
	fw.present = true;
	fw.source = "SRAT";
	fw.dist_source = "SLIT";
	fw.hwid_name = "APIC";
	fw.bad_dist_node = NUMA_NO_NODE;
	for (unsigned int n = 0; n < NODES; n++)
		fw.mem[fw.n_mem++] = (struct numa_fw_mem){ node_start(n), node_start(n + 1), n };
	for (unsigned int c = 0; c < NR_CPUS; c++) {
		hwid[c] = c;
		fw.cpu[fw.n_cpu++] = (struct numa_fw_cpu){ c, c * NODES / NR_CPUS };
	}
	fw.has_distance = true;
	fw.dist_nodes = NODES;
	for (unsigned int a = 0; a < NODES; a++)
		for (unsigned int b = 0; b < NODES; b++)
			fw.distance[a][b] = dist[a * NODES + b];
	host_console_clear();
	numa_init(&fw, avail, 1, hwid, NR_CPUS);
	buddy_numa_init();
	host_set_cpu(0);
}

/* numa_teardown - back to the default arena and its topology (host_mm_restore). */
static void numa_teardown(unsigned int cpu)
{
	host_set_cpu(cpu);
	host_mm_restore(&saved);
}

static bool in_node(const struct page *page, unsigned int n)
{
	uint64_t phys = (uint64_t)page_to_pfn(page) << PAGE_SHIFT;

	return phys >= node_start(n) && phys < node_start(n + 1) && page_to_nid(page) == n;
}

static int numa_setup_checks(void)
{
	unsigned long sum = 0;

	ST_EXPECT(numa_num_nodes() == NODES, "%u nodes", numa_num_nodes());
	ST_EXPECT(!host_console_contains("numa:"), "the test topology was refused");
	ST_EXPECT(buddy_check() == 0, "buddy_check failed after buddy_numa_init");
	for (unsigned int n = 0; n < NODES; n++) {
		unsigned long f = nr_free_pages_node(n);

		/* every node free whole, but node 0: the "kernel" and mem_map, under 1 MiB */
		ST_EXPECT(n ? f == NODE_BYTES / PAGE_SIZE :
			      f < NODE_BYTES / PAGE_SIZE && f + MB / PAGE_SIZE >= NODE_BYTES / PAGE_SIZE,
			  "node %u has %lu free pages", n, f);
		sum += f;
	}
	ST_EXPECT(sum == nr_free_pages(), "nodes hold %lu free pages, all %lu", sum, nr_free_pages());
	ST_EXPECT(nr_free_pages_node(NODES) == 0 && nr_free_pages_node(1000) == 0,
		  "an empty or bad node has free pages");
	host_console_clear();
	buddy_print_info();
	ST_EXPECT(host_console_contains("Node 0, zone   Normal") &&
			  host_console_contains("Node 3, zone   Normal") &&
			  !host_console_contains("Node 4,"),
		  "buddyinfo is not one line per node");
	return 0;
}

SELFTEST_HOST(buddy_numa_host_zones_per_node)
{
	unsigned int self = host_cpu_id;
	int ret;

	numa_setup_arena();
	ret = numa_setup_checks();
	numa_teardown(self);
	return ret;
}

/* node_alloc_checks - alloc_pages_node(n) from CPU 0 (node 0) for every node and order. */
static int node_alloc_checks(void)
{
	static const unsigned int orders[] = { 0, 1, 3, 4, MAX_ORDER };

	for (unsigned int i = 0; i < ARRAY_SIZE(orders); i++) {
		for (unsigned int n = 0; n < NODES; n++) {
			unsigned long before = nr_free_pages_node(n), pcp0 = buddy_pcp_count(0);
			struct page *p = alloc_pages_node(n, orders[i]);

			ST_EXPECT(p, "alloc_pages_node(%u, %u) failed", n, orders[i]);
			ST_EXPECT(in_node(p, n), "alloc_pages_node(%u, %u) gave pfn 0x%lx (node %u)", n,
				  orders[i], page_to_pfn(p), page_to_nid(p));
			ST_EXPECT(free_pages(p, orders[i]) == 0, "free failed");
			if (n != 0)	/* a remote block goes to its zone, not CPU 0's lists */
				ST_EXPECT(nr_free_pages_node(n) == before &&
						  buddy_pcp_count(0) == pcp0 && buddy_page_free(p),
					  "node %u: %lu free pages after, %lu before; CPU 0's lists %lu, %lu",
					  n, nr_free_pages_node(n), before, buddy_pcp_count(0), pcp0);
		}
	}
	ST_EXPECT(buddy_check() == 0, "buddy_check failed");
	return 0;
}

/* remote_free_checks - a page of node 1 freed by a CPU of node 0, and the other way round. */
static int remote_free_checks(void)
{
	unsigned int cpu1 = NR_CPUS / NODES;	/* the first CPU of node 1 */
	unsigned long pcp0, pcp1;
	struct page *p, *q;

	host_set_cpu(cpu1);
	p = alloc_pages(0);			/* node 1's CPU: node 1's page, from its lists */
	ST_EXPECT(p && in_node(p, 1), "CPU %u's alloc_pages(0) is not node 1's", cpu1);
	pcp1 = buddy_pcp_count(cpu1);
	host_set_cpu(0);
	q = alloc_pages(0);
	ST_EXPECT(q && in_node(q, 0), "CPU 0's alloc_pages(0) is not node 0's");
	pcp0 = buddy_pcp_count(0);
	ST_EXPECT(free_pages(p, 0) == 0, "free failed");
	ST_EXPECT(buddy_pcp_count(0) == pcp0 && buddy_page_free(p),
		  "node 1's page landed on CPU 0's lists (%lu, was %lu)", buddy_pcp_count(0), pcp0);
	ST_EXPECT(buddy_check() == 0, "buddy_check failed after a remote free");
	host_set_cpu(cpu1);
	ST_EXPECT(free_pages(q, 0) == 0, "free failed");
	ST_EXPECT(buddy_pcp_count(cpu1) == pcp1, "node 0's page landed on CPU %u's lists", cpu1);
	ST_EXPECT(buddy_check() == 0, "buddy_check failed on CPU %u", cpu1);
	host_set_cpu(0);
	return 0;
}

SELFTEST_HOST(buddy_numa_host_alloc_node_and_free_home)
{
	unsigned int self = host_cpu_id;
	int ret;

	numa_setup_arena();
	ret = node_alloc_checks();
	if (!ret)
		ret = remote_free_checks();
	numa_teardown(self);
	return ret;
}

/*
 * fallback_checks - order-0 pages asked of node 2 by CPU 0 until memory is
 * gone: node 2's first, then node 0's, 3's and 1's, in that order; the
 * counters move by exactly what each page was; then every page goes back to
 * its own node.
 */
static int fallback_checks(void)
{
	unsigned long n_pages = ARENA_BYTES / PAGE_SIZE, n = 0, served[NODES] = { 0 };
	unsigned long free_before[NODES];
	struct buddy_numa_stats before[NODES], after[NODES];
	struct page **pages = calloc(n_pages, sizeof(*pages));
	unsigned int stage = 0;

	ST_EXPECT(pages, "calloc");
	drain_all_pages();
	for (unsigned int i = 0; i < NODES; i++) {
		buddy_read_numa_stats(i, &before[i]);
		free_before[i] = nr_free_pages_node(i);
	}
	for (;;) {
		struct page *p = alloc_pages_node(2, 0);
		unsigned int nid;

		if (!p)
			break;
		nid = page_to_nid(p);
		pages[n++] = p;
		while (stage < NODES && fallback2[stage] != nid)
			stage++;
		if (stage == NODES || !in_node(p, nid)) {
			free(pages);
			return selftest_fail("page %lu from node %u out of fallback order"
					     " (2, 0, 3, 1) or outside its range", n, nid);
		}
		served[nid]++;
	}
	for (unsigned int i = 0; i < NODES; i++)
		buddy_read_numa_stats(i, &after[i]);
	for (unsigned long i = 0; i < n; i++)
		free_pages(pages[i], 0);
	free(pages);
	drain_all_pages();
	for (unsigned int i = 0; i < NODES; i++) {
		unsigned long d[NR_NUMA_STATS];
		unsigned long want[NR_NUMA_STATS] = { 0 };

		for (unsigned int k = 0; k < NR_NUMA_STATS; k++)
			d[k] = after[i].ev[k] - before[i].ev[k];
		ST_EXPECT(served[i] == free_before[i], "node %u served %lu pages of %lu free", i,
			  served[i], free_before[i]);
		want[NUMA_HIT] = i == 2 ? served[i] : 0;
		want[NUMA_MISS] = i == 2 ? 0 : served[i];
		want[NUMA_FOREIGN] = i == 2 ? n - served[2] : 0;
		want[NUMA_LOCAL] = i == 0 ? served[i] : 0;	/* CPU 0 is node 0's */
		want[NUMA_OTHER] = i == 0 ? 0 : served[i];
		ST_EXPECT(!memcmp(d, want, sizeof(d)),
			  "node %u: hit/miss/foreign/local/other moved %lu/%lu/%lu/%lu/%lu, expected"
			  " %lu/%lu/%lu/%lu/%lu", i, d[0], d[1], d[2], d[3], d[4], want[0], want[1],
			  want[2], want[3], want[4]);
		ST_EXPECT(nr_free_pages_node(i) == free_before[i], "node %u: %lu free after, %lu before",
			  i, nr_free_pages_node(i), free_before[i]);
	}
	ST_EXPECT(buddy_check() == 0, "buddy_check failed after the fallback run");
	return 0;
}

/* local_counter_checks - CPU 0's own allocations are node 0's hits and local. */
static int local_counter_checks(void)
{
	struct buddy_numa_stats b0, a0, b3, a3;
	struct page *p, *q;

	buddy_read_numa_stats(0, &b0);
	buddy_read_numa_stats(3, &b3);
	p = alloc_pages(0);
	q = alloc_pages(5);
	ST_EXPECT(p && q && in_node(p, 0) && in_node(q, 0), "CPU 0's pages are not node 0's");
	free_pages(p, 0);
	free_pages(q, 5);
	p = alloc_pages_node(3, 2);
	ST_EXPECT(p && in_node(p, 3), "alloc_pages_node(3, 2)");
	free_pages(p, 2);
	buddy_read_numa_stats(0, &a0);
	buddy_read_numa_stats(3, &a3);
	ST_EXPECT(a0.ev[NUMA_HIT] - b0.ev[NUMA_HIT] == 2 && a0.ev[NUMA_LOCAL] - b0.ev[NUMA_LOCAL] == 2 &&
			  a0.ev[NUMA_MISS] == b0.ev[NUMA_MISS] && a0.ev[NUMA_OTHER] == b0.ev[NUMA_OTHER],
		  "node 0's counters after two local allocations");
	ST_EXPECT(a3.ev[NUMA_HIT] - b3.ev[NUMA_HIT] == 1 && a3.ev[NUMA_OTHER] - b3.ev[NUMA_OTHER] == 1 &&
			  a3.ev[NUMA_LOCAL] == b3.ev[NUMA_LOCAL] && a3.ev[NUMA_MISS] == b3.ev[NUMA_MISS],
		  "node 3's counters after an allocation asked of it by node 0's CPU");
	return 0;
}

SELFTEST_HOST(buddy_numa_host_fallback_and_counters)
{
	unsigned int self = host_cpu_id;
	int ret;

	numa_setup_arena();
	ret = local_counter_checks();
	if (!ret)
		ret = fallback_checks();
	numa_teardown(self);
	return ret;
}

/*
 * bad_node_checks - node ids out of range or offline on a machine of nodes
 * consecutive nodes: a message, then the CPU's node.
 */
static int bad_node_checks(unsigned int nodes)
{
	static const unsigned int bad[] = { 5, MAX_NUMNODES, 1000 };
	struct page *p;

	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		char msg[96];

		if (bad[i] < nodes)
			continue;	/* online on a host of that many nodes */
		host_console_clear();
		p = alloc_pages_node(bad[i], 0);
		snprintf(msg, sizeof(msg), "alloc_pages_node(node %u, order 0): node %u is not online",
			 bad[i], bad[i]);
		ST_EXPECT(host_console_count(msg) == 1, "no message for node %u", bad[i]);
		ST_EXPECT(p && page_to_nid(p) == 0, "node %u: no page from CPU 0's node", bad[i]);
		free_pages(p, 0);
	}
	host_console_clear();
	p = alloc_pages_node(NUMA_NO_NODE, 0);
	ST_EXPECT(p && page_to_nid(p) == 0 && !host_console_contains("buddy:"),
		  "NUMA_NO_NODE is not the running CPU's node");
	free_pages(p, 0);
	if (nodes == 1) {
		host_console_clear();
		p = alloc_pages_node(1, 0);
		ST_EXPECT(p && host_console_contains("node 1 is not online (1 node online)"),
			  "node 1 of a one-node machine: no message");
		free_pages(p, 0);
	}
	ST_EXPECT(buddy_check() == 0, "buddy_check failed");
	return 0;
}

SELFTEST_HOST(buddy_numa_host_bad_node)
{
	unsigned int self = host_cpu_id;
	int ret;

	numa_setup_arena();
	ret = bad_node_checks(NODES);
	numa_teardown(self);
	if (!ret)
		ret = bad_node_checks(numa_num_nodes());	/* the default arena, host_nodes */
	return ret;
}

static int one_node_checks(void)
{
	struct buddy_stats a, b;

	drain_all_pages();
	buddy_read_stats(&a);
	buddy_numa_init();
	buddy_read_stats(&b);
	ST_EXPECT(!memcmp(&a, &b, sizeof(a)), "buddy_numa_init changed a one-node allocator");
	host_console_clear();
	buddy_print_info();
	ST_EXPECT(host_console_count("zone   Normal") == 1 &&
			  host_console_contains("Node 0, zone   Normal"),
		  "a one-node buddyinfo is not one line");
	ST_EXPECT(buddy_check() == 0, "buddy_check failed");
	return 0;
}

/*
 * One node: buddy_numa_init changes nothing, one buddyinfo line. On a
 * private arena (one zone), so the default arena keeps the host's nodes.
 */
SELFTEST_HOST(buddy_numa_host_one_node_unchanged)
{
	const struct mem_range avail[] = { { HOST_PHYS_BASE, HOST_PHYS_BASE + NODE_BYTES } };
	const struct mem_range reserved[] = { { HOST_PHYS_BASE, HOST_PHYS_BASE + (64 << 10) } };
	unsigned int self = host_cpu_id;
	int ret;

	for (unsigned int c = 0; c < NR_CPUS; c++)
		hwid[c] = c;
	host_mm_save(&saved);
	host_mm_setup_layout(NODE_BYTES, HOST_PHYS_BASE, avail, 1, reserved, 1);
	/* one node whatever an earlier test left: no firmware topology */
	numa_init(NULL, avail, 1, hwid, NR_CPUS);
	host_set_cpu(0);
	ret = one_node_checks();
	numa_teardown(self);
	return ret;
}
