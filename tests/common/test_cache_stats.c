/*
 * test_cache_stats.c - a cache's event counters, for every allocator (SLAB,
 * SLUB, SLOB, SLOB-seg), in the kernel and on the host: the counters all
 * allocators share (mm/slab_stats.h) count every object handed out and
 * taken back, whichever path took it (fast, refills, new slabs, debug
 * checks), a refused free and a slab made where the allocator reports
 * them; kmem_cache_stats_show prints them in one format after the
 * allocator's own, and kmem_cache_stats_reset zeroes them. Nothing to check
 * without CONFIG_SLAB_STATS (the kernel's plain builds): the show prints
 * nothing, the counters stay zero.
 */
#include "test_alloc.h"

/* Three pages' worth of 64-byte objects: every allocator leaves its fast path and makes slabs. */
#define STATS_OBJS	((unsigned int)(3 * PAGE_SIZE / 64))

static int stats_one_cache(const char *name, unsigned int flags, void **objs)
{
	struct slab_test_mark pages;
	unsigned long bad = slab_bad_frees;
	const struct slab_stats *s;
	struct kmem_cache *c;
	char want[128];

	slab_test_begin(&pages);
	c = kmem_cache_create(name, 64, 0, flags, NULL);
	ST_EXPECT(c, "%s: create failed", name);
	s = &c->stats.shared;
	kmem_cache_stats_reset(c);
	for (unsigned int i = 0; i < STATS_OBJS; i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)) != NULL, "%s: alloc %u failed", name, i);
	slab_test_console_clear();
	kmem_cache_free(c, (char *)objs[0] + 1);
	SLAB_EXPECT_REFUSED(c, bad, "not at an object boundary");
	/* Every other object first, then the rest: frees into partly used slabs and emptying ones. */
	for (unsigned int i = 0; i < STATS_OBJS; i += 2)
		kmem_cache_free(c, objs[i]);
	for (unsigned int i = 1; i < STATS_OBJS; i += 2)
		kmem_cache_free(c, objs[i]);
	if (CONFIG_SLAB_STATS) {
		ST_EXPECT(s->allocs == STATS_OBJS && s->frees == STATS_OBJS,
			  "%s: shared counters: allocs %lu frees %lu, not %u and %u", name, s->allocs,
			  s->frees, STATS_OBJS, STATS_OBJS);
		ST_EXPECT(s->bad_frees == 1 && s->corruptions == 0 && s->slabs_made > 0,
			  "%s: shared counters: bad %lu corrupt %lu slabs made %lu, not 1, 0, some",
			  name, s->bad_frees, s->corruptions, s->slabs_made);
		slab_test_console_clear();
		kmem_cache_stats_show(c);
		snprintf(want, sizeof(want), "; allocs %u frees %u slabs made %lu bad 1 corrupt 0\n",
			 STATS_OBJS, STATS_OBJS, s->slabs_made);
		ST_EXPECT(slab_test_console_has(name) && slab_test_console_has(want),
			  "%s: no stats line ending \"%s\"", name, want);
		kmem_cache_stats_reset(c);
		ST_EXPECT(s->slabs_made == 0 && s->bad_frees == 0 && s->allocs == 0 && s->frees == 0,
			  "%s: reset left counts", name);
	} else {
		ST_EXPECT(s->allocs == 0 && s->frees == 0 && s->bad_frees == 0,
			  "%s: counted without CONFIG_SLAB_STATS", name);
	}
	ST_EXPECT(kmem_cache_destroy(c) == 0, "%s: destroy refused", name);
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(cache_stats_shared_counters_one_format)
{
	void **objs;
	int ret;

	slab_test_init();
	objs = kmalloc_array(STATS_OBJS, sizeof(*objs));
	ST_EXPECT(objs, "no table");
	ret = stats_one_cache("test-stats", SLAB_NO_DEBUG, objs);
	/* A debug cache: its own alloc and free paths count the same way. */
	if (!ret)
		ret = stats_one_cache("test-stats-debug", SLAB_RED_ZONE | SLAB_POISON, objs);
	kfree(objs);
	return ret;
}
