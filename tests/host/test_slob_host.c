/*
 * test_slob_host.c - heavy SLOB tests for the host only (ASan/UBSan), both
 * forms:
 *  - a random run (fixed seed) of create/alloc/free/shrink/reap/destroy
 *    over caches of random geometry (alignments up to a page, red zones,
 *    poison, ctors, big objects) and kmalloc sizes up to large ones, the
 *    thread hopping between CPUs. Each object is checked when handed out
 *    (aligned, a live block of its cache by its header, not live already)
 *    and when freed (its pattern intact: no two live blocks overlap); every
 *    few hundred steps the whole heap passes kmem_cache_check (which also
 *    counts each cache's blocks against its counter); at the end every page
 *    is back;
 *  - a heap drained to nothing and filled again: pages come and go, the
 *    spare is kept and given back, Slab: follows the heap.
 * The random run is tests/host/stress.c's; this file gives it SLOB's checks.
 */
#include "tests/common/test_slob.h"
#include "host_stress.h"

#define RANDOM_OPS	120000
#define HOP_CPUS	4

/* A live block of its cache by its header, with room for the object. */
static int slob_check_object(struct kmem_cache *c, const void *p, size_t size)
{
	if (c) {
		ST_EXPECT(c->big ? virt_to_page(p)->slab_cache == c : slob_test_owner(p) == c,
			  "%p is not a block of %s", p, c->name);
	} else if (size <= KMALLOC_MAX_SLAB) {
		struct kmem_cache *k = kmalloc_slab(size);

		ST_EXPECT(k->big ? virt_to_page(p)->slab_cache == k : slob_test_owner(p) == k,
			  "kmalloc(%zu) = %p: block of another cache", size, p);
		ST_EXPECT((size & (size - 1)) || ((uintptr_t)p & (size - 1)) == 0,
			  "kmalloc(%zu) = %p not aligned", size, p);
	}
	if (!(c ? c->big : size > KMALLOC_MAX_SLAB || kmalloc_slab(size)->big)) {
		struct slob_hdr *h = slob_test_hdr(p);

		ST_EXPECT((uintptr_t)p + size <= (uintptr_t)slob_next(h) &&
				  slob_in_page(h, virt_to_page(p)),
			  "%p (%zu bytes) is not inside its block of %u units", p, size, h->units);
	}
	return 0;
}

/* A cache's counter of blocks in use is its live objects. */
static int slob_check_cache(struct kmem_cache *c, unsigned long live)
{
	ST_EXPECT(c->inuse == live, "%s: inuse %lu, %lu live", c->name, c->inuse, live);
	return 0;
}

/* The whole heap (kmem_cache_check also counts each cache's blocks). */
static int slob_check_heap(void)
{
	ST_EXPECT(slob_test_check() == 0, "heap inconsistent");
	return 0;
}

static unsigned long most_pages;	/* the most heap pages during the run */

static void slob_note_pages(void)
{
	most_pages = MAX(most_pages, slob_test_pages());
}

static const size_t slob_aligns[] = { 0, 0, 8, 16, 64, 256, 1024, PAGE_SIZE / 2, PAGE_SIZE };

/* Fewer caches and objects, alignments up to a page, every byte tagged, checks often. */
static const struct stress_config slob_stress = {
	.ops = RANDOM_OPS, .hop_cpus = HOP_CPUS, .check_every = 100,
	.create_below = 10, .shrink_below = 16, .reap_below = 20, .alloc_below = 520,
	.tag_span = SIZE_MAX, .cache_flags = SLAB_NO_DEBUG,
	.nr_caches = 10, .max_live = 3000, .max_live_bytes = 10UL << 20,
	.red_zone_one_in = 6, .poison_one_in = 6,
	.aligns = slob_aligns, .nr_aligns = ARRAY_SIZE(slob_aligns),
	.check_object = slob_check_object, .check_cache = slob_check_cache,
	.check_heap = slob_check_heap, .after_step = slob_note_pages,
};

/* host_random_run: see host_stress.h. */
int host_random_run(unsigned long ops, struct stress_counts *counts)
{
	struct stress_config cfg = slob_stress;

	cfg.ops = ops;
	return stress_run(&cfg, counts);
}

SELFTEST_HOST(slob_host_random_operations)
{
	unsigned long pages, bad = slab_bad_frees, corrupt = slab_corruptions;
	struct stress_counts n;

	slab_drain_all();
	pages = slab_test_settle();
	most_pages = 0;
	if (stress_run(&slob_stress, &n))
		return -1;
	ST_EXPECT(slab_bad_frees == bad && slab_corruptions == corrupt,
		  "good frees reported as bad");
	ST_EXPECT(slob_test_check() == 0, "heap inconsistent at the end");
	slab_drain_all();
	ST_EXPECT(slab_test_settle() == pages, "pages not back: %lu free, %lu before",
		  nr_free_pages(), pages);
	printk("random: %d ops on %d CPUs: %lu create/destroy, %lu shrink/drain/reap, %lu alloc,"
	       " %lu free; at most %lu heap pages\n", RANDOM_OPS, HOP_CPUS, n.create_destroy,
	       n.shrink, n.alloc, n.free, most_pages);
	return 0;
}

SELFTEST_HOST(slob_host_pages_come_and_go)
{
	unsigned long pages, heap0, n = 0;
	void **objs;

	slab_drain_all();
	pages = slab_test_settle();
	heap0 = slob_test_pages();
	objs = kmalloc_array(20000, sizeof(void *));
	ST_EXPECT(objs, "no table");
	for (int round = 0; round < 3; round++) {
		for (n = 0; n < 20000; n++)
			ST_EXPECT((objs[n] = kmalloc(24 + (n * 37) % 500)), "kmalloc %lu failed", n);
		ST_EXPECT(slob_test_pages() > heap0 + 20000 * 24 / PAGE_SIZE,
			  "%lu heap pages for 20000 objects", slob_test_pages());
		ST_EXPECT(slab_total_pages() >= slob_test_pages(), "Slab: below the heap");
		ST_EXPECT(slob_test_check() == 0, "heap inconsistent when full");
		for (n = 0; n < 20000; n++)
			kfree(objs[(n * 7919) % 20000]);
		ST_EXPECT(slob_test_check() == 0, "heap inconsistent after the frees");
		ST_EXPECT(slob_test_pages() <= heap0 + 1, "%lu heap pages after every free, %lu "
			  "before (one spare allowed)", slob_test_pages(), heap0);
	}
	kfree(objs);
	ST_EXPECT(slab_test_settle() == pages && slob_test_pages() <= heap0,
		  "pages not back: %lu free, %lu before", nr_free_pages(), pages);
	return 0;
}
