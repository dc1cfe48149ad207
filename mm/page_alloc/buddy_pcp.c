/*
 * buddy_pcp.c - per-CPU lists of free blocks of orders 0 to PCP_MAX_ORDER
 * (3) in front of the zone (Linux's pcp lists), so that most small
 * allocations and frees take no lock shared with other CPUs.
 *
 * Data structures. Each CPU has a struct per_cpu_pages (a per-CPU variable,
 * mm/page_alloc/buddy_internal.h): one list per order of free blocks linked through
 * their head page's lru, most recently freed first, and the number of pages
 * (not blocks) on all of them. A block on a list has PG_pcp, and no other
 * flag, on its head and page->order set: it is free, and free_pages()
 * refuses it as a double free. A free page's flags word holds only the
 * allocator's own bit (mm/page_alloc/buddy.c), so the paths here store whole flags
 * words (PG_pcp, PG_head, 0) rather than reading and changing one bit. alloc_pages(order) takes the
 * head of its order's list (pcp_alloc, inline in mm/page_alloc/buddy_internal.h); when
 * that list is empty it first moves a batch from the zone (pcp_refill).
 * free_pages(page, order) puts the block at the head of its list
 * (pcp_free); when the CPU then holds more than its zone's pcp_high pages, some
 * of the coldest blocks (list tails, the freed block's order first) go
 * back to the zone (pcp_free_drain, __pcp_drain).
 *
 * Batches. A refill of order o brings 2^pcp_refill_shift[o] pages (a
 * batch or more, pcp_set_marks), and takes them from the zone as one block
 * of that size, carved into order-o blocks straight onto the list: one zone
 * search and split per batch rather than per block, so a refill costs a
 * few stores per block. Only when no block that large is free does it take
 * order-o blocks one by one. A drain (pcp_free_drain, __pcp_drain) gives
 * back the coldest blocks, gathered into runs of contiguous pages, and the
 * zone merges them with their free buddies as any free does. The sizes and
 * marks follow the zone's size (pcp_set_marks, figures in its comment).
 *
 * Invariants: count is the pages on the lists, at most pcp_high once a free
 * returns; pages on a CPU's lists count as free (nr_free_pages, free_pages
 * in buddy_read_stats) but are not on the zone's lists, so buddyinfo and
 * nr_free[] do not show them, as in Linux.
 *
 * Who touches a CPU's lists: that CPU only, with interrupts off (an
 * interrupt handler on the same CPU may allocate pages), never another CPU,
 * which would need the owner's cooperation. So a CPU drains only its own
 * lists (buddy_drain_local); drain_all_pages() asks every CPU to do so
 * through on_each_cpu_wait(). Lock order: interrupts off -> this CPU's lists
 * -> its zone's lock (refill and drain take it for one batch at a time).
 *
 * Nodes: a CPU's lists belong to its node's zone (pcp->zone): refills come
 * from it and drains go to it, and the free path puts a block on them only
 * when it lies in the CPU's window of its node's pages (pcp->map_base,
 * map_entries; mm/page_alloc/buddy_numa.c). One-node machines drain and
 * refill with node_zones[0] as a constant (drain_run, pcp_alloc_refill).
 *
 * Departures from Linux: no per-zone/per-migratetype lists, no lock on the
 * lists (Linux now takes one), marks that do not change with load, refills
 * taken as one block, and a failed allocation drains only the calling
 * CPU's lists: reaching the other CPUs needs interrupts on, which an
 * allocation cannot assume.
 */
#include "mm/page_alloc/buddy_internal.h"
#include "kernel/bug.h"
#include "kernel/smp.h"

DEFINE_PER_CPU(struct per_cpu_pages, pcp_lists);

/* lru_of - where page's lru is, for a page pointer that may be one past mem_map. */
static inline struct list_head *lru_of(struct page *page)
{
	return (struct list_head *)((uintptr_t)page + offsetof(struct page, lru));
}

