/*
 * test_slob_fit.c - the sequential-fit heap (ALLOC=slob), in the kernel
 * and on the host: first fit inside a page (a hole before the rest is
 * found first), coalescing with both neighbours, the page's free list and
 * counter, next fit (the list starts where the last fit was found), the
 * three lists by request size, and an empty page leaving the lists.
 *
 * Each test takes a page of its own (slob_test_fresh: the heap's other
 * pages keep whatever they hold) and works on the medium list, with
 * objects of 900 bytes (four per 4K page) and probes of 890.
 */
#include "test_slob.h"

#define FIT_SIZE	900	/* 114 units: fills a page but for a tail under 113 */
#define PROBE_SIZE	890	/* 113 units: fits a hole of FIT_SIZE, not a page's tail */
#define FIT_FILL	512

static void *fill[FIT_FILL];
static unsigned int nfill;

static void free_fill(struct kmem_cache *c)
{
	while (nfill)
		kmem_cache_free(c, fill[--nfill]);
}

/* The page's free blocks, in list order, into f[] (at most n); returns how many. */
static unsigned int page_free_list(struct page *sp, struct slob_hdr **f, unsigned int n)
{
	struct slob_hdr *base = page_address(sp), *h = sp->freelist;
	unsigned int k = 0;

	for (; h && k < n; k++) {
		f[k] = h;
		h = (h->info & SLOB_LINK_MASK) ? base + (h->info & SLOB_LINK_MASK) : NULL;
	}
	return k;
}

SELFTEST(slob_fit_first_fit_and_coalescing)
{
	struct kmem_cache *c, *probe;
	struct slob_hdr *f[8];
	unsigned int per, units;
	struct page *sp;
	char *o[4], *q;

	slab_test_init();
	c = slob_test_cache("test-fit", FIT_SIZE);
	probe = slob_test_cache("test-probe", PROBE_SIZE);
	ST_EXPECT(c && probe && c->start == 1 && probe->start == 1, "not on the medium list");
	units = c->units;
	per = SLOB_PAGE_UNITS / units;
	ST_EXPECT(per >= 4 && SLOB_PAGE_UNITS - per * units < probe->units,
		  "%u objects of %u units per page, a tail of %u", per, units,
		  SLOB_PAGE_UNITS - per * units);
	o[0] = slob_test_fresh(c, fill, FIT_FILL, &nfill);
	ST_EXPECT(o[0], "no page of its own");
	sp = virt_to_page(o[0]);
	ST_EXPECT(slob_test_hdr(o[0]) == (struct slob_hdr *)page_address(sp),
		  "the first object is not at the page's start");
	/* First fit from a fresh page: one after another from its start. */
	for (int i = 1; i < 4; i++) {
		o[i] = kmem_cache_alloc(c);
		ST_EXPECT(o[i] == o[0] + i * units * SLOB_UNIT, "object %d at %p, want %p", i,
			  (void *)o[i], (void *)(o[0] + i * units * SLOB_UNIT));
	}
	ST_EXPECT(sp->active == SLOB_PAGE_UNITS - 4 * units && sp->private == 2,
		  "page: %u free units, list %lu", sp->active, sp->private);
	/* Two holes: the first one is found first. */
	kmem_cache_free(c, o[0]);
	kmem_cache_free(c, o[2]);
	ST_EXPECT(page_free_list(sp, f, 8) == 3 && f[0] == slob_test_hdr(o[0]) &&
			  f[1] == slob_test_hdr(o[2]) && f[2] > f[1],
		  "free list after two frees: not the two holes and the rest, in order");
	q = kmem_cache_alloc(probe);
	ST_EXPECT(q == o[0], "first fit: %p, want the first hole %p", (void *)q, (void *)o[0]);
	kmem_cache_free(probe, q);
	/* Coalescing: freeing o[1] joins both holes around it. */
	kmem_cache_free(c, o[1]);
	ST_EXPECT(f[0]->units == 3 * units && slob_is_free(f[0]) &&
			  slob_test_hdr(o[1])->info == SLOB_DEAD &&
			  slob_test_hdr(o[2])->info == SLOB_DEAD,
		  "three blocks not coalesced: %u units", f[0]->units);
	ST_EXPECT(slob_next(f[0]) == slob_test_hdr(o[3]) && slob_test_hdr(o[3])->prev == 3 * units,
		  "boundary tag after the merge: prev %u", slob_test_hdr(o[3])->prev);
	ST_EXPECT(sp->active == SLOB_PAGE_UNITS - units, "page counts %u free units",
		  sp->active);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed");
	/* The last one: the page is one free block again, kept or given back. */
	kmem_cache_free(c, o[3]);
	ST_EXPECT(!(sp->flags & PG_slab) || sp->slab_cache ||
			  (sp->active == SLOB_PAGE_UNITS && f[0]->units == SLOB_PAGE_UNITS),
		  "an empty page still in pieces");
	free_fill(c);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed at the end");
	ST_EXPECT(kmem_cache_destroy(c) == 0 && kmem_cache_destroy(probe) == 0, "destroy");
	return 0;
}

