/*
 * buddy.c - the binary buddy page allocator.
 *
 * Data structures. All of RAM is one zone. The zone holds one free list per
 * order 0..MAX_ORDER; a free block of 2^o pages sits on free_list[o] through
 * the lru link of its first (head) struct page. A block is naturally aligned:
 * its PFN is a multiple of 2^o. Its buddy is the other half of the block of
 * order o + 1 that contains it, found by index arithmetic: pfn ^ (1 << o).
 *
 * Invariants (checked by buddy_check()):
 *  - every page given to the allocator (not PG_reserved) lies in exactly one
 *    block, free or allocated; blocks never overlap;
 *  - a free block's head has PG_buddy and page->order == o, and sits on
 *    free_list[o] and on no other list; an allocated block's head has PG_head
 *    and page->order == o; no other page of a block has either flag;
 *  - two free buddies of the same order never coexist (frees coalesce fully,
 *    up to MAX_ORDER), so a given set of free pages has exactly one layout;
 *  - buddy_stats.nr_free[o] is the length of free_list[o], and
 *    buddy_stats.free_pages is the sum of 2^o over all free blocks.
 *
 * Locking. zone.lock, taken with interrupts saved, protects the free lists,
 * the PG_buddy/PG_head flags and order fields of every managed page, and all
 * of buddy_stats. Owners of allocated blocks (slab) may use the other fields
 * of their pages freely.
 *
 * Where we depart from Linux. There is one zone and no watermarks, migrate
 * types or compaction: a request either finds a big enough free block or
 * fails at once. A block's order lives in its head page for allocated blocks
 * too, which lets free_pages() refuse a wrong order, a tail page or a double
 * free before touching anything, instead of trusting the caller. Tail pages
 * carry no back pointer; the block covering a page is found by probing the
 * MAX_ORDER + 1 aligned candidates for its head.
 *
 * Per-CPU lists (issue 4) are to sit in front of __rmqueue()/__free_one():
 * alloc_pages() and free_pages() validate, then call those two under the
 * lock, so an order-0 cache can be slotted between validation and the zone.
 */
#include "mm/buddy.h"
#include "kernel/bug.h"
#include "kernel/errno.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"

_Static_assert(MAX_ORDER >= 0 && NR_ORDERS <= 32, "orders must fit a 1UL << order shift");
_Static_assert((PAGE_SIZE << MAX_ORDER) == (4UL << 20),
	       "MAX_ORDER blocks are 4 MiB at every page size");

struct buddy_zone {
	struct spinlock lock;
	bool ready;				/* buddy_init() has run */
	struct list_head free_list[NR_ORDERS];	/* free blocks, by order */
};

static struct buddy_zone zone = { .lock = SPINLOCK_INIT };
struct buddy_stats buddy_stats;

/*
 * stat/stat_add/stat_sub - the only writers of buddy_stats, with zone.lock
 * held. Inlined to a single add; issue 4 may turn the event counters into
 * per-CPU ones behind this same call.
 */
static __always_inline void stat_add(unsigned long *counter, unsigned long n)
{
	*counter += n;
}

static __always_inline void stat_sub(unsigned long *counter, unsigned long n)
{
	*counter -= n;
}

static __always_inline void stat(unsigned long *counter)
{
	stat_add(counter, 1);
}

static inline unsigned long order_pages(unsigned int order)
{
	return 1UL << order;
}

static void list_add_free(struct page *page, unsigned int order)
{
	page->flags |= PG_buddy;
	page->order = order;
	list_add(&page->lru, &zone.free_list[order]);
	stat(&buddy_stats.nr_free[order]);
}

static void list_del_free(struct page *page, unsigned int order)
{
	list_del(&page->lru);
	page->flags &= ~PG_buddy;
	stat_sub(&buddy_stats.nr_free[order], 1);
}

/*
 * __rmqueue - take the first free block of the smallest order >= order and
 * split it down, putting the upper halves back on the lists. Zone lock held.
 */
static struct page *__rmqueue(unsigned int order)
{
	struct page *page;
	unsigned int o;

	assert_spin_locked(&zone.lock);
	for (o = order; o <= MAX_ORDER; o++)
		if (!list_empty(&zone.free_list[o]))
			break;
	if (o > MAX_ORDER)
		return NULL;

	page = list_first_entry(&zone.free_list[o], struct page, lru);
	list_del_free(page, o);
	while (o > order) {
		o--;
		list_add_free(page + order_pages(o), o);
	}
	stat_sub(&buddy_stats.free_pages, order_pages(order));
	page->flags |= PG_head;
	page->order = order;
	return page;
}

