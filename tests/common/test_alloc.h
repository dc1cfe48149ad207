/*
 * test_alloc.h - helpers for the object allocator's self-tests, whichever
 * allocator the build has (SLAB or SLUB): tests/common/test_kmalloc.c and
 * test_cache*.c use only these and the public API (mm/slab.h), and build
 * for every ALLOC; SLAB's own tests add tests/common/test_slab.h, SLUB's
 * tests/common/test_slub.h. The names these use from the allocator's
 * internal header are the ones mm/slab_impl.h lists.
 *
 * The tests run in the kernel after boot and on the host, where the first
 * test to need the allocator brings it up on the harness's arena.
 * "Settling" makes sure this CPU has used every kmalloc cache (SLAB makes
 * its per-CPU arrays on first use), gives back what this CPU holds (SLAB's
 * arrays, SLUB's CPU slabs) and the shared arrays, and returns every empty
 * slab of every cache to the buddy allocator, so that nr_free_pages() can
 * be compared before and after a test: slabs that hold live objects stay
 * where they are. The comparison is exact only if no other CPU moved slabs
 * or pages meanwhile (tests/common/test_mm.h); otherwise it proves nothing
 * and is skipped.
 */
#ifndef TESTS_COMMON_TEST_ALLOC_H
#define TESTS_COMMON_TEST_ALLOC_H

#include "kernel/errno.h"
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include "kernel/string.h"
#include "mm/buddy.h"
#include "mm/slab_impl.h"
#include "test_mm.h"
#ifdef QUARRY_HOST
#include "host_shim.h"
#else
#include "kernel/timer.h"
#endif

/* Bring the allocator up if the harness has not (host). */
static inline void slab_test_init(void)
{
	if (slab_state == SLAB_DOWN)
		kmem_cache_init();
}

/*
 * SELFTEST_NO_REAP(name) { body } - a self-test whose body runs with the
 * ticks' slab reap paused on every CPU (timer_reap_pause, which waits out
 * a reap under way; the host has no ticks), restarted however the body
 * returns. For a test that counts what a barn or a node's shared array
 * holds (another CPU's reap empties an idle one), or that walks the
 * caches (a reap holds slab_caches_lock for its walk). Interrupts off
 * alone keep only this CPU's tick away.
 */
#ifdef QUARRY_HOST
#define slab_test_reaps_pause(paused) ((void)(paused))
#else
#define slab_test_reaps_pause(paused) timer_reap_pause(paused)
#endif
#define SELFTEST_NO_REAP(tname)                                  \
	static int tname##_unreaped(void);                       \
	SELFTEST(tname)                                          \
	{                                                        \
		int rc_;                                         \
                                                                 \
		slab_test_reaps_pause(true);                     \
		rc_ = tname##_unreaped();                        \
		slab_test_reaps_pause(false);                    \
		return rc_;                                      \
	}                                                        \
	static int tname##_unreaped(void)

