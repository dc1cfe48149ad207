/*
 * buddy.c - the binary buddy page allocator: the zone, its free lists, and
 * checking what callers give back.
 *
 * The page allocator's design header (the other files of mm/page_alloc/
 * describe their parts; Documentation/page-allocator.md tells the why and
 * the history).
 *
 * Concepts and data structures. RAM is divided into one zone per NUMA node
 * (struct zone, node_zones[] in mm/page_alloc/buddy_internal.h; one zone on
 * a one-node machine, and at boot until buddy_numa_init, which
 * mm/page_alloc/buddy_numa.c describes with allocation fallback and the
 * numastat counters). page->nid names a page's node and so its zone. Each zone holds one free list per order
 * 0..MAX_ORDER; a free block of 2^o pages sits on free_list[o] through the
 * lru link of its first (head) struct page. A block is naturally aligned:
 * its PFN is a multiple of 2^o. Its buddy is the other half of the block of
 * order o + 1 that contains it, found by index arithmetic: pfn ^ (1 << o).
 * In front of the zone, each CPU keeps short lists of free blocks of orders
 * 0 to PCP_MAX_ORDER (3) (mm/page_alloc/buddy_pcp.c): those requests are served
 * there, orders above go to the zone directly.
 *
 * Invariants (checked by buddy_check(), mm/page_alloc/buddy_check.c):
 *  - every managed page (not PG_reserved) lies in exactly one block: free
 *    on the zone's lists (head PG_buddy), free on one CPU's list (an
 *    block of order <= PCP_MAX_ORDER with PG_pcp), or allocated (head PG_head); no other page
 *    of a block carries any of the three; page->order is the block's order;
 *  - a free page's flags word holds nothing but PG_buddy (a zone block's
 *    head) or PG_pcp (a CPU list block's head), so the fast paths store
 *    whole words; free_pages' fast path takes a block whose head holds
 *    PG_head alone (anything else goes through check_free);
 *  - two free buddies of the same order never coexist on the zone's lists
 *    (frees coalesce fully, up to MAX_ORDER); a PG_pcp page does not merge;
 *  - nr_free[o] is the length of free_list[o], free_pages the sum of 2^o
 *    over the zone's free blocks; the per-CPU counts add the PG_pcp pages;
 *  - every page of a free block is of one node, and the block is on that
 *    node's zone's lists (its head's flags PG_buddy | node << PG_NODE_SHIFT,
 *    zone->buddy_flags) or on the lists of a CPU of that node.
 *
 * Lock order, outermost first, and what each protects:
 *  1. interrupts off on a CPU: that CPU's lists, their counters, and the
 *     flags of the pages on them (mm/page_alloc/buddy_pcp.c). Only that CPU
 *     touches them; another CPU asks it to drain (drain_all_pages).
 *  2. a zone's lock, taken with interrupts off: its free lists, its
 *     counters, and the flags and order of every page of its node that is
 *     not on a CPU's list. Allocation and free hold one zone lock at a
 *     time; buddy_numa_init and buddy_check take every zone's lock, in
 *     node order.
 *  3. the console lock (reports).
 * Owners of allocated blocks (slab) may use the other fields of their
 * pages freely. Event counters are per CPU, written by their CPU only.
 *
 * Where we depart from Linux. There is one zone per node (no DMA or
 * movable zones) and no watermarks, migrate types or compaction: a
 * request either finds a big enough free block, on its node or the
 * nearest other, or fails at once (after draining this CPU's list). A block's order lives in
 * its head page for allocated blocks too, which lets free_pages() refuse a
 * wrong order, a tail page or a double free (on the zone's lists or on a
 * CPU's list) before touching anything. Tail pages carry no back pointer;
 * the block covering a page is found by probing the MAX_ORDER + 1 aligned
 * candidates for its head.
 */
#include "mm/page_alloc/buddy_internal.h"
#include "kernel/bug.h"
#include "kernel/errno.h"
#include "kernel/printk.h"
#include "mm/fault_inject.h"
#ifndef CONFIG_ALLOC_NONE
#include "mm/slab.h"
#endif

