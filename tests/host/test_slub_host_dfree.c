/*
 * test_slub_host_dfree.c - double frees across CPUs in SLUB, host only (the
 * thread acts as one CPU after another: host_set_cpu). The reliability
 * issue's item "SLUB double frees": a double free onto another CPU's sheaf
 * or into the barn handed the object out twice. Now, in every build:
 *  - an object freed on CPU 1 and again on CPU 2: with sheaves it is in
 *    CPU 1's sheaf; without, on CPU 1's freelist (its slab frozen for
 *    CPU 1); on a debug cache (SLAB_DEBUG) its guards say it;
 *  - an object whose sheaf CPU 1 gave to the barn, freed again on CPU 2;
 *  - an object that CPU 2 freed onto the page freelist of CPU 1's slab,
 *    under another, freed again on CPU 3 (classic paths);
 * each second free is reported naming "double free", the cache and the
 * object, counted and refused; every CPU's allocations afterwards (CPU 2
 * taking the barn's sheaf too) hand out no object twice; the cache stays
 * consistent, destroy returns 0 and every page comes back.
 */
#include "tests/common/test_slub.h"

#define DFC_HELD	256	/* objects the tests hold at once */

static void *dfc_held[DFC_HELD];
static unsigned int dfc_nheld;

/* The free of x through kmem_cache_free on c just refused: counted, reported, c consistent. */
static int dfc_refused(struct kmem_cache *c, unsigned long bad, void *x)
{
	char want[96];

	snprintf(want, sizeof(want), "slub: %s: kmem_cache_free(%p): double free", c->name, x);
	SLAB_EXPECT_REFUSED(c, bad, want);
	return 0;
}

/* n allocations on cpu, each distinct from every object held, kept held. */
static int dfc_alloc_distinct(struct kmem_cache *c, unsigned int cpu, unsigned int n)
{
	host_set_cpu(cpu);
	for (unsigned int i = 0; i < n; i++) {
		void *x = kmem_cache_alloc(c);

		ST_EXPECT(x && dfc_nheld < DFC_HELD, "CPU %u: allocation %u failed", cpu, i);
		for (unsigned int k = 0; k < dfc_nheld; k++)
			ST_EXPECT(dfc_held[k] != x, "%s: CPU %u was handed %p, which is held", c->name,
				  cpu, x);
		dfc_held[dfc_nheld++] = x;
	}
	return 0;
}

/* Free every held object (on CPU 0), check, destroy, and see every page back. */
static int dfc_finish(struct kmem_cache *c, unsigned long pages)
{
	host_set_cpu(0);
	while (dfc_nheld)
		kmem_cache_free(c, dfc_held[--dfc_nheld]);
	ST_EXPECT(kmem_cache_check(c) == 0, "%s inconsistent", c->name);
	ST_EXPECT(slub_test_held(c) == 0, "%s: %lu objects held", c->name, slub_test_held(c));
	ST_EXPECT(kmem_cache_destroy(c) == 0, "%s: destroy refused", c->name);
	slab_drain_all();
	ST_EXPECT(slab_test_settle() == pages, "pages not back: %lu free, %lu before",
		  nr_free_pages(), pages);
	return 0;
}

/* CPU 1 frees p, CPU 2 frees it again; flags: SLAB_NO_DEBUG or 0 (SLAB_DEBUG's guards). */
static int dfc_other_cpu(unsigned int flags, bool classic)
{
	struct kmem_cache *c;
	unsigned long pages, bad;
	void *p;

	slab_drain_all();
	pages = slab_test_settle();
	c = kmem_cache_create(flags ? "test-dfc" : "test-dfc-g", 64, 0, flags, NULL);
	if (classic)
		c = slub_test_classic(c);
	ST_EXPECT(c, "create failed");
	dfc_nheld = 0;
	if (dfc_alloc_distinct(c, 1, 4))
		return -1;
	p = dfc_held[--dfc_nheld];
	kmem_cache_free(c, p);
	host_set_cpu(2);
	slab_test_console_clear();
	bad = slab_bad_frees;
	kmem_cache_free(c, p);
	if (dfc_refused(c, bad, p))
		return -1;
	if (!slub_debug_on(c))
		ST_EXPECT(slab_test_console_has(c->sheaf_capacity ?
				"double free (already in CPU 1's sheaves)" :
				"double free (marked free, in another CPU's slab)"),
			  "%s: the report does not say where p is", c->name);
	ST_EXPECT(slub_test_held(c) == dfc_nheld, "%s: %lu held, %u allocated", c->name,
		  slub_test_held(c), dfc_nheld);
	if (dfc_alloc_distinct(c, 1, 70) || dfc_alloc_distinct(c, 2, 70))
		return -1;
	return dfc_finish(c, pages);
}

