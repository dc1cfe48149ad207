/*
 * test_slub_hardened.c - SLUB's free pointers in memory (ALLOC=slub). A
 * slab is filled, then all but its first object freed, so each free object
 * holds a free pointer to the next. They are never stored plain: every
 * free word is XORed with the cache's key (mm/slub/slub_def.h), so no free
 * word of the slab (the word at 'offset' of each object: the other words of
 * a free object hold whatever its page held before, a freed cache's list
 * heads, say) equals the address of any of its objects. Without
 * SLAB_FREELIST_HARDENED the words XORed with the key alone are object
 * addresses (which shows the scan finds them); with it, which mixes in
 * each word's address too, not even those; in both, every stored word
 * decodes to an object of the slab or its end tag.
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
	const uintptr_t *w;
	uintptr_t base, end;
	unsigned int n, plain = 0, keyed = 0, undecodable = 0;

	ST_EXPECT(s != NULL, "kmem_cache_create(test-fp-hardened) failed");
	n = MIN(s->num, (unsigned int)HARDENED_SLAB_OBJS);
	for (unsigned int i = 0; i < n; i++) {
		ST_EXPECT((objs[i] = kmem_cache_alloc(s)), "alloc %u failed", i);
		/* what an earlier user of the page left there is not the cache's doing */
		memset(objs[i], 0, kmem_cache_size(s));
	}
	page = slub_test_page(objs[0]);
	base = (uintptr_t)page_address(page);
	for (unsigned int i = n; i-- > 1;)
		if (slub_test_page(objs[i]) == page)
			kmem_cache_free(s, objs[i]);
	end = base + ((uintptr_t)PAGE_SIZE << s->order);
	for (unsigned int i = 0; i < s->num; i++) {
		uintptr_t k;

		w = slub_fw_slot(s, slub_obj(s, page, i));
		k = *w ^ s->fp_secret;
		plain += *w >= base && *w < end && (*w - base - s->obj_offset) % s->size == 0;
		keyed += k >= base && k < end && (k - base - s->obj_offset) % s->size == 0;
	}
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
	ST_EXPECT(plain == 0, "%u words of the slab hold a plain object address", plain);
	if (CONFIG_SLAB_FREELIST_HARDENED)
		ST_EXPECT(keyed == 0, "%u words of the slab hold an object address XOR the key alone",
			  keyed);
	else
		ST_EXPECT(keyed >= n / 2, "only %u keyed free pointers found for %u free objects: "
			  "the scan does not see them", keyed, n - 1);
	return 0;
}