_Static_assert(MAX_ORDER >= 0 && NR_ORDERS <= 32, "orders must fit a 1UL << order shift");
_Static_assert((PAGE_SIZE << MAX_ORDER) == (4UL << 20),
	       "MAX_ORDER blocks are 4 MiB at every page size");

struct zone node_zones[MAX_NUMNODES] = { [0] = { .lock = SPINLOCK_INIT } };
struct buddy_numa buddy_numa = { .nr_nodes = 1, .online = 1, .nr_fallback = { 1 } };

/* __rmqueue - rmqueue_locked (mm/page_alloc/buddy_internal.h), checking the zone lock. */
struct page *__rmqueue(struct zone *z, unsigned int order)
{
	assert_spin_locked(&z->lock);
	return rmqueue_locked(z, order);
}

/* __free_one - free_one_locked (mm/page_alloc/buddy_internal.h), checking the zone lock. */
void __free_one(struct zone *z, unsigned long pfn, unsigned int order)
{
	assert_spin_locked(&z->lock);
	free_one_locked(z, z->buddy_flags, z->node << 16, pfn, order);
	z->free_pages += order_pages(order);
}

/* buddy_init: see buddy.h. Boot CPU only, before anything allocates. */
void buddy_init(void)
{
	for (unsigned int n = 0; n < MAX_NUMNODES; n++) {
		struct zone *z = &node_zones[n];

		spin_lock_init(&z->lock);
		z->node = n;
		z->buddy_flags = PG_buddy | ((unsigned long)n << PG_NODE_SHIFT);
		for (unsigned int o = 0; o <= MAX_ORDER; o++) {
			INIT_LIST_HEAD(&z->free_list[o]);
			z->nr_free[o] = 0;
		}
		z->managed_pages = 0;
		z->free_pages = 0;
	}
	buddy_numa = (struct buddy_numa){ .nr_nodes = 1, .online = 1, .nr_fallback = { 1 } };
	pcp_init();
	node_zones[0].ready = true;
}

/* buddy_add_block: see buddy.h. Panics if a page is not PG_reserved (added twice). */
void buddy_add_block(unsigned long pfn, unsigned int order)
{
	unsigned long flags;

	struct zone *z;

	ASSERT(node_zones[0].ready && order <= MAX_ORDER);
	ASSERT(IS_ALIGNED(pfn, order_pages(order)) && pfn + order_pages(order) <= max_pfn);
	z = page_zone(pfn_to_page(pfn));
	flags = spin_lock_irqsave(&z->lock);
	for (unsigned long i = 0; i < order_pages(order); i++) {
		struct page *p = pfn_to_page(pfn + i);

		ASSERT(p->flags & PG_reserved);
		ASSERT(p->nid == z->node);
		p->flags = 0;	/* a free page holds no flag (PG_buddy: __free_one) */
	}
	z->managed_pages += order_pages(order);
	__free_one(z, pfn, order);
	pcp_set_marks(z);
	spin_unlock_irqrestore(&z->lock, flags);
}

/*
 * zone_alloc - a block of order > PCP_MAX_ORDER from this CPU's node's zone
 * (any order above MAX_ORDER fails here). If none is free, this
 * CPU's list is drained into the zone (its pages may merge into what is
 * needed) and the zone is tried once more; then the other nodes' zones,
 * nearest first (numa_alloc_fallback).
 */
static struct page *zone_alloc(unsigned int order)
{
	unsigned long flags = arch_irq_save();
	struct per_cpu_pages *pcp = this_cpu_ptr(pcp_lists);
	struct zone *z = pcp->zone;
	struct page *page = NULL;

	spin_lock(&z->lock);
	if (order <= MAX_ORDER) {
		page = __rmqueue(z, order);
		if (!page && pcp_count(pcp)) {
			__pcp_drain(pcp, pcp_count(pcp), 0, PCP_ORDERS);
			page = __rmqueue(z, order);
		}
	}
	spin_unlock(&z->lock);
	if (page)
		pcp->allocs++;
	else if (order <= MAX_ORDER && buddy_numa.nr_fallback[pcp->nid] > 1)
		page = numa_alloc_fallback(pcp, pcp->nid, order, true);
	else
		pcp->failed_allocs++;
	arch_irq_restore(flags);
	return page;
}

