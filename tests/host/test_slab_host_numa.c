/*
 * test_slab_host_numa.c - SLAB on memory nodes, on the host arena split
 * into three nodes with memory and a fourth, memory-less one (CPUs 0-1 on
 * node 0, 2-3 on node 1, 4-5 on node 2, 6-7 on node 3), the page allocator
 * given a zone per node (buddy_numa_init). Each test runs in a child
 * process (the split cannot be undone), one thread acting as several CPUs
 * in turn (host_cpu_id):
 *  - kmem_cache_alloc_node(node) returns objects whose pages are that
 *    node's (by pfn and page_to_nid), from any CPU, and a CPU's plain
 *    allocations come from its own node;
 *  - when the node has no free page, from the nearest node that has one,
 *    then the next nearest (node_distance order);
 *  - objects freed on another node's CPU go home through that CPU's alien
 *    cache; a reap, kmem_cache_drain_local and kmem_cache_destroy leave no
 *    object in any alien cache; a double free of an object in an alien
 *    cache is found;
 *  - kmem_cache_slabinfo_node's rows add up to kmem_cache_slabinfo's;
 *  - a CPU of the memory-less node allocates from its nearest node.
 */
#include "tests/common/test_slab.h"
#include "kernel/numa.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if !CONFIG_SLAB_NODE_PER_CPU	/* memory nodes: not the node-per-CPU build */

#define MB		(1UL << 20)
#define NODES		4		/* node 3: CPUs, no memory */
#define OBJ_SIZE	96

/*
 * Distances: node 1 falls back to 2 (15) before 0 (20); node 3, memory-less,
 * is nearest to node 2 (12).
 */
static const uint32_t dist[NODES][NODES] = {
	{ 10, 20, 30, 30 },
	{ 20, 10, 15, 25 },
	{ 30, 15, 10, 12 },
	{ 30, 25, 12, 10 },
};

/* Node n's memory: [node_lo(n), node_lo(n + 1)), the arena cut in three. */
static uint64_t node_lo(unsigned int n)
{
	static const uint64_t cut[] = { 0, 24 * MB, 44 * MB, HOST_DEFAULT_ARENA };

	return HOST_PHYS_BASE + cut[n];
}

static void as(unsigned int cpu)
{
	host_set_cpu(cpu);
}

/*
 * ST_EXPECT and selftest_fail for a child's body: the reason printed, since
 * the parent sees only the exit status.
 */
#define CHILD_EXPECT(cond, fmt, ...)                                                     \
	do {                                                                             \
		if (unlikely(!(cond)))                                                   \
			return child_fail("%s:%d: " fmt, __FILE__, __LINE__, ##__VA_ARGS__); \
	} while (0)

static __printf(1, 2) int child_fail(const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	printk("slab numa child: %s\n", why);
	return -1;
}

/* The arena's four-node topology and the page allocator's node zones. */
static void numa_setup(void)
{
	static struct numa_firmware fw;
	uint64_t hwid[NR_CPUS], cut[4];

	for (unsigned int n = 0; n < 4; n++)
		cut[n] = node_lo(n);
	host_numa_record(&fw, hwid, NODES, cut, 3, NR_CPUS, &dist[0][0]);
	as(0);
	slab_drain_all();
	numa_init(&fw, host_arena.avail, host_arena.n_avail, hwid, NR_CPUS);
	buddy_numa_init();
}

/*
 * Run body in a child process on the four-node topology; the child's exit
 * status is the body's verdict (what it printed goes to the same output).
 */
static int in_numa_child(int (*body)(void))
{
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		numa_setup();
		if (numa_num_nodes() != NODES || slab_mem_node(3) != 2) {
			printk("slab numa test: topology not set up (%u nodes, node 3 served by %u)\n",
			       numa_num_nodes(), slab_mem_node(3));
			fflush(stdout);
			_exit(2);
		}
		status = body();
		fflush(stdout);
		_exit(status ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return selftest_fail("no child process");
	ST_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "the four-node child failed (status %d): see its lines above", status);
	return 0;
}

/* The node an object's page is on, by its address (pfn), checked against page_to_nid. */
static unsigned int obj_node(const void *objp)
{
	struct page *page = virt_to_page(objp);
	uint64_t phys = (uint64_t)page_to_pfn(page) << PAGE_SHIFT;
	unsigned int by_pfn = 0;

	for (unsigned int n = 0; n < 3; n++)
		if (phys >= node_lo(n) && phys < node_lo(n + 1))
			by_pfn = n;
	return by_pfn == page_to_nid(page) ? by_pfn : 99;
}

/* Objects in CPU cpu's alien cache of c for node nid. */
static unsigned long alien_avail(struct kmem_cache *c, unsigned int cpu, unsigned int nid)
{
	struct slab_alien *al = c->cpu_array[cpu]->alien;

	return al && al->ac[nid] ? al->ac[nid]->avail : 0;
}

/* Objects in every alien cache of c. */
static unsigned long aliens_total(struct kmem_cache *c)
{
	unsigned long sum = 0;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++)
			sum += alien_avail(c, cpu, nid);
	return sum;
}

