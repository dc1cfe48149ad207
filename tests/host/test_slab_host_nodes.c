/*
 * test_slab_host_nodes.c - host-only tests of SLAB's nodes, one thread
 * acting as several CPUs in turn (host_cpu_id). In SLAB_NODE_PER_CPU=1
 * builds, the node per CPU (a one-node host gives every CPU the same
 * memory node otherwise; test_slab_host_numa.c tests memory nodes):
 *  - a CPU gets its node with its first array and grows slabs homed there;
 *    objects another CPU frees go back to that home, not to the freeing
 *    CPU's node; a CPU with no array (a debug cache) uses node 0;
 *  - with no page left for a new slab, a CPU takes objects from another
 *    node's slabs rather than fail, and they still go home when freed;
 *  - a CPU dropping its arrays stays array-less through the frees that
 *    makes; a CPU's node reap leaves other nodes' free slabs alone.
 */
#include "tests/common/test_slab.h"

static inline void as(unsigned int cpu)
{
	host_set_cpu(cpu);
}

#if CONFIG_SLAB_NODE_PER_CPU
static unsigned int home_of(const void *objp)
{
	return slab_node_id(slab_head_page(objp));
}

static int nodes_body(struct kmem_cache *c, struct kmem_cache *dbg)
{
	void *objs[10], *d;

	as(5);
	for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = kmem_cache_alloc(c);
		ST_EXPECT(objs[i] && home_of(objs[i]) == 5, "object %u of CPU 5 homed at %u", i,
			  objs[i] ? home_of(objs[i]) : 99);
	}
	ST_EXPECT(c->node[5] && c->node[5]->total_slabs > 0 && c->node0.total_slabs == 0,
		  "CPU 5's slabs not on its own node");
	/* CPU 6 frees them and drains its array: they go home to node 5. */
	as(6);
	for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(c->cpu_array[6]->avail == ARRAY_SIZE(objs), "CPU 6's array holds %lu",
		  c->cpu_array[6]->avail);
	kmem_cache_drain_local(c);
	ST_EXPECT(c->node[6] && c->node[6]->total_slabs == 0 &&
			  c->node[5]->free_objects == c->node[5]->total_slabs * c->num -
							     c->cpu_array[5]->avail,
		  "drained objects did not go home to node 5");
	ST_EXPECT(kmem_cache_check(c) == 0, "inconsistent after frees sent home");

	/* A debug cache has no arrays, so no CPU makes a node of it: node 0 serves. */
	as(3);
	d = kmem_cache_alloc(dbg);
	ST_EXPECT(d && home_of(d) == 0 && !dbg->node[3], "debug cache object homed at %u",
		  d ? home_of(d) : 99);
	kmem_cache_free(dbg, d);
	ST_EXPECT(kmem_cache_check(dbg) == 0, "debug cache inconsistent");
	as(0);
	return 0;
}