/*
 * alloc_pages while fail_page_alloc is on: out of line, so the fast path
 * only tests fault_attr_on and tail-calls here (see slab_alloc_failslab).
 */
static __noinline struct page *alloc_pages_faulty(unsigned int order)
{
	if (should_fail(&fail_page_alloc)) {
		unsigned long flags = arch_irq_save();

		this_cpu_ptr(pcp_lists)->failed_allocs++;
		arch_irq_restore(flags);
		return NULL;
	}
	if (likely(order <= PCP_MAX_ORDER))
		return pcp_alloc(order);
	return zone_alloc(order);
}

/*
 * alloc_pages before buddy_init: a warning and NULL, out of line so that
 * alloc_pages' fast path needs no stack frame (arm64 saved the link
 * register for the warning's call on every allocation).
 */
static __noinline struct page *alloc_pages_early(unsigned int order)
{
	WARN_ON(!node_zones[0].ready);
	(void)order;
	return NULL;
}

/*
 * alloc_pages: see buddy.h. Orders up to PCP_MAX_ORDER come from this CPU's
 * lists (pcp_alloc, inline), larger ones from the zone. NULL, counted in
 * failed_allocs, when order > MAX_ORDER or no block that large is free (or
 * before buddy_init). The caller owns the block and gives it back with
 * free_pages(page, order).
 */
struct page *alloc_pages(unsigned int order)
{
	if (unlikely(!node_zones[0].ready))
		return alloc_pages_early(order);
	if (unlikely(fault_attr_on(&fail_page_alloc)))
		return alloc_pages_faulty(order);
	if (likely(order <= PCP_MAX_ORDER))
		return pcp_alloc(order);
	return zone_alloc(order);
}

/* get_free_pages: see buddy.h. NULL as alloc_pages; free with free_pages_addr(addr, order). */
void *get_free_pages(unsigned int order)
{
	struct page *page = alloc_pages(order);

	return page ? page_address(page) : NULL;
}

/* What is wrong with a free request; FREE_OK when nothing is. */
enum free_fault {
	FREE_OK,
	FAULT_BAD_PTR,		/* page pointer outside mem_map or not on an entry */
	FAULT_OUTSIDE_RAM,	/* address with no struct page */
	FAULT_MISALIGNED,	/* address not page-aligned */
	FAULT_ORDER_RANGE,	/* order > MAX_ORDER */
	FAULT_RESERVED,		/* page never given to the allocator */
	FAULT_DOUBLE_FREE,	/* page heads a free block */
	FAULT_DOUBLE_FREE_PCP,	/* page is free on a CPU's list */
	FAULT_INSIDE_FREE,	/* page lies inside a free block */
	FAULT_TAIL,		/* page lies inside an allocated block, not at its head */
	FAULT_WRONG_ORDER,	/* head of an allocated block of another order */
	FAULT_NO_BLOCK,		/* managed page in no block: state is corrupt */
	FAULT_SLAB,		/* page of a live slab (its owner clears PG_slab first) */
	FAULT_LARGE,		/* head of a live large kmalloc (kfree clears PG_large) */
	FAULT_BAD_FLAGS,	/* flags word holds a bit no PG_ flag has: corrupt */
};

/* Every bit a page's flags word may hold (mm/page.h). */
#define PG_KNOWN	(PG_reserved | PG_buddy | PG_head | PG_slab | PG_large | PG_pcp | PG_node_mask)

struct free_verdict {
	enum free_fault fault;
	unsigned long block_pfn;	/* the block the page was found in */
	unsigned int block_order;
	struct kmem_cache *cache;	/* FAULT_SLAB: the slab's cache (NULL: shared, SLOB) */
	unsigned long flags;		/* FAULT_BAD_FLAGS: the page's flags word */
};

/*
 * block_of - the head of the free or allocated block covering pfn, or NULL.
 * Only the MAX_ORDER + 1 aligned PFNs at or below pfn can head it.
 */
