/*
 * buddy_pcp.c - per-CPU lists of free order-0 pages in front of the zone
 * (Linux's pcp lists), so that most single-page allocations and frees take
 * no lock shared with other CPUs.
 *
 * Data structures. Each CPU has a struct per_cpu_pages (a per-CPU variable,
 * mm/buddy_internal.h): a list of free order-0 pages linked through
 * page->lru, most recently freed first, and its length. A page on it has
 * PG_pcp (and neither PG_buddy nor PG_head) and order 0: it is free, and
 * free_pages() refuses it as a double free. alloc_pages(0) takes the head
 * of the list; when the list is empty it first moves zone.pcp_batch pages
 * from the zone (pcp_refill). free_pages(page, 0) puts the page at the head;
 * when the list grows past zone.pcp_high, the pcp_batch coldest pages (the
 * tail) go back to the zone (pcp_drain). The marks follow the zone's size
 * (pcp_set_marks): batch = min(managed / 1024, 1 MiB of pages) / 4, at
 * least 1; high = 6 * batch.
 *
 * Invariants: count is the list's length, at most pcp_high once a free
 * returns; pages on a CPU's list count as free (nr_free_pages, free_pages
 * in buddy_read_stats) but are not on the zone's lists, so buddyinfo and
 * nr_free[] do not show them, as in Linux.
 *
 * Who touches a CPU's list: that CPU only, with interrupts off (an
 * interrupt handler on the same CPU may allocate pages), never another CPU,
 * which would need the owner's cooperation. So a CPU drains only its own
 * list (buddy_drain_local); drain_all_pages() asks every CPU to do so
 * through on_each_cpu_wait(). Lock order: interrupts off -> this CPU's list
 * -> zone.lock (refill and drain take it for one batch at a time).
 *
 * Departures from Linux: no per-zone/per-migratetype lists, no lock on the
 * list (Linux now takes one), marks that do not change with load, and a
 * failed allocation drains only the calling CPU's list: reaching the other
 * CPUs needs interrupts on, which an allocation cannot assume.
 */
#include "mm/buddy_internal.h"
#include "kernel/bug.h"
#include "kernel/smp.h"

DEFINE_PER_CPU(struct per_cpu_pages, pcp_lists);

#define zone buddy_zone

/* pcp_init - empty every CPU's list and zero its counters. From buddy_init(). */
void pcp_init(void)
{
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct per_cpu_pages *pcp = per_cpu_ptr(pcp_lists, cpu);

		*pcp = (struct per_cpu_pages){ .count = 0 };
		INIT_LIST_HEAD(&pcp->list);
	}
	zone.pcp_batch = 1;
	zone.pcp_high = 6;
}

/* pcp_set_marks - batch and high mark from the zone's size. Zone lock held. */
void pcp_set_marks(void)
{
	unsigned long batch = MIN(zone.managed_pages >> 10, (1UL << 20) >> PAGE_SHIFT) / 4;

	batch = MAX(batch, 1UL);
	WRITE_ONCE(zone.pcp_batch, (unsigned int)batch);
	WRITE_ONCE(zone.pcp_high, (unsigned int)(6 * batch));
}

/* pcp_refill - move up to a batch of pages from the zone onto pcp. Interrupts off. */
static void pcp_refill(struct per_cpu_pages *pcp)
{
	unsigned int batch = READ_ONCE(zone.pcp_batch);

	spin_lock(&zone.lock);
	for (unsigned int i = 0; i < batch; i++) {
		struct page *page = __rmqueue(0);

		if (!page)
			break;
		WRITE_ONCE(page->flags, (page->flags & ~PG_head) | PG_pcp);
		list_add_tail(&page->lru, &pcp->list);
		pcp->count++;
	}
	spin_unlock(&zone.lock);
}

/*
 * __pcp_drain - give the n coldest pages of pcp (all if fewer) back to the
 * zone. The running CPU's list, zone lock held (so interrupts are off).
 */
void __pcp_drain(struct per_cpu_pages *pcp, unsigned long n)
{
	assert_spin_locked(&zone.lock);
	while (n-- && !list_empty(&pcp->list)) {
		struct page *page = list_entry(pcp->list.prev, struct page, lru);

		list_del(&page->lru);
		pcp->count--;
		WRITE_ONCE(page->flags, page->flags & ~PG_pcp);
		__free_one(page_to_pfn(page), 0);
	}
}

/* pcp_drain - __pcp_drain taking the zone lock. Interrupts off. */
static void pcp_drain(struct per_cpu_pages *pcp, unsigned long n)
{
	spin_lock(&zone.lock);
	__pcp_drain(pcp, n);
	spin_unlock(&zone.lock);
}

/*
 * pcp_alloc - alloc_pages(0): the hottest page on this CPU's list, which is
 * refilled from the zone first if empty. NULL when the zone has no page
 * either (counted in failed_allocs).
 */
struct page *pcp_alloc(void)
{
	unsigned long flags = arch_irq_save();
	struct per_cpu_pages *pcp = this_cpu_ptr(pcp_lists);
	struct page *page;

	if (unlikely(list_empty(&pcp->list))) {
		pcp_refill(pcp);
		if (list_empty(&pcp->list)) {
			pcp->failed_allocs++;
			arch_irq_restore(flags);
			return NULL;
		}
	}
	page = list_first_entry(&pcp->list, struct page, lru);
	list_del(&page->lru);
	pcp->count--;
	pcp->allocs++;
	WRITE_ONCE(page->flags, (page->flags & ~PG_pcp) | PG_head);
	arch_irq_restore(flags);
	return page;
}

/*
 * pcp_free - free_pages(page, 0) of a page already checked to head an
 * allocated order-0 block: onto this CPU's list, draining a batch to the
 * zone if the list is now above the high mark.
 */
void pcp_free(struct page *page)
{
	unsigned long flags = arch_irq_save();
	struct per_cpu_pages *pcp = this_cpu_ptr(pcp_lists);

	WRITE_ONCE(page->flags, (page->flags & ~(PG_head | PG_slab | PG_large)) | PG_pcp);
	list_add(&page->lru, &pcp->list);
	pcp->count++;
	pcp->frees++;
	if (unlikely(pcp->count > READ_ONCE(zone.pcp_high)))
		pcp_drain(pcp, READ_ONCE(zone.pcp_batch));
	arch_irq_restore(flags);
}

/* buddy_drain_local: see buddy.h. */
void buddy_drain_local(void)
{
	unsigned long flags = arch_irq_save();
	struct per_cpu_pages *pcp = this_cpu_ptr(pcp_lists);

	if (pcp->count)
		pcp_drain(pcp, pcp->count);
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
