/*
 * buddy_check.c - reading the page allocator: counters, the buddyinfo line,
 * and buddy_check(), the invariant walk the tests lean on.
 *
 * Counters. The zone's counts (managed pages, free pages and blocks per
 * order on its lists) are read under zone.lock. Each CPU's list length and
 * event counters (mm/page_alloc/buddy_internal.h) are written only by that CPU; they
 * are read here without its cooperation, one word at a time, so a sum over
 * CPUs is a snapshot: exact when those CPUs are not allocating or freeing.
 * nr_free_pages() is the zone's free pages plus the pages on every CPU's
 * lists.
 *
 * buddy_check() walks mem_map under zone.lock. It verifies the zone exactly
 * (every managed page in one well-formed block, a free block's flags PG_buddy
 * or PG_pcp on its head and none on its other pages, no unmerged free buddies,
 * lists and counters equal to mem_map) and the calling CPU's lists exactly
 * (each entry PG_pcp with its list's order, links whole, the pages on the
 * lists adding up to its count). Other CPUs' lists are not walked (only
 * their owners may), but each PG_pcp block must be of order 0 to
 * PCP_MAX_ORDER, and they must hold at least as many pages as this CPU's
 * lists do.
 *
 * Lock order: zone.lock (interrupts off) -> the console lock. The walk and
 * the reports are for tests and boot: O(pages), not for hot paths.
 * Departure from Linux: buddyinfo is one line for the one zone.
 */
#include "mm/page_alloc/buddy_internal.h"
#include "kernel/printk.h"

#define zone buddy_zone

/* nr_free_pages: see buddy.h. A lockless snapshot. */
unsigned long nr_free_pages(void)
{
	unsigned long n = READ_ONCE(zone.free_pages);

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		n += pcp_count(per_cpu_ptr(pcp_lists, cpu));
	return n;
}

/* buddy_read_stats: see buddy.h. */
void buddy_read_stats(struct buddy_stats *st)
{
	unsigned long flags;

	*st = (struct buddy_stats){ 0 };
	flags = spin_lock_irqsave(&zone.lock);
	st->managed_pages = zone.managed_pages;
	st->free_pages = zone.free_pages;
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		st->nr_free[o] = zone.nr_free[o];
#if SPIN_LOCK_STATS
	st->lock_contended = zone.lock.contended;
	st->lock_turns = zone.lock.turns;
#endif
	spin_unlock_irqrestore(&zone.lock, flags);
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct per_cpu_pages *pcp = per_cpu_ptr(pcp_lists, cpu);

		st->pcp_pages += pcp_count(pcp);
		st->allocs += READ_ONCE(pcp->allocs);
		st->frees += READ_ONCE(pcp->frees);
		st->failed_allocs += READ_ONCE(pcp->failed_allocs);
		st->bad_frees += READ_ONCE(pcp->bad_frees);
	}
	st->free_pages += st->pcp_pages;
}

/* buddy_lock_stats_reset: see buddy.h. */
void buddy_lock_stats_reset(void)
{
	spin_lock_stats_reset(&zone.lock);
}

/* buddy_cpu_events: see buddy.h. */
unsigned long buddy_cpu_events(unsigned int cpu)
{
	const struct per_cpu_pages *pcp = per_cpu_ptr(pcp_lists, cpu);

	return READ_ONCE(pcp->allocs) + READ_ONCE(pcp->frees) + READ_ONCE(pcp->failed_allocs) +
	       READ_ONCE(pcp->bad_frees);
}

/* buddy_pcp_count: see buddy.h. */
unsigned long buddy_pcp_count(unsigned int cpu)
{
	return pcp_count(per_cpu_ptr(pcp_lists, cpu));
}