static int placement_body(void)
{
	static const unsigned int cpus[] = { 0, 2, 4, 6 };
	struct slab_test_mark pages;
	struct kmem_cache *c;
	void *objs[3][40];

	slab_test_begin(&pages);
	c = kmem_cache_create("numa-place", OBJ_SIZE, 0, 0, NULL);
	CHILD_EXPECT(c, "create failed");
	for (unsigned int k = 0; k < ARRAY_SIZE(cpus); k++) {
		as(cpus[k]);
		for (unsigned int n = 0; n < 3; n++)
			for (unsigned int i = 0; i < 40; i++) {
				objs[n][i] = kmem_cache_alloc_node(c, n);
				CHILD_EXPECT(objs[n][i] && obj_node(objs[n][i]) == n,
					  "CPU %u: kmem_cache_alloc_node(node %u) gave %p on node %u",
					  cpus[k], n, objs[n][i], objs[n][i] ? obj_node(objs[n][i]) : 99);
			}
		CHILD_EXPECT(kmem_cache_check(c) == 0, "inconsistent after CPU %u's allocations",
			  cpus[k]);
		for (unsigned int n = 0; n < 3; n++) {
			void *small = kmalloc_node(200, n), *large = kmalloc_node(KMALLOC_MAX_SLAB + 1, n);

			CHILD_EXPECT(small && large && obj_node(small) == n && obj_node(large) == n,
				     "CPU %u: kmalloc_node(node %u): nodes %u and %u", cpus[k], n,
				     small ? obj_node(small) : 99, large ? obj_node(large) : 99);
			kfree(small);
			kfree(large);
			for (unsigned int i = 0; i < 40; i++)
				kmem_cache_free(c, objs[n][i]);
		}
		CHILD_EXPECT(kmem_cache_check(c) == 0, "inconsistent after CPU %u's frees", cpus[k]);
	}
	/* Plain allocations: the CPU's own node (CPU 6's memory-less node: node 2). */
	for (unsigned int k = 0; k < ARRAY_SIZE(cpus); k++) {
		unsigned int want = MIN(k, 2U);
		void *p;

		as(cpus[k]);
		kmem_cache_drain_local(c);	/* other nodes' objects it freed: home */
		p = kmem_cache_alloc(c);
		CHILD_EXPECT(p && obj_node(p) == want, "CPU %u: kmem_cache_alloc gave node %u, not %u",
			  cpus[k], p ? obj_node(p) : 99, want);
		kmem_cache_free(c, p);
		kmem_cache_drain_local(c);
	}
	as(0);
	CHILD_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	for (unsigned int k = 0; k < ARRAY_SIZE(cpus); k++) {
		as(cpus[k]);
		slab_drop_local_arrays();
	}
	as(0);
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST_HOST(slab_host_numa_alloc_node_placement)
{
	return in_numa_child(placement_body);
}

/* Take every free page of node nid (chained through their first word); the count. */
static unsigned long exhaust_node(unsigned int nid, void **head)
{
	unsigned long n = 0;
	struct page *page;

	while ((page = alloc_pages_node(nid, 0))) {
		if (page_to_nid(page) != nid) {
			free_pages(page, 0);
			break;
		}
		*(void **)page_address(page) = *head;
		*head = page_address(page);
		n++;
	}
	return n;
}

static void give_back(void **head)
{
	while (*head) {
		void *next = *(void **)*head;

		free_pages(virt_to_page(*head), 0);
		*head = next;
	}
}

static int fallback_body(void)
{
	void *held1 = NULL, *held2 = NULL, *a, *b;
	struct kmem_cache *c;
	int ret = 0;

	c = kmem_cache_create("numa-fallback", OBJ_SIZE, 0, SLAB_NO_DEBUG, NULL);
	CHILD_EXPECT(c && c->order == 0, "create failed");
	CHILD_EXPECT(exhaust_node(1, &held1) > 0, "node 1 had no free page");
	a = kmem_cache_alloc_node(c, 1);	/* node 1 full: node 2 (15) before node 0 (20) */
	if (!a || obj_node(a) != 2)
		ret = child_fail("node 1 full: an object of node %u, not 2", a ? obj_node(a) : 99);
	exhaust_node(2, &held2);
	/* Node 2 full too: node 0, once node 2's slab made for node 1 is used up. */
	b = NULL;
	for (unsigned int i = 0; i <= c->num && !ret; i++) {
		b = kmem_cache_alloc_node(c, 1);
		if (b && obj_node(b) == 0)
			break;
		if (!b || obj_node(b) != 2)
			ret = child_fail("nodes 1 and 2 full: object %u of node %u", i,
					    b ? obj_node(b) : 99);
		b = NULL;	/* kept: freed with the cache's other objects below */
	}
	if (!ret && !b)
		ret = child_fail("nodes 1 and 2 full: no object of node 0");
	give_back(&held1);
	give_back(&held2);
	if (!ret && kmem_cache_check(c))
		ret = child_fail("inconsistent after fallbacks");
	return ret;	/* the child exits: the cache and its objects go with it */
}

SELFTEST_HOST(slab_host_numa_fallback_by_distance)
{
	return in_numa_child(fallback_body);
}

/* CPU 0 (node 0) frees n objects of node 1; they pass through its alien cache for node 1. */
static int remote_free_body(void)
{
	struct slabinfo si1;
	struct kmem_cache *c;
	void *objs[400], *p;
	unsigned long shared;

	c = kmem_cache_create("numa-remote", OBJ_SIZE, 0, SLAB_NO_DEBUG, NULL);
	CHILD_EXPECT(c && c->limit < ARRAY_SIZE(objs), "create failed");
	as(2);		/* node 1's CPU makes them */
	for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
		CHILD_EXPECT((objs[i] = kmem_cache_alloc(c)) && obj_node(objs[i]) == 1,
			  "CPU 2's object %u not of node 1", i);
	kmem_cache_drain_local(c);
	as(0);
	for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
		kmem_cache_free(c, objs[i]);
	CHILD_EXPECT(alien_avail(c, 0, 1) > 0 && c->node0.total_slabs == 0,
		  "CPU 0's flushes: alien cache for node 1 holds %lu, node 0 has %lu slabs",
		  alien_avail(c, 0, 1), c->node0.total_slabs);
	CHILD_EXPECT(kmem_cache_check(c) == 0, "inconsistent with objects in an alien cache");
	/* A double free of an object waiting in the alien cache is refused. */
	p = c->cpu_array[0]->alien->ac[1]->entry[1];
	slab_test_console_clear();
	kmem_cache_free(c, p);
	CHILD_EXPECT(slab_test_console_has("already in an alien cache"),
		  "double free of an alien cache's object not reported");
	CHILD_EXPECT(kmem_cache_check(c) == 0, "inconsistent after the refused double free");
	/* The reap sends every alien object home: none left on any CPU. */
	slab_reap();
	CHILD_EXPECT(aliens_total(c) == 0, "%lu objects in alien caches after a reap",
		  aliens_total(c));
	kmem_cache_drain_local(c);
	CHILD_EXPECT(aliens_total(c) == 0 && c->node0.total_slabs == 0, "objects not home");
	/* All of them on node 1: free on its slabs or in its shared array. */
	shared = c->node[1]->shared ? c->node[1]->shared->avail : 0;
	CHILD_EXPECT(c->node[1]->total_slabs > 0 &&
			     c->node[1]->free_objects + shared == c->node[1]->total_slabs * c->num,
		     "node 1: %lu free objects and %lu shared of %lu: the %zu freed on node 0 "
		     "are not all back", c->node[1]->free_objects, shared,
		     c->node[1]->total_slabs * c->num, ARRAY_SIZE(objs));
	CHILD_EXPECT(kmem_cache_slabinfo_node(c, 1, &si1) && si1.active_objs == shared &&
			     si1.num_slabs == c->node[1]->total_slabs,
		     "node 1's row: %lu active objects, %lu slabs", si1.active_objs, si1.num_slabs);
	kmem_cache_shrink(c);
	CHILD_EXPECT(c->node[1]->total_slabs == 0, "shrink left %lu slabs on node 1",
		     c->node[1]->total_slabs);
	CHILD_EXPECT(kmem_cache_check(c) == 0, "inconsistent after the objects went home");
	return 0;
}

SELFTEST_HOST(slab_host_numa_remote_free_goes_home)
{
	return in_numa_child(remote_free_body);
}

/* Objects in alien caches of several CPUs when the cache is destroyed: drained, destroyed. */
static int destroy_body(void)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	void *objs[300];

	slab_test_begin(&pages);
	c = kmem_cache_create("numa-destroy", OBJ_SIZE, 0, SLAB_NO_DEBUG, NULL);
	CHILD_EXPECT(c, "create failed");
	for (unsigned int round = 0; round < 2; round++) {
		unsigned int maker = round ? 4 : 2, freer = round ? 0 : 6;

		as(maker);
		for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
			CHILD_EXPECT(objs[i] = kmem_cache_alloc(c), "alloc %u failed", i);
		as(freer);
		for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
			kmem_cache_free(c, objs[i]);
	}
	as(0);
	CHILD_EXPECT(aliens_total(c) > 0, "no object in an alien cache before the destroy");
	CHILD_EXPECT(kmem_cache_check(c) == 0, "inconsistent before the destroy");
	CHILD_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused with objects in alien caches");
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		as(cpu);
		slab_drop_local_arrays();
	}
	as(0);
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST_HOST(slab_host_numa_destroy_drains_aliens)
{
	return in_numa_child(destroy_body);
}