/*
 * __free_one - put the block at pfn back, merging with its buddy for as long
 * as the buddy is a free block of the same order. Zone lock held; the block's
 * pages carry neither PG_buddy nor PG_head.
 */
static void __free_one(unsigned long pfn, unsigned int order)
{
	unsigned long pages = order_pages(order);

	assert_spin_locked(&zone.lock);
	while (order < MAX_ORDER) {
		unsigned long buddy_pfn = pfn ^ order_pages(order);
		struct page *buddy;

		if (buddy_pfn >= max_pfn)
			break;
		buddy = pfn_to_page(buddy_pfn);
		if (!(buddy->flags & PG_buddy) || buddy->order != order)
			break;
		list_del_free(buddy, order);
		pfn &= buddy_pfn;
		order++;
	}
	list_add_free(pfn_to_page(pfn), order);
	stat_add(&buddy_stats.free_pages, pages);
}

/* buddy_init: see buddy.h. Boot CPU only, before anything allocates. */
void buddy_init(void)
{
	spin_lock_init(&zone.lock);
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		INIT_LIST_HEAD(&zone.free_list[o]);
	buddy_stats = (struct buddy_stats){ 0 };
	zone.ready = true;
}

/* buddy_add_block: see buddy.h. Panics if a page is not PG_reserved (added twice). */
void buddy_add_block(unsigned long pfn, unsigned int order)
{
	unsigned long flags;

	ASSERT(zone.ready && order <= MAX_ORDER);
	ASSERT(IS_ALIGNED(pfn, order_pages(order)) && pfn + order_pages(order) <= max_pfn);
	flags = spin_lock_irqsave(&zone.lock);
	for (unsigned long i = 0; i < order_pages(order); i++) {
		struct page *p = pfn_to_page(pfn + i);

		ASSERT(p->flags & PG_reserved);
		p->flags &= ~(PG_reserved | PG_buddy | PG_head);
	}
	stat_add(&buddy_stats.managed_pages, order_pages(order));
	__free_one(pfn, order);
	spin_unlock_irqrestore(&zone.lock, flags);
}

/*
 * alloc_pages: see buddy.h. NULL, counted in failed_allocs, when order >
 * MAX_ORDER or no block that large is free (or before buddy_init). The caller
 * owns the block and gives it back with free_pages(page, order).
 */
struct page *alloc_pages(unsigned int order)
{
	struct page *page = NULL;
	unsigned long flags;

	if (WARN_ON(!zone.ready))
		return NULL;
	flags = spin_lock_irqsave(&zone.lock);
	if (order <= MAX_ORDER)
		page = __rmqueue(order);
	stat(page ? &buddy_stats.allocs : &buddy_stats.failed_allocs);
	spin_unlock_irqrestore(&zone.lock, flags);
	return page;
}

/* get_free_pages: see buddy.h. NULL as alloc_pages; free with free_pages_addr(addr, order). */
void *get_free_pages(unsigned int order)
{
	struct page *page = alloc_pages(order);

	return page ? page_address(page) : NULL;
}

/* nr_free_pages: see buddy.h. A lockless snapshot. */
unsigned long nr_free_pages(void)
{
	return READ_ONCE(buddy_stats.free_pages);
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
	FAULT_INSIDE_FREE,	/* page lies inside a free block */
	FAULT_TAIL,		/* page lies inside an allocated block, not at its head */
	FAULT_WRONG_ORDER,	/* head of an allocated block of another order */
	FAULT_NO_BLOCK,		/* managed page in no block: state is corrupt */
};

struct free_verdict {
	enum free_fault fault;
	unsigned long block_pfn;	/* the block the page was found in */
	unsigned int block_order;
};

/*
 * block_of - the head of the free or allocated block covering pfn, or NULL.
 * Only the MAX_ORDER + 1 aligned PFNs at or below pfn can head it.
 */
static struct page *block_of(unsigned long pfn)
{
	for (unsigned int o = 0; o <= MAX_ORDER; o++) {
		struct page *head = pfn_to_page(pfn & ~(order_pages(o) - 1));

		if ((head->flags & (PG_buddy | PG_head)) && head->order >= o)
			return head;
	}
	return NULL;
}

