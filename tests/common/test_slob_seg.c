/*
 * test_slob_seg.c - the segregated heap (ALLOC=slob-seg), in the kernel
 * and on the host: the class of a size and its bounds; a freed block on
 * the head of its class list (map bit set) and handed out again first;
 * a request taking a slightly bigger block whole; a request cut from the
 * end of a bigger block, the rest staying in place; the page header block
 * counting a page's allocated blocks; an emptied page becoming the spare
 * and a second one going back; kmalloc's alignment through all of it.
 */
#include "test_slob.h"

#define SEG_FILL	1024

static void *fill[SEG_FILL];
static unsigned int nfill;

static void free_fill(struct kmem_cache *c)
{
	while (nfill)
		kmem_cache_free(c, fill[--nfill]);
}

/* The page header block's count (mm/slob/slob_seg.c: the word after the header). */
static unsigned int page_count(const void *p)
{
	return *(const uint32_t *)((const struct slob_hdr *)((uintptr_t)p & PAGE_MASK) + 1);
}

static bool map_has(unsigned int c)
{
	return slob_heap.map[c / 64] & (1ULL << (c % 64));
}

SELFTEST(slob_seg_classes)
{
	slab_test_init();
	for (unsigned int u = 3; u <= SLOB_PAGE_UNITS; u++) {
		unsigned int c = slob_class(u);

		ST_EXPECT(c < SLOB_NR_CLASSES && slob_class_lo(c) <= u &&
				  (c + 1 == SLOB_NR_CLASSES || u < slob_class_lo(c + 1)),
			  "%u units in class %u [%u, %u)", u, c, slob_class_lo(c),
			  c + 1 < SLOB_NR_CLASSES ? slob_class_lo(c + 1) : 0);
		ST_EXPECT(u >= SLOB_EXACT_CLASSES || c == u, "%u units not an exact class", u);
	}
	ST_EXPECT(slob_class(64) == 64 && slob_class(79) == 64 && slob_class(80) == 65 &&
			  slob_class(128) == 68, "range classes");
	/* Each cache's worst case: every block from 'start' up fits it (32-aligned: 3 more). */
	{
		struct kmem_cache *k32 = kmalloc_slab(32), *k96 = kmalloc_slab(96);

		ST_EXPECT(k32->units == 5 + CONFIG_SLAB_DEBUG && k32->start == k32->units + 3 &&
				  k32->exact == k32->units && k96->start == k96->units &&
				  k96->exact == k96->units,
			  "kmalloc-32: %u units, start %u exact %u; kmalloc-96: start %u",
			  k32->units, k32->start, k32->exact, k96->start);
	}
	return 0;
}

SELFTEST(slob_seg_freed_blocks_come_back_first)
{
	struct kmem_cache *c, *d;
	unsigned long flags;
	void *a, *b, *x;
	bool none5;
	int rc = 0;

	slab_test_init();
	c = slob_test_cache("test-seg-lifo", 40);	/* 6 units */
	d = slob_test_cache("test-seg-32", 32);	/* 5 units */
	ST_EXPECT(c && d && c->units == 6 && c->exact == 6 && d->units == 5, "geometry");
	/* Interrupts off: no tick takes or gives blocks meanwhile on this CPU. */
	flags = arch_irq_save();
	a = kmem_cache_alloc(c);
	b = kmem_cache_alloc(c);
	if (!a || !b || slob_test_hdr(a)->units != 6) {
		rc = -1;
		goto out;
	}
	kmem_cache_free(c, a);
	if (!(slob_test_hdr(a)->info & SLOB_FREE) || (slob_test_hdr(a)->info & 0x7f) != 6 ||
	    slob_heap.cls[6].next != (struct list_head *)(slob_test_hdr(a) + 1) || !map_has(6))
		rc = -2;
	x = kmem_cache_alloc(c);
	if (x != a)
		rc = -3;
	/* A 6-unit block freed: a 5-unit request takes it whole (none of 5 waiting). */
	kmem_cache_free(c, x);
	none5 = list_empty(&slob_heap.cls[5]);
	x = kmem_cache_alloc(d);
	if (none5 && x != a)
		rc = -4;
	if (x == a && (slob_test_hdr(x)->units != 6 || slob_test_owner(x) != d))
		rc = -5;
	kmem_cache_free(d, x);
out:
	arch_irq_restore(flags);
	ST_EXPECT(rc == 0, "step %d: a freed block did not come back as it should", -rc);
	kmem_cache_free(c, b);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed");
	ST_EXPECT(kmem_cache_destroy(c) == 0 && kmem_cache_destroy(d) == 0, "destroy");
	return 0;
}

