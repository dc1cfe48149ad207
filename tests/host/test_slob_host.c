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
 *    spare is kept and given back, Slab: follows the heap;
 *  - one page's objects freed among pages that keep theirs: the page goes
 *    back to the page allocator at its last free (the first one emptied
 *    stays as the spare), the other pages' objects untouched.
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

/* Objects of 200 bytes over GB_PAGES pages of their own, and the fill before the first. */
#define GB_PAGES	5
#define GB_MAX		(GB_PAGES * PAGE_SIZE / 200 + 2)
#define GB_FILL		(PAGE_SIZE / 16)

static unsigned char *gb_obj[GB_MAX];
static void *gb_fill[GB_FILL];

/* Free every object of gb_obj[] in 'page' (NULL: all of them); how many. */
static unsigned int gb_free_page(struct kmem_cache *c, const struct page *page, unsigned int n)
{
	unsigned int freed = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (gb_obj[i] && (!page || virt_to_page(gb_obj[i]) == page)) {
			kmem_cache_free(c, gb_obj[i]);
			gb_obj[i] = NULL;
			freed++;
		}
	}
	return freed;
}

/*
 * Pages 1 and 2 of five, filled with one cache's objects only (each began
 * as a fresh page, and nothing else allocates meanwhile), are emptied while
 * pages 0, 3 and 4 keep their objects. The heap had no spare: page 1
 * becomes it and stays in the heap; page 2's last free then gives it back
 * to the page allocator at once (the heap a page smaller, a page more
 * free, the page no longer PG_slab). Every object left keeps its block and
 * its contents, and the heap passes its check; shrink gives the spare back.
 */
SELFTEST_HOST(slob_host_emptied_page_goes_back)
{
	struct page *pg[GB_PAGES];
	unsigned long pages, heap, nfree, live;
	unsigned int n = 0, npg = 0, nfill = 0;
	struct kmem_cache *c;

	slab_drain_all();
	pages = slab_test_settle();
	c = slob_test_cache("test-give-back", 200);
	ST_EXPECT(c, "create failed");
	gb_obj[n] = slob_test_fresh(c, gb_fill, GB_FILL, &nfill);
	ST_EXPECT(gb_obj[n], "no page of its own");
	pg[npg++] = virt_to_page(gb_obj[n++]);
	/* Until a sixth fresh page begins: the five before are full of this cache's objects. */
	for (;;) {
		unsigned char *p = kmem_cache_alloc(c);

		ST_EXPECT(p && n < GB_MAX, "alloc %u failed, or no new page", n);
		if (virt_to_page(p) != pg[npg - 1] && npg == GB_PAGES) {
			gb_obj[n++] = p;	/* kept: freed, its page would be the spare */
			break;
		}
		if (virt_to_page(p) != pg[npg - 1]) {
			ST_EXPECT(slob_test_page_objects(p) == 1, "object %u: %p in a page in use "
				  "before", n, (void *)p);
			pg[npg++] = virt_to_page(p);
		}
		gb_obj[n++] = p;
	}
	for (unsigned int i = 0; i < n; i++)
		memset(gb_obj[i], (unsigned char)(i * 7 + 1), 200);
	ST_EXPECT(slob_heap.spare == NULL, "a spare after the drain and the fills");

	ST_EXPECT(gb_free_page(c, pg[1], n) > 1, "page 1 held no objects of the test");
	ST_EXPECT(slob_heap.spare == pg[1] && (pg[1]->flags & PG_slab),
		  "the first page emptied is not the spare");
	heap = slob_test_pages();
	nfree = nr_free_pages();
	ST_EXPECT(gb_free_page(c, pg[2], n) > 1, "page 2 held no objects of the test");
	ST_EXPECT(slob_test_pages() == heap - 1 && nr_free_pages() == nfree + 1 &&
			  !(pg[2]->flags & PG_slab) && slob_heap.spare == pg[1],
		  "the emptied page was not given back: heap %lu pages (%lu before), %lu free "
		  "(%lu before), PG_slab %d", slob_test_pages(), heap, nr_free_pages(), nfree,
		  !!(pg[2]->flags & PG_slab));

	live = 0;
	for (unsigned int i = 0; i < n; i++) {
		if (!gb_obj[i])
			continue;
		live++;
		ST_EXPECT(slob_test_owner(gb_obj[i]) == c && ksize(gb_obj[i]) == 200 &&
				  virt_to_page(gb_obj[i]) != pg[1] && virt_to_page(gb_obj[i]) != pg[2],
			  "object %u (%p) lost its block", i, (void *)gb_obj[i]);
		for (unsigned int k = 0; k < 200; k++)
			ST_EXPECT(gb_obj[i][k] == (unsigned char)(i * 7 + 1),
				  "object %u (%p) overwritten at %u", i, (void *)gb_obj[i], k);
	}
	ST_EXPECT(c->inuse == live + nfill && slob_test_check() == 0,
		  "%lu in use, %lu live: the heap is inconsistent", c->inuse, live + nfill);
	ST_EXPECT(kmem_cache_shrink(c) == 1 && slob_heap.spare == NULL &&
			  slob_test_pages() == heap - 2 && !(pg[1]->flags & PG_slab),
		  "shrink kept the empty spare: heap %lu pages", slob_test_pages());

	gb_free_page(c, NULL, n);
	while (nfill)
		kmem_cache_free(c, gb_fill[--nfill]);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	ST_EXPECT(slab_test_settle() == pages, "pages not back: %lu free, %lu before",
		  nr_free_pages(), pages);
	return 0;
}
