/*
 * test_slub_host_numa.c - SLUB on several memory nodes, on the host: the
 * default arena split into nodes 0, 1 and 2 with memory and node 3 with
 * CPUs and none (8 CPUs, two per node), distances
 *
 *          0   1   2   3
 *     0:  10  30  20  30
 *     1:  30  10  20  20
 *     2:  20  20  10  30
 *     3:  30  20  30  10
 *
 * so node 1 falls back to 2 before 0, and node 3's memory node is 1.
 *  - kmem_cache_alloc_node and kmalloc_node give objects of the node asked
 *    (page_to_nid), debug caches too; a CPU's own allocations are its node's;
 *  - a node with no free page left: its objects come from the nearest node;
 *  - a remote free puts its slab on the slab's node's list, not the object in
 *    the freeing CPU's sheaf; a local free goes into the sheaf;
 *  - a barn per node: each CPU's full sheaves go to its node's, holding its
 *    node's objects;
 *  - slabinfo by node adds up to the cache's row, node 3's row is empty;
 *  - a CPU of the memory-less node allocates from node 1.
 * Each test runs in a child process (fork): the topology, the page
 * allocator's zones (buddy_numa_init) and SLUB's nodes stay there, and the
 * tests after these find the one-node arena as it was.
 */
#include "tests/common/test_slub.h"
#include "host_shim.h"
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB		(1UL << 20)
#define NODES		4
#define OBJ_SIZE	256

