/*
 * buddy_numa.c - the page allocator on several NUMA nodes: one zone per
 * node, allocation from a chosen node with fallback in distance order, the
 * free of another node's page, numastat counters, and the move from the one
 * boot zone to the node zones once the topology is known.
 *
 * Concepts. node_zones[n] holds the free blocks whose pages lie in node n's
 * memory ranges; page->nid names a page's node and so its zone
 * (page_zone). Each CPU's lists (struct per_cpu_pages) belong to its node's
 * zone (pcp->zone, pcp->nid): refills come from it, drains go to it. The
 * free fast path takes a block onto this CPU's lists only when it lies in
 * the CPU's window (pcp->map_base, map_entries: the longest run of its
 * node's pages; all of mem_map on one node), which costs the fast path
 * nothing over the mem_map range check it replaces; a block of another
 * node, or of this node outside the window, takes free_pages' slow path
 * to its own zone (page_zone), never onto this CPU's lists. A zone's free
 * block head carries its node in its flags word (zone->buddy_flags), so
 * the merge test, one compare of the buddy's flags, never merges across
 * nodes. When a node's zone cannot serve an allocation, the zones of
 * the other nodes are tried nearest first (buddy_numa.fallback, built from
 * node_distance with ties by node id); such a block comes straight from
 * the other zone, not through this CPU's lists.
 *
 * Boot. mm_init runs before the CPUs are numbered, so before the topology
 * can be checked (kernel/numa.c): every page starts on node 0 and all RAM
 * is node_zones[0], exactly the one-node allocator. buddy_numa_init, once
 * numa_init has run, gives every page its node, drains every CPU's lists,
 * takes every free block off zone 0 and frees it again into its node's
 * zone, split where a node boundary crosses it, and ties each CPU's lists
 * to its node's zone. A block allocated before and crossing a node
 * boundary (a boundary not aligned to its size) stays whole: all its pages
 * take its head page's node, and it goes back to that node's zone when
 * freed. One-node topologies change nothing.
 *
 * Invariants (buddy_check): a free block's pages all have the block's
 * node, and the block is on that node's zone's list or on the lists of a
 * CPU of that node; buddies merge only within a node (free_one_locked
 * compares page->nid), so a zone never holds another node's page.
 *
 * Lock order: interrupts off -> this CPU's lists -> one zone lock at a time
 * (allocation and free never hold two); buddy_numa_init and buddy_check
 * take every zone lock, in node order.
 *
 * Counters. Linux's numastat events (enum numa_stat_item) are counted per
 * CPU. An allocation whose wanted node, serving node and CPU node are all
 * the same is a numa_hit and a local_node of that node: those are not
 * counted separately but read as allocs - numa_counted, so the fast paths
 * do no more than before. Every other allocation is counted by numa_count.
 */
#include "mm/page_alloc/buddy_internal.h"
#include "kernel/bug.h"
#include "kernel/printk.h"
#include "mm/fault_inject.h"

/* numa_count: see mm/page_alloc/buddy_internal.h. Interrupts off, after allocs++. */
void numa_count(struct per_cpu_pages *pcp, unsigned int preferred, unsigned int served)
{
	assert_irqs_disabled();
	pcp->numa_counted++;
	if (preferred == served) {
		pcp->numa_events[served][NUMA_HIT]++;
	} else {
		pcp->numa_events[served][NUMA_MISS]++;
		pcp->numa_events[preferred][NUMA_FOREIGN]++;
	}
	pcp->numa_events[served][served == pcp->nid ? NUMA_LOCAL : NUMA_OTHER]++;
}

/* numa_alloc_fallback: see mm/page_alloc/buddy_internal.h. */
struct page *numa_alloc_fallback(struct per_cpu_pages *pcp, unsigned int preferred,
				 unsigned int order, bool skip_own)
{
	assert_irqs_disabled();
	for (unsigned int i = skip_own ? 1 : 0; i < buddy_numa.nr_fallback[preferred]; i++) {
		unsigned int nid = buddy_numa.fallback[preferred][i];
		struct zone *z = &node_zones[nid];
		struct page *page;

		spin_lock(&z->lock);
		page = __rmqueue(z, order);
		spin_unlock(&z->lock);
		if (page) {
			pcp->allocs++;
			numa_count(pcp, preferred, nid);
			return page;
		}
	}
	pcp->failed_allocs++;
	return NULL;
}

/*
 * alloc_pages_node: see buddy.h. The running CPU's node goes through
 * alloc_pages (its lists); another node's blocks come from that node's
 * zone, then the zones nearest to it.
 */
struct page *alloc_pages_node(unsigned int nid, unsigned int order)
{
	struct per_cpu_pages *pcp;
	struct page *page = NULL;
	unsigned long flags;