/* check_free - classify a free of (pfn, order), pfn < max_pfn. Zone lock held. */
static void check_free(unsigned long pfn, unsigned int order, struct free_verdict *v)
{
	struct page *page = pfn_to_page(pfn);
	struct page *head;

	v->fault = FREE_OK;
	if (order > MAX_ORDER) {
		v->fault = FAULT_ORDER_RANGE;
	} else if (page->flags & PG_reserved) {
		v->fault = FAULT_RESERVED;
	} else if (page->flags & PG_buddy) {
		v->fault = FAULT_DOUBLE_FREE;
	} else if (page->flags & PG_head) {
		if (page->order != order) {
			v->fault = FAULT_WRONG_ORDER;
			v->block_order = page->order;
		}
	} else {
		head = block_of(pfn);
		if (!head)
			v->fault = FAULT_NO_BLOCK;
		else
			v->fault = head->flags & PG_buddy ? FAULT_INSIDE_FREE : FAULT_TAIL;
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
	[FAULT_INSIDE_FREE] = "not allocated",
	[FAULT_TAIL] = "not the head of an allocation",
	[FAULT_WRONG_ORDER] = "wrong order",
	[FAULT_NO_BLOCK] = "page is in no block (allocator state corrupt)",
};

/* count_bad_free - account a refused free; nothing else changes. */
static void count_bad_free(void)
{
	unsigned long flags = spin_lock_irqsave(&zone.lock);

	stat(&buddy_stats.bad_frees);
	spin_unlock_irqrestore(&zone.lock, flags);
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
	else
		printk("buddy: %s: %s\n", call, what);
	if (v->fault == FAULT_BAD_PTR || v->fault == FAULT_OUTSIDE_RAM ||
	    v->fault == FAULT_MISALIGNED)
		return -EFAULT;
	return -EINVAL;
}

/*
 * free_checked - validate and free (pfn, order) under one lock hold; on a
 * fault, count it and fill v, changing nothing else. pfn < max_pfn.
 */
static bool free_checked(unsigned long pfn, unsigned int order, struct free_verdict *v)
{
	unsigned long flags = spin_lock_irqsave(&zone.lock);

	check_free(pfn, order, v);
	if (v->fault == FREE_OK) {
		pfn_to_page(pfn)->flags &= ~(PG_head | PG_slab | PG_large);
		__free_one(pfn, order);
		stat(&buddy_stats.frees);
	} else {
		stat(&buddy_stats.bad_frees);
	}
	spin_unlock_irqrestore(&zone.lock, flags);
	return v->fault == FREE_OK;
}

/*
 * free_pages: see buddy.h. page must be a mem_map entry heading a block
 * allocated with this order; anything else is refused with -EFAULT (not a
 * mem_map entry) or -EINVAL, reported and counted, before any state changes.
 * The head's owner flags (PG_head, PG_slab, PG_large) are cleared here; an
 * owner that flagged other pages of the block clears them before the free.
 */
int free_pages(struct page *page, unsigned int order)
{
	struct free_verdict v = { .fault = FAULT_BAD_PTR };
	uintptr_t off = (uintptr_t)page - (uintptr_t)mem_map;
	char call[112];
	unsigned long pfn;

	if (off >= max_pfn * sizeof(struct page) || off % sizeof(struct page)) {
		count_bad_free();
		snprintf(call, sizeof(call), "free_pages(page %p order %u)", (void *)page, order);
		return report_bad_free(call, &v);
	}
	pfn = off / sizeof(struct page);
	if (free_checked(pfn, order, &v))
		return 0;
	snprintf(call, sizeof(call), "free_pages(pfn 0x%lx phys 0x%lx virt %p order %u)", pfn,
		 pfn << PAGE_SHIFT, page_address(page), order);
	return report_bad_free(call, &v);
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
	if (v.fault != FREE_OK)
		count_bad_free();
	else if (free_checked(phys >> PAGE_SHIFT, order, &v))
		return 0;
	snprintf(call, sizeof(call), "free_pages_addr(virt %p pfn 0x%lx phys 0x%lx order %u)", addr,
		 phys >> PAGE_SHIFT, phys, order);
	return report_bad_free(call, &v);
}

/* The prefix, then " %6lu" per order: at most 21 characters each. */
#define BUDDYINFO_PREFIX "Node 0, zone   Normal"
#define BUDDYINFO_LEN	(sizeof(BUDDYINFO_PREFIX) + 21 * NR_ORDERS)
_Static_assert(BUDDYINFO_LEN <= 256, "the buddyinfo line stays small on the stack and in printk");

/* buddy_print_info: see buddy.h. One printk, so the line is never split. */
void buddy_print_info(void)
{
	unsigned long nr[NR_ORDERS];
	unsigned long flags;
	char line[BUDDYINFO_LEN];
	size_t len;

	flags = spin_lock_irqsave(&zone.lock);
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		nr[o] = buddy_stats.nr_free[o];
	spin_unlock_irqrestore(&zone.lock, flags);

	len = (size_t)snprintf(line, sizeof(line), BUDDYINFO_PREFIX);
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, " %6lu", nr[o]);
	printk("%s\n", line);
}

