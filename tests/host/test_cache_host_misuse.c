/*
 * test_cache_host_misuse.c - misuse every allocator's SLAB_DEBUG build
 * must survive whole, on the host: after the report, nothing is lost and
 * the allocator stays consistent (misuse_after: a random run, every cache
 * checked, a full teardown with every page back). Other builds keep the
 * documented behaviour the shared self-tests check (tests/common/
 * test_cache_misuse.c).
 *
 * kmem_cache_free(NULL, p): reported with p's real cache and, in debug
 * builds, freed to it (a large kmalloc to the page allocator); the cache
 * is then destroyed with no other free of p.
 */
#include "tests/common/test_alloc.h"
#include "host_stress.h"

SELFTEST_HOST(misuse_debug_kmem_cache_free_without_cache_frees_to_the_owner)
{
	struct kmem_cache *c;
	unsigned long pages, bad;
	unsigned char *p, *k, *big, *q;

	if (!CONFIG_SLAB_DEBUG)
		return 0;
	slab_drain_all();
	pages = slab_test_settle();
	c = kmem_cache_create("test-nullfree-debug", 64, 0, 0, NULL);
	ST_EXPECT(c, "create failed");
	p = kmem_cache_alloc(c);
	k = kmalloc(100);
	big = kmalloc(KMALLOC_MAX_CACHE_SIZE + 1);
	ST_EXPECT(p && k && big, "alloc failed");
	bad = slab_bad_frees;

	slab_test_console_clear();
	kmem_cache_free(NULL, p);
	ST_EXPECT(slab_bad_frees == bad + 1 &&
			  slab_test_console_has("kmem_cache_free(") &&
			  slab_test_console_has("no cache given (cachep NULL) for an object of "
						"cache test-nullfree-debug; freed to it"),
		  "the cache object's report (%lu bad frees)", slab_bad_frees - bad);
	slab_test_console_clear();
	kmem_cache_free(NULL, k);
	ST_EXPECT(slab_bad_frees == bad + 2 &&
			  slab_test_console_has("no cache given (cachep NULL) for an object of "
						"cache kmalloc-128; freed to it"),
		  "the kmalloc object's report");
	slab_test_console_clear();
	kmem_cache_free(NULL, big);
	ST_EXPECT(slab_bad_frees == bad + 3 &&
			  slab_test_console_has("no cache given (cachep NULL) for a large kmalloc; "
						"freed as one"),
		  "the large kmalloc's report");
	/* Freed for real: a second free is a double free, the cache empties. */
	slab_test_console_clear();
	kmem_cache_free(c, p);
	ST_EXPECT(slab_bad_frees == bad + 4 && slab_test_console_has("double free"),
		  "p was not freed by kmem_cache_free(NULL, p)");
	q = kmem_cache_alloc(c);
	ST_EXPECT(q, "alloc after the misuse failed");
	kmem_cache_free(c, q);
	ST_EXPECT(kmem_cache_check(c) == 0, "the cache fails its check");
	return misuse_after("kmem_cache_free(NULL, p)", &c, 1, pages, 0);
}
