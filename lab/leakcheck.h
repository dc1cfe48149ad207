/*
 * leakcheck.h - leak accounting: what the page and object allocators hold,
 * taken before and after a piece of work (each self-test, the benchmarks)
 * and compared, reported page count and cache by cache.
 *
 * A mark first gives back all caching (slab_drain_all: every CPU's arrays
 * or CPU slabs, shared arrays, empty slabs and every CPU's page list; with
 * ALLOC=none, drain_all_pages), so the figures are what live allocations
 * hold and do not depend on which CPU cached what: free pages, and each
 * cache's objects in use. The allocator's own per-CPU bookkeeping (SLAB's
 * kmem_cache_node objects, made when a CPU first uses a cache) is not a
 * leak: its caches are left out, and the pages their slabs took are
 * allowed for in the free page count. Taking a mark waits for every CPU
 * (on_each_cpu_wait): interrupts on, not from a call or an interrupt.
 */
#ifndef QUARRY_LEAKCHECK_H
#define QUARRY_LEAKCHECK_H

#include "kernel/compiler.h"
#ifndef CONFIG_ALLOC_NONE
#include "mm/slab.h"
#endif

#define LEAK_MAX_CACHES	96	/* caches compared one by one; more are counted */

struct leak_mark {
	unsigned long free_pages;	/* nr_free_pages() after the drain */
#ifndef CONFIG_ALLOC_NONE
	unsigned int nr_caches;		/* live caches (may exceed LEAK_MAX_CACHES) */
	struct slab_usage caches[LEAK_MAX_CACHES];
#endif
};

/* leak_mark_take - drain all caching, then record free pages and every cache's objects. */
void leak_mark_take(struct leak_mark *m);

/*
 * leak_mark_compare - take a new mark and compare it with 'before': every
 * difference is printed on one line starting "leak: <what>: " (pages not
 * given back or more given back than taken, a cache with more or fewer
 * objects in use, a cache created and not destroyed or destroyed with
 * objects still counted). Returns the number of differences (0: nothing
 * leaked). 'after' receives the new mark (it may be the caller's next
 * 'before').
 */
int leak_mark_compare(const struct leak_mark *before, struct leak_mark *after, const char *what);

#endif
