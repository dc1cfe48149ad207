/*
 * test_slab.h - helpers for SLAB's own self-tests (tests/common/test_slab*.c,
 * tests/host/test_slab_host*.c), built with ALLOC=slab only: they read
 * SLAB's internals (mm/slab/slab_def.h). The allocator-neutral helpers (settling,
 * page accounting, console capture, SLAB_EXPECT_REFUSED) are in
 * test_alloc.h, which this includes.
 */
#ifndef TESTS_COMMON_TEST_SLAB_H
#define TESTS_COMMON_TEST_SLAB_H

#include "mm/slab/slab_def.h"
#include "test_alloc.h"

/* Objects the slabs of a cache count as in use (in arrays or with callers), all nodes. */
static inline unsigned long slab_test_active(struct kmem_cache *cachep)
{
	struct slab_counts c;

	cache_counts_sum(cachep, &c);
	return c.total_slabs * cachep->num - c.free_objects;
}

/* The running CPU's node of a cache: where a single-CPU test's slabs live. */
static inline struct kmem_cache_node *slab_test_node(struct kmem_cache *cachep)
{
	return cachep->node[slab_cpu_node(cachep)];
}

/* Objects sitting in the cache's per-CPU and shared arrays (cache idle on other CPUs). */
static inline unsigned long slab_test_in_arrays(struct kmem_cache *cachep)
{
	struct slab_counts c;
	unsigned long n = 0;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		n += cachep->cpu_array[cpu]->avail;
	cache_counts_sum(cachep, &c);
	return n + c.shared_avail;
}

#endif
