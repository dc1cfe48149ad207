/*
 * test_slob_debug.c - SLOB's debug caches (both forms), in the kernel and
 * on the host: the layout (an 8-byte red zone after the object), the marks
 * of an allocated object (0x5a, red zone 0xcc) and a freed one (poison
 * 0x6b), and every report: double free, overrun (with its offset), an
 * underrun into the header's tag (reported, mended, the free goes on),
 * write after free (the poison broken, with its offset, when the block is
 * handed out again), a pointer inside a block. Each report is counted
 * (slab_bad_frees or slab_corruptions), named on the console (host), and
 * leaves the heap consistent (kmem_cache_check). Damage to the heap's
 * structure (a free list's links, a header) quarantines its page, a page
 * leaked on purpose: those cases are host tests (tests/host/
 * test_slob_host_corrupt.c), in debug builds and others.
 */
#include "test_slob.h"

static void **fill;
static unsigned int nfill;

SELFTEST(slob_debug_cache_catches_misuse)
{
	unsigned long bad, corrupt;
	struct kmem_cache *c;
	unsigned char *p, *q, *keep;

	slab_test_init();
	fill = kmalloc_array(PAGE_SIZE / 16, sizeof(void *));
	ST_EXPECT(fill, "no table");
	slab_drain_all();
	c = kmem_cache_create("test-sdebug", 40, 0, SLAB_DEBUG | SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c && c->debug && c->object_size == 40 && c->size == 48 && c->units == 7,
		  "debug layout: object %u size %u units %u", c ? c->object_size : 0,
		  c ? c->size : 0, c ? c->units : 0);
	/* p alone in a page, keep after it: p's block stays its own when freed. */
	p = slob_test_fresh(c, fill, PAGE_SIZE / 16, &nfill);
	keep = kmem_cache_alloc(c);
	ST_EXPECT(p && keep, "alloc failed");
	ST_EXPECT(p[0] == POISON_INUSE && p[39] == POISON_INUSE && p[40] == RED_ACTIVE_BYTE &&
			  p[47] == RED_ACTIVE_BYTE, "allocated object not marked");
	kmem_cache_free(c, p);
	ST_EXPECT(p[24] == POISON_FREE && p[39] == POISON_FREE && p[47] == POISON_FREE,
		  "freed object not poisoned");
	ST_EXPECT(slob_test_hdr(p)->info & SLOB_POISONED, "free block not marked poisoned");

	slab_test_console_clear();
	bad = slab_bad_frees;
	kmem_cache_free(c, p);
	SLAB_EXPECT_REFUSED(c, bad, "test-sdebug: kmem_cache_free(");
	ST_EXPECT(slab_test_console_has("double free"), "no double free report");

	/* Write after free: found when the block is handed out again. */
	corrupt = slab_corruptions;
	p[30] = 0x11;
	q = kmem_cache_alloc(c);
	ST_EXPECT(q == p, "the freed block did not come back first (%p, %p)", (void *)q,
		  (void *)p);
	ST_EXPECT(slab_corruptions == corrupt + 1, "write after free not caught");
	ST_EXPECT(slab_test_console_has("test-sdebug: alloc(") &&
			  slab_test_console_has("write after free: poison broken at offset 30"),
		  "no poison report");

	/* Overrun into the red zone: reported with the offset; the free goes on. */
	bad = slab_bad_frees;
	q[41] = 0;
	kmem_cache_free(c, q);
	ST_EXPECT(slab_corruptions == corrupt + 2 && slab_bad_frees == bad, "overrun not caught");
	ST_EXPECT(slab_test_console_has("red zone after the object overwritten at offset 41 "
					"(buffer overrun)"), "no overrun report");

	/* Underrun into the header's tag: reported, mended, freed. */
	q = kmem_cache_alloc(c);
	q[-1] ^= 0xff;
	kmem_cache_free(c, q);
	ST_EXPECT(slab_corruptions == corrupt + 3 && slab_bad_frees == bad, "underrun not caught");
	ST_EXPECT(slab_test_console_has("red zone before the object overwritten at offset -1 "
					"(buffer underrun)"),
		  "no underrun report");
	ST_EXPECT(kmem_cache_check(c) == 0, "inconsistent after the underrun");

	/* Inside a block. */
	q = kmem_cache_alloc(c);
	bad = slab_bad_frees;
	kmem_cache_free(c, q + 8);
	SLAB_EXPECT_REFUSED(c, bad, "not at an object boundary");
	kmem_cache_free(c, q);
	kmem_cache_free(c, keep);
	while (nfill)
		kmem_cache_free(c, fill[--nfill]);
	kfree(fill);
	ST_EXPECT(kmem_cache_check(c) == 0, "inconsistent at the end");
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	return 0;
}

static void ctor_mark(void *p)
{
	*(uint64_t *)p = 0x1234567887654321ULL;
}

SELFTEST(slob_debug_poison_with_a_ctor_and_red_zone_only)
{
	struct kmem_cache *pc, *rc;
	void *objs[64];
	uint64_t *p;

	slab_test_init();
	pc = kmem_cache_create("test-spoison", 32, 0, SLAB_POISON | SLAB_NO_DEBUG, ctor_mark);
	rc = kmem_cache_create("test-sredzone", 64, 0, SLAB_RED_ZONE | SLAB_NO_DEBUG, NULL);
	ST_EXPECT(pc && rc && pc->size == 32 && rc->size == 72, "sizes %u %u",
		  pc ? pc->size : 0, rc ? rc->size : 0);
	/* The ctor runs on every allocation, after the poison check. */
	p = kmem_cache_alloc(pc);
	ST_EXPECT(p && *p == 0x1234567887654321ULL, "ctor not run after the poison fill");
	kmem_cache_free(pc, p);
	for (int round = 0; round < 2 * SELFTEST_SCALE; round++) {
		for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++) {
			objs[i] = kmem_cache_alloc(rc);
			ST_EXPECT(objs[i], "alloc failed");
			memset(objs[i], 0xee, rc->object_size);
		}
		ST_EXPECT(kmem_cache_check(rc) == 0, "check failed with objects held");
		for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
			kmem_cache_free(rc, objs[(i * 13) % ARRAY_SIZE(objs)]);
		ST_EXPECT(kmem_cache_check(rc) == 0, "check failed after frees");
	}
	ST_EXPECT(kmem_cache_destroy(pc) == 0 && kmem_cache_destroy(rc) == 0, "destroy refused");
	return 0;
}