/*
 * pcp_init - empty every CPU's lists and zero its counters. From
 * buddy_init(), mem_map in place. Panics if a list head sits where the lru
 * of the entry one past mem_map would be: drain_list's loop relies on no
 * list head equalling a run's end (a layout no boot has had).
 */
void pcp_init(void)
{
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct per_cpu_pages *pcp = per_cpu_ptr(pcp_lists, cpu);

		*pcp = (struct per_cpu_pages){ .room = 6, .high = 6, .zone = &node_zones[0],
					       .map_base = (uintptr_t)mem_map,
					       .map_entries = mem_map_entries() };
		for (unsigned int o = 0; o < PCP_ORDERS; o++) {
			INIT_LIST_HEAD(&pcp->lists[o]);
			ASSERT(&pcp->lists[o] != lru_of(mem_map + mem_map_entries()));
		}
	}
	for (unsigned int n = 0; n < MAX_NUMNODES; n++) {
		struct zone *z = &node_zones[n];

		z->pcp_batch_shift = 0;
		z->pcp_batch = 1;
		for (unsigned int o = 0; o < PCP_ORDERS; o++)
			z->pcp_refill_shift[o] = o;
		z->pcp_high = 6;	/* until buddy_add_block calls pcp_set_marks */
	}
}

/*
 * pcp_set_marks - batch, refill sizes and high mark from zone z's size;
 * the high mark is also copied to the lists of every CPU of z's node (pcp->high, and room
 * moved with it: the fields of them another CPU writes, from
 * buddy_add_block at boot and buddy_restore_stats, every other CPU idle).
 * Zone lock held.
 *
 * batch: Linux's size, min(managed / 1024, 1 MiB of pages) / 4, raised to
 * 2^PCP_BATCH_MIN_SHIFT pages where that is at most managed / 256, and
 * rounded down to a power of two. high: max(6 batches, managed / 128): a
 * CPU keeps up to 0.8% of memory. A refill of order o moves
 * 2^pcp_refill_shift[o] pages: a batch, or 2^PCP_MIN_BLOCKS_SHIFT blocks
 * of order o where that is at most half of high (fewer on small machines),
 * never less than one block. Drains: pcp_free_drain.
 *
 * The marks were chosen by measuring 1000 alloc_pages then 1000 free_pages
 * at one order under -icount, order 0 and order 3, at 4K, 16K and 64K, on
 * both arches: refills of at least a batch of blocks and drains that keep
 * a batch (as Linux's) made order 1-3 frees cheap without costing order 0;
 * Documentation/page-allocator-tuning.md has the figures of each step.
 */
#define PCP_BATCH_MIN_SHIFT	4	/* 16 pages */
#define PCP_MIN_BLOCKS_SHIFT	5	/* 32 blocks, at most half of high */
#define PCP_HIGH_SHIFT		7	/* managed / 128 */
void pcp_set_marks(struct zone *z)
{
	unsigned long managed = z->managed_pages;
	unsigned long batch = MIN(managed >> 10, (1UL << 20) >> PAGE_SHIFT) / 4;
	unsigned int shift = 0;
	unsigned long high;

	batch = MAX(batch, MIN(1UL << PCP_BATCH_MIN_SHIFT, managed >> 8));
	while ((2UL << shift) <= batch)
		shift++;
	high = MAX(6UL << shift, managed >> PCP_HIGH_SHIFT);
	for (unsigned int o = 0; o < PCP_ORDERS; o++) {
		unsigned int s = MAX(shift, o), t = o + PCP_MIN_BLOCKS_SHIFT;

		while (t > s && order_pages(t) > high / 2)
			t--;
		WRITE_ONCE(z->pcp_refill_shift[o], MIN(MAX(s, t), (unsigned int)MAX_ORDER));
	}
	WRITE_ONCE(z->pcp_batch_shift, shift);
	WRITE_ONCE(z->pcp_batch, 1UL << shift);
	WRITE_ONCE(z->pcp_high, high);
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct per_cpu_pages *pcp = per_cpu_ptr(pcp_lists, cpu);

		if (pcp->zone != z)
			continue;
		WRITE_ONCE(pcp->room, pcp->room + (long)(high - pcp->high));
		WRITE_ONCE(pcp->high, high);
	}
}