/* buddy_restore_stats: see buddy.h. Every CPU idle; the event counts land on CPU 0. */
void buddy_restore_stats(const struct buddy_stats *st)
{
	unsigned long flags = spin_lock_irqsave(&zone.lock);

	zone.managed_pages = st->managed_pages;
	pcp_set_marks();
	spin_unlock_irqrestore(&zone.lock, flags);
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct per_cpu_pages *pcp = per_cpu_ptr(pcp_lists, cpu);

		pcp->allocs = cpu ? 0 : st->allocs;
		pcp->frees = cpu ? 0 : st->frees;
		pcp->failed_allocs = cpu ? 0 : st->failed_allocs;
		pcp->bad_frees = cpu ? 0 : st->bad_frees;
	}
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
		nr[o] = zone.nr_free[o];
	spin_unlock_irqrestore(&zone.lock, flags);

	len = (size_t)snprintf(line, sizeof(line), BUDDYINFO_PREFIX);
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, " %6lu", nr[o]);
	printk("%s\n", line);
}

/* What a mem_map walk counted. */
struct walk_counts {
	unsigned long nr[NR_ORDERS];	/* zone free blocks per order */
	unsigned long managed;
	unsigned long free;		/* pages in zone free blocks */
	unsigned long pcp;		/* pages in PG_pcp blocks (on some CPU's list) */
};

/*
 * check_blocks - walk mem_map block by block: every managed page must lie in
 * exactly one well-formed block, and no two free buddies may be left
 * unmerged. Zone lock held.
 */
