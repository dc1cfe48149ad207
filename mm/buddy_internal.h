/*
 * buddy_internal.h - what mm/buddy.c, mm/buddy_pcp.c and mm/buddy_check.c
 * share: the zone and the per-CPU lists of order-0 pages. Users include
 * mm/buddy.h only. The design and the locking are described at the top of
 * mm/buddy.c (the zone) and mm/buddy_pcp.c (the per-CPU lists).
 */
#ifndef MM_BUDDY_INTERNAL_H
#define MM_BUDDY_INTERNAL_H

#include "mm/buddy.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"

/* The one zone. Everything but pcp_batch/pcp_high is under lock. */
struct buddy_zone {
	struct spinlock lock;
	bool ready;				/* buddy_init() has run */
	unsigned int pcp_batch;			/* pages a CPU list refills or drains at once */
	unsigned int pcp_high;			/* a CPU list longer than this drains a batch */
	unsigned long managed_pages;		/* pages ever given to the allocator */
	unsigned long free_pages;		/* pages on the free lists below */
	unsigned long nr_free[NR_ORDERS];	/* blocks on each free list */
	struct list_head free_list[NR_ORDERS];	/* free blocks, by order */
};

extern struct buddy_zone buddy_zone;

/*
 * One CPU's list of free order-0 pages, and the page allocator's event
 * counters for calls made on that CPU (both paths). Only the owning CPU
 * writes any of it, with interrupts off; others may read the counts.
 */
struct per_cpu_pages {
	struct list_head list;		/* PG_pcp pages, most recently freed first */
	unsigned long count;		/* pages on list */
	unsigned long allocs;		/* successful alloc_pages calls */
	unsigned long frees;		/* successful free_pages calls */
	unsigned long failed_allocs;	/* alloc_pages calls that returned NULL */
	unsigned long bad_frees;	/* free_pages calls refused as bad input */
};

DECLARE_PER_CPU(struct per_cpu_pages, pcp_lists);

/* mm/buddy.c: the zone's lists. Zone lock held. */
struct page *__rmqueue(unsigned int order);
void __free_one(unsigned long pfn, unsigned int order);

/* mm/buddy_pcp.c */
struct page *pcp_alloc(void);
void pcp_free(struct page *page);
void __pcp_drain(struct per_cpu_pages *pcp, unsigned long n);
void pcp_init(void);
void pcp_set_marks(void);

#endif
