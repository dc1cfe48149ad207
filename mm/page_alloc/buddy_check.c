/*
 * buddy_check.c - reading the page allocator: counters, the buddyinfo line,
 * and buddy_check(), the invariant walk the tests lean on.
 *
 * Counters. Each zone's counts (managed pages, free pages and blocks per
 * order on its lists) are read under its lock and summed over zones. Each CPU's list length and
 * event counters (mm/page_alloc/buddy_internal.h) are written only by that CPU; they
 * are read here without its cooperation, one word at a time, so a sum over
 * CPUs is a snapshot: exact when those CPUs are not allocating or freeing.
 * nr_free_pages() is the zone's free pages plus the pages on every CPU's
 * lists.
 *
 * buddy_check() walks mem_map under every zone's lock. It verifies each zone exactly
 * (every managed page in one well-formed block, a free block's flags PG_buddy
 * or PG_pcp on its head and none on its other pages, no unmerged free buddies,
 * lists and counters equal to mem_map) and the calling CPU's lists exactly
 * (each entry PG_pcp with its list's order, links whole, the pages on the
 * lists adding up to its count). Other CPUs' lists are not walked (only
 * their owners may), but each PG_pcp block must be of order 0 to
 * PCP_MAX_ORDER, and they must hold at least as many pages as this CPU's
 * lists do.
 *
 * Lock order: the zone locks in node order (interrupts off) -> the console lock. The walk and
 * the reports are for tests and boot: O(pages), not for hot paths.
 * buddyinfo is one line per online node's zone (one line on one node).
 */
#include "mm/page_alloc/buddy_internal.h"
#include "kernel/printk.h"
#include "kernel/string.h"

/* nr_free_pages: see buddy.h. A lockless snapshot. */
unsigned long nr_free_pages(void)
{
	unsigned long n = 0;

	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++)
		n += READ_ONCE(node_zones[nid].free_pages);

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		n += pcp_count(per_cpu_ptr(pcp_lists, cpu));
	return n;
}

/* buddy_read_stats: see buddy.h. */
void buddy_read_stats(struct buddy_stats *st)
{
	unsigned long flags;

	*st = (struct buddy_stats){ 0 };
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
		struct zone *z = &node_zones[nid];

		flags = spin_lock_irqsave(&z->lock);
		st->managed_pages += z->managed_pages;
		st->free_pages += z->free_pages;
		for (unsigned int o = 0; o <= MAX_ORDER; o++)
			st->nr_free[o] += z->nr_free[o];
#if SPIN_LOCK_STATS
		st->lock_contended += z->lock.contended;
		st->lock_turns += z->lock.turns;
#endif
		spin_unlock_irqrestore(&z->lock, flags);
	}
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
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++)
		spin_lock_stats_reset(&node_zones[nid].lock);
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

/*
 * buddy_restore_stats: see buddy.h. Every CPU idle, one node (the state
 * buddy_init leaves); the event counts land on CPU 0, the NUMA events are zeroed.
 */
void buddy_restore_stats(const struct buddy_stats *st)
{
	struct zone *z = &node_zones[0];
	unsigned long flags = spin_lock_irqsave(&z->lock);

	z->managed_pages = st->managed_pages;
	pcp_set_marks(z);
	spin_unlock_irqrestore(&z->lock, flags);
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct per_cpu_pages *pcp = per_cpu_ptr(pcp_lists, cpu);

		pcp->allocs = cpu ? 0 : st->allocs;
		pcp->frees = cpu ? 0 : st->frees;
		pcp->failed_allocs = cpu ? 0 : st->failed_allocs;
		pcp->bad_frees = cpu ? 0 : st->bad_frees;
		pcp->numa_counted = 0;
		memset(pcp->numa_events, 0, sizeof(pcp->numa_events));
	}
}