static struct page *block_of(unsigned long pfn)
{
	for (unsigned int o = 0; o <= MAX_ORDER; o++) {
		struct page *head = pfn_to_page(pfn & ~(order_pages(o) - 1));
		unsigned long f = READ_ONCE(head->flags);

		if ((f & (PG_buddy | PG_head | PG_pcp)) && head->order >= o)
			return head;
	}
	return NULL;
}

/* buddy_page_free: see buddy.h. */
bool buddy_page_free(const struct page *page)
{
	unsigned long pfn = page_to_pfn(page), flags;
	struct page *head;
	bool is_free;

	flags = spin_lock_irqsave(&page_zone(page)->lock);
	head = block_of(pfn);
	is_free = head && (READ_ONCE(head->flags) & (PG_buddy | PG_pcp));
	spin_unlock_irqrestore(&page_zone(page)->lock, flags);
	return is_free;
}

/* check_free - classify a free of (pfn, order), pfn < max_pfn. Zone lock held. */
static void check_free(unsigned long pfn, unsigned int order, struct free_verdict *v)
{
	struct page *page = pfn_to_page(pfn);
	unsigned long f = READ_ONCE(page->flags);
	struct page *head;

	v->fault = FREE_OK;
	if (order > MAX_ORDER) {
		v->fault = FAULT_ORDER_RANGE;
	} else if (f & ~PG_KNOWN) {
		v->fault = FAULT_BAD_FLAGS;	/* a free page holds no such bit: refuse it */
		v->flags = f;
	} else if (f & PG_reserved) {
		v->fault = FAULT_RESERVED;
	} else if (f & PG_buddy) {
		v->fault = FAULT_DOUBLE_FREE;
	} else if (f & PG_pcp) {
		v->fault = FAULT_DOUBLE_FREE_PCP;
	} else if (f & (PG_slab | PG_large)) {
		/* Like Linux's "Bad page state": its owner frees it, not the caller. */
		v->fault = f & PG_slab ? FAULT_SLAB : FAULT_LARGE;
		v->cache = f & PG_slab ? page->slab_cache : NULL;
		head = block_of(pfn);
		v->block_pfn = head ? page_to_pfn(head) : pfn;
		v->block_order = head ? head->order : 0;
	} else if (f & PG_head) {
		if (page->order != order) {
			v->fault = FAULT_WRONG_ORDER;
			v->block_order = page->order;
		}
	} else {
		head = block_of(pfn);
		if (!head)
			v->fault = FAULT_NO_BLOCK;
		else
			v->fault = READ_ONCE(head->flags) & (PG_buddy | PG_pcp) ? FAULT_INSIDE_FREE :
										FAULT_TAIL;
		if (head) {
			v->block_pfn = page_to_pfn(head);
			v->block_order = head->order;
		}
	}
}

/* What each fault is called on the console. */
static const char *const fault_msg[] = {
	[FREE_OK] = "no fault",
	[FAULT_BAD_PTR] = "page pointer is not an entry of mem_map",
	[FAULT_OUTSIDE_RAM] = "address is outside RAM (no struct page for it)",
	[FAULT_MISALIGNED] = "address is not page-aligned",
	[FAULT_ORDER_RANGE] = "order is above MAX_ORDER",
	[FAULT_RESERVED] = "not allocated (page is reserved, never given to the allocator)",
	[FAULT_DOUBLE_FREE] = "double free (block is already free)",
	[FAULT_DOUBLE_FREE_PCP] = "double free (page is already free, on a CPU's page list)",
	[FAULT_INSIDE_FREE] = "not allocated",
	[FAULT_TAIL] = "not the head of an allocation",
	[FAULT_WRONG_ORDER] = "wrong order",
	[FAULT_NO_BLOCK] = "page is in no block (allocator state corrupt)",
	[FAULT_SLAB] = "page in use by a slab",
	[FAULT_LARGE] = "page in use by a large kmalloc",
	[FAULT_BAD_FLAGS] = "page flags hold unknown bits (struct page corrupt?)",
};

/* The cache that owns a slab page, for reports; NULL: a heap page of several (SLOB). */
static const char *owner_name(struct kmem_cache *cachep)
{
#ifdef CONFIG_ALLOC_NONE
	(void)cachep;
	return "(no object allocator)";
#else
	return cachep ? kmem_cache_name(cachep) : ": a heap page of several caches";
#endif
}