/* A failed check in the child: said on stderr, the child exits 1. */
#define NX(cond, fmt, ...)                                                              \
	do {                                                                            \
		if (!(cond)) {                                                          \
			fprintf(stderr, "slub numa: %s:%d: " fmt "\n", __FILE__, __LINE__, \
				##__VA_ARGS__);                                         \
			return -1;                                                      \
		}                                                                       \
	} while (0)

static const uint32_t dist[NODES][NODES] = {
	{ 10, 30, 20, 30 },
	{ 30, 10, 20, 20 },
	{ 20, 20, 10, 30 },
	{ 30, 20, 30, 10 },
};

/*
 * The topology over the default arena (split already or not: a host run
 * on several nodes), the page allocator's zones, SLUB's tables.
 */
static int numa_setup(void)
{
	static struct numa_firmware fw;
	static uint64_t hwid[NR_CPUS];
	uint64_t base = host_arena.phys_base, end = base + host_arena.bytes;
	uint64_t cut1 = base + (host_arena.bytes / 3 & ~(MB - 1));
	uint64_t cut2 = base + (2 * host_arena.bytes / 3 & ~(MB - 1));
	const uint64_t cut[] = { base, cut1, cut2, end };

	host_numa_record(&fw, hwid, NODES, cut, 3, NR_CPUS, &dist[0][0]);
	host_set_cpu(0);
	slab_drain_all();
	numa_init(&fw, host_arena.avail, host_arena.n_avail, hwid, NR_CPUS);
	NX(numa_num_nodes() == NODES, "%u nodes, want %d", numa_num_nodes(), NODES);
	buddy_numa_init();
	slub_nodes_refresh();
	NX(slub_multi_node, "SLUB sees one memory node");
	for (unsigned int c = 0; c < NR_CPUS; c++) {
		static const unsigned int want[NODES] = { 0, 1, 2, 1 };

		host_set_cpu(c);
		NX(slub_local_nid() == want[c * NODES / NR_CPUS], "CPU %u: memory node %u", c,
		   slub_local_nid());
	}
	NX(slub_mem_nid(3) == 1 && slub_fallback_nid(1, 1) == 2 && slub_fallback_nid(1, 2) == 0 &&
		   slub_fallback_nid(1, 3) == NUMA_NO_NODE,
	   "memory node of 3: %u; node 1 falls back to %u, %u", slub_mem_nid(3),
	   slub_fallback_nid(1, 1), slub_fallback_nid(1, 2));
	host_set_cpu(0);
	return 0;
}

static unsigned int obj_nid(const void *p)
{
	return page_to_nid(virt_to_page(p));
}

/* Run fn in a child on the topology above; 0 when it passed. */
static int in_child(int (*fn)(void))
{
	int status = 0;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		int rc = numa_setup();

		if (!rc)
			rc = fn();
		fflush(stdout);
		fflush(stderr);
		_exit(rc ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Whether x is in CPU cpu's main or spare sheaf of s. */
static bool in_cpu_sheaf(struct kmem_cache *s, unsigned int cpu, const void *x)
{
	const struct slub_sheaf *sh[2] = { per_cpu_ptr(slub_sheaf, cpu)->main[s->slot],
					   s->cpu[cpu].spare };

	for (unsigned int k = 0; k < 2; k++)
		for (unsigned long i = 0; sh[k] && i < sh[k]->size; i++)
			if (sh[k]->objects[i] == x)
				return true;
	return false;
}

/* Whether page is on node nid's partial list of s. */
static bool on_node_list(struct kmem_cache *s, unsigned int nid, const struct page *page)
{
	const struct page *p;

	list_for_each_entry(p, &s->node[nid].partial, lru)
		if (p == page)
			return true;
	return false;
}

/* n objects of c on node (kmem_cache_alloc_node), each on want_nid; objs gets them. */
static int alloc_on(struct kmem_cache *c, unsigned int node, unsigned int want_nid, void **objs,
		    unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		objs[i] = kmem_cache_alloc_node(c, node);
		NX(objs[i], "%s: kmem_cache_alloc_node(node %u): NULL", c->name, node);
		NX(obj_nid(objs[i]) == want_nid, "%s: kmem_cache_alloc_node(node %u): %p on node %u, "
		   "want %u", c->name, node, objs[i], obj_nid(objs[i]), want_nid);
	}
	return 0;
}

static void free_all(struct kmem_cache *c, void **objs, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
}

#define PER	96	/* objects per node and cache: several slabs */

/* Placement by node, a plain and a debug cache, kmalloc_node, CPUs' own allocations. */
static int placement(void)
{
	static void *objs[2][NODES][PER];
	struct kmem_cache *c[2];
	void *k;

	c[0] = kmem_cache_create("numa-plain", OBJ_SIZE, 0, SLAB_NO_DEBUG, NULL);
	c[1] = kmem_cache_create("numa-debug", OBJ_SIZE, 0, SLAB_RED_ZONE | SLAB_POISON, NULL);
	NX(c[0] && c[1], "create failed");
	for (unsigned int k2 = 0; k2 < 2; k2++) {
		for (unsigned int node = 0; node < NODES; node++)
			if (alloc_on(c[k2], node, node == 3 ? 1 : node, objs[k2][node], PER))
				return -1;
		NX(kmem_cache_check(c[k2]) == 0, "%s: check failed", c[k2]->name);
	}
	for (unsigned int node = 0; node < NODES; node++) {
		k = kmalloc_node(200, node);
		NX(k && obj_nid(k) == (node == 3 ? 1 : node), "kmalloc_node(200, %u): %p on node %u",
		   node, k, k ? obj_nid(k) : 99);
		kfree(k);
	}
	/* Each CPU's own allocations: its memory node's. */
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		host_set_cpu(cpu);
		k = kmem_cache_alloc(c[0]);
		NX(k && obj_nid(k) == slub_local_nid(), "CPU %u: %p on node %u, its memory node %u",
		   cpu, k, k ? obj_nid(k) : 99, slub_local_nid());
		kmem_cache_free(c[0], k);
	}
	/* Frees from CPU 0 and CPU 4 (remote for most), then nothing is left. */
	for (unsigned int k2 = 0; k2 < 2; k2++)
		for (unsigned int node = 0; node < NODES; node++) {
			host_set_cpu(node & 1 ? 4 : 0);
			free_all(c[k2], objs[k2][node], PER);
		}
	host_set_cpu(0);
	for (unsigned int k2 = 0; k2 < 2; k2++) {
		NX(kmem_cache_check(c[k2]) == 0, "%s: check failed after the frees", c[k2]->name);
		NX(kmem_cache_destroy(c[k2]) == 0, "%s: destroy failed", c[k2]->name);
	}
	return 0;
}

SELFTEST_HOST(slub_host_numa_alloc_node_placed)
{
	ST_EXPECT(in_child(placement) == 0, "the child failed (its message above)");
	return 0;
}

/* A remote free: the slab goes onto its node's list, the object into no sheaf. */
static int remote_free(void)
{
	struct kmem_cache *c = kmem_cache_create("numa-remote", OBJ_SIZE, 0, SLAB_NO_DEBUG, NULL);
	static void *objs[4096];
	struct page *page;
	void *local;
	unsigned int num;

	NX(c, "create failed");
	num = c->num;
	NX(num <= 4096, "%u objects per slab", num);
	/* One slab of node 1, filled by the node path from CPU 0: full, on no list. */
	if (alloc_on(c, 1, 1, objs, num))
		return -1;
	page = (struct page *)virt_to_page(objs[0])->private;
	for (unsigned int i = 1; i < num; i++)
		NX((struct page *)virt_to_page(objs[i])->private == page,
		   "object %u of the first %u not in the first slab", i, num);
	NX(c->node[1].nr_partial == 0 && slub_inuse(page->counters) == num &&
		   !slub_frozen(page->counters),
	   "node 1: %lu partial slabs, the slab %u in use%s", c->node[1].nr_partial,
	   slub_inuse(page->counters), slub_frozen(page->counters) ? ", frozen" : "");
	/* CPU 0 (node 0) frees one: onto node 1's list, not into CPU 0's sheaf. */
	kmem_cache_free(c, objs[0]);
	NX(!in_cpu_sheaf(c, 0, objs[0]), "the remote object went into CPU 0's sheaf");
	NX(!slub_frozen(page->counters) && on_node_list(c, 1, page) && c->node[1].nr_partial == 1,
	   "the slab is %s, node 1 has %lu partial slabs", slub_frozen(page->counters) ?
	   "frozen" : on_node_list(c, 1, page) ? "listed" : "on no list", c->node[1].nr_partial);
	NX(c->node[0].nr_partial == 0 && c->cpu[0].nr_partial == 0,
	   "node 0 or CPU 0 has partial slabs: %lu, %u", c->node[0].nr_partial,
	   c->cpu[0].nr_partial);
	NX(slub_inuse(page->counters) == num - 1, "the slab: %u in use, want %u",
	   slub_inuse(page->counters), num - 1);
	/* CPU 4 (node 2) frees another: the same. */
	host_set_cpu(4);
	kmem_cache_free(c, objs[1]);
	NX(!in_cpu_sheaf(c, 4, objs[1]) && on_node_list(c, 1, page) &&
		   slub_inuse(page->counters) == num - 2,
	   "CPU 4's remote free: in its sheaf %d, listed %d, %u in use", in_cpu_sheaf(c, 4, objs[1]),
	   on_node_list(c, 1, page), slub_inuse(page->counters));
	/* A local free (node 0's object on CPU 0) goes into the sheaf. */
	host_set_cpu(0);
	local = kmem_cache_alloc(c);
	NX(local && obj_nid(local) == 0, "CPU 0's object on node %u", local ? obj_nid(local) : 99);
	kmem_cache_free(c, local);
	NX(!CONFIG_SLUB_SHEAVES || in_cpu_sheaf(c, 0, local), "a local free missed the sheaf");
	if (CONFIG_SLAB_STATS)
		NX(c->stats.free_remote >= (CONFIG_SLUB_SHEAVES ? 2UL : 1UL), "free_remote %lu",
		   c->stats.free_remote);
	NX(kmem_cache_check(c) == 0, "check failed");
	/* Everything back: the slab leaves node 1 empty, or stays at its front. */
	host_set_cpu(6);
	free_all(c, objs + 2, num - 2);
	NX(kmem_cache_check(c) == 0, "check failed after the frees");
	host_set_cpu(0);
	NX(kmem_cache_destroy(c) == 0, "destroy failed");
	return 0;
}

SELFTEST_HOST(slub_host_numa_remote_free_goes_home)
{
	ST_EXPECT(in_child(remote_free) == 0, "the child failed (its message above)");
	return 0;
}

/* A barn per node: each CPU's full sheaves go to its own node's barn. */
static int barns(void)
{
	struct kmem_cache *c = kmem_cache_create("numa-barn", OBJ_SIZE, 0, SLAB_NO_DEBUG, NULL);
	static void *objs[1024];
	static const unsigned int cpus[] = { 0, 4, 2, 6 };	/* nodes 0, 2, 1, 3 (memory 1) */
	unsigned int n;

	NX(c, "create failed");
	if (!CONFIG_SLUB_SHEAVES)
		return kmem_cache_destroy(c);
	n = c->sheaf_capacity * 4;
	NX(n <= 1024, "capacity %u", c->sheaf_capacity);
	for (unsigned int k = 0; k < 4; k++) {
		unsigned int nid;

		host_set_cpu(cpus[k]);
		nid = slub_local_nid();
		for (unsigned int i = 0; i < n; i++) {
			objs[i] = kmem_cache_alloc(c);
			NX(objs[i] && obj_nid(objs[i]) == nid, "CPU %u: %p on node %u", cpus[k],
			   objs[i], objs[i] ? obj_nid(objs[i]) : 99);
		}
		free_all(c, objs, n);
		NX(c->node[nid].barn.nr_full > 0, "CPU %u: no full sheaf in node %u's barn",
		   cpus[k], nid);
		for (const struct slub_sheaf *sh = c->node[nid].barn.full; sh; sh = sh->next)
			for (unsigned long i = 0; i < sh->size; i++)
				NX(obj_nid(sh->objects[i]) == nid, "node %u's barn holds %p of node %u",
				   nid, sh->objects[i], obj_nid(sh->objects[i]));
	}
	NX(c->node[3].barn.nr_full == 0 && c->node[3].barn.nr_empty == 0,
	   "the memory-less node has a barn in use");
	NX(kmem_cache_check(c) == 0, "check failed");
	host_set_cpu(0);
	NX(kmem_cache_destroy(c) == 0, "destroy failed");
	return 0;
}

SELFTEST_HOST(slub_host_numa_barn_per_node)
{
	ST_EXPECT(in_child(barns) == 0, "the child failed (its message above)");
	return 0;
}

/* Rows by node add up to the cache's, for this cache and every other. */
static int rows_add_up(struct kmem_cache *c)
{
	struct slabinfo all, node, sum = { 0 };

	kmem_cache_slabinfo(c, &all);
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
		NX(kmem_cache_slabinfo_node(c, nid, &node), "%s: no row for node %u", c->name, nid);
		NX(numa_node_online(nid) || node.num_slabs == 0, "%s: offline node %u has slabs",
		   c->name, nid);
		sum.active_objs += node.active_objs;
		sum.num_objs += node.num_objs;
		sum.active_slabs += node.active_slabs;
		sum.num_slabs += node.num_slabs;
		sum.shared_avail += node.shared_avail;
	}
	NX(sum.active_objs == all.active_objs && sum.num_objs == all.num_objs &&
		   sum.active_slabs == all.active_slabs && sum.num_slabs == all.num_slabs &&
		   sum.shared_avail == all.shared_avail,
	   "%s: nodes add up to %lu/%lu objects %lu/%lu slabs %lu shared; the cache %lu/%lu, "
	   "%lu/%lu, %lu", c->name, (unsigned long)sum.active_objs, (unsigned long)sum.num_objs,
	   (unsigned long)sum.active_slabs, (unsigned long)sum.num_slabs,
	   (unsigned long)sum.shared_avail, (unsigned long)all.active_objs,
	   (unsigned long)all.num_objs, (unsigned long)all.active_slabs,
	   (unsigned long)all.num_slabs, (unsigned long)all.shared_avail);
	return 0;
}