/*
 * pcp_carve - put the free block big (order big_order, PG_head from the
 * zone) on pcp's list of order as 2^(big_order - order) blocks, in address
 * order at the list's tail. Zone lock held.
 */
static void pcp_carve(struct per_cpu_pages *pcp, struct page *big, unsigned int big_order,
		      unsigned int order)
{
	struct list_head *list = &pcp->lists[order], *prev = list->prev;
	struct page *end = big + order_pages(big_order);

	/*
	 * A plain store of flags: the pages are in no list and nothing reads
	 * them without the zone lock until it is dropped. big's flags were
	 * PG_head alone and the others' nothing (a free page carries no flag
	 * but the allocator's own: buddy_check).
	 */
	for (struct page *p = big; p < end; p += order_pages(order)) {
		p->flags = PG_pcp;
		p->order = order;
		p->lru.prev = prev;
		prev->next = &p->lru;
		prev = &p->lru;
	}
	prev->next = list;
	list->prev = prev;
	pcp->room -= (long)order_pages(big_order);
}

/*
 * pcp_refill - move a batch of order-'order' blocks from the zone onto
 * pcp's list (see Batches above). If the zone has none, this CPU's other
 * lists are drained into the zone (their blocks may merge into one) and one
 * block is tried for. Interrupts off, zone lock held.
 */
static __always_inline void pcp_refill(struct per_cpu_pages *pcp, struct zone *z,
				       unsigned int order)
{
	unsigned int big = READ_ONCE(z->pcp_refill_shift[order]);
	struct page *page;

	page = rmqueue_locked(z, big);
	if (likely(page)) {
		pcp_carve(pcp, page, big, order);
		return;
	}
	for (unsigned long i = 0; i < order_pages(big - order); i++) {
		page = rmqueue_locked(z, order);
		if (!page)
			break;
		pcp_carve(pcp, page, order, order);
	}
	if (list_empty(&pcp->lists[order]) && pcp_count(pcp)) {
		__pcp_drain(pcp, pcp_count(pcp), 0, PCP_ORDERS);
		page = rmqueue_locked(z, order);
		if (page)
			pcp_carve(pcp, page, order, order);
	}
}

/*
 * pcp_alloc_refill: pcp_alloc's slow path, its list of order empty. When
 * this CPU's node's zone has nothing left either, the other nodes' zones
 * serve it, nearest first (not through this CPU's lists, which hold its
 * own node's pages only).
 */
struct page *pcp_alloc_refill(struct per_cpu_pages *pcp, unsigned int order, unsigned long flags)
{
	struct list_head *list = &pcp->lists[order];
	struct zone *z = pcp->zone;
	struct page *page;

	pcp->free_factor = 0;
	spin_lock(&z->lock);
	if (likely(z == &node_zones[0]))	/* one node: the zone a constant, as drain_run */
		pcp_refill(pcp, &node_zones[0], order);
	else
		pcp_refill(pcp, z, order);
	spin_unlock(&z->lock);
	if (list_empty(list)) {
		if (buddy_numa.nr_fallback[pcp->nid] > 1)
			page = numa_alloc_fallback(pcp, pcp->nid, order, true);
		else
			page = NULL, pcp->failed_allocs++;
		arch_irq_restore(flags);
		return page;
	}
	page = list_first_entry(list, struct page, lru);
	list_del(&page->lru);
	pcp->room += (long)order_pages(order);
	pcp->allocs++;
	WRITE_ONCE(page->flags, PG_head);	/* as pcp_alloc */
	arch_irq_restore(flags);
	return page;
}

/*
 * Draining. Blocks leave the lists coldest first, which is often address
 * order, up or down (pages refilled as a run and freed in the order they
 * were handed out). So a drain gathers contiguous blocks into a run of
 * pages, free but on no list yet (neither PG_pcp nor PG_buddy), and only
 * when the next block does not extend the run gives it to the zone, as the
 * fewest naturally aligned blocks that cover it (drain_run), each merged
 * with the zone's free buddies by free_one_locked. A run of 2^k pages so
 * costs one zone free, not 2^k. Blocks freed while another run is pending
 * do not merge with it; the pending run merges with them when it goes, so
 * the zone still never holds two free buddies.
 */