	if (nid == NUMA_NO_NODE)
		return alloc_pages(order);
	if (nid >= MAX_NUMNODES || !(READ_ONCE(buddy_numa.online) & (1U << nid))) {
		printk("buddy: alloc_pages_node(node %u, order %u): node %u is not online (%u"
		       " node%s online); allocating on the running CPU's node\n", nid, order, nid,
		       buddy_numa.nr_nodes, buddy_numa.nr_nodes == 1 ? "" : "s");
		return alloc_pages(order);
	}
	flags = arch_irq_save();
	pcp = this_cpu_ptr(pcp_lists);
	if (nid == pcp->nid || !node_zones[0].ready) {
		arch_irq_restore(flags);
		return alloc_pages(order);
	}
	if (order > MAX_ORDER ||
	    (fault_attr_on(&fail_page_alloc) && should_fail(&fail_page_alloc)))
		pcp->failed_allocs++;
	else
		page = numa_alloc_fallback(pcp, nid, order, false);
	arch_irq_restore(flags);
	return page;
}

/* buddy_read_numa_stats: see buddy.h. */
void buddy_read_numa_stats(unsigned int nid, struct buddy_numa_stats *st)
{
	*st = (struct buddy_numa_stats){ { 0 } };
	if (nid >= MAX_NUMNODES)
		return;
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct per_cpu_pages *pcp = per_cpu_ptr(pcp_lists, cpu);

		for (unsigned int i = 0; i < NR_NUMA_STATS; i++)
			st->ev[i] += READ_ONCE(pcp->numa_events[nid][i]);
		if (READ_ONCE(pcp->nid) == nid) {
			unsigned long implicit = READ_ONCE(pcp->allocs) - READ_ONCE(pcp->numa_counted);

			st->ev[NUMA_HIT] += implicit;
			st->ev[NUMA_LOCAL] += implicit;
		}
	}
}

/* nr_free_pages_node: see buddy.h. A lockless snapshot. */
unsigned long nr_free_pages_node(unsigned int nid)
{
	unsigned long n;

	if (nid >= MAX_NUMNODES)
		return 0;
	n = READ_ONCE(node_zones[nid].free_pages);
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct per_cpu_pages *pcp = per_cpu_ptr(pcp_lists, cpu);

		if (READ_ONCE(pcp->nid) == nid)
			n += pcp_count(pcp);
	}
	return n;
}

/* build_fallback - each online node's allocation order: itself, then by distance and id. */
static void build_fallback(const struct numa_topology *t)
{
	buddy_numa.nr_nodes = t->nr_nodes;
	buddy_numa.online = t->online;
	for (unsigned int a = 0; a < MAX_NUMNODES; a++) {
		unsigned int n = 0;

		if (!(t->online & (1U << a))) {
			buddy_numa.nr_fallback[a] = 0;
			continue;
		}
		for (unsigned int b = 0; b < MAX_NUMNODES; b++) {
			unsigned int key, j;

			if (!(t->online & (1U << b)))
				continue;
			key = a == b ? 0 : node_distance(a, b);
			/* insert after every node nearer, or as near with a lower id */
			for (j = n; j > 0; j--) {
				unsigned int prev = buddy_numa.fallback[a][j - 1];
				unsigned int pkey = prev == a ? 0 : node_distance(a, prev);

				if (pkey <= key)
					break;
				buddy_numa.fallback[a][j] = buddy_numa.fallback[a][j - 1];
			}
			buddy_numa.fallback[a][j] = (uint8_t)b;
			n++;
		}
		buddy_numa.nr_fallback[a] = (uint8_t)n;
	}
}

/* set_page_nodes - page->nid from t's ranges (a page goes by its first byte). Locks held. */
static void set_page_nodes(const struct numa_topology *t)
{
	unsigned int k = 0, nid = t->n_ranges ? t->ranges[0].node : 0;

	for (unsigned long pfn = PFN_OFFSET; pfn < max_pfn; pfn++) {
		uint64_t addr = (uint64_t)pfn << PAGE_SHIFT;

		while (k < t->n_ranges && t->ranges[k].start <= addr)
			nid = t->ranges[k++].node;	/* holes take the node below */
		pfn_to_page(pfn)->nid = (unsigned short)nid;
	}
	/* An allocated block keeps one node: its head's (see Boot above). */
	for (unsigned long pfn = PFN_OFFSET; pfn < max_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);

		if (!(page->flags & PG_head) || page->order > MAX_ORDER)
			continue;
		for (unsigned long i = 1; i < order_pages(page->order) && pfn + i < max_pfn; i++)
			page[i].nid = page->nid;
		pfn += order_pages(page->order) - 1;
	}
}