static int slabinfo(void)
{
	struct kmem_cache *c = kmem_cache_create("numa-info", OBJ_SIZE, 0, SLAB_NO_DEBUG, NULL), *s;
	static void *objs[3][PER];
	struct slabinfo si;

	NX(c, "create failed");
	for (unsigned int node = 0; node < 3; node++)
		if (alloc_on(c, node, node, objs[node], PER))
			return -1;
	for (unsigned int node = 0; node < 3; node++) {
		NX(kmem_cache_slabinfo_node(c, node, &si) && si.num_slabs > 0 &&
			   si.active_objs >= PER,
		   "node %u: %lu slabs, %lu active", node, (unsigned long)si.num_slabs,
		   (unsigned long)si.active_objs);
	}
	NX(kmem_cache_slabinfo_node(c, 3, &si) && si.num_slabs == 0 && si.num_objs == 0,
	   "the memory-less node has %lu slabs", (unsigned long)si.num_slabs);
	if (rows_add_up(c))
		return -1;
	list_for_each_entry(s, &slab_caches, list)
		if (rows_add_up(s))
			return -1;
	for (unsigned int node = 0; node < 3; node++)
		free_all(c, objs[node], PER);
	if (rows_add_up(c))
		return -1;
	NX(kmem_cache_destroy(c) == 0, "destroy failed");
	return 0;
}

