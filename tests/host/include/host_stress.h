/*
 * host_stress.h - the random run the object allocators' host tests share
 * (tests/host/stress.c; each allocator's test_*_host.c gives it its own
 * checks and settings). From a fixed seed, one step after another:
 * create or destroy a cache of random geometry (size, alignment, red zone,
 * poison, constructor), shrink a cache, drain or reap (where the
 * allocator's bands leave room for it), allocate from a cache or kmalloc,
 * or free a live object. Each object is checked when handed out (not live
 * already, 8-aligned, aligned for its cache, constructed) and when freed
 * (the tag pattern the run wrote is intact: no two live objects overlap);
 * a cache is checked before it is destroyed and after a refused destroy.
 * The allocator's test adds, through the hooks, where an object must lie
 * and what each cache must count, and checks the pages and its own
 * counters around the run. Host only; one run at a time (its state is
 * stress.c's, not the caller's).
 */
#ifndef HOST_STRESS_H
#define HOST_STRESS_H

#include "kernel/compiler.h"
#include <stdint.h>

struct kmem_cache;

/*
 * host_xorshift64 - the next number of the xorshift64 generator (13, 7, 17)
 * whose state is *s, which must not be 0: the host tests' fixed-seed
 * sequences, the same from run to run.
 */
static inline uint64_t host_xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The most caches and live objects a run may be given. */
#define STRESS_MAX_CACHES	12
#define STRESS_MAX_LIVE		4096

/* What the run did, step by step (each step counts in one of these or none). */
struct stress_counts {
	unsigned long create_destroy;
	unsigned long shrink;		/* and drain/reap, for an allocator with that band */
	unsigned long alloc;
	unsigned long free;
};

/*
 * One allocator's run. A step draws r in 0..999 and a cache slot: r below
 * create_below creates the slot's cache or destroys it, below shrink_below
 * shrinks it (or a kmalloc cache), below reap_below drains this CPU or
 * reaps (no such step if it equals shrink_below), below alloc_below
 * allocates while the live objects and bytes allow, and otherwise frees a
 * live object. The run tags the first and last tag_span bytes of each
 * object (SIZE_MAX: all of them).
 *
 * The limits and the caches' geometry left 0 (NULL) are the standard
 * run's, SLAB's and SLUB's: STRESS_MAX_CACHES caches, STRESS_MAX_LIVE
 * objects and 12 MiB live, red zone and poison each one cache in 8,
 * alignments 0, 8, 16, 64 or 256.
 *
 * The hooks return 0 or selftest_fail()'s -1 (ST_EXPECT):
 *  check_object - the object p of size bytes just handed out lies where
 *                 its allocator puts it; c is its cache, NULL for kmalloc;
 *  check_cache  - cache c (just passed kmem_cache_check) counts exactly
 *                 live objects with callers;
 *  check_heap   - what every cache shares is consistent; NULL: every
 *                 kmalloc cache passes kmem_cache_check;
 *  after_step   - may be NULL; called after every step that passed.
 */
struct stress_config {
	unsigned long ops;
	unsigned int hop_cpus;		/* each step on a random CPU below it; 0: stay */
	unsigned long check_every;	/* steps between full checks */
	unsigned int create_below, shrink_below, reap_below, alloc_below;
	size_t tag_span;
	unsigned int cache_flags;	/* every cache's; red zone and poison added at random */
	unsigned int nr_caches;		/* at most STRESS_MAX_CACHES */
	unsigned int max_live;		/* at most STRESS_MAX_LIVE */
	unsigned long max_live_bytes;
	unsigned int red_zone_one_in, poison_one_in;
	const size_t *aligns;		/* a created cache's alignment, drawn from these */
	unsigned int nr_aligns;
	int (*check_object)(struct kmem_cache *c, const void *p, size_t size);
	int (*check_cache)(struct kmem_cache *c, unsigned long live);
	int (*check_heap)(void);
	void (*after_step)(void);
};

/*
 * stress_run - the random run of cfg from the fixed seed, with full checks
 * every cfg->check_every steps and at the end; then every live object
 * freed and every cache destroyed (checked first), on CPU 0 if the run
 * hopped. Needs the allocator up and no run in progress; cfg needs ops,
 * check_every, check_object and check_cache, and its limits within the
 * maxima above (else -1 before any step). Returns 0, or -1
 * from the first check that failed (selftest_fail has the reason; objects
 * and caches of the run are then left as they were). counts, the caller's,
 * is filled in either way.
 */
int stress_run(const struct stress_config *cfg, struct stress_counts *counts);

/*
 * host_random_run - this allocator's standard random run (the stress_config
 * its test_<alloc>_host.c gives stress_run), cut to 'ops' steps. Defined by
 * the one allocator file the build links. Returns stress_run's result.
 */
int host_random_run(unsigned long ops, struct stress_counts *counts);

/* The random run every misuse test runs after its misuse. */
#define MISUSE_AFTER_OPS	30000

/*
 * misuse_after - what every SLAB_DEBUG misuse test checks once its misuse
 * is done and its own objects freed (tests/host/misuse_after.c): the
 * random run of MISUSE_AFTER_OPS steps, kmem_cache_check on every cache
 * (the kmalloc caches and the ones left on slab_caches), then the caches
 * the test made, destroy[0..n), destroyed and the whole allocator drained;
 * every page comes back to 'pages' (slab_test_settle() taken before the
 * misuse) but 'leaked', those it leaks on purpose (SLOB's quarantined
 * pages). 'what' names the misuse in a failure. Returns 0, or -1 with
 * selftest_fail()'s reason.
 */
int misuse_after(const char *what, struct kmem_cache *const *destroy, unsigned int n,
		 unsigned long pages, unsigned long leaked);

#endif