SELFTEST(slob_fit_next_fit_starts_where_the_last_fit_was)
{
	struct kmem_cache *c, *probe;
	unsigned int per, n2 = 0, nfill2;
	struct page *p1, *p2;
	char *a1, *q, **second;

	slab_test_init();
	c = slob_test_cache("test-next", FIT_SIZE);
	probe = slob_test_cache("test-next-probe", PROBE_SIZE);
	ST_EXPECT(c && probe, "create failed");
	per = SLOB_PAGE_UNITS / c->units;
	second = kmalloc_array(2 * per, sizeof(char *));
	ST_EXPECT(second, "no table");
	a1 = slob_test_fresh(c, fill, FIT_FILL, &nfill);
	ST_EXPECT(a1, "no page of its own");
	p1 = virt_to_page(a1);
	for (unsigned int i = 1; i < per; i++)
		second[n2++] = kmem_cache_alloc(c);	/* P1 full but for a tail */
	/* The next object needs a new page P2, made the list's head; fill it too. */
	second[n2] = slob_test_fresh(c, fill + nfill, FIT_FILL - nfill, &nfill2);
	ST_EXPECT(second[n2], "no second page of its own");
	p2 = virt_to_page(second[n2++]);
	for (unsigned int i = 1; i < per; i++)
		second[n2++] = kmem_cache_alloc(c);
	ST_EXPECT(slob_heap.list[1].next == &p2->lru, "the newest page is not the list's head");
	/* A hole in P1: the probe skips full P2 and takes it; P1 is then the head. */
	kmem_cache_free(c, second[1]);
	q = kmem_cache_alloc(probe);
	ST_EXPECT(q == second[1], "probe at %p, want the hole %p", (void *)q, (void *)second[1]);
	ST_EXPECT(slob_heap.list[1].next == &p1->lru, "next fit: P1 is not the list's head");
	kmem_cache_free(probe, q);
	second[1] = NULL;
	for (unsigned int i = 0; i < n2; i++)
		if (second[i])
			kmem_cache_free(c, second[i]);
	kmem_cache_free(c, a1);
	kfree(second);
	nfill += nfill2;
	free_fill(c);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed");
	ST_EXPECT(kmem_cache_destroy(c) == 0 && kmem_cache_destroy(probe) == 0, "destroy");
	return 0;
}

SELFTEST(slob_fit_three_lists_by_request_size)
{
	static const size_t sizes[3] = { 100, 500, 1500 };
	struct kmem_cache *c[3];
	void *p[3];

	slab_test_init();
	for (int i = 0; i < 3; i++) {
		struct page *sp;

		c[i] = slob_test_cache("test-lists", sizes[i]);
		ST_EXPECT(c[i] && c[i]->start == (unsigned int)i, "%zu bytes: list %u, want %d",
			  sizes[i], c[i] ? c[i]->start : 9, i);
		p[i] = kmem_cache_alloc(c[i]);
		ST_EXPECT(p[i], "alloc failed");
		sp = virt_to_page(p[i]);
		ST_EXPECT(sp->private == 0 || sp->private == (unsigned long)i + 1 ||
				  slob_list_of((unsigned long)slob_test_hdr(p[i])->units * SLOB_UNIT) !=
					  (unsigned int)i,
			  "a page serving %zu-byte requests is on list %lu", sizes[i],
			  sp->private - 1);
	}
	ST_EXPECT(slob_list_of(255) == 0 && slob_list_of(256) == 1 && slob_list_of(1023) == 1 &&
			  slob_list_of(1024) == 2, "list breaks");
	for (int i = 0; i < 3; i++) {
		kmem_cache_free(c[i], p[i]);
		ST_EXPECT(kmem_cache_destroy(c[i]) == 0, "destroy refused");
	}
	ST_EXPECT(slob_test_check() == 0, "heap inconsistent");
	return 0;
}