/* kmem_cache_slabinfo_node: every node's row, added up, is the cache's. */
static int slabinfo_body(void)
{
	struct slabinfo all, row, sum = { 0 };
	struct kmem_cache *c;
	void *objs[4][50];

	c = kmem_cache_create("numa-slabinfo", OBJ_SIZE, 0, SLAB_NO_DEBUG, NULL);
	CHILD_EXPECT(c, "create failed");
	for (unsigned int n = 0; n < 4; n++) {
		as(2 * n);
		for (unsigned int i = 0; i < 50; i++)
			CHILD_EXPECT(objs[n][i] = kmem_cache_alloc(c), "alloc failed");
	}
	as(0);
	for (unsigned int i = 0; i < 50; i += 2)	/* some frees on a remote CPU */
		kmem_cache_free(c, objs[1][i]);
	kmem_cache_slabinfo(c, &all);
	for (unsigned int n = 0; n < NODES; n++) {
		CHILD_EXPECT(kmem_cache_slabinfo_node(c, n, &row), "no row for node %u", n);
		CHILD_EXPECT(n == 3 ? row.num_slabs == 0 : row.num_slabs > 0,
			  "node %u has %lu slabs", n, row.num_slabs);
		sum.active_objs += row.active_objs;
		sum.num_objs += row.num_objs;
		sum.active_slabs += row.active_slabs;
		sum.num_slabs += row.num_slabs;
		sum.shared_avail += row.shared_avail;
	}
	CHILD_EXPECT(sum.active_objs == all.active_objs && sum.num_objs == all.num_objs &&
			  sum.active_slabs == all.active_slabs && sum.num_slabs == all.num_slabs &&
			  sum.shared_avail == all.shared_avail,
		  "rows add up to %lu/%lu objects %lu/%lu slabs, the cache %lu/%lu %lu/%lu",
		  sum.active_objs, sum.num_objs, sum.active_slabs, sum.num_slabs, all.active_objs,
		  all.num_objs, all.active_slabs, all.num_slabs);
	return 0;
}

