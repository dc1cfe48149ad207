/*
 * buddy.h - the buddy page allocator's interface (Linux's names).
 *
 * Blocks are 2^order pages, order 0..MAX_ORDER, naturally aligned by PFN.
 * All functions may be called with interrupts on or off, also from interrupt
 * handlers, unless their comment says otherwise; they take the zone lock
 * with interrupts saved. Blocks of orders 0-3 come from and go to per-CPU lists
 * (mm/page_alloc/buddy_pcp.c) that the zone only sees in batches.
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
 * Contents are not cleared. Orders 0-3 are served from this CPU's lists.
 */
struct page *alloc_pages(unsigned int order);

/*
 * alloc_pages_node - alloc_pages from node nid's zone; when it has no block
 * that large, from the other nodes' zones nearest first (node_distance, ties
 * by node id). nid == NUMA_NO_NODE (-1U) means the running CPU's node (plain
 * alloc_pages). A nid that is not an online node is reported on the console
 * ("buddy: alloc_pages_node: node N is not online ...") and served as
 * NUMA_NO_NODE. NULL as alloc_pages. One-node machines: alloc_pages.
 */
struct page *alloc_pages_node(unsigned int nid, unsigned int order);

/* page_to_nid - the node of page (0 before buddy_numa_init). */
static inline unsigned int page_to_nid(const struct page *page)
{
	return page->nid;
}

/* get_order - the smallest order whose block holds size bytes (0 for size 0). */
static inline unsigned int get_order(size_t size)
{
	unsigned int order = 0;

	while ((PAGE_SIZE << order) < size)
		order++;
	return order;
}

/*
 * free_pages - give back a block from alloc_pages with the same order.
 * Bad input (a page that is not the head of an allocated block, a double
 * free, also of a block waiting on a CPU's list, a wrong order, a page
 * outside mem_map, a page of a live slab or a live large kmalloc) is
 * reported on the console naming the address, the fault, the caller's
 * order and the owner (cache, or large kmalloc and its order), counted in
 * bad_frees, and changes nothing. Returns 0, or -EINVAL / -EFAULT for bad
 * input. Owners of blocks (slab allocators, kmalloc) clear PG_slab and
 * PG_large on every page before they free the block; free_pages clears
 * PG_head.
 */
int free_pages(struct page *page, unsigned int order);

/*
 * buddy_page_free - true when page lies in a free block (on the zone's
 * lists or a CPU's lists): a snapshot under the zone lock, for reports
 * (kfree names a second free of a large allocation with it).
 */
bool buddy_page_free(const struct page *page);

/* get_free_pages - alloc_pages returning the block's direct-map address, or NULL. */
void *get_free_pages(unsigned int order);

/*
 * free_pages_addr - free_pages by address; an address outside RAM or not
 * page-aligned is reported and returns -EFAULT.
 */
int free_pages_addr(void *addr, unsigned int order);

/*
 * nr_free_pages - pages now free: on the zone's lists and on every CPU's
 * lists. A lockless snapshot.
 */
unsigned long nr_free_pages(void);

/*
 * buddy_drain_local - give every block on the running CPU's lists back to
 * the zone (where it can merge). Any context; it touches only this CPU's lists.
 */
void buddy_drain_local(void);

/*
 * drain_all_pages - run buddy_drain_local() on every online CPU and wait for
 * all of them (on_each_cpu_wait): afterwards only pages freed since sit on
 * CPU lists. Interrupts on; not from an interrupt handler or from a function
 * run by on_each_cpu_wait.
 */
void drain_all_pages(void);

/* A snapshot of the counters (buddy_read_stats). */
struct buddy_stats {
	unsigned long managed_pages;	/* pages ever given to the allocator */
	unsigned long free_pages;	/* pages now free, CPU lists included */
	unsigned long pcp_pages;	/* of those, pages on CPU lists */
	unsigned long nr_free[NR_ORDERS]; /* free blocks per order on the zone's lists */
	unsigned long allocs;		/* successful alloc_pages calls */
	unsigned long frees;		/* successful free_pages calls */
	unsigned long failed_allocs;	/* alloc_pages calls that returned NULL */
	unsigned long bad_frees;	/* free_pages calls refused as bad input */
	unsigned long lock_contended;	/* zone lock acquisitions that waited, and their */
	unsigned long lock_turns;	/* turns of waiting (SLAB_STATS=1 builds; else 0) */
};

