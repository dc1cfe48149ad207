/*
 * buddy_internal.h - what mm/page_alloc/buddy.c, mm/page_alloc/buddy_pcp.c and mm/page_alloc/buddy_check.c
 * share: the zone and the per-CPU lists of small blocks. Users include
 * mm/buddy.h only. The design and the locking are described at the top of
 * mm/page_alloc/buddy.c (the zone) and mm/page_alloc/buddy_pcp.c (the per-CPU lists).
 */
#ifndef MM_BUDDY_INTERNAL_H
#define MM_BUDDY_INTERNAL_H

#include "mm/buddy.h"
#include "kernel/numa.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"

/* Orders 0..PCP_MAX_ORDER are served from the per-CPU lists (as in Linux). */
#define PCP_MAX_ORDER	3
#define PCP_ORDERS	(PCP_MAX_ORDER + 1)

/*
 * One zone per NUMA node (node_zones[nid]): the free blocks whose pages lie
 * in that node's ranges. Everything but the marks (pcp_*) is under lock.
 * One-node machines use node_zones[0] alone.
 */
struct zone {
	struct spinlock lock;
	bool ready;				/* buddy_init() has run (node_zones[0] only) */
	unsigned int node;			/* its index in node_zones */
	unsigned long buddy_flags;		/* a free block's head: PG_buddy | node << PG_NODE_SHIFT */
	unsigned int pcp_batch_shift;		/* log2 of pcp_batch */
	unsigned int pcp_refill_shift[PCP_ORDERS]; /* a refill of order o: 2^this pages */
	unsigned long pcp_batch;		/* pages: the least a refill or drain moves */
	unsigned long pcp_high;			/* a CPU holding more pages drains */
	unsigned long managed_pages;		/* pages ever given to the allocator */
	unsigned long free_pages;		/* pages on the free lists below */
	unsigned long nr_free[NR_ORDERS];	/* blocks on each free list */
	struct list_head free_list[NR_ORDERS];	/* free blocks, by order */
};

extern struct zone node_zones[MAX_NUMNODES];

/*
 * The page allocator's view of the topology (buddy_numa_init): nr_nodes
 * online, and for each online node the online nodes to allocate from,
 * nearest first (itself first, ties by node id); a node without memory is
 * listed too (its zone is empty). One-node: node 0 alone.
 */
struct buddy_numa {
	unsigned int nr_nodes;
	uint8_t online;				/* bit n: node n online */
	uint8_t nr_fallback[MAX_NUMNODES];
	uint8_t fallback[MAX_NUMNODES][MAX_NUMNODES];
};

extern struct buddy_numa buddy_numa;

/* page_zone - the zone a page belongs to (its node's). */
static inline struct zone *page_zone(const struct page *page)
{
	return &node_zones[page->nid];
}

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
	struct zone *zone;		/* this CPU's node's zone: refills, drains */
	unsigned int nid;		/* zone->node */
	/*
	 * The free path's window: the mem_map entries from map_base on,
	 * map_entries of them, all of this CPU's node (all of mem_map on one
	 * node). A block inside it may go on these lists; any other takes
	 * free_pages' slow path to its own zone.
	 */
	uintptr_t map_base;
	unsigned long map_entries;
	/*
	 * NUMA events of allocations that were not local hits (preferred
	 * node, the node served and this CPU's node not all equal), by the
	 * node served or preferred; numa_counted is how many allocs those
	 * are. The others, allocs - numa_counted, are hits on this CPU's
	 * node: the fast paths count nothing more than allocs.
	 */
	unsigned long numa_counted;
	unsigned long numa_events[MAX_NUMNODES][NR_NUMA_STATS];
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

/*
 * zone_list_add - put the free block page (2^order pages) on z's list;
 * bflags is z->buddy_flags (a constant for node 0's zone). Zone lock held.
 */
static __always_inline void zone_list_add(struct zone *z, unsigned long bflags,
					  struct page *page, unsigned int order)
{
	WRITE_ONCE(page->flags, page->flags | bflags);
	page->order = (unsigned short)order;
	list_add(&page->lru, &z->free_list[order]);
	z->nr_free[order]++;
}

/* zone_list_del - take the free block page off z's list. Zone lock held. */
static inline void zone_list_del(struct zone *z, struct page *page, unsigned int order)
{
	list_del(&page->lru);
	WRITE_ONCE(page->flags, page->flags & ~(PG_buddy | PG_node_mask));
	z->nr_free[order]--;
}

/*
 * rmqueue_locked - take the first free block of the smallest order >= order
 * and split it down, putting the upper halves back on the lists; NULL when
 * there is none. The block comes back with PG_head set and page->order ==
 * order. Zone lock held (not checked: callers check once per batch).
 */