/*
 * check_blocks - walk mem_map block by block: every managed page must lie in
 * exactly one well-formed block, and no two free buddies may be left unmerged.
 * Counts free blocks per order into nr and managed/free pages. Zone lock held.
 */
static int check_blocks(unsigned long *nr, unsigned long *managed, unsigned long *free)
{
	unsigned long pfn = 0;

	while (pfn < max_pfn) {
		struct page *page = pfn_to_page(pfn);
		unsigned long kind = page->flags & (PG_reserved | PG_buddy | PG_head);
		unsigned int o = page->order;

		if (kind == PG_reserved) {
			pfn++;
			continue;
		}
		if (kind != PG_buddy && kind != PG_head) {
			printk("buddy_check: pfn 0x%lx: flags 0x%lx: not reserved and not the head"
			       " of exactly one block\n", pfn, page->flags);
			return -1;
		}
		if (o > MAX_ORDER || !IS_ALIGNED(pfn, order_pages(o)) ||
		    pfn + order_pages(o) > max_pfn) {
			printk("buddy_check: pfn 0x%lx: block of order %u misaligned or past"
			       " max_pfn 0x%lx\n", pfn, o, max_pfn);
			return -1;
		}
		for (unsigned long i = 1; i < order_pages(o); i++) {
			if (page[i].flags & (PG_reserved | PG_buddy | PG_head)) {
				printk("buddy_check: pfn 0x%lx inside order-%u block at pfn 0x%lx"
				       " has flags 0x%lx (overlap)\n", pfn + i, o, pfn,
				       page[i].flags);
				return -1;
			}
		}
		if (kind == PG_buddy) {
			unsigned long b = pfn ^ order_pages(o);

			if (o < MAX_ORDER && b < max_pfn && (pfn_to_page(b)->flags & PG_buddy) &&
			    pfn_to_page(b)->order == o) {
				printk("buddy_check: free order-%u buddies at pfn 0x%lx and 0x%lx"
				       " not merged\n", o, pfn, b);
				return -1;
			}
			nr[o]++;
			*free += order_pages(o);
		}
		*managed += order_pages(o);
		pfn += order_pages(o);
	}
	return 0;
}

/*
 * check_list - walk free_list[o]: each entry a mem_map entry flagged free at
 * order o; the links consistent; as many entries as nr_free[o] and as free
 * heads of that order in mem_map (expect). Zone lock held.
 */
static int check_list(unsigned int o, unsigned long expect)
{
	struct list_head *head = &zone.free_list[o];
	unsigned long n = 0;

	for (struct list_head *e = head->next; e != head; e = e->next) {
		struct page *page = list_entry(e, struct page, lru);
		uintptr_t off = (uintptr_t)page - (uintptr_t)mem_map;

		if (off >= max_pfn * sizeof(struct page) || off % sizeof(struct page)) {
			printk("buddy_check: order %u list holds %p, not a mem_map entry\n", o,
			       (void *)page);
			return -1;
		}
		if (e->next->prev != e || e->prev->next != e) {
			printk("buddy_check: order %u list broken at pfn 0x%lx\n", o,
			       page_to_pfn(page));
			return -1;
		}
		if (!(page->flags & PG_buddy) || page->order != o) {
			printk("buddy_check: pfn 0x%lx on order %u list has flags 0x%lx order %u\n",
			       page_to_pfn(page), o, page->flags, page->order);
			return -1;
		}
		if (++n > expect)
			break;	/* also ends a walk round a cycle */
	}
	if (n != expect || n != buddy_stats.nr_free[o]) {
		printk("buddy_check: order %u: list holds %s%lu blocks, mem_map %lu, nr_free %lu\n",
		       o, n > expect ? "over " : "", n, expect, buddy_stats.nr_free[o]);
		return -1;
	}
	return 0;
}

/* buddy_check: see buddy.h. Holds the zone lock for the whole walk. */
int buddy_check(void)
{
	unsigned long nr[NR_ORDERS] = { 0 };
	unsigned long managed = 0, free = 0;
	unsigned long flags;
	int ret;

	if (!zone.ready)
		return 0;
	flags = spin_lock_irqsave(&zone.lock);
	ret = check_blocks(nr, &managed, &free);
	for (unsigned int o = 0; o <= MAX_ORDER && !ret; o++)
		ret = check_list(o, nr[o]);
	if (!ret && (managed != buddy_stats.managed_pages || free != buddy_stats.free_pages)) {
		printk("buddy_check: mem_map has %lu managed / %lu free pages,"
		       " stats say %lu / %lu\n", managed, free, buddy_stats.managed_pages,
		       buddy_stats.free_pages);
		ret = -1;
	}
	spin_unlock_irqrestore(&zone.lock, flags);
	return ret;
}
