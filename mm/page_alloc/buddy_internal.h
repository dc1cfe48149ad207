/*
 * buddy_internal.h - what mm/page_alloc/buddy.c, mm/page_alloc/buddy_pcp.c and mm/page_alloc/buddy_check.c
 * share: the zone and the per-CPU lists of small blocks. Users include
 * mm/buddy.h only. The design and the locking are described at the top of
 * mm/page_alloc/buddy.c (the zone) and mm/page_alloc/buddy_pcp.c (the per-CPU lists).
 */
#ifndef MM_BUDDY_INTERNAL_H
#define MM_BUDDY_INTERNAL_H

#include "mm/buddy.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"

/* Orders 0..PCP_MAX_ORDER are served from the per-CPU lists (as in Linux). */
#define PCP_MAX_ORDER	3
#define PCP_ORDERS	(PCP_MAX_ORDER + 1)

/* The one zone. Everything but the marks (pcp_*) is under lock. */
struct buddy_zone {
	struct spinlock lock;
	bool ready;				/* buddy_init() has run */
	unsigned int pcp_batch_shift;		/* log2 of pcp_batch */
	unsigned int pcp_refill_shift[PCP_ORDERS]; /* a refill of order o: 2^this pages */
	unsigned long pcp_batch;		/* pages: the least a refill or drain moves */
	unsigned long pcp_high;			/* a CPU holding more pages drains */
	unsigned long managed_pages;		/* pages ever given to the allocator */
	unsigned long free_pages;		/* pages on the free lists below */
	unsigned long nr_free[NR_ORDERS];	/* blocks on each free list */
	struct list_head free_list[NR_ORDERS];	/* free blocks, by order */
};

extern struct buddy_zone buddy_zone;

/* Drain sizes (pcp_free_drain in mm/page_alloc/buddy_pcp.c). */
#define PCP_DRAIN_BLOCKS_SHIFT	4	/* at least 16 blocks of the freed order */
#define PCP_DRAIN_FACTOR_MAX	3	/* doubled per drain since a refill, up to 8 times */

/*
 * One CPU's lists of free blocks of orders 0..PCP_MAX_ORDER, and the page
 * allocator's event counters for calls made on that CPU (both paths). Only
 * the owning CPU writes any of it, with interrupts off; others may read the
 * counts.
 */
struct per_cpu_pages {
	struct list_head lists[PCP_ORDERS];	/* PG_pcp blocks of each order, hottest first */
	long room;			/* high - pages (not blocks) on the lists */
	unsigned long high;		/* zone.pcp_high, copied */
	unsigned int free_factor;	/* drains since the last refill (drain size) */
	unsigned long allocs;		/* successful alloc_pages calls */
	unsigned long frees;		/* successful free_pages calls */
	unsigned long failed_allocs;	/* alloc_pages calls that returned NULL */
	unsigned long bad_frees;	/* free_pages calls refused as bad input */
};

DECLARE_PER_CPU(struct per_cpu_pages, pcp_lists);

/*
 * pcp_count - the pages on pcp's lists. The lists keep room, how many
 * more pages they take before a free drains, rather than a count: the free
 * path subtracts and tests the sign, with no load of high and no compare.
 * Read by other CPUs too: a snapshot.
 */
static inline unsigned long pcp_count(const struct per_cpu_pages *pcp)
{
	return READ_ONCE(pcp->high) - (unsigned long)READ_ONCE(pcp->room);
}

static inline unsigned long order_pages(unsigned int order)
{
	return 1UL << order;
}

/* zone_list_add - put the free block page (2^order pages) on its list. Zone lock held. */
static inline void zone_list_add(struct page *page, unsigned int order)
{
	WRITE_ONCE(page->flags, page->flags | PG_buddy);
	page->order = order;
	list_add(&page->lru, &buddy_zone.free_list[order]);
	buddy_zone.nr_free[order]++;
}

/* zone_list_del - take the free block page off its list. Zone lock held. */
static inline void zone_list_del(struct page *page, unsigned int order)
{
	list_del(&page->lru);
	WRITE_ONCE(page->flags, page->flags & ~PG_buddy);
	buddy_zone.nr_free[order]--;
}

/*
 * rmqueue_locked - take the first free block of the smallest order >= order
 * and split it down, putting the upper halves back on the lists; NULL when
 * there is none. The block comes back with PG_head set and page->order ==
 * order. Zone lock held (not checked: callers check once per batch).
 */
static inline struct page *rmqueue_locked(unsigned int order)
{
	struct page *page;
	unsigned int o;

	for (o = order; o <= MAX_ORDER; o++)
		if (!list_empty(&buddy_zone.free_list[o]))
			break;
	if (o > MAX_ORDER)
		return NULL;
	page = list_first_entry(&buddy_zone.free_list[o], struct page, lru);
	zone_list_del(page, o);
	while (o > order) {
		o--;
		zone_list_add(page + order_pages(o), o);
	}
	buddy_zone.free_pages -= order_pages(order);
	page->flags |= PG_head;
	page->order = order;
	return page;
}