/* Give back what this CPU holds and free every empty slab; returns nr_free_pages(). */
static inline unsigned long slab_test_settle(void)
{
	struct kmem_cache *cachep;
	unsigned long flags;

	/*
	 * This CPU has used the caches kmem_cache_create and _destroy take
	 * from (SLAB: kmem_cache and kmem_cache_node get their arrays for it
	 * here, not inside the test; at NR_CPUS=64 those arrays alone made a
	 * kmalloc slab), and every kmalloc cache (its arrays exist).
	 */
	cachep = kmem_cache_create("test-settle", 64, 0, 0, NULL);
	if (cachep) {
		kmem_cache_free(cachep, kmem_cache_alloc(cachep));
		kmem_cache_destroy(cachep);
	}
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

/* True when the console does not show 'what' (always true in the kernel: no capture). */
static inline bool slab_test_console_lacks(const char *what)
{
#ifdef QUARRY_HOST
	return !host_console_contains(what);
#else
	(void)what;
	return true;
#endif
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

/* After misuse: two fresh objects of c are distinct and c is consistent. Returns 0 or -1. */
static inline int slab_test_still_works(struct kmem_cache *c)
{
	void *a = kmem_cache_alloc(c), *b = kmem_cache_alloc(c);

	ST_EXPECT(a && b && a != b, "cache %s broken: %p %p", kmem_cache_name(c), a, b);
	kmem_cache_free(c, a);
	kmem_cache_free(c, b);
	ST_EXPECT(kmem_cache_check(c) == 0, "cache %s inconsistent", kmem_cache_name(c));
	return 0;
}

/*
 * slab_test_run_out - every free page held (mm_test_hold_all), then objects
 * of c allocated until one fails (their slabs find no pages: what the
 * allocator gives back first is what they get), threaded through
 * themselves onto o. Returns how many. slab_test_run_out_undo frees them
 * and the pages: -1 if a page's free was refused.
 */
struct slab_test_out {
	struct mm_test_held *held;
	void *objs;
};

static inline unsigned long slab_test_run_out(struct kmem_cache *c, struct slab_test_out *o)
{
	unsigned long n = 0;
	void *p;

	o->held = NULL;
	o->objs = NULL;
	mm_test_hold_all(&o->held);
	while ((p = kmem_cache_alloc(c))) {
		*(void **)p = o->objs;
		o->objs = p;
		n++;
	}
	return n;
}

static inline int slab_test_run_out_undo(struct kmem_cache *c, struct slab_test_out *o)
{
	while (o->objs) {
		void *next = *(void **)o->objs;

		kmem_cache_free(c, o->objs);
		o->objs = next;
	}
	return mm_test_release(o->held);
}

/*
 * slab_test_interleave - reorder objs[0..n) (allocated in order from slabs
 * of 'stride' objects) so that neighbours were stride apart: objects of
 * different slabs side by side, as frees come in a workload that frees at
 * random. tmp: room for n pointers.
 */
static inline void slab_test_interleave(void **objs, void **tmp, unsigned int n, unsigned int stride)
{
	unsigned int k = 0;

	for (unsigned int start = 0; start < stride; start++)
		for (unsigned int i = start; i < n; i += stride)
			tmp[k++] = objs[i];
	for (unsigned int i = 0; i < n; i++)
		objs[i] = tmp[i];
}

/*
 * Fragmented memory, for tests of allocation with most pages free but
 * only in small blocks: slab_test_fragment takes every free page (all CPUs'
 * lists drained first), then frees all but the first page of each aligned
 * group of 2 << max_order pages again, so that the free blocks are of
 * orders 0..max_order (this CPU's list drained into the zone, where they
 * merge); the pages kept are threaded through themselves.
 * slab_test_unfragment frees them. Either counts a failed
 * free_pages_addr in f->bad.
 */
struct slab_test_frag_page {
	struct slab_test_frag_page *next;
};

struct slab_test_frag {
	struct slab_test_frag_page *keep;
	unsigned long kept, freed;
	int bad;
};

static inline void slab_test_fragment(struct slab_test_frag *f, unsigned int max_order)
{
	struct slab_test_frag_page *all = NULL, *p;
	unsigned long group = 2UL << max_order;

	f->keep = NULL;
	f->kept = f->freed = 0;
	f->bad = 0;
	drain_all_pages();
	while ((p = get_free_pages(0)) != NULL) {
		p->next = all;
		all = p;
	}
	while (all) {
		p = all;
		all = p->next;
		if (page_to_pfn(virt_to_page(p)) % group == 0) {
			p->next = f->keep;
			f->keep = p;
			f->kept++;
		} else {
			f->bad |= free_pages_addr(p, 0) != 0;
			f->freed++;
		}
	}
	buddy_drain_local();
}

static inline void slab_test_unfragment(struct slab_test_frag *f)
{
	while (f->keep) {
		struct slab_test_frag_page *next = f->keep->next;

		f->bad |= free_pages_addr(f->keep, 0) != 0;
		f->keep = next;
	}
}

/* The largest order with a free block on the zone's lists, or -1. */
static inline int slab_test_largest_free_order(void)
{
	struct buddy_stats st;
	int o;

	buddy_read_stats(&st);
	for (o = MAX_ORDER; o >= 0 && !st.nr_free[o]; o--)
		;
	return o;
}

#endif