/*
 * buddy_read_stats - fill st: the zone's counts under its lock, plus each
 * CPU's list length and events read without its cooperation (exact when the
 * other CPUs leave the page allocator alone meanwhile).
 */
void buddy_read_stats(struct buddy_stats *st);

/*
 * NUMA allocation events per node, as Linux's numastat: numa_hit, an
 * allocation that wanted this node got it; numa_miss, this node served an
 * allocation that wanted another; numa_foreign, an allocation that wanted
 * this node was served by another; local_node / other_node, this node served
 * an allocation made by a CPU of this node / of another node.
 */
enum numa_stat_item { NUMA_HIT, NUMA_MISS, NUMA_FOREIGN, NUMA_LOCAL, NUMA_OTHER, NR_NUMA_STATS };

struct buddy_numa_stats {
	unsigned long ev[NR_NUMA_STATS];	/* indexed by enum numa_stat_item */
};

/*
 * buddy_read_numa_stats - node nid's events summed over CPUs (a snapshot as
 * buddy_read_stats'); all zero for a node beyond MAX_NUMNODES.
 * nr_free_pages_node - pages free in nid's zone and on its CPUs' lists (0
 * for a node out of range).
 */
void buddy_read_numa_stats(unsigned int nid, struct buddy_numa_stats *st);
unsigned long nr_free_pages_node(unsigned int nid);

/*
 * buddy_numa_init - give each online node its own zone once the topology
 * is known (numa_init): every page gets its node (page->nid), every CPU's
 * lists are drained and tied to its node's zone, and every free block
 * moves to the zone of its node, split where a node boundary crosses it.
 * Blocks allocated before go back to their own node's zone when freed.
 * A one-node topology changes nothing; a later topology of several nodes
 * moves the blocks from the zones of the one before (the host tests' node
 * layouts). Interrupts on (drain_all_pages),
 * other CPUs not in the allocator; not from an interrupt handler.
 */
void buddy_numa_init(void);

/* buddy_lock_stats_reset - zero the zone lock's contention counters (no CPU in the allocator). */
void buddy_lock_stats_reset(void);

/*
 * buddy_cpu_events - page allocator calls made on cpu so far (allocations,
 * failed ones, frees, refused frees). A test that sees every other CPU's
 * count unchanged over its run knows they left the allocator alone.
 * buddy_pcp_count - pages now on cpu's lists (blocks of orders 0-3, in pages).
 */
unsigned long buddy_cpu_events(unsigned int cpu);
unsigned long buddy_pcp_count(unsigned int cpu);

/*
 * buddy_check - verify the allocator's invariants, for every zone: its blocks and
 * lists against mem_map (each free block on its own node's zone, all its
 * pages of that node) (each free block aligned, flagged, on exactly one
 * list of its order, no overlap, no unmerged buddies, counters equal to the
 * lists) and the calling CPU's lists; blocks on other CPUs' lists are
 * checked by their flags only. Returns 0, or -1 after printing the first
 * violation. O(pages): for tests.
 */
int buddy_check(void);

/*
 * buddy_print_info - /proc/buddyinfo-style lines, one per zone of an online
 * node: "Node N, zone   Normal" and the zone's free blocks per order (pages
 * on CPU lists are not shown). One line on one-node machines.
 */
void buddy_print_info(void);

/*
 * For mm_init() only (and host tests re-initialising mm/):
 * buddy_init - empty every free list and every CPU's lists and zero the
 * counters; whatever the allocator held before is forgotten, the NUMA
 * topology too (one zone, node 0's, until buddy_numa_init). mem_map and
 * max_pfn must be set. Every CPU idle.
 * buddy_add_block - hand the block of 2^order pages at pfn (aligned, below
 * max_pfn, every page PG_reserved and of one node) to its node's zone: it clears PG_reserved,
 * counts the pages in managed_pages and frees the block, merging with free
 * buddies. Panics on a precondition broken.
 * buddy_restore_stats - set the managed page count and the event counters to
 * st's (host tests restoring a saved state; every CPU idle).
 */
void buddy_init(void);
void buddy_add_block(unsigned long pfn, unsigned int order);
void buddy_restore_stats(const struct buddy_stats *st);

#endif
