/*
 * test_cache_stats.c - a cache's event counters, for every allocator (SLAB,
 * SLUB, SLOB, SLOB-seg), in the kernel and on the host: the counters all
 * allocators share (mm/slab_stats.h) count a refused free and a slab made
 * where the allocator reports them, kmem_cache_stats_show prints them in
 * one format after the allocator's own, and kmem_cache_stats_reset zeroes
 * them. Nothing to check without CONFIG_SLAB_STATS (the kernel's plain
 * builds): the show prints nothing, the counters stay zero.
 */
#include "test_alloc.h"

SELFTEST(cache_stats_shared_counters_one_format)
{
	struct slab_test_mark pages;
	unsigned long bad = slab_bad_frees;
	struct kmem_cache *c;
	char *p, want[96];

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-stats", 64, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c, "create failed");
	kmem_cache_stats_reset(c);
	p = kmem_cache_alloc(c);
	ST_EXPECT(p, "alloc failed");
	slab_test_console_clear();
	kmem_cache_free(c, p + 1);
	SLAB_EXPECT_REFUSED(c, bad, "not at an object boundary");
	if (CONFIG_SLAB_STATS) {
		const struct slab_stats *s = &c->stats.shared;

		ST_EXPECT(s->bad_frees == 1 && s->corruptions == 0,
			  "shared counters: bad %lu corrupt %lu, not 1 and 0", s->bad_frees,
			  s->corruptions);
		slab_test_console_clear();
		kmem_cache_stats_show(c);
		snprintf(want, sizeof(want), "; slabs made %lu bad 1 corrupt 0\n", s->slabs_made);
		ST_EXPECT(slab_test_console_has("  test-stats ") && slab_test_console_has(want),
			  "no stats line ending \"%s\"", want);
		kmem_cache_stats_reset(c);
		ST_EXPECT(s->slabs_made == 0 && s->bad_frees == 0, "reset left counts");
	}
	kmem_cache_free(c, p);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}