SELFTEST_HOST(slab_host_node_per_cpu)
{
	struct slab_test_mark pages;
	struct kmem_cache *c, *dbg;
	int ret;

	slab_drain_all();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-nodes", 128, 0, SLAB_NO_DEBUG, NULL);
	dbg = kmem_cache_create("test-nodes-dbg", 128, 0, SLAB_DEBUG, NULL);
	ST_EXPECT(c && dbg, "create failed");
	ret = nodes_body(c, dbg);
	as(0);
	slab_drain_all();
	if (ret)
		return ret;	/* the reason is the body's */
	ST_EXPECT(kmem_cache_destroy(c) == 0 && kmem_cache_destroy(dbg) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/* Chain objects through their first word; returns the count. */
static unsigned long fill(struct kmem_cache *c, void **head)
{
	unsigned long n = 0;
	void *p;

	while ((p = kmem_cache_alloc(c))) {
		*(void **)p = *head;
		*head = p;
		n++;
	}
	return n;
}

static void empty(struct kmem_cache *c, void **head)
{
	while (*head) {
		void *next = *(void **)*head;

		kmem_cache_free(c, *head);
		*head = next;
	}
}

/* What the out-of-pages test holds, so that a failed check can still give it all back. */
struct steal_state {
	void *bigs;	/* CPU 1's big objects: every page but a few */
	void *kept;	/* the small objects CPU 1 keeps */
	void *taken;	/* what CPU 2 got from node 1 */
};

static int steal_body(struct kmem_cache *big, struct kmem_cache *small, struct steal_state *st)
{
	void *smalls = NULL, *p;
	unsigned long nsmall, given = 0, remote;

	/*
	 * CPU 1 takes every page with big objects, gives four back (sixteen in
	 * debug builds, whose kmalloc slabs for its array and node are larger),
	 * fills them with small ones.
	 */
	as(1);
	ST_EXPECT(fill(big, &st->bigs) > 16, "too few big objects");
	for (int i = 0; i < (CONFIG_SLAB_DEBUG ? 16 : 4); i++) {
		p = st->bigs;
		st->bigs = *(void **)p;
		kmem_cache_free(big, p);
	}
	kmem_cache_drain_local(big);
	kmem_cache_shrink(big);
	nsmall = fill(small, &smalls);
	ST_EXPECT(nsmall >= 2 * small->num, "only %lu small objects", nsmall);
	/* It gives every other small object back: slabs half free, none empty. */
	for (p = smalls; p;) {
		void *next = *(void **)p, *after = next ? *(void **)next : NULL;

		kmem_cache_free(small, p);
		given++;
		if (next) {
			*(void **)next = st->kept;
			st->kept = next;
		}
		p = after;
	}
	kmem_cache_drain_local(small);
	ST_EXPECT(small->node[1] && small->node[1]->free_slabs == 0 &&
			  small->node[1]->free_objects == given,
		  "node 1 should hold %lu free objects on partial slabs", given);

	/* CPU 2 has no free slab and no page for one: it takes node 1's objects. */
	as(2);
	for (unsigned long i = 0; i < given; i++) {
		p = kmem_cache_alloc(small);
		ST_EXPECT(p, "allocation %lu of %lu failed with node 1's objects free", i, given);
		*(void **)p = st->taken;
		st->taken = p;
		ST_EXPECT(home_of(p) == 1, "object from node %u, not 1", home_of(p));
	}
	ST_EXPECT(kmem_cache_check(small) == 0, "inconsistent after taking from node 1");
	/* Freed by CPU 2, they still go home to node 1 (counted as sent to another node). */
	remote = small->stats.flushed_remote;
	empty(small, &st->taken);
	kmem_cache_drain_local(small);
	ST_EXPECT(!CONFIG_SLAB_STATS || small->stats.flushed_remote - remote == given,
		  "%lu objects counted as sent to another node, not %lu",
		  small->stats.flushed_remote - remote, given);
	ST_EXPECT(!small->node[2] || small->node[2]->total_slabs == 0, "node 2 took slabs");
	as(0);
	return kmem_cache_check(small) ? selftest_fail("inconsistent at the end") : 0;
}

SELFTEST_HOST(slab_host_out_of_pages_takes_from_other_nodes)
{
	struct steal_state st = { NULL, NULL, NULL };
	struct slab_test_mark pages;
	struct kmem_cache *big, *small;
	int ret;

	slab_drain_all();
	slab_test_begin(&pages);
	big = kmem_cache_create("test-steal-big", PAGE_SIZE, 0, SLAB_NO_DEBUG, NULL);
	small = kmem_cache_create("test-steal-small", 64, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(big && small, "create failed");
	ret = steal_body(big, small, &st);
	as(2);
	empty(small, &st.taken);
	as(1);
	empty(small, &st.kept);
	empty(big, &st.bigs);
	as(0);
	slab_drain_all();
	if (ret)
		return ret;	/* the reason is the body's */
	ST_EXPECT(kmem_cache_destroy(big) == 0 && kmem_cache_destroy(small) == 0,
		  "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

#endif

/*
 * A free that flushes a full array while a CPU drops its arrays may make a
 * shared array (with kmalloc); that must not end the CPU's array-less state
 * and let it make arrays again mid-drop. Not in debug builds: their
 * kmalloc caches have no per-CPU arrays to fill.
 */
#if !CONFIG_SLAB_DEBUG
SELFTEST_HOST(slab_host_drop_local_arrays_stays_arrayless)
{
	struct kmem_cache *a, *k1024 = kmalloc_slab(1000);
	void *objs[64], *p;
	unsigned int lim;
	bool remade = false;

	slab_drain_all();
	a = kmem_cache_create("test-arrayless", 64, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(a && k1024 && !k1024->node0.shared, "setup");
	as(1);
	p = kmem_cache_alloc(a);	/* CPU 1's array of a: a kmalloc-1024 object */
	kmem_cache_free(a, p);
	as(0);
	lim = k1024->limit;
	ST_EXPECT(lim <= ARRAY_SIZE(objs), "limit %u", lim);
	for (unsigned int i = 0; i < lim; i++)
		objs[i] = kmalloc(1000);	/* homed at node 0 */
	as(1);
	for (unsigned int i = 0; i < lim; i++)
		kfree(objs[i]);		/* CPU 1's kmalloc-1024 array: exactly full */
	ST_EXPECT(k1024->cpu_array[1]->avail == lim, "array not full: %lu",
		  k1024->cpu_array[1]->avail);
	slab_drop_local_arrays();	/* kfree of a's array flushes: node 0 gets a shared array */
	for (unsigned int i = 0; i <= KMALLOC_SHIFT_HIGH; i++) {
		struct kmem_cache *k = kmalloc_caches[i];

		if (k && k->cpu_array[1] != &slab_no_array) {
			printk("CPU 1 has an array of %s again (avail %lu)\n", k->name,
			       k->cpu_array[1]->avail);
			remade = true;
		}
	}
	as(0);
	slab_drain_all();
	ST_EXPECT(kmem_cache_destroy(a) == 0, "destroy refused");
	ST_EXPECT(!remade, "CPU 1 made arrays while dropping them");
	return 0;
}
#endif

#if CONFIG_SLAB_NODE_PER_CPU
/* A CPU's node reap gives back its own node's free slabs only, never a busy node's. */
SELFTEST_HOST(slab_host_reap_takes_only_own_node)
{
	struct kmem_cache *c;
	void *objs[40], *p;
	unsigned long before, after;

	slab_drain_all();
	/* Quarter-page objects (4 << order a slab): node 2 keeps empty slabs. */
	c = kmem_cache_create("test-reap-node", PAGE_SIZE / 4, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c && c->num == 4U << c->order, "create failed");
	as(2);
	for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
		objs[i] = kmem_cache_alloc(c);
	for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
		kmem_cache_free(c, objs[i]);
	kmem_cache_drain_local(c);
	cache_release_shared(c, 2);	/* where the array's overflow went (64K: limit 24) */
	p = kmem_cache_alloc(c);	/* node 2 needed a free slab: it is busy */
	as(1);
	kmem_cache_free(c, kmem_cache_alloc(c));
	kmem_cache_drain_local(c);
	before = c->node[2]->free_slabs;
	ST_EXPECT(before > 0 && c->node[2]->free_touched, "node 2: %lu free slabs, touched %u",
		  before, c->node[2]->free_touched);
	slab_reap();
	slab_reap();		/* CPU 1's node pass */
	after = c->node[2]->free_slabs;
	as(2);
	kmem_cache_free(c, p);
	as(0);
	slab_drain_all();
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	ST_EXPECT(after == before, "CPU 1's reap gave back %lu free slabs of busy node 2",
		  before - after);
	return 0;
}
#endif
