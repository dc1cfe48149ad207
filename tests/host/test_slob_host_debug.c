/*
 * test_slob_host_debug.c - misuse SLOB's SLAB_DEBUG builds (both forms)
 * must survive whole, on the host: each case runs the misuse, checks the
 * report and the accounting right after it, frees what it holds, then
 * misuse_after (tests/host/misuse_after.c: a random run, every cache
 * checked, a full teardown with every page back but the quarantined ones).
 * Host only, as test_slob_host_corrupt.c: a quarantined page is leaked on
 * purpose, which the shared self-tests' page accounting would call a leak.
 * The cases:
 *  - a write after free over a kmalloc(64) object's body (all of it, or
 *    its first 16 bytes: the free block's links), then kmalloc(64) again,
 *    then the frees that empty its page: the page is quarantined as its
 *    blocks leave the lists, by the free that emptied it (slob-seg's free
 *    counted that object out twice, and panicked);
 *  - an underrun over a kmalloc(64) object's whole header, then kfree: the
 *    object is still counted as its cache's, found by its red zone (its
 *    page's check failed on the object lost from the count).
 */
#include "tests/common/test_slob.h"
#include "host_stress.h"

#define FILL_MAX	(PAGE_SIZE / 16)

static void *fill[FILL_MAX], *fill2[FILL_MAX];
static unsigned int nfill, nfill2;

static void free_fill(void)
{
	while (nfill)
		kfree(fill[--nfill]);
	while (nfill2)
		kfree(fill2[--nfill2]);
}

/* kmalloc(64)'s cache. */
static struct kmem_cache *kmalloc64(void)
{
	return kmalloc_slab(64);
}

SELFTEST_HOST(slob_debug_write_after_free_then_the_page_empties)
{
	static const size_t spans[] = { 64, 16 };

	if (!CONFIG_SLAB_DEBUG)
		return 0;
	for (unsigned int s = 0; s < ARRAY_SIZE(spans); s++) {
		struct kmem_cache *c = kmalloc64();
		unsigned long pages, corrupt, quarantined, inuse;
		unsigned char *p, *v, *x, *z;
		unsigned int nfill2_was;

		slab_drain_all();
		pages = slab_test_settle();
		quarantined = slob_heap.quarantined;
		p = slob_test_fresh(c, fill, FILL_MAX, &nfill);
		ST_EXPECT(p, "no object in a fresh page");
		v = kmalloc(64);
		ST_EXPECT(v && virt_to_page(v) == virt_to_page(p), "%p is not in %p's page",
			  (void *)v, (void *)p);
		corrupt = slab_corruptions;
		slab_test_console_clear();
		kfree(v);
		memset(v, 0x41, spans[s]);	/* the misuse */
		x = kmalloc(64);
		ST_EXPECT(x && ksize(x) >= 64, "kmalloc(64) after the misuse failed");
		/*
		 * An empty spare page (z's, alone in a page of its own, freed):
		 * the page that empties next leaves the heap, its free blocks
		 * taken off their lists one by one.
		 */
		z = slob_test_fresh(c, fill2, FILL_MAX, &nfill2);
		ST_EXPECT(z && virt_to_page(z) != virt_to_page(p), "no object in a fresh page");
		inuse = c->inuse;
		nfill2_was = nfill2;
		while (nfill2)
			kfree(fill2[--nfill2]);
		kfree(z);
		kfree(x);
		kfree(p);			/* p's page empties */
		ST_EXPECT(c->inuse == inuse - nfill2_was - 3 && c->quarantined == 0,
			  "%zu bytes: kmalloc-64 counts %lu in use (%lu before the frees of %u), "
			  "%lu quarantined", spans[s], c->inuse, inuse, nfill2_was + 3,
			  c->quarantined);
		ST_EXPECT(slab_corruptions > corrupt,
			  "%zu bytes: the write after free was not reported", spans[s]);
		printk("after %zu bytes: %lu corruptions, %lu pages quarantined\n", spans[s],
		       slab_corruptions - corrupt, slob_heap.quarantined - quarantined);
		free_fill();
		if (misuse_after("a write after free, then the page empties", NULL, 0, pages,
				 slob_heap.quarantined - quarantined))
			return -1;
	}
	return 0;
}

SELFTEST_HOST(slob_debug_underrun_over_the_whole_header)
{
	unsigned long pages, corrupt, quarantined, inuse;
	struct kmem_cache *c = kmalloc64();
	unsigned char *p, *q;

	if (!CONFIG_SLAB_DEBUG)
		return 0;
	slab_drain_all();
	pages = slab_test_settle();
	quarantined = slob_heap.quarantined;
	p = slob_test_fresh(c, fill, FILL_MAX, &nfill);
	q = kmalloc(64);
	ST_EXPECT(p && q && virt_to_page(q) == virt_to_page(p), "no two objects in a fresh page");
	inuse = c->inuse;
	corrupt = slab_corruptions;
	slab_test_console_clear();
	memset(q - SLOB_UNIT, 0x41, SLOB_UNIT);	/* the misuse: q[-8..-1] */
	kfree(q);
	ST_EXPECT(slab_corruptions == corrupt + 1 && slob_heap.quarantined == quarantined + 1,
		  "corruptions +%lu, pages quarantined +%lu", slab_corruptions - corrupt,
		  slob_heap.quarantined - quarantined);
	ST_EXPECT(slab_test_console_has("header overwritten (buffer underrun, or a wild write)") &&
			  slab_test_console_has("(2 live objects in it can still be freed)"),
		  "the report does not count both objects of the page");
	ST_EXPECT(!slab_test_console_has("not at an object boundary"),
		  "the underrun object was refused");
	ST_EXPECT(c->inuse == inuse - 1 && c->quarantined == 1,
		  "kmalloc-64: %lu in use (%lu before), %lu quarantined", c->inuse, inuse,
		  c->quarantined);
	ST_EXPECT(kmem_cache_check(c) == 0, "kmalloc-64 fails its check after the underrun");
	kfree(p);
	ST_EXPECT(c->quarantined == 0, "p's free left %lu quarantined", c->quarantined);
	free_fill();
	return misuse_after("an underrun over the whole header", NULL, 0, pages,
			    slob_heap.quarantined - quarantined);
}