SELFTEST_HOST(slub_host_numa_slabinfo_adds_up)
{
	ST_EXPECT(in_child(slabinfo) == 0, "the child failed (its message above)");
	return 0;
}

/*
 * Node 1 without a free page: its objects come from node 2, the nearest
 * (then node 0); CPU 2's own allocations too; and the memory-less node's
 * CPUs allocate from node 1 while it has pages.
 */
static int fallback(void)
{
	struct kmem_cache *c = kmem_cache_create("numa-full", OBJ_SIZE, 0, SLAB_NO_DEBUG, NULL);
	struct page *held = NULL, *page;
	unsigned long taken = 0;
	void *x, *y, *z;

	NX(c, "create failed");
	host_set_cpu(6);	/* node 3: memory node 1 */
	x = kmem_cache_alloc(c);
	y = kmem_cache_alloc_node(c, 3);
	NX(x && y && obj_nid(x) == 1 && obj_nid(y) == 1,
	   "node 3's CPU: objects on nodes %u and %u, want 1", x ? obj_nid(x) : 99,
	   y ? obj_nid(y) : 99);
	kmem_cache_free(c, x);
	kmem_cache_free(c, y);
	host_set_cpu(0);
	slab_drain_all();
	/* Take every free page of node 1 (chained through the pages themselves). */
	while ((page = alloc_pages_node(1, 0)) != NULL) {
		if (page_to_nid(page) != 1) {
			free_pages(page, 0);
			break;
		}
		*(struct page **)page_address(page) = held;
		held = page;
		taken++;
	}
	NX(taken > 0 && nr_free_pages_node(1) == 0, "node 1: %lu pages taken, %lu left", taken,
	   nr_free_pages_node(1));
	x = kmem_cache_alloc_node(c, 1);
	NX(x && obj_nid(x) == 2, "node 1 full: kmem_cache_alloc_node(node 1) on node %u, want 2",
	   x ? obj_nid(x) : 99);
	host_set_cpu(2);	/* node 1's own CPU */
	z = kmem_cache_alloc(c);
	NX(z && obj_nid(z) == 2, "node 1 full: CPU 2's object on node %u, want 2",
	   z ? obj_nid(z) : 99);
	kmem_cache_free(c, z);
	host_set_cpu(0);
	kmem_cache_free(c, x);
	NX(kmem_cache_check(c) == 0, "check failed");
	while (held) {
		page = held;
		held = *(struct page **)page_address(page);
		free_pages(page, 0);
	}
	/* Node 1 has pages again: its objects are its own. */
	x = kmem_cache_alloc_node(c, 1);
	NX(x && obj_nid(x) == 1, "node 1 again: object on node %u", x ? obj_nid(x) : 99);
	kmem_cache_free(c, x);
	NX(kmem_cache_destroy(c) == 0, "destroy failed");
	return 0;
}

SELFTEST_HOST(slub_host_numa_full_node_falls_back_nearest)
{
	ST_EXPECT(in_child(fallback) == 0, "the child failed (its message above)");
	return 0;
}