static __always_inline struct page *rmqueue_locked(struct zone *z, unsigned int order)
{
	const unsigned long bflags = z->buddy_flags;
	struct page *page;
	unsigned int o;

	for (o = order; o <= MAX_ORDER; o++)
		if (!list_empty(&z->free_list[o]))
			break;
	if (o > MAX_ORDER)
		return NULL;
	page = list_first_entry(&z->free_list[o], struct page, lru);
	zone_list_del(z, page, o);
	while (o > order) {
		o--;
		zone_list_add(z, bflags, page + order_pages(o), o);
	}
	z->free_pages -= order_pages(order);
	page->flags |= PG_head;
	page->order = (unsigned short)order;
	return page;
}

/*
 * free_one_locked - put the block at pfn back on z's lists, merging
 * with its buddy for as long as the buddy is a free block of the same order
 * on z's lists: its head's flags word is z->buddy_flags (a buddy of another
 * node is on another zone's lists, its flags name that node: it does not
 * merge). The block lies in z's node. The block's pages carry none of PG_buddy, PG_head,
 * PG_pcp. The caller adds the block's pages to zone.free_pages (a drain
 * does so once per batch). Zone lock held (not checked: callers check once
 * per batch). mem_map's base and size are read once: the stores below
 * could alias them for the compiler, which would reload them per merge.
 * bflags is z->buddy_flags and nidbits z->node << 16, given by the caller:
 * constants (PG_buddy, 0) for node 0's zone, so that one-node drains
 * compile as with a single zone.
 */
static __always_inline void free_one_locked(struct zone *z, unsigned long bflags,
					    unsigned int nidbits, unsigned long pfn,
					    unsigned int order)
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
		/*
		 * A page on some CPU's list changes flags without our lock:
		 * read once. A free block's head holds its zone's flags and
		 * nothing else (buddy_check), so one compare tests both.
		 */
		if (READ_ONCE(buddy->flags) != bflags || buddy->order_nid != (order | nidbits))
			break;
		/* zone_list_del without resetting the links the merge overwrites */
		next = buddy->lru.next;
		prev = buddy->lru.prev;
		next->prev = prev;
		prev->next = next;
		WRITE_ONCE(buddy->flags, 0);	/* was bflags alone */
		z->nr_free[order]--;
		pfn &= buddy_pfn;
		order++;
	}
	page = (struct page *)(pfn0 + pfn * sizeof(struct page));
	WRITE_ONCE(page->flags, page->flags | bflags);
	page->order_nid = order | nidbits;	/* nid unchanged: the block is z's node's */
	list_add(&page->lru, &z->free_list[order]);
	z->nr_free[order]++;
}

/* mm/page_alloc/buddy.c: rmqueue_locked and free_one_locked asserting the zone lock. */
struct page *__rmqueue(struct zone *z, unsigned int order);
void __free_one(struct zone *z, unsigned long pfn, unsigned int order);

/*
 * mm/page_alloc/buddy_numa.c: allocation from other zones (fallback in
 * distance order, alloc_pages_node of a remote node).
 * numa_alloc_fallback - a block of order (at most MAX_ORDER) from the first
 * zone in preferred's fallback list (from its second entry, the nearest
 * other node, with skip_own) that has one, counted in pcp->allocs and as a
 * NUMA event (numa_count); NULL, counted in failed_allocs, when none has.
 * Interrupts off, no zone lock held (it takes each zone's in turn).
 * numa_count - record on pcp (this CPU's) an allocation that wanted node
 * preferred and was served by node served, not a local hit: numa_hit or
 * numa_miss and numa_foreign, and local_node or other_node. Interrupts off.
 */
struct page *numa_alloc_fallback(struct per_cpu_pages *pcp, unsigned int preferred,
				 unsigned int order, bool skip_own);
void numa_count(struct per_cpu_pages *pcp, unsigned int preferred, unsigned int served);

/* mm/page_alloc/buddy_pcp.c: slow paths of the inline fast paths below. */
struct page *pcp_alloc_refill(struct per_cpu_pages *pcp, unsigned int order,
			      unsigned long flags);
int pcp_free_drain(struct per_cpu_pages *pcp, unsigned int order, unsigned long flags);
void __pcp_drain(struct per_cpu_pages *pcp, unsigned long n, unsigned int first,
		 unsigned int nlists);
void pcp_init(void);
void pcp_set_marks(struct zone *z);

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
 * or large kmalloc (its flags word PG_head alone) and to lie in pcp's window
 * (so of pcp's node); pcp is this CPU's: onto this CPU's list,
 * draining a batch to the zone (out of line) if the CPU now holds more than
 * its high mark (zone.pcp_high) pages (room below 0). Returns 0, free_pages' result, so
 * that the drain is a tail call and the fast path needs no stack frame.
 */
static __always_inline int pcp_free(struct per_cpu_pages *pcp, struct page *page,
				    unsigned int order)
{
	unsigned long flags = arch_irq_save();

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