/* drain_run_zone - give the pages [start, end) to zone z (bflags: its buddy_flags). Its lock held. */
static __always_inline void drain_run_zone(struct zone *z, unsigned long bflags,
					   unsigned int nidbits, unsigned long start,
					   unsigned long end)
{
	while (start < end) {
		/* the largest block aligned at start that fits: alignment, length, MAX_ORDER */
		unsigned int o = 63 - (unsigned int)__builtin_clzl(end - start);

		if (start)
			o = MIN(o, (unsigned int)__builtin_ctzl(start));
		o = MIN(o, (unsigned int)MAX_ORDER);
		free_one_locked(z, bflags, nidbits, start, o);
		start += order_pages(o);
	}
}

/*
 * drain_run - drain_run_zone, with node 0's zone (every drain of a one-node
 * machine) as a constant: its address and flags fold into the code.
 */
static void drain_run(struct zone *z, unsigned long start, unsigned long end)
{
	if (likely(z == &node_zones[0]))
		drain_run_zone(&node_zones[0], PG_buddy, 0, start, end);
	else
		drain_run_zone(z, z->buddy_flags, z->node << 16, start, end);
}

/*
 * A pending run of pages, free but on no list yet: from start up to the
 * page whose lru is end (kept as that lru, what drain_list compares list
 * links with). start is NULL while there is none.
 */
struct drain_run_state {
	struct page *start;
	struct list_head *end;
	struct zone *zone;		/* the zone the runs go to */
};

/* run_flush - give the pending run to the zone (if any) and start it anew at page. */
static void run_flush(struct drain_run_state *run, struct page *page, unsigned long pages)
{
	const uintptr_t pfn0 = mem_map_pfn0;

	if (run->start)
		drain_run(run->zone, ((uintptr_t)run->start - pfn0) / sizeof(struct page),
			  ((uintptr_t)list_entry(run->end, struct page, lru) - pfn0) /
			      sizeof(struct page));
	run->start = page;
	run->end = page ? lru_of(page + pages) : NULL;
}

/*
 * drain_list - take up to k blocks of 2^order pages from the tail of list
 * (coldest first), zeroing their flags (PG_pcp was all) and gathering them
 * into runs (run, flushed to the zone when a block does not extend it); cut
 * the list after the last block taken. Returns the blocks taken. Zone lock held.
 * The common case, a block right above the pending run (blocks freed in
 * the order they were handed out), is the inner loop: a compare of list
 * links, the flag write and three register updates. The list's head is
 * never a pending run's end (it is in no struct page), so the end of the
 * list is tested only off that path. (A run can also end one entry past
 * mem_map: pcp_init checks that no list head is at that entry's lru.)
 */
static unsigned long drain_list(struct list_head *list, unsigned int order, unsigned long k,
				struct drain_run_state *run)
{
	const size_t stride = order_pages(order) * sizeof(struct page);
	struct list_head *last = list->prev, *end = run->end;
	unsigned long left = k;

	while (left) {
		struct page *page;

		while (last == end) {
			/*
			 * The page is reached through end, not last, so that
			 * last can take its predecessor at once (no register
			 * copy in the loop). A plain store of flags (no
			 * load: PG_pcp was all), as in pcp_carve: only this
			 * CPU writes the flags of its listed pages, and
			 * whoever acts on them holds the zone lock, as we do.
			 */
			last = last->prev;
			list_entry(end, struct page, lru)->flags = 0;
			end = (struct list_head *)((char *)end + stride);
			if (!--left)
				goto out;
		}
		if (last == list)
			break;
		page = list_entry(last, struct page, lru);
		if (run->start && page + order_pages(order) == run->start) {
			run->start = page;	/* right below the run: blocks freed top down */
		} else {
			run->end = end;
			run_flush(run, page, order_pages(order));
			end = run->end;
		}
		last = last->prev;
		WRITE_ONCE(page->flags, 0);
		left--;
	}
out:
	run->end = end;
	last->next = list;
	list->prev = last;
	return k - left;
}