/* count_bad_free - account a refused free on this CPU; nothing else changes. */
static void count_bad_free(void)
{
	unsigned long flags = arch_irq_save();

	this_cpu_ptr(pcp_lists)->bad_frees++;
	arch_irq_restore(flags);
}

/* report_bad_free - print "buddy: <call>: <fault>" and return the error code. */
static int report_bad_free(const char *call, const struct free_verdict *v)
{
	const char *what = fault_msg[v->fault];

	if (v->fault == FAULT_INSIDE_FREE)
		printk("buddy: %s: %s (page lies inside the free order-%u block at pfn 0x%lx;"
		       " double free?)\n", call, what, v->block_order, v->block_pfn);
	else if (v->fault == FAULT_TAIL)
		printk("buddy: %s: %s (tail page of the order-%u block at pfn 0x%lx)\n", call,
		       what, v->block_order, v->block_pfn);
	else if (v->fault == FAULT_WRONG_ORDER)
		printk("buddy: %s: %s (block was allocated with order %u)\n", call, what,
		       v->block_order);
	else if (v->fault == FAULT_SLAB)
		printk("buddy: %s: %s%s%s (order-%u block at pfn 0x%lx); not freed: its "
		       "allocator frees it when its objects are gone\n", call, what,
		       v->cache ? " of cache " : "", owner_name(v->cache), v->block_order,
		       v->block_pfn);	/* NULL cache: "...slab: a heap page of several caches" */
	else if (v->fault == FAULT_BAD_FLAGS)
		printk("buddy: %s: %s: flags 0x%lx, unknown 0x%lx; not freed\n", call, what,
		       v->flags, v->flags & ~PG_KNOWN);
	else if (v->fault == FAULT_LARGE)
		printk("buddy: %s: %s of order %u (block at pfn 0x%lx); not freed: kfree "
		       "frees it\n", call, what, v->block_order, v->block_pfn);
	else
		printk("buddy: %s: %s\n", call, what);
	if (v->fault == FAULT_BAD_PTR || v->fault == FAULT_OUTSIDE_RAM ||
	    v->fault == FAULT_MISALIGNED)
		return -EFAULT;
	return -EINVAL;
}

/*
 * An allocated block of this order, at most PCP_MAX_ORDER, that no slab or
 * large kmalloc owns, as its own CPU would see it: free to a CPU list. Its
 * flags word is PG_head and nothing else (any other bit, PG_slab, PG_large,
 * PG_pcp of a double free..., sends it to the checks of the slow path). The
 * two compares are joined with & so that arm64 makes them one compare chain.
 */
static inline bool is_pcp_head(const struct page *page, unsigned int order)
{
	return order <= PCP_MAX_ORDER &&
	       ((READ_ONCE(page->flags) == PG_head) & (page->order == (unsigned short)order));
}

/*
 * free_checked - validate and free (pfn, order) into its node's zone under
 * one lock hold; on a fault, count it and fill v, changing nothing else.
 * pfn < max_pfn.
 */
static bool free_checked(unsigned long pfn, unsigned int order, struct free_verdict *v)
{
	struct zone *z = page_zone(pfn_to_page(pfn));
	unsigned long flags = spin_lock_irqsave(&z->lock);
	struct per_cpu_pages *pcp = this_cpu_ptr(pcp_lists);

	check_free(pfn, order, v);
	if (v->fault == FREE_OK) {
		pfn_to_page(pfn)->flags &= ~PG_head;
		__free_one(z, pfn, order);
		pcp->frees++;
	} else {
		pcp->bad_frees++;
	}
	spin_unlock_irqrestore(&z->lock, flags);
	return v->fault == FREE_OK;
}

/*
 * free_pages_slow - free_pages of anything but a valid block of order up to
 * PCP_MAX_ORDER: a bad pointer, a larger block, or bad input of any order.
 * Out of line so that free_pages' fast path keeps no stack frame.
 */