SELFTEST(slob_seg_split_from_the_end_and_page_counts)
{
	struct kmem_cache *c;
	struct slob_hdr *rest;
	unsigned int units;
	char *a, *b;

	slab_test_init();
	slab_drain_all();			/* no spare in pieces: a new page is one block */
	c = slob_test_cache("test-seg-split", 200);	/* 26 units */
	ST_EXPECT(c, "create failed");
	units = c->units;
	a = slob_test_fresh(c, fill, SEG_FILL, &nfill);
	ST_EXPECT(a, "no page of its own");
	/* Cut from the end of the page's one free block: it ends the page. */
	ST_EXPECT(slob_page_end(slob_next(slob_test_hdr(a))) && slob_test_hdr(a)->units == units,
		  "the first block of a page is not at its end");
	rest = slob_prev(slob_test_hdr(a));
	ST_EXPECT(slob_is_free(rest) && rest == slob_page_first(virt_to_page(a)) + 2 &&
			  rest->units == SLOB_PAGE_UNITS - 2 - units &&
			  (rest->info & 0x7f) == slob_class(rest->units),
		  "the rest: %u units, info 0x%x", rest->units, rest->info);
	ST_EXPECT(page_count(a) == 1, "page header counts %u", page_count(a));
	b = kmem_cache_alloc(c);
	ST_EXPECT(b == a - units * SLOB_UNIT && page_count(a) == 2 &&
			  rest->units == SLOB_PAGE_UNITS - 2 - 2 * units,
		  "the second block at %p, want %p; count %u", (void *)b,
		  (void *)(a - units * SLOB_UNIT), page_count(a));
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed");
	kmem_cache_free(c, b);
	ST_EXPECT(page_count(a) == 1 && slob_is_free(slob_test_hdr(b)), "after one free");
	kmem_cache_free(c, a);
	free_fill(c);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed at the end");
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	return 0;
}

SELFTEST(slob_seg_empty_pages_spare_and_release)
{
	struct slab_test_mark mark;
	unsigned int n = (unsigned int)(3 * PAGE_SIZE / 520);
	struct kmem_cache *c;
	void **objs;

	slab_test_init();
	slab_test_begin(&mark);
	c = slob_test_cache("test-seg-empty", 512);
	objs = kmalloc_array(n, sizeof(void *));
	ST_EXPECT(c && objs, "create failed");
	for (unsigned int i = 0; i < n; i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)), "alloc %u failed", i);
	for (unsigned int i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed");
	ST_EXPECT(slob_heap.spare == NULL || page_count(page_address(slob_heap.spare)) == 0 ||
			  mm_test_others() != mark.others,
		  "the spare has blocks allocated after every free");
	kfree(objs);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&mark);
	return 0;
}

SELFTEST(slob_seg_kmalloc_alignment)
{
	static const size_t sizes[] = { 16, 32, 64, 128, 256, 512, 1024, 2048 };
	void *p[ARRAY_SIZE(sizes)][4];

	slab_test_init();
	for (unsigned int r = 0; r < 4; r++) {
		for (unsigned int i = 0; i < ARRAY_SIZE(sizes); i++) {
			if (sizes[i] > KMALLOC_MAX_SLAB) {
				p[i][r] = NULL;
				continue;
			}
			p[i][r] = kmalloc(sizes[i]);
			ST_EXPECT(p[i][r] && ((uintptr_t)p[i][r] & (sizes[i] - 1)) == 0,
				  "kmalloc(%zu) = %p", sizes[i], p[i][r]);
		}
		if (r != 1)
			continue;
		for (unsigned int i = 0; i < ARRAY_SIZE(sizes); i++) {
			kfree(p[i][0]);	/* later rounds reuse and split these */
			p[i][0] = NULL;
		}
	}
	ST_EXPECT(slob_test_check() == 0, "heap inconsistent");
	for (unsigned int r = 0; r < 4; r++)
		for (unsigned int i = 0; i < ARRAY_SIZE(sizes); i++)
			kfree(p[i][r]);
	return 0;
}
