/*
 * test_slab.h - helpers shared by the SLAB and kmalloc self-tests
 * (tests/common/test_slab*.c, test_kmalloc*.c, tests/host/test_slab_host*.c).
 *
 * The tests run in the kernel after boot and on the host, where the first
 * test to need the slab allocator brings it up on the harness's arena.
 * "Settling" makes sure this CPU has its array of every kmalloc cache (made
 * on first use, from kmalloc itself), drains this CPU's arrays and the
 * shared ones, and returns every empty slab of every cache to the buddy
 * allocator, so that nr_free_pages() can be compared before and after a
 * test: slabs that hold live objects stay where they are. The comparison
 * is exact only if no other CPU moved slabs or pages meanwhile
 * (tests/common/test_mm.h); otherwise it proves nothing and is skipped.
 */
#ifndef TESTS_COMMON_TEST_SLAB_H
#define TESTS_COMMON_TEST_SLAB_H

#include "kernel/errno.h"
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include "kernel/string.h"
#include "mm/buddy.h"
#include "mm/slab_def.h"
#include "test_mm.h"
#ifdef QUARRY_HOST
#include "host_shim.h"
#endif

/* Bring the allocator up if the harness has not (host). */
static inline void slab_test_init(void)
{
	if (slab_state == SLAB_DOWN)
		kmem_cache_init();
}

/* Drain this CPU's arrays and free every empty slab; returns nr_free_pages(). */
static inline unsigned long slab_test_settle(void)
{
	struct kmem_cache *cachep;
	unsigned long flags;

	/* This CPU's arrays of the kmalloc caches exist from now on. */
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
		if (kmalloc_caches[i])
			kfree(kmalloc(kmalloc_caches[i]->object_size));
	/* Twice: shrinking one cache can free objects (off-slab freelists) into another. */
	for (int pass = 0; pass < 2; pass++) {
		flags = spin_lock_irqsave(&slab_caches_lock);
		list_for_each_entry(cachep, &slab_caches, list)
			kmem_cache_shrink(cachep);
		spin_unlock_irqrestore(&slab_caches_lock, flags);
	}
	return nr_free_pages();
}

/* Free pages at the start of a test, and the activity elsewhere then. */
struct slab_test_mark {
	unsigned long pages;
	unsigned long others;
};

static inline void slab_test_begin(struct slab_test_mark *m)
{
	m->pages = slab_test_settle();
	m->others = mm_test_others();
}

/* SLAB_EXPECT_PAGES_BACK - after settling, as many pages free as at the mark (if undisturbed). */
#define SLAB_EXPECT_PAGES_BACK(m)                                                        \
	do {                                                                             \
		unsigned long now_ = slab_test_settle();                                 \
		ST_EXPECT(now_ == (m)->pages || mm_test_others() != (m)->others,         \
			  "pages not back: %lu free, %lu at the start", now_, (m)->pages); \
	} while (0)

static inline void slab_test_console_clear(void)
{
#ifdef QUARRY_HOST
	host_console_clear();
#endif
}

/* True when the console shows 'what' (always true in the kernel: no capture). */
static inline bool slab_test_console_has(const char *what)
{
#ifdef QUARRY_HOST
	return host_console_contains(what);
#else
	(void)what;
	return true;
#endif
}

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

/*
 * SLAB_EXPECT_REFUSED - after one bad free: slab_bad_frees went up by one,
 * the console (host) names the fault, and the cache is still consistent.
 */
#define SLAB_EXPECT_REFUSED(cachep, bad_before, what)                                    \
	do {                                                                             \
		ST_EXPECT(slab_bad_frees == (bad_before) + 1,                            \
			  "bad free not counted (%lu, expected %lu): %s", slab_bad_frees, \
			  (unsigned long)(bad_before) + 1, what);                        \
		ST_EXPECT(slab_test_console_has(what), "console lacks \"%s\"", what);   \
		ST_EXPECT(!(cachep) || kmem_cache_check(cachep) == 0,                    \
			  "cache inconsistent after a refused free (%s)", what);         \
	} while (0)

#endif
