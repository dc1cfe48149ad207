/*
 * test_slob.h - helpers for SLOB's own self-tests (tests/common/test_slob*.c,
 * tests/host/test_slob_host*.c), built with ALLOC=slob or slob-seg only:
 * they read SLOB's internals (mm/slob/slob_def.h). The allocator-neutral
 * helpers are in test_alloc.h, which this includes.
 */
#ifndef TESTS_COMMON_TEST_SLOB_H
#define TESTS_COMMON_TEST_SLOB_H

#include "mm/slob/slob_def.h"
#include "test_alloc.h"
#include <asm/irqflags.h>

/* The header of the block whose caller's pointer is p. */
static inline struct slob_hdr *slob_test_hdr(const void *p)
{
	return (struct slob_hdr *)p - 1;
}

/* The cache a live heap block belongs to, by its header (NULL if it names none). */
static inline struct kmem_cache *slob_test_owner(const void *p)
{
	unsigned int id = slob_test_hdr(p)->info;

	return id - 1U < SLOB_MAX_CACHES - 1 ? slob_cache_of[id] : NULL;
}

/* Heap pages now (the spare included). */
static inline unsigned long slob_test_pages(void)
{
	return READ_ONCE(slob_heap.nr_pages);
}

/* Every cache's check (the heap is shared: one cache's check covers all of it). */
static inline int slob_test_check(void)
{
	return kmem_cache_check(&kmem_cache_boot);
}

/* Free units and free blocks of the page holding p, walking its blocks (heap lock taken). */
static inline void slob_test_page_free(const void *p, unsigned long *units, unsigned long *blocks)
{
	struct page *page = virt_to_page(p);
	unsigned long flags = slob_lock();
	struct slob_hdr *h = slob_page_first(page);

	*units = *blocks = 0;
	for (; slob_in_page(h, page) && h->units; h = slob_next(h)) {
		if (slob_is_free(h)) {
			*units += h->units;
			(*blocks)++;
		}
	}
	slob_unlock(flags);
}

/* Allocated blocks in the page holding p (seg: its page header block not counted). */
static inline unsigned int slob_test_page_objects(const void *p)
{
	struct page *page = virt_to_page(p);
	unsigned long flags = slob_lock();
	struct slob_hdr *h = slob_page_first(page);
	unsigned int n = 0;

	for (; slob_in_page(h, page) && h->units; h = slob_next(h))
		n += !slob_is_free(h) && h->info != SLOB_PAGE_HDR;
	slob_unlock(flags);
	return n;
}

/*
 * An object of c alone in a page the heap just made: allocates from c
 * until one is, keeping the others in fill[] (up to max; *nfill says how
 * many) for the caller to free. NULL if none came within max.
 */
static inline void *slob_test_fresh(struct kmem_cache *c, void **fill, unsigned int max,
				    unsigned int *nfill)
{
	*nfill = 0;
	while (*nfill < max) {
		void *p = kmem_cache_alloc(c);

		if (!p)
			return NULL;
		if (slob_test_page_objects(p) == 1)
			return p;
		fill[(*nfill)++] = p;
	}
	return NULL;
}

/*
 * A private cache for a test that must own a whole page's layout: blocks
 * of 'size' bytes, alignment 8, no debugging.
 */
static inline struct kmem_cache *slob_test_cache(const char *name, size_t size)
{
	return kmem_cache_create(name, size, 0, SLAB_NO_DEBUG, NULL);
}

#endif
