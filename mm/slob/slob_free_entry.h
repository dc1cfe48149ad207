/*
 * slob_free_entry.h - the way into a heap's free path that both heaps
 * share: kmem_cache_free's and kfree's checks on the pointer (in a heap
 * page: page-offset a multiple of 8, not 0, on a PG_slab page that names
 * no cache), then the heap's own free_block, or slob_free_slow for
 * anything else (big objects, bad pointers: it sorts and reports them).
 *
 * Included once each by mm/slob/slob_fit.c and mm/slob/slob_seg.c (one of
 * them is built), after their static __always_inline free_block(c, page,
 * p, fn), so that the free fast path stays one function with no call in
 * it, as the -icount figures measure it.
 */
#ifndef MM_SLOB_FREE_ENTRY_H
#define MM_SLOB_FREE_ENTRY_H

/* slob_free: see slob_def.h. kmem_cache_free's path (c given) and kfree's slow one. */
void slob_free(struct kmem_cache *c, void *p, const char *fn)
{
	uintptr_t off = (uintptr_t)p & (PAGE_SIZE - 1);
	struct page *page;

	if (likely(!(off & 7) && off && virt_addr_valid(p))) {
		page = virt_to_page(p);
		if (likely((page->flags & PG_slab) && !page->slab_cache)) {
			free_block(c, page, p, fn);
			return;
		}
	}
	slob_free_slow(c, p, fn);
}

/* slob_kfree: see slob_def.h. kfree's fast path: page is p's PG_slab page. */
void slob_kfree(struct page *page, const void *p)
{
	uintptr_t off = (uintptr_t)p & (PAGE_SIZE - 1);

	if (likely(!(off & 7) && off && !page->slab_cache))
		free_block(NULL, page, p, "kfree");
	else
		slob_free_slow(NULL, (void *)p, "kfree");
}

#endif