SELFTEST_HOST(slab_host_numa_slabinfo_rows_add_up)
{
	return in_numa_child(slabinfo_body);
}

/* The memory-less node 3: its CPUs and kmem_cache_alloc_node(3) are served by node 2. */
static int memoryless_body(void)
{
	struct kmem_cache *c;
	void *p, *q;

	c = kmem_cache_create("numa-memless", OBJ_SIZE, 0, 0, NULL);
	CHILD_EXPECT(c, "create failed");
	CHILD_EXPECT(slab_mem_node(3) == 2 && slab_mem_node(1) == 1, "memory nodes %u %u",
		  slab_mem_node(3), slab_mem_node(1));
	as(7);
	p = kmem_cache_alloc(c);
	q = kmem_cache_alloc_node(c, 3);
	CHILD_EXPECT(p && q && obj_node(p) == 2 && obj_node(q) == 2,
		  "node 3's CPU got node %u, alloc_node(3) node %u", p ? obj_node(p) : 99,
		  q ? obj_node(q) : 99);
	CHILD_EXPECT(!c->node[3], "a node struct for the memory-less node");
	kmem_cache_free(c, p);
	kmem_cache_free(c, q);
	as(0);
	return kmem_cache_check(c) ? child_fail("inconsistent") : 0;
}

SELFTEST_HOST(slab_host_numa_memoryless_node_uses_nearest)
{
	return in_numa_child(memoryless_body);
}
#endif
