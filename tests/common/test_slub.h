/*
 * test_slub.h - helpers for SLUB's own self-tests (tests/common/test_slub*.c,
 * tests/host/test_slub_host*.c), built with ALLOC=slub only: they read
 * SLUB's internals (mm/slub/slub_def.h). The allocator-neutral helpers are in
 * test_alloc.h, which this includes.
 */
#ifndef TESTS_COMMON_TEST_SLUB_H
#define TESTS_COMMON_TEST_SLUB_H

#include "mm/slub/slub_def.h"
#include "test_alloc.h"

/* The head page of the slab holding object x. */
static inline struct page *slub_test_page(const void *x)
{
	return (struct page *)virt_to_page(x)->private;
}

/* The running CPU's slab of s (its freelist's slab), or NULL. */
static inline struct page *slub_test_cpu_slab(struct kmem_cache *s)
{
	void *v = READ_ONCE(slub_this_cpu(s)->freelist);

	return v == SLUB_NO_SLAB ? NULL : slub_page(s, v);
}

/* Objects on a freelist chain from v (an object or a tagged end). */
static inline unsigned int slub_test_chain_len(struct kmem_cache *s, void *v)
{
	unsigned int n = 0;

	while (!slub_is_end(v) && n <= s->num) {
		n++;
		v = slub_get_fp(s, v);
	}
	return n;
}

/* The tagged end of the slab headed by page. */
static inline void *slub_test_end(struct page *page)
{
	return (void *)((uintptr_t)page_address(page) | SLUB_END_TAG);
}

/*
 * slub_test_classic - make a cache just made by the test take SLUB's
 * classic paths (no sheaves), for tests of those paths' internals (CPU
 * freelists, tids, page freelists), which sheaves stand in front of.
 * Before the cache's first allocation. Returns s.
 */
static inline struct kmem_cache *slub_test_classic(struct kmem_cache *s)
{
	if (s)
		s->sheaf_capacity = 0;
	return s;
}

/*
 * Objects of s that callers hold: all slabs' objects less every free one
 * (CPU freelists, CPU partial and node partial slabs, CPU slabs' page
 * freelists, sheaves). s idle on other CPUs; takes the node and barn locks.
 */
static inline unsigned long slub_test_held(struct kmem_cache *s)
{
	unsigned long total = slub_total_objects(s);
	unsigned long free = slub_count_free(s, NUMA_NO_NODE, NULL) + slub_sheaved(s, NUMA_NO_NODE, NULL);
	struct page *page;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		void *v = READ_ONCE(slub_cpu_of(s, cpu)->freelist);

		if (v != SLUB_NO_SLAB) {
			page = slub_page(s, v);
			free += slub_test_chain_len(s, v) + (s->num - slub_inuse(page->counters));
		}
		list_for_each_entry(page, &s->cpu[cpu].partial, lru)
			free += s->num - slub_inuse(page->counters);
	}
	return total - free;
}

#endif
