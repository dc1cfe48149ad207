/*
 * test_cache_dead.c - a kmem_cache_* call given no cache or a cache that
 * is gone, for every allocator, in the kernel and on the host: NULL to
 * kmem_cache_shrink and kmem_cache_drain_local is reported and nothing
 * done (every build); in CONFIG_SLAB_DEBUG builds, kmem_cache_alloc,
 * kmem_cache_free, kmem_cache_shrink and kmem_cache_drain_local of a
 * destroyed cache are refused with a report, and the allocator stays
 * consistent (other builds say in mm/slab.h that they do not check).
 */
#include "test_alloc.h"

/* A NULL cache to shrink or drain is reported, not dereferenced. */
SELFTEST(misuse_null_cache_shrink_and_drain_refused)
{
	struct slab_test_mark pages;
	struct kmem_cache *big;

	slab_test_init();
	slab_test_begin(&pages);
	slab_test_console_clear();
	ST_EXPECT(kmem_cache_shrink(NULL) == -EINVAL, "kmem_cache_shrink(NULL) not refused");
	ST_EXPECT(slab_test_console_has("kmem_cache_shrink(NULL): no cache given"),
		  "kmem_cache_shrink(NULL) not reported");
	slab_test_console_clear();
	kmem_cache_drain_local(NULL);
	ST_EXPECT(slab_test_console_has("kmem_cache_drain_local(NULL): no cache given"),
		  "kmem_cache_drain_local(NULL) not reported");
	/*
	 * Callers meet NULL through kmalloc_slab: SLOB has no kmalloc cache
	 * above half a page. Whatever it returns, shrinking it is safe.
	 */
	slab_test_console_clear();
	big = kmalloc_slab(3 * 1024);
	if (big)
		ST_EXPECT(kmem_cache_shrink(big) >= 0, "shrink of kmalloc_slab(3 KiB) refused");
	else
		ST_EXPECT(kmem_cache_shrink(big) == -EINVAL &&
				  slab_test_console_has("no cache given"),
			  "shrink of kmalloc_slab(3 KiB) == NULL not refused");
	kmem_cache_drain_local(big);
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

#if CONFIG_SLAB_DEBUG
/*
 * In a debug build a destroyed cache is refused by
 * kmem_cache_alloc, _free, _shrink and _drain_local, each reported; an
 * object of a live cache freed through the dead one stays allocated.
 */
SELFTEST(misuse_destroyed_cache_refused_in_debug_builds)
{
	struct slab_test_mark pages;
	struct kmem_cache *dead, *live;
	unsigned long bad;
	char *p, *q;

	slab_test_init();
	slab_test_begin(&pages);
	live = kmem_cache_create("test-live", 80, 0, 0, NULL);
	dead = kmem_cache_create("test-dead", 80, 0, 0, NULL);
	ST_EXPECT(live && dead, "create failed");
	p = kmem_cache_alloc(dead);
	ST_EXPECT(p, "alloc failed");
	kmem_cache_free(dead, p);
	ST_EXPECT(kmem_cache_destroy(dead) == 0, "destroy refused");

	slab_test_console_clear();
	ST_EXPECT(!kmem_cache_alloc(dead), "kmem_cache_alloc of a destroyed cache gave an object");
	ST_EXPECT(slab_test_console_has("kmem_cache_alloc(") &&
			  slab_test_console_has("not a live cache"),
		  "kmem_cache_alloc of a destroyed cache not reported");

	q = kmem_cache_alloc(live);
	ST_EXPECT(q, "alloc from the live cache failed");
	memset(q, 0x3c, 80);
	slab_test_console_clear();
	bad = slab_bad_frees;
	kmem_cache_free(dead, q);
	ST_EXPECT(slab_bad_frees == bad + 1, "free into a destroyed cache not counted");
	ST_EXPECT(slab_test_console_has("kmem_cache_free(") &&
			  slab_test_console_has("not a live cache") &&
			  slab_test_console_has("not freed"),
		  "free into a destroyed cache not reported");
	/* Still allocated in its own cache: not handed out again, freed normally. */
	p = kmem_cache_alloc(live);
	ST_EXPECT(p && p != q && q[79] == 0x3c, "object freed through a destroyed cache");
	kmem_cache_free(live, p);
	kmem_cache_free(live, q);
	ST_EXPECT(slab_bad_frees == bad + 1, "the right free was refused");

	slab_test_console_clear();
	ST_EXPECT(kmem_cache_shrink(dead) == -EINVAL, "shrink of a destroyed cache not refused");
	kmem_cache_drain_local(dead);
	ST_EXPECT(slab_test_console_has("kmem_cache_shrink(") &&
			  slab_test_console_has("kmem_cache_drain_local("),
		  "shrink or drain of a destroyed cache not reported");
	kmem_cache_free(dead, NULL);	/* nothing to free: silent, not counted */
	ST_EXPECT(slab_bad_frees == bad + 1, "kmem_cache_free(dead, NULL) counted");
	ST_EXPECT(kmem_cache_check(live) == 0, "live cache inconsistent");
	ST_EXPECT(kmem_cache_destroy(live) == 0, "destroy of the live cache refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}
#endif