/* The prefix, then " %6lu" per order: at most 21 characters each. */
#define BUDDYINFO_PREFIX "Node %u, zone   Normal"
#define BUDDYINFO_LEN	(sizeof(BUDDYINFO_PREFIX) + 21 * NR_ORDERS)
_Static_assert(BUDDYINFO_LEN <= 256, "the buddyinfo line stays small on the stack and in printk");

/* buddy_print_info: see buddy.h. One printk per line, so a line is never split. */
void buddy_print_info(void)
{
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
		struct zone *z = &node_zones[nid];
		unsigned long nr[NR_ORDERS];
		unsigned long flags;
		char line[BUDDYINFO_LEN];
		size_t len;

		if (!(buddy_numa.online & (1U << nid)))
			continue;
		flags = spin_lock_irqsave(&z->lock);
		for (unsigned int o = 0; o <= MAX_ORDER; o++)
			nr[o] = z->nr_free[o];
		spin_unlock_irqrestore(&z->lock, flags);

		len = (size_t)snprintf(line, sizeof(line), BUDDYINFO_PREFIX, nid);
		for (unsigned int o = 0; o <= MAX_ORDER; o++)
			len += (size_t)snprintf(line + len, sizeof(line) - len, " %6lu", nr[o]);
		printk("%s\n", line);
	}
}

/* What a mem_map walk counted, per node. */
struct walk_counts {
	unsigned long nr[NR_ORDERS];	/* zone free blocks per order */
	unsigned long managed;
	unsigned long free;		/* pages in zone free blocks */
	unsigned long pcp;		/* pages in PG_pcp blocks (on some CPU's list) */
};

/*
 * check_blocks - walk mem_map block by block: every managed page must lie in
 * exactly one well-formed block of one node, and no two free buddies of a
 * node may be left unmerged. c[nid] gets node nid's counts. Every zone lock held.
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
		unsigned int o = page->order, nid = page->nid;

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
		if (nid >= MAX_NUMNODES || !(buddy_numa.online & (1U << nid))) {
			printk("buddy_check: pfn 0x%lx: node %u is not an online node\n", pfn, nid);
			return -1;
		}
		if (kind != PG_head &&
		    flags != (kind == PG_buddy ? node_zones[nid].buddy_flags : kind)) {
			printk("buddy_check: pfn 0x%lx: free order-%u block's head has flags 0x%lx"
			       " (a free page holds no flag but 0x%lx)\n", pfn, o, flags, kind);
			return -1;
		}
		for (unsigned long i = 1; i < order_pages(o); i++) {
			unsigned long f = READ_ONCE(page[i].flags);

			if (page[i].nid != nid) {
				printk("buddy_check: order-%u block at pfn 0x%lx spans nodes %u and"
				       " %u (pfn 0x%lx)\n", o, pfn, nid, page[i].nid, pfn + i);
				return -1;
			}

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

			if (o < MAX_ORDER && b - PFN_OFFSET < mem_map_entries() &&
			    (pfn_to_page(b)->flags & PG_buddy) && pfn_to_page(b)->order == o &&
			    pfn_to_page(b)->nid == nid) {
				printk("buddy_check: free order-%u buddies at pfn 0x%lx and 0x%lx"
				       " not merged\n", o, pfn, b);
				return -1;
			}
			c[nid].nr[o]++;
			c[nid].free += order_pages(o);
		}
		c[nid].pcp += kind == PG_pcp ? order_pages(o) : 0;
		c[nid].managed += order_pages(o);
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
 * flag 'flag', order o and node nid, the links consistent, 'expect' entries in all;
 * or, when walked is not NULL, at most 'expect', their number stored in
 * *walked. 'what' names the list in reports. Zone lock held.
 */
