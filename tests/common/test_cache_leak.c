/*
 * test_cache_leak.c - leak accounting (lab/leakcheck.h) itself, for
 * every allocator: a kmalloc object, a page and a cache with an object
 * left behind are each found and named by cache; once freed and destroyed,
 * nothing is reported. (The runner applies the same comparison around every
 * test; this one shows that it can fail.)
 */
#include "test_alloc.h"
#include "lab/leakcheck.h"

SELFTEST(leakcheck_names_what_was_left)
{
	static struct leak_mark before, after, end;
	struct kmem_cache *c;
	struct page *page;
	void *obj, *k;
	int n;

	leak_mark_take(&before);
	c = kmem_cache_create("leaky-cache", 40, 0, 0, NULL);
	ST_EXPECT(c != NULL, "kmem_cache_create(leaky-cache) failed");
	obj = kmem_cache_alloc(c);
	k = kmalloc(32);
	page = alloc_pages(0);
	ST_EXPECT(obj && k && page, "allocation failed: %p %p %p", obj, k, (void *)page);
	slab_test_console_clear();
	n = leak_mark_compare(&before, &after, "leaktest");
	/* the new cache with its object, the kmem_cache object describing it,
	 * kmalloc-32's object, and the free page count */
	ST_EXPECT(n == 4, "leak_mark_compare found %d differences, expected 4", n);
	ST_EXPECT(slab_test_console_has("leak: leaktest: cache leaky-cache (") &&
		  slab_test_console_has("created and not destroyed, 1 objects in use") &&
		  slab_test_console_has("leak: leaktest: cache kmalloc-32: 1 objects in use, 0 before") &&
		  slab_test_console_has("leak: leaktest: cache kmem_cache: ") &&
		  slab_test_console_has(" pages free, "), "the leak report does not name each leak");
	kmem_cache_free(c, obj);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "kmem_cache_destroy(leaky-cache) failed");
	kfree(k);
	free_pages(page, 0);
	n = leak_mark_compare(&before, &end, "leaktest-clean");
	ST_EXPECT(n == 0, "after freeing everything, %d differences reported", n);
	return 0;
}
