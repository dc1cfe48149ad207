/*
 * test_cache_merge.c - cache merging (mm/slab_merge.c), for every
 * allocator, in the kernel and on the host: off by default (two caches of
 * one size are two); on, a cache within a pointer's size of a made cache's
 * objects shares it, one of a kmalloc size shares the kmalloc cache, and
 * one with a ctor, debug flags, SLAB_NO_MERGE or a size beyond the match
 * gets its own; objects keep the alignment asked; destroying a shared
 * cache counts one user out and leaves the cache working until the last
 * user's destroy. SLOB and debug builds never merge. Merging is turned off
 * again however the checks end.
 */
#include "test_alloc.h"

/* Whether this build merges at all. */
#define MERGES (SLAB_ALLOC_MERGES && !CONFIG_SLAB_DEBUG)

static void merge_ctor(void *p)
{
	*(unsigned long *)p = 0;
}

/* An object of c, written whole and freed: the cache works. */
static bool cache_works(struct kmem_cache *c, size_t size)
{
	unsigned char *p = kmem_cache_alloc(c);

	if (!p)
		return false;
	memset(p, 0x5a, size);
	kmem_cache_free(c, p);
	return kmem_cache_check(c) == 0;
}

SELFTEST(cache_merge_off_by_default)
{
	struct kmem_cache *a, *b;

	slab_test_init();
	a = kmem_cache_create("test-merge-a", 200, 0, 0, NULL);
	b = kmem_cache_create("test-merge-b", 200, 0, 0, NULL);
	ST_EXPECT(a && b, "create failed");
	ST_EXPECT(a != b, "two caches merged with merging off");
	ST_EXPECT(kmem_cache_destroy(b) == 0 && kmem_cache_destroy(a) == 0, "destroy refused");
	return 0;
}

static int merge_on_body(void)
{
	struct kmem_cache *a, *b, *own[4], *k192, *f, *g;
	void *live;

	a = kmem_cache_create("test-merge-a", 200, 0, 0, NULL);
	ST_EXPECT(a, "create failed");
	ST_EXPECT(a != kmalloc_slab(200), "a 200-byte cache merged into %s", kmem_cache_name(a));
	/* 196 rounds up to 200: a's objects hold it with nothing to spare. */
	b = kmem_cache_create("test-merge-b", 196, 0, 0, NULL);
	ST_EXPECT(b, "create failed");
	ST_EXPECT((b == a) == MERGES, "a 196-byte cache %s the 200-byte one", b == a ? "shares" : "does not share");
	own[0] = kmem_cache_create("test-merge-nomerge", 200, 0, SLAB_NO_MERGE, NULL);
	own[1] = kmem_cache_create("test-merge-ctor", 200, 0, 0, merge_ctor);
	own[2] = kmem_cache_create("test-merge-debug", 200, 0, SLAB_RED_ZONE, NULL);
	own[3] = kmem_cache_create("test-merge-bigger", 208, 0, 0, NULL);
	for (unsigned int i = 0; i < ARRAY_SIZE(own); i++) {
		ST_EXPECT(own[i], "create %u failed", i);
		ST_EXPECT(own[i] != a && own[i] != b, "%s merged into %s", kmem_cache_name(own[i]),
			  kmem_cache_name(a));
	}
	/* A kmalloc size: the kmalloc cache itself, when one has exactly 192-byte objects. */
	k192 = kmalloc_slab(192);
	f = kmem_cache_create("test-merge-k192", 188, 0, 0, NULL);
	ST_EXPECT(f, "create failed");
	if (k192 && k192->object_size == 192)
		ST_EXPECT((f == k192) == MERGES, "a 188-byte cache %s kmalloc-192",
			  f == k192 ? "shares" : "does not share");
	/* Alignment asked is kept, merged or not. */
	g = kmem_cache_create("test-merge-align", 200, 64, 0, NULL);
	ST_EXPECT(g, "create failed");
	live = kmem_cache_alloc(g);
	ST_EXPECT(live && ((uintptr_t)live & 63) == 0, "object %p of a 64-aligned cache", live);
	kmem_cache_free(g, live);
	/* One user out: the shared cache still works for the other, with an object live. */
	live = kmem_cache_alloc(a);
	ST_EXPECT(live, "allocation failed");
	ST_EXPECT(kmem_cache_destroy(b) == 0, "destroy of the 196-byte cache refused");
	ST_EXPECT(slab_cache_live(a) && cache_works(a, 200), "the 200-byte cache broke when b went");
	kmem_cache_free(a, live);
	ST_EXPECT(kmem_cache_destroy(f) == 0, "destroy of the 188-byte cache refused");
	ST_EXPECT(k192 == NULL || (slab_cache_live(k192) && cache_works(k192, 192)),
		  "kmalloc-192 broke when a cache sharing it went");
	ST_EXPECT(kmem_cache_destroy(g) == 0, "destroy refused");
	for (unsigned int i = 0; i < ARRAY_SIZE(own); i++)
		ST_EXPECT(kmem_cache_destroy(own[i]) == 0, "destroy %u refused", i);
	/* The last user's destroy frees it. */
	ST_EXPECT(kmem_cache_destroy(a) == 0, "destroy refused");
	ST_EXPECT(!slab_cache_live(a), "the cache outlived its last user");
	return 0;
}

SELFTEST(cache_merge_shares_fitting_caches_until_the_last_destroy)
{
	int rc;

	slab_test_init();
	slab_merge_set(true);
	rc = merge_on_body();
	slab_merge_set(false);
	return rc;
}
