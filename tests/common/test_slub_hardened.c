/*
 * test_slub_hardened.c - SLUB's free pointers in memory (ALLOC=slub). A
 * slab is filled, then all but its first object freed, so each free object
 * holds a free pointer to the next. Without SLAB_FREELIST_HARDENED the plain
 * pointers are in the slab's memory (which shows the scan finds them); with
 * it no word of the slab equals the address of any of its objects, and
 * every stored word still decodes to an object of the slab or its end tag.
 */
#include "test_slub.h"

#define HARDENED_SLAB_OBJS	512

SELFTEST(slub_free_pointers_never_stored_plain_when_hardened)
{
	static void *objs[HARDENED_SLAB_OBJS];
	/* Classic paths: a free onto a sheaf writes no free pointer (slub_test_classic). */
	struct kmem_cache *s = slub_test_classic(kmem_cache_create("test-fp-hardened", 64, 0,
								   SLAB_NO_DEBUG, NULL));
	struct page *page;
	const uintptr_t *w, *end;
	uintptr_t base;
	unsigned int n, plain = 0, undecodable = 0;

	ST_EXPECT(s != NULL, "kmem_cache_create(test-fp-hardened) failed");
	n = MIN(s->num, (unsigned int)HARDENED_SLAB_OBJS);
	for (unsigned int i = 0; i < n; i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(s)), "alloc %u failed", i);
	page = slub_test_page(objs[0]);
	base = (uintptr_t)page_address(page);
	for (unsigned int i = n; i-- > 1;)
		if (slub_test_page(objs[i]) == page)
			kmem_cache_free(s, objs[i]);
	end = (const uintptr_t *)(base + ((uintptr_t)PAGE_SIZE << s->order));
	for (w = (const uintptr_t *)base; w < end; w++)
		plain += *w >= base && *w < (uintptr_t)end && (*w - base - s->obj_offset) % s->size == 0;
	for (unsigned int i = 1; i < n; i++) {
		void *fp;

		if (slub_test_page(objs[i]) != page)
			continue;
		fp = slub_get_fp(s, objs[i]);
		undecodable += !slub_is_end(fp) && slub_test_page(fp) != page;
	}
	kmem_cache_free(s, objs[0]);
	for (unsigned int i = 1; i < n; i++)
		if (slub_test_page(objs[i]) != page)
			kmem_cache_free(s, objs[i]);
	ST_EXPECT(kmem_cache_destroy(s) == 0, "kmem_cache_destroy(test-fp-hardened) failed");
	ST_EXPECT(undecodable == 0, "%u free pointers decode outside their slab", undecodable);
	if (CONFIG_SLAB_FREELIST_HARDENED)
		ST_EXPECT(plain == 0, "%u words of the slab hold a plain object address", plain);
	else
		ST_EXPECT(plain >= n / 2, "only %u plain free pointers found for %u free objects: "
			  "the scan does not see them", plain, n - 1);
	return 0;
}
