/*
 * buddy.h - the buddy page allocator's interface (Linux's names).
 *
 * Blocks are 2^order pages, order 0..MAX_ORDER, naturally aligned by PFN.
 * All functions may be called with interrupts on or off; they take the zone
 * lock with interrupts saved.
 */
#ifndef MM_BUDDY_H
#define MM_BUDDY_H

#include "mm/page.h"

/*
 * MAX_ORDER is the largest order (inclusive): blocks of up to 4 MiB at either
 * page size (order 10 at 4K, order 6 at 64K). 4 MiB is two 2 MiB MMU mappings,
 * holds any slab and the large kmallocs Quarry serves, and is small enough
 * that holes in a small QEMU RAM map strand little memory in lower orders.
 */
#define MAX_ORDER	(22 - PAGE_SHIFT)
#define NR_ORDERS	(MAX_ORDER + 1)

/*
 * alloc_pages - take a block of 2^order pages. Returns its head struct page
 * (PG_head set, page->order == order), or NULL if order > MAX_ORDER or no
 * block that large is free. The caller frees it with free_pages(page, order).
 * Contents are not cleared.
 */
struct page *alloc_pages(unsigned int order);

/*
 * free_pages - give back a block from alloc_pages with the same order.
 * Bad input (a page that is not the head of an allocated block, a double
 * free, a wrong order, a page outside mem_map) is reported on the console
 * naming the address and the fault, counted in buddy_stats.bad_frees, and
 * changes nothing. Returns 0, or -EINVAL / -EFAULT for bad input.
 * It clears PG_head, PG_slab and PG_large on the head page; an owner that set
 * flags on the other pages of the block clears them before freeing.
 */
int free_pages(struct page *page, unsigned int order);

/* get_free_pages - alloc_pages returning the block's direct-map address, or NULL. */
void *get_free_pages(unsigned int order);

/*
 * free_pages_addr - free_pages by address; an address outside RAM or not
 * page-aligned is reported and returns -EFAULT.
 */
int free_pages_addr(void *addr, unsigned int order);

/* nr_free_pages - pages now free in the buddy allocator. */
unsigned long nr_free_pages(void);

/* Counters. Read without the lock they are a snapshot. */
struct buddy_stats {
	unsigned long managed_pages;	/* pages ever given to the allocator */
	unsigned long free_pages;	/* pages now on free lists */
	unsigned long nr_free[NR_ORDERS]; /* free blocks per order */
	unsigned long allocs;		/* successful alloc_pages calls */
	unsigned long frees;		/* successful free_pages calls */
	unsigned long failed_allocs;	/* alloc_pages calls that returned NULL */
	unsigned long bad_frees;	/* free_pages calls refused as bad input */
};
extern struct buddy_stats buddy_stats;

/*
 * buddy_check - walk every free list and verify the allocator's invariants
 * (each free block aligned, flagged, on exactly one list of its order, no
 * overlap, counters equal to the lists). Returns 0, or -1 after printing the
 * first violation. O(pages): for tests.
 */
int buddy_check(void);

/* buddy_print_info - one /proc/buddyinfo-style line: "Node 0, zone   Normal" and counts per order. */
void buddy_print_info(void);

/*
 * For mm_init() only (and host tests re-initialising mm/):
 * buddy_init - empty every free list and zero buddy_stats; whatever the
 * allocator held before is forgotten. mem_map and max_pfn must be set.
 * buddy_add_block - hand the block of 2^order pages at pfn (aligned, below
 * max_pfn, every page PG_reserved) to the allocator: it clears PG_reserved,
 * counts the pages in managed_pages and frees the block, merging with free
 * buddies. Panics on a precondition broken.
 */
void buddy_init(void);
void buddy_add_block(unsigned long pfn, unsigned int order);

#endif