/*
 * set_window - pcp's free-path window: the longest run of whole pages of
 * node nid's ranges (ranges that touch joined), clipped to mem_map; none
 * for a node without memory.
 */
static void set_window(struct per_cpu_pages *pcp, const struct numa_topology *t,
		       unsigned int nid)
{
	unsigned long best_lo = 0, best_n = 0;

	for (unsigned int i = 0; i < t->n_ranges; i++) {
		uint64_t start = t->ranges[i].start, end = t->ranges[i].end;
		unsigned long lo, hi;

		if (t->ranges[i].node != nid)
			continue;
		while (i + 1 < t->n_ranges && t->ranges[i + 1].node == nid &&
		       t->ranges[i + 1].start == end)
			end = t->ranges[++i].end;
		lo = (unsigned long)DIV_ROUND_UP(start, (uint64_t)PAGE_SIZE);
		hi = (unsigned long)(end >> PAGE_SHIFT);
		lo = MAX(lo, PFN_OFFSET);
		hi = MIN(hi, max_pfn);
		if (hi > lo && hi - lo > best_n) {
			best_lo = lo;
			best_n = hi - lo;
		}
	}
	pcp->map_base = best_n ? (uintptr_t)pfn_to_page(best_lo) : (uintptr_t)mem_map;
	pcp->map_entries = best_n;
}

/* rehome_block - free the block (pfn, order), flags 0, into its nodes' zones, split at node changes. */
static void rehome_block(unsigned long pfn, unsigned int order)
{
	unsigned int nid = pfn_to_page(pfn)->nid;

	for (unsigned long i = 1; i < order_pages(order); i++) {
		if (pfn_to_page(pfn + i)->nid != nid) {
			rehome_block(pfn, order - 1);
			rehome_block(pfn + order_pages(order - 1), order - 1);
			return;
		}
	}
	__free_one(&node_zones[nid], pfn, order);
}

/* buddy_numa_init: see buddy.h. */
void buddy_numa_init(void)
{
	const struct numa_topology *t = numa_topology();
	struct zone *z0 = &node_zones[0];
	unsigned long flags;

	if (t->nr_nodes <= 1 || !z0->ready)
		return;
	drain_all_pages();
	flags = arch_irq_save();
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++)
		spin_lock(&node_zones[nid].lock);
	/*
	 * Every free block off the zone it is on (zone 0 at boot; a topology
	 * given again has them on the old one's zones), marked PG_pcp (no page
	 * has it: all lists drained).
	 */
	for (unsigned long pfn = PFN_OFFSET; pfn < max_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);

		if (!(page->flags & PG_buddy))
			continue;
		zone_list_del(&node_zones[page->nid], page, page->order);
		page->flags = PG_pcp;
		pfn += order_pages(page->order) - 1;
	}
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++)
		for (unsigned int o = 0; o <= MAX_ORDER; o++)
			ASSERT(!node_zones[nid].nr_free[o] && list_empty(&node_zones[nid].free_list[o]));
	set_page_nodes(t);
	build_fallback(t);
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
		node_zones[nid].free_pages = 0;
		node_zones[nid].managed_pages = 0;
	}
	for (unsigned long pfn = PFN_OFFSET; pfn < max_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);

		if (!(page->flags & PG_reserved))
			node_zones[page->nid].managed_pages++;
		if (page->flags == PG_pcp) {
			unsigned int o = page->order;

			page->flags = 0;
			rehome_block(pfn, o);
			for (unsigned long i = 1; i < order_pages(o); i++)
				node_zones[pfn_to_page(pfn + i)->nid].managed_pages++;
			pfn += order_pages(o) - 1;
		}
	}
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct per_cpu_pages *pcp = per_cpu_ptr(pcp_lists, cpu);
		unsigned int nid = cpu_to_node(cpu);
		unsigned long implicit = pcp->allocs - pcp->numa_counted;

		/* hits so far were node 0's (the only zone): counted as such */
		pcp->numa_events[pcp->nid][NUMA_HIT] += implicit;
		pcp->numa_events[pcp->nid][NUMA_LOCAL] += implicit;
		pcp->numa_counted = pcp->allocs;
		if (!(t->online & (1U << nid)))
			nid = 0;
		pcp->zone = &node_zones[nid];
		pcp->nid = nid;
		set_window(pcp, t, nid);
	}
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++)
		pcp_set_marks(&node_zones[nid]);
	for (unsigned int nid = MAX_NUMNODES; nid-- > 0;)
		spin_unlock(&node_zones[nid].lock);
	arch_irq_restore(flags);
	printk("buddy: %u zones, one per node; allocation falls back nearest node first\n",
	       t->nr_nodes);
}
