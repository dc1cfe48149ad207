/*
 * misuse_after.c - the checks every SLAB_DEBUG misuse test runs after its
 * misuse (host_stress.h: misuse_after): the allocator keeps working (a
 * random run), every cache passes its check, and a full teardown gives
 * back every page but those leaked on purpose. Built with any object
 * allocator.
 */
#include "tests/common/test_alloc.h"
#include "mm/slab_common.h"
#include "host_stress.h"

/* Every cache on slab_caches passes kmem_cache_check (the kmalloc caches are on it). */
static int check_every_cache(const char *what)
{
	struct kmem_cache *c;

	list_for_each_entry(c, &slab_caches, list)
		ST_EXPECT(kmem_cache_check(c) == 0, "%s: %s fails its check", what, c->name);
	return 0;
}

/* misuse_after: see host_stress.h. */
int misuse_after(const char *what, struct kmem_cache *const *destroy, unsigned int n,
		 unsigned long pages, unsigned long leaked)
{
	unsigned long now;
	struct stress_counts counts;

	if (check_every_cache(what))
		return -1;
	ST_EXPECT(host_random_run(MISUSE_AFTER_OPS, &counts) == 0,
		  "%s: the random run after it failed", what);
	ST_EXPECT(counts.alloc > MISUSE_AFTER_OPS / 4 && counts.free > MISUSE_AFTER_OPS / 4,
		  "%s: the random run did little (%lu allocs, %lu frees)", what, counts.alloc,
		  counts.free);
	if (check_every_cache(what))
		return -1;
	for (unsigned int i = 0; i < n; i++)
		ST_EXPECT(kmem_cache_destroy(destroy[i]) == 0, "%s: %s not destroyed cleanly",
			  what, destroy[i]->name);
	slab_drain_all();
	now = slab_test_settle();
	ST_EXPECT(now + leaked == pages, "%s: %lu pages free after the teardown, %lu before, "
		  "%lu leaked on purpose", what, now, pages, leaked);
	return 0;
}
