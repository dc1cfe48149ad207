/*
 * slab_stats.h - a cache's event counters (CONFIG_SLAB_STATS), the part
 * every object allocator shares: the option's default, the counters that
 * mean the same in every allocator (struct slab_stats), and the one hook
 * that counts, stat(). Each allocator's struct kmem_cache_stats holds a
 * struct slab_stats named 'shared' first, its own counters after it; a
 * shared counter is counted as stat(cache, shared.bad_frees, 1). One
 * printer, kmem_cache_stats_show (mm/slab_report.c), prints the shared
 * counters after the allocator's own, which it formats with
 * kmem_cache_stats_own (mm/slab_impl.h).
 *
 * Counters not shared: each allocator's paths (SLAB's arrays, SLUB's CPU
 * freelist and sheaves, SLOB's search), which SLUB counts beside the
 * totals, so that a SLAB_STATS=1 build's fast paths add two counters
 * there; empty slabs given back: SLAB and SLUB count them per cache
 * (reaped, discarded), SLOB gives heap pages back for all its caches at
 * once and counts them per CPU (slab_cpu_events).
 *
 * Included by each allocator's def header after its CONFIG_SLAB_DEBUG
 * default.
 */
#ifndef MM_SLAB_STATS_H
#define MM_SLAB_STATS_H

/* Counting costs one atomic add per event: on in debug builds and on the host. */
#ifndef CONFIG_SLAB_STATS
#if CONFIG_SLAB_DEBUG || defined(QUARRY_HOST)
#define CONFIG_SLAB_STATS 1
#else
#define CONFIG_SLAB_STATS 0
#endif
#endif

/* The counters every allocator keeps, with one meaning; all zero unless CONFIG_SLAB_STATS. */
struct slab_stats {
	unsigned long slabs_made;	/* slabs (SLOB: heap pages) made with the buddy's pages */
	unsigned long bad_frees;	/* frees reported and refused */
	unsigned long corruptions;	/* red zone, poison, freelist or header damage found */
	unsigned long allocs;		/* objects handed to callers */
	unsigned long frees;		/* objects taken back from callers (refused frees not) */
};

#if CONFIG_SLAB_STATS
/* stat - the one hook for every counter: add n to c->stats.field. */
#define stat(c, field, n) \
	((void)__atomic_fetch_add(&(c)->stats.field, (unsigned long)(n), __ATOMIC_RELAXED))
#else
#define stat(c, field, n) ((void)(c), (void)(n))
#endif

#endif