/*
 * __pcp_drain - give back to the zone the coldest blocks of pcp, from the
 * list of order first, then the others from the largest order down (nlists
 * lists in all, 1 to PCP_ORDERS), until n pages (or all) are gone; a block
 * is not split, so up to 2^PCP_MAX_ORDER - 1 pages more may go. The
 * running CPU's lists, zone lock held (so interrupts are off). Each list
 * is cut once, after its blocks have gone, and the counts are updated once
 * per call.
 */
void __pcp_drain(struct per_cpu_pages *pcp, unsigned long n, unsigned int first,
		 unsigned int nlists)
{
	struct drain_run_state run = { .start = NULL, .end = NULL, .zone = pcp->zone };
	unsigned long freed = 0;

	assert_spin_locked(&pcp->zone->lock);
	for (unsigned int i = 0; i < nlists && freed < n; i++) {
		/* first, then the others from the largest order down */
		unsigned int o =
		    i == 0 ? first : PCP_MAX_ORDER + 1 - i - (first > PCP_MAX_ORDER - i);
		unsigned long want = (n - freed + order_pages(o) - 1) >> o;

		freed += drain_list(&pcp->lists[o], o, want, &run) << o;
	}
	run_flush(&run, NULL, 0);
	pcp->room += (long)freed;
	pcp->zone->free_pages += freed;
}

/*
 * pcp_free_drain: pcp_free's slow path, the CPU above its high mark.
 * Returns 0. A drain gives back at least 2^PCP_DRAIN_BLOCKS_SHIFT blocks of
 * the freed order or a refill's worth, whichever is more, doubled for each
 * drain since this CPU last refilled (up to 2^PCP_DRAIN_FACTOR_MAX times),
 * as Linux's free_factor does: a CPU that only frees pays the lock and the
 * call once for more blocks. It keeps a batch on the lists (Linux's
 * min_nr_free): a drain may take the CPU from high down to a batch, so a
 * CPU that frees much pays the lock and the drain's setup once for up to
 * high - batch pages (at 64K on 1 GiB, 109 pages rather than 62); the most
 * a CPU holds is still high.
 */
int pcp_free_drain(struct per_cpu_pages *pcp, unsigned int order, unsigned long flags)
{
	struct zone *z = pcp->zone;
	unsigned long n = MAX(order_pages(READ_ONCE(z->pcp_refill_shift[order])),
			      order_pages(order + PCP_DRAIN_BLOCKS_SHIFT));
	unsigned long keep = READ_ONCE(z->pcp_batch), count = pcp_count(pcp);

	n <<= pcp->free_factor;
	if (pcp->free_factor < PCP_DRAIN_FACTOR_MAX)
		pcp->free_factor++;
	n = MAX(MIN(n, count - MIN(keep, count)), 1UL);
	spin_lock(&z->lock);
	__pcp_drain(pcp, n, order, PCP_ORDERS);
	spin_unlock(&z->lock);
	arch_irq_restore(flags);
	return 0;
}

/* buddy_drain_local: see buddy.h. */
void buddy_drain_local(void)
{
	unsigned long flags = arch_irq_save();
	struct per_cpu_pages *pcp = this_cpu_ptr(pcp_lists);

	if (pcp_count(pcp)) {
		spin_lock(&pcp->zone->lock);
		__pcp_drain(pcp, pcp_count(pcp), 0, PCP_ORDERS);
		spin_unlock(&pcp->zone->lock);
	}
	arch_irq_restore(flags);
}

static void drain_local_cb(void *unused)
{
	(void)unused;
	buddy_drain_local();
}

/* drain_all_pages: see buddy.h. */
void drain_all_pages(void)
{
	on_each_cpu_wait(drain_local_cb, NULL);
}