SELFTEST_HOST(slub_host_double_free_on_another_cpu)
{
	for (unsigned int classic = 0; classic < 2; classic++)
		if (dfc_other_cpu(SLAB_NO_DEBUG, classic) || dfc_other_cpu(0, classic))
			return -1;
	return 0;
}

/*
 * Sheaves: CPU 1 empties its main sheaf, frees 2 * capacity - 1 objects
 * (main full, then the spare; main refilled to one short), then p (main
 * full) and r (main goes to the barn for an empty one): p waits in the
 * barn. CPU 2 frees p again.
 */
SELFTEST_HOST(slub_host_double_free_into_the_barn)
{
	struct kmem_cache *c;
	unsigned long pages, bad, flags;
	unsigned int cap, nfree;
	void *p;

	slab_drain_all();
	pages = slab_test_settle();
	c = kmem_cache_create("test-dfc-barn", 64, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c, "create failed");
	cap = c->sheaf_capacity;
	dfc_nheld = 0;
	if (!cap) {	/* SLUB_SHEAVES=0 (or SLAB_DEBUG's guards): no barn */
		ST_EXPECT(!CONFIG_SLUB_SHEAVES || slub_debug_on(c), "no sheaves");
		return dfc_finish(c, pages);
	}
	ST_EXPECT(2 * cap + 1 <= DFC_HELD / 2, "capacity %u too large for the test", cap);
	if (dfc_alloc_distinct(c, 1, 2 * cap + 1))
		return -1;
	flags = arch_irq_save();
	while (slub_this_main(c)->size)		/* main empty: the frees below start it from 0 */
		ST_EXPECT((dfc_held[dfc_nheld++] = kmem_cache_alloc(c)), "allocation failed");
	arch_irq_restore(flags);
	nfree = 2 * cap - 1;
	for (unsigned int i = 0; i < nfree; i++)
		kmem_cache_free(c, dfc_held[--dfc_nheld]);
	p = dfc_held[--dfc_nheld];
	kmem_cache_free(c, p);
	ST_EXPECT(slub_this_main(c)->size == cap && slub_local_node(c)->barn.nr_full == 0,
		  "before r: main %lu of %u, barn %u full", slub_this_main(c)->size, cap,
		  slub_local_node(c)->barn.nr_full);
	kmem_cache_free(c, dfc_held[--dfc_nheld]);
	ST_EXPECT(slub_local_node(c)->barn.nr_full == 1 && slub_local_node(c)->barn.full->size == cap &&
			  slub_local_node(c)->barn.full->objects[cap - 1] == p,
		  "p is not on top of the barn's full sheaf (%u full)", slub_local_node(c)->barn.nr_full);
	host_set_cpu(2);
	slab_test_console_clear();
	bad = slab_bad_frees;
	kmem_cache_free(c, p);
	if (dfc_refused(c, bad, p))
		return -1;
	ST_EXPECT(slab_test_console_has("double free (already in a full sheaf in the barn)"),
		  "the report does not say p is in the barn");
	/* CPU 2 takes the barn's sheaf (p in it once) and more; CPU 1 its own. */
	if (dfc_alloc_distinct(c, 2, cap + 8) || dfc_alloc_distinct(c, 1, 2 * cap + 8))
		return -1;
	return dfc_finish(c, pages);
}

/*
 * Classic paths: CPU 1 takes p and q from its slab, CPU 2 frees p and q
 * onto that slab's page freelist (the slab is CPU 1's; p under q, where
 * the check of the freelist's top does not see it), CPU 3 frees p again.
 */
SELFTEST_HOST(slub_host_double_free_on_another_cpus_slab)
{
	struct kmem_cache *c;
	unsigned long pages, bad;
	void *p, *q;

	slab_drain_all();
	pages = slab_test_settle();
	c = slub_test_classic(kmem_cache_create("test-dfc-remote", 64, 0, SLAB_NO_DEBUG, NULL));
	ST_EXPECT(c, "create failed");
	dfc_nheld = 0;
	if (dfc_alloc_distinct(c, 1, 4))
		return -1;
	q = dfc_held[--dfc_nheld];
	p = dfc_held[--dfc_nheld];
	host_set_cpu(2);
	kmem_cache_free(c, p);
	kmem_cache_free(c, q);
	ST_EXPECT(slub_test_page(p)->slub_freelist == q && slub_get_fp(c, q) == p,
		  "p not under q on their slab's page freelist");
	host_set_cpu(3);
	slab_test_console_clear();
	bad = slab_bad_frees;
	kmem_cache_free(c, p);
	if (dfc_refused(c, bad, p))
		return -1;
	ST_EXPECT(slab_test_console_has("double free (marked free, in another CPU's slab)"),
		  "the report does not say where p is");
	if (dfc_alloc_distinct(c, 1, 70) || dfc_alloc_distinct(c, 3, 70))
		return -1;
	return dfc_finish(c, pages);
}