/*
 * free_one_locked - put the block at pfn back on the zone's lists, merging
 * with its buddy for as long as the buddy is a free block of the same order
 * on the zone's lists. The block's pages carry none of PG_buddy, PG_head,
 * PG_pcp. The caller adds the block's pages to zone.free_pages (a drain
 * does so once per batch). Zone lock held (not checked: callers check once
 * per batch). mem_map's base and size are read once: the stores below
 * could alias them for the compiler, which would reload them per merge.
 */
static inline void free_one_locked(unsigned long pfn, unsigned int order)
{
	const uintptr_t pfn0 = mem_map_pfn0;
	const unsigned long entries = mem_map_entries();
	struct page *page;

	while (order < MAX_ORDER) {
		unsigned long buddy_pfn = pfn ^ order_pages(order);
		struct page *buddy = (struct page *)(pfn0 + buddy_pfn * sizeof(struct page));
		struct list_head *next, *prev;

		if (buddy_pfn - PFN_OFFSET >= entries)	/* either end */
			break;
		/* A page on some CPU's list changes flags without our lock: read once. */
		if (!(READ_ONCE(buddy->flags) & PG_buddy) || buddy->order != order)
			break;
		/* zone_list_del without resetting the links the merge overwrites */
		next = buddy->lru.next;
		prev = buddy->lru.prev;
		next->prev = prev;
		prev->next = next;
		WRITE_ONCE(buddy->flags, buddy->flags & ~PG_buddy);
		buddy_zone.nr_free[order]--;
		pfn &= buddy_pfn;
		order++;
	}
	page = (struct page *)(pfn0 + pfn * sizeof(struct page));
	zone_list_add(page, order);
}

/* mm/page_alloc/buddy.c: rmqueue_locked and free_one_locked asserting the zone lock. */
struct page *__rmqueue(unsigned int order);
void __free_one(unsigned long pfn, unsigned int order);

/* mm/page_alloc/buddy_pcp.c: slow paths of the inline fast paths below. */
struct page *pcp_alloc_refill(struct per_cpu_pages *pcp, unsigned int order,
			      unsigned long flags);
int pcp_free_drain(struct per_cpu_pages *pcp, unsigned int order, unsigned long flags);
void __pcp_drain(struct per_cpu_pages *pcp, unsigned long n, unsigned int first,
		 unsigned int nlists);
void pcp_init(void);
void pcp_set_marks(void);

/*
 * pcp_alloc - alloc_pages(order), order <= PCP_MAX_ORDER: the hottest block
 * on this CPU's list of that order; an empty list is refilled from the zone
 * (pcp_alloc_refill, out of line). NULL when neither has a block (counted
 * in failed_allocs). Inline so that alloc_pages is one function.
 */
static __always_inline struct page *pcp_alloc(unsigned int order)
{
	unsigned long flags = arch_irq_save();
	struct per_cpu_pages *pcp = this_cpu_ptr(pcp_lists);
	struct list_head *list = &pcp->lists[order];
	struct list_head *first = list->next, *next;
	struct page *page;

	if (unlikely(first == list))
		return pcp_alloc_refill(pcp, order, flags);
	/*
	 * Unlink the first entry. Its own links are left as they are: the
	 * block's owner gets the lru field as garbage, as from the zone.
	 */
	next = first->next;
	list->next = next;
	next->prev = list;
	page = list_entry(first, struct page, lru);
	pcp->room += 1L << order;
	pcp->allocs++;
	/* a listed page's flags are PG_pcp alone (see mm/page_alloc/buddy_pcp.c): no load */
	WRITE_ONCE(page->flags, PG_head);
	arch_irq_restore(flags);
	return page;
}

/*
 * pcp_free - free_pages(page, order), order <= PCP_MAX_ORDER, of a page
 * already checked to head an allocated block of that order owned by no slab
 * or large kmalloc (its flags word PG_head alone): onto this CPU's list,
 * draining a batch to the zone (out of line) if the CPU now holds more than
 * its high mark (zone.pcp_high) pages (room below 0). Returns 0, free_pages' result, so
 * that the drain is a tail call and the fast path needs no stack frame.
 */
static __always_inline int pcp_free(struct page *page, unsigned int order)
{
	unsigned long flags = arch_irq_save();
	struct per_cpu_pages *pcp = this_cpu_ptr(pcp_lists);

	WRITE_ONCE(page->flags, PG_pcp);	/* was PG_head alone (checked): a store */
	list_add(&page->lru, &pcp->lists[order]);
	pcp->frees++;
	pcp->room += (long)(~0UL << order);	/* -2^order */
	if (unlikely(pcp->room < 0))
		return pcp_free_drain(pcp, order, flags);
	arch_irq_restore(flags);
	return 0;
}

#endif