static int check_blocks(struct walk_counts *c)
{
	unsigned long pfn = PFN_OFFSET;

	while (pfn < max_pfn) {
		struct page *page = pfn_to_page(pfn);
		/*
		 * Read once: a PG_pcp block's owner CPU may allocate it (and
		 * turn PG_pcp into PG_head) at any time without the zone lock.
		 */
		unsigned long flags = READ_ONCE(page->flags);
		unsigned long kind = flags & (PG_reserved | PG_buddy | PG_head | PG_pcp);
		unsigned int o = page->order;

		if (kind == PG_reserved) {
			pfn++;
			continue;
		}
		if (kind != PG_buddy && kind != PG_head && kind != PG_pcp) {
			printk("buddy_check: pfn 0x%lx: flags 0x%lx: not reserved and not the head"
			       " of exactly one block\n", pfn, flags);
			return -1;
		}
		if (o > MAX_ORDER || !IS_ALIGNED(pfn, order_pages(o)) ||
		    pfn + order_pages(o) > max_pfn || (kind == PG_pcp && o > PCP_MAX_ORDER)) {
			printk("buddy_check: pfn 0x%lx: block of order %u misaligned or past"
			       " max_pfn 0x%lx (flags 0x%lx)\n", pfn, o, max_pfn, flags);
			return -1;
		}
		if (kind != PG_head && flags != kind) {
			printk("buddy_check: pfn 0x%lx: free order-%u block's head has flags 0x%lx"
			       " (a free page holds no flag but 0x%lx)\n", pfn, o, flags, kind);
			return -1;
		}
		for (unsigned long i = 1; i < order_pages(o); i++) {
			unsigned long f = READ_ONCE(page[i].flags);

			if (f & (PG_reserved | PG_buddy | PG_head | PG_pcp)) {
				printk("buddy_check: pfn 0x%lx inside order-%u block at pfn 0x%lx"
				       " has flags 0x%lx (overlap)\n", pfn + i, o, pfn, f);
				return -1;
			}
			/* a listed block's tails, unless its owner has taken it meanwhile */
			if (f && (kind == PG_buddy ||
				  (kind == PG_pcp && READ_ONCE(page->flags) == PG_pcp))) {
				printk("buddy_check: pfn 0x%lx inside free order-%u block at pfn"
				       " 0x%lx has flags 0x%lx (a free page holds none)\n", pfn + i,
				       o, pfn, f);
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
			c->nr[o]++;
			c->free += order_pages(o);
		}
		c->pcp += kind == PG_pcp ? order_pages(o) : 0;
		c->managed += order_pages(o);
		pfn += order_pages(o);
	}
	return 0;
}

/* Is page a mem_map entry? */
static bool in_mem_map(const struct page *page)
{
	uintptr_t off = (uintptr_t)page - (uintptr_t)mem_map;

	return off < mem_map_entries() * sizeof(struct page) && off % sizeof(struct page) == 0;
}

/*
 * check_list - walk a list of free blocks: each entry a mem_map entry with
 * flag 'flag' and order o, the links consistent, 'expect' entries in all;
 * or, when walked is not NULL, at most 'expect', their number stored in
 * *walked. 'what' names the list in reports. Zone lock held.
 */
static int check_list(struct list_head *head, unsigned long flag, unsigned int o,
		      unsigned long expect, const char *what, unsigned long *walked)
{
	unsigned long n = 0;

	for (struct list_head *e = head->next; e != head; e = e->next) {
		struct page *page = list_entry(e, struct page, lru);

		if (!in_mem_map(page)) {
			printk("buddy_check: %s list holds %p, not a mem_map entry\n", what,
			       (void *)page);
			return -1;
		}
		if (e->next->prev != e || e->prev->next != e) {
			printk("buddy_check: %s list broken at pfn 0x%lx\n", what,
			       page_to_pfn(page));
			return -1;
		}
		if ((page->flags & (PG_buddy | PG_pcp | PG_head)) != flag || page->order != o) {
			printk("buddy_check: pfn 0x%lx on the %s list has flags 0x%lx order %u\n",
			       page_to_pfn(page), what, page->flags, page->order);
			return -1;
		}
		if (++n > expect)
			break;	/* also ends a walk round a cycle */
	}
	if (walked && n <= expect) {
		*walked = n;
		return 0;
	}
	if (n != expect) {
		printk("buddy_check: %s list holds %s%lu pages or blocks, expected %s%lu\n", what,
		       n > expect ? "over " : "", n, walked ? "at most " : "", expect);
		return -1;
	}
	return 0;
}

/* buddy_check: see buddy.h. Holds the zone lock for the whole walk. */
int buddy_check(void)
{
	static const char *const order_names[] = { "order 0", "order 1", "order 2", "order 3",
						    "order 4", "order 5", "order 6", "order 7",
						    "order 8", "order 9", "order 10" };
	static const char *const pcp_names[] = { "this CPU's order-0", "this CPU's order-1",
						  "this CPU's order-2", "this CPU's order-3" };
	struct walk_counts c = { .managed = 0 };
	unsigned long pcp_pages = 0;
	struct per_cpu_pages *pcp;
	unsigned long flags;
	int ret;

	_Static_assert(ARRAY_SIZE(order_names) >= NR_ORDERS, "a name per order");
	_Static_assert(ARRAY_SIZE(pcp_names) == PCP_ORDERS, "a name per CPU list");
	if (!zone.ready)
		return 0;
	flags = spin_lock_irqsave(&zone.lock);
	pcp = this_cpu_ptr(pcp_lists);
	ret = check_blocks(&c);
	for (unsigned int o = 0; o <= MAX_ORDER && !ret; o++) {
		ret = check_list(&zone.free_list[o], PG_buddy, o, c.nr[o], order_names[o], NULL);
		if (!ret && c.nr[o] != zone.nr_free[o]) {
			printk("buddy_check: %s: %lu free blocks, nr_free says %lu\n",
			       order_names[o], c.nr[o], zone.nr_free[o]);
			ret = -1;
		}
	}
	for (unsigned int o = 0; o <= PCP_MAX_ORDER && !ret; o++) {
		unsigned long n = 0;

		ret = check_list(&pcp->lists[o], PG_pcp, o, pcp_count(pcp) >> o, pcp_names[o], &n);
		pcp_pages += n << o;
	}
	if (!ret && pcp_pages != pcp_count(pcp)) {
		printk("buddy_check: this CPU's lists hold %lu pages, its count says %lu\n",
		       pcp_pages, pcp_count(pcp));
		ret = -1;
	}
	if (!ret && (c.managed != zone.managed_pages || c.free != zone.free_pages ||
		     c.pcp < pcp_count(pcp))) {
		printk("buddy_check: mem_map has %lu managed / %lu free / %lu on CPU lists,"
		       " zone says %lu / %lu, this CPU's lists %lu\n", c.managed, c.free, c.pcp,
		       zone.managed_pages, zone.free_pages, pcp_count(pcp));
		ret = -1;
	}
	spin_unlock_irqrestore(&zone.lock, flags);
	return ret;
}