static int check_list(struct list_head *head, unsigned long flag, unsigned int o,
		      unsigned int nid, unsigned long expect, const char *what,
		      unsigned long *walked)
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
		if ((page->flags & (PG_buddy | PG_pcp | PG_head)) != flag || page->order != o ||
		    page->nid != nid) {
			printk("buddy_check: pfn 0x%lx on node %u's %s list has flags 0x%lx order %u"
			       " node %u\n", page_to_pfn(page), nid, what, page->flags, page->order,
			       page->nid);
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

/* check_zone - zone z's lists and counters against c (its node's walk counts). Locks held. */
static int check_zone(struct zone *z, const struct walk_counts *c)
{
	static const char *const order_names[] = { "order 0", "order 1", "order 2", "order 3",
						    "order 4", "order 5", "order 6", "order 7",
						    "order 8", "order 9", "order 10" };

	_Static_assert(ARRAY_SIZE(order_names) >= NR_ORDERS, "a name per order");
	for (unsigned int o = 0; o <= MAX_ORDER; o++) {
		if (check_list(&z->free_list[o], PG_buddy, o, z->node, c->nr[o], order_names[o],
			       NULL))
			return -1;
		if (c->nr[o] != z->nr_free[o]) {
			printk("buddy_check: node %u %s: %lu free blocks, nr_free says %lu\n",
			       z->node, order_names[o], c->nr[o], z->nr_free[o]);
			return -1;
		}
	}
	if (c->managed != z->managed_pages || c->free != z->free_pages) {
		printk("buddy_check: node %u: mem_map has %lu managed / %lu free, zone says"
		       " %lu / %lu\n", z->node, c->managed, c->free, z->managed_pages,
		       z->free_pages);
		return -1;
	}
	return 0;
}

/*
 * buddy_check: see buddy.h. Holds every zone's lock, in node order (the
 * lock order between zones), for the whole walk.
 */
int buddy_check(void)
{
	static const char *const pcp_names[] = { "this CPU's order-0", "this CPU's order-1",
						  "this CPU's order-2", "this CPU's order-3" };
	static struct walk_counts c[MAX_NUMNODES];	/* under every zone lock */
	unsigned long pcp_pages = 0;
	struct per_cpu_pages *pcp;
	unsigned long flags;
	int ret = 0;

	_Static_assert(ARRAY_SIZE(pcp_names) == PCP_ORDERS, "a name per CPU list");
	if (!node_zones[0].ready)
		return 0;
	flags = arch_irq_save();
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++)
		spin_lock(&node_zones[nid].lock);
	memset(c, 0, sizeof(c));
	pcp = this_cpu_ptr(pcp_lists);
	ret = check_blocks(c);
	for (unsigned int nid = 0; nid < MAX_NUMNODES && !ret; nid++) {
		ret = check_zone(&node_zones[nid], &c[nid]);
	}
	if (!ret && pcp->zone != &node_zones[pcp->nid]) {
		printk("buddy_check: this CPU's lists belong to node %u's zone, not node %u's\n",
		       pcp->zone->node, pcp->nid);
		ret = -1;
	}
	for (unsigned int o = 0; o <= PCP_MAX_ORDER && !ret; o++) {
		unsigned long n = 0;

		ret = check_list(&pcp->lists[o], PG_pcp, o, pcp->nid, pcp_count(pcp) >> o,
				 pcp_names[o], &n);
		pcp_pages += n << o;
	}
	if (!ret && pcp_pages != pcp_count(pcp)) {
		printk("buddy_check: this CPU's lists hold %lu pages, its count says %lu\n",
		       pcp_pages, pcp_count(pcp));
		ret = -1;
	}
	if (!ret && c[pcp->nid].pcp < pcp_count(pcp)) {
		printk("buddy_check: mem_map has %lu pages of node %u on CPU lists, this CPU's"
		       " lists %lu\n", c[pcp->nid].pcp, pcp->nid, pcp_count(pcp));
		ret = -1;
	}
	for (unsigned int nid = MAX_NUMNODES; nid-- > 0;)
		spin_unlock(&node_zones[nid].lock);
	arch_irq_restore(flags);
	return ret;
}