static __noinline int free_pages_slow(struct page *page, unsigned int order)
{
	struct free_verdict v = { .fault = FAULT_BAD_PTR };
	uintptr_t off = (uintptr_t)page - (uintptr_t)mem_map;
	char call[112];
	unsigned long pfn;

	if (off >= mem_map_entries() * sizeof(struct page) || off % sizeof(struct page)) {
		count_bad_free();
		snprintf(call, sizeof(call), "free_pages(page %p order %u)", (void *)page, order);
		return report_bad_free(call, &v);
	}
	pfn = page_to_pfn(page);
	if (free_checked(pfn, order, &v))
		return 0;
	snprintf(call, sizeof(call), "free_pages(pfn 0x%lx phys 0x%lx virt %p order %u)", pfn,
		 pfn << PAGE_SHIFT, page_address(page), order);
	return report_bad_free(call, &v);
}

/*
 * free_pages: see buddy.h. page must be a mem_map entry heading a block
 * allocated with this order; anything else is refused with -EFAULT (not a
 * mem_map entry) or -EINVAL, reported and counted, before any state changes.
 * A block of order up to PCP_MAX_ORDER in this CPU's window of its node's
 * pages (all of mem_map on one node) goes on this CPU's list of that
 * order; larger blocks, and blocks of another node, to their own node's
 * zone (never to this CPU's lists). The head's owner flags (PG_head,
 * PG_slab, PG_large) are cleared here; an owner that flagged other pages of
 * the block clears them before the free.
 */
int free_pages(struct page *page, unsigned int order)
{
	/*
	 * The entry's index in this CPU's window (its node's pages: all of
	 * mem_map on one node), rotated: an offset that is no multiple of
	 * sizeof(struct page) (64) gets its low bits at the top and so fails
	 * the range check too, one compare for both. A page outside the
	 * window, another node's, takes the slow path to its own zone.
	 */
	struct per_cpu_pages *pcp = this_cpu_ptr(pcp_lists);
	uintptr_t off = (uintptr_t)page - pcp->map_base;
	uintptr_t idx = (off >> 6) | (off << (8 * sizeof(off) - 6));

	_Static_assert(sizeof(struct page) == 1UL << 6, "free_pages' rotate assumes 64-byte entries");
	/* & rather than &&: one compare chain on arm64 (ccmp) */
	if (likely((idx < pcp->map_entries) & (order <= PCP_MAX_ORDER)) &&
	    likely(is_pcp_head(page, order)))
		return pcp_free(pcp, page, order);
	return free_pages_slow(page, order);
}

/*
 * free_pages_addr: see buddy.h. addr must be the direct-map address of a
 * block's first byte: an address with no struct page or not page-aligned is
 * refused with -EFAULT; then the checks of free_pages apply.
 */
int free_pages_addr(void *addr, unsigned int order)
{
	struct free_verdict v = { .fault = FREE_OK };
	unsigned long phys = (unsigned long)VIRT_TO_PHYS(addr);
	char call[112];

	if (!virt_addr_valid(addr))
		v.fault = FAULT_OUTSIDE_RAM;
	else if (!IS_ALIGNED(phys, PAGE_SIZE))
		v.fault = FAULT_MISALIGNED;
	if (v.fault == FAULT_OUTSIDE_RAM &&
	    (uintptr_t)addr < (uintptr_t)PHYS_TO_VIRT(ARCH_PHYS_OFFSET)) {
		/* Below the direct map: it has no physical address to print. */
		count_bad_free();
		snprintf(call, sizeof(call), "free_pages_addr(virt %p order %u)", addr, order);
		return report_bad_free(call, &v);
	}
	if (v.fault != FREE_OK) {
		count_bad_free();
	} else if (is_pcp_head(virt_to_page(addr), order) &&
		   (uintptr_t)virt_to_page(addr) - this_cpu_ptr(pcp_lists)->map_base <
			   this_cpu_ptr(pcp_lists)->map_entries * sizeof(struct page)) {
		return pcp_free(this_cpu_ptr(pcp_lists), virt_to_page(addr), order);
	} else if (free_checked(phys >> PAGE_SHIFT, order, &v)) {
		return 0;
	}
	snprintf(call, sizeof(call), "free_pages_addr(virt %p pfn 0x%lx phys 0x%lx order %u)", addr,
		 phys >> PAGE_SHIFT, phys, order);
	return report_bad_free(call, &v);
}
