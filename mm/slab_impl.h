/*
 * slab_impl.h - the internal header of the object allocator this build
 * uses (MM_ALLOC_DEF_H, set by the allocator folder's files.mk:
 * mm/slab/slab_def.h, mm/slub/slub_def.h, mm/slob/slob_def.h), and the
 * hooks kmalloc takes from it. For the code every allocator builds
 * (mm/kmalloc.c) and the allocator-neutral tests. Each def header
 * provides, under the same names:
 * struct kmem_cache with 'name', 'object_size' and 'list'; slab_state and
 * SLAB_DOWN..SLAB_UP; slab_caches and slab_caches_lock; kmalloc_caches[];
 * the fast paths slab_alloc(cachep) and slab_free(cachep, objp, fn);
 * kfree's fast path slab_kfree_fast(p), or slab_obj_head(p) (a page of a
 * slab whose slab_cache owns p, or NULL) to build it from,
 * slab_find_head(cachep, p, fn) (checks p in full, reports it if bad);
 * kmem_cache_setup, which mm/slab_common.c's __kmem_cache_create calls (the
 * declarations every allocator shares are in mm/slab_common.h).
 */
#ifndef MM_SLAB_IMPL_H
#define MM_SLAB_IMPL_H

/* The chosen allocator's header, named by its folder's files.mk (MM_DEF_H_<alloc>). */
#ifndef MM_ALLOC_DEF_H
#error "MM_ALLOC_DEF_H names the allocator's internal header: build through mm/files.mk"
#endif
#include MM_ALLOC_DEF_H

#include "mm/fault_inject.h"

/*
 * What every object allocator provides besides the API of mm/slab.h, for
 * the code all of them share:
 *
 * SLAB_ALLOC_NAME - the allocator's name as its reports print it ("slab").
 *
 * SLAB_ALLOC_MERGES - 1 when kmem_cache_create may hand out a live cache
 * whose objects fit (mm/slab_merge.c), 0 when it never does (SLOB: its
 * caches share one heap already). Every struct kmem_cache has 'refcount'
 * for it, and 'align', 'size', 'dead' for the match.
 *
 * SLAB_NODE_PLACED - 1 when kmem_cache_alloc_node's objects lie on the node
 * asked (when it has memory), 0 when the node is not used (SLOB).
 *
 * SLAB_BAD_FREE_EVENT() - what else a bad free counts besides
 * slab_bad_frees and the cache's bad_frees (SLOB: a per-CPU heap event;
 * SLAB, SLUB: nothing). mm/slab_debug.c's misuse checks also read each
 * cache's 'flags', 'object_size', 'ctor' and stat(cache, bad_frees /
 * corruptions, n).
 *
 * kmem_cache_slabinfo - fill si with cachep's row of /proc/slabinfo 2.1
 * (mm/slab_report.c prints it): the counts as the allocator defines them
 * (its *_info.c says how), the cache's own tunables. Called with
 * slab_caches_lock held or the cache otherwise kept alive; takes what
 * locks the allocator needs to read its counters. Never fails.
 *
 * slab_alloc_tables_show - print the allocator's own tables after the 2.1
 * table (SLOB: its heap); may print nothing. *
 * kmem_cache_stats_own - write cachep's own event counters (those beside
 * the shared struct slab_stats, mm/slab_stats.h) to buf, len bytes, NUL
 * ended, as words and numbers for kmem_cache_stats_show's line (mm/slab_report.c).
 * Reads the counters without a lock; never fails (a long line is cut).
 */
struct slabinfo {
	unsigned long active_objs, num_objs;
	unsigned int objsize, objperslab, pagesperslab;
	unsigned int limit, batchcount, sharedfactor;	/* the tunables */
	unsigned long active_slabs, num_slabs, shared_avail;
};

void kmem_cache_slabinfo(struct kmem_cache *cachep, struct slabinfo *si);

/*
 * kmem_cache_slabinfo_node - fill si with the part of cachep's row that is
 * on memory node 'node' (kernel/numa.h): the slabs whose pages are that
 * node's, their objects, and the objects cached for them, counted as
 * kmem_cache_slabinfo counts the whole cache; geometry and tunables as
 * there. The rows of every online node add up to kmem_cache_slabinfo's.
 * False, si untouched, when the allocator keeps no account by node (SLOB:
 * one heap for every node). Same context as kmem_cache_slabinfo.
 */
bool kmem_cache_slabinfo_node(struct kmem_cache *cachep, unsigned int node, struct slabinfo *si);
void slab_alloc_tables_show(void);
void kmem_cache_stats_own(struct kmem_cache *cachep, char *buf, size_t len);

/*
 * kmem_cache_locks_reset - zero the contention counters (kernel/spinlock.h,
 * SLAB_STATS=1 builds) of the cache's own locks, which kmem_cache_stats_own
 * may report; for kmem_cache_stats_reset. The cache idle. May do nothing.
 */
void kmem_cache_locks_reset(struct kmem_cache *cachep);

/*
 * The hooks kmalloc and kfree take from the allocator. Every def header
 * defines each of them, as its own code or by naming the generic version
 * below (slab_generic_*); there are no defaults, so a missing hook is a
 * build error:
 *
 * slab_kmalloc_alloc_fi(cachep) - kmalloc's allocation from a kmalloc
 *   cache, with failslab's test (SLAB folds the test into its fast path and
 *   knows kmalloc's free mark is at offset 0; the generic one tests, and
 *   tail-calls slab_alloc_failslab out of line while failslab is on).
 * KMALLOC_TABLE_FAILSLAB - 1 when failslab empties kmalloc's size table
 *   instead (see below), 0 when slab_kmalloc_alloc_fi tests it.
 * SLAB_FAILSLAB_SWITCH(on) - failslab went on or off (mm/fault_inject.c):
 *   kmalloc_failslab_switch, or the allocator's own.
 * slab_kmalloc_alloc(cachep) - kmalloc's allocation from a cache of the
 *   table, failslab already tested (SLUB: its free pointer at offset 0).
 * KMALLOC_ALIGN(size) - the alignment kmalloc asks for a class of size.
 * KMALLOC_MAX_SLAB, KMALLOC_SLAB_SHIFT_HIGH - the largest kmalloc class the
 *   allocator serves and its shift; larger requests take whole pages.
 * slab_kfree(page, p) - kfree's free of p once slab_obj_head found its page.
 * slab_kfree_fast(p) - kfree's fast path: free p and return true if it is
 *   an object of a slab, else return false having touched nothing.
 * slab_obj_cache(page, p), slab_obj_size(page, p) - the cache and the
 *   usable bytes of an object slab_find_head found in the slab at page.
 */
static __always_inline void *slab_generic_kmalloc_alloc_fi(struct kmem_cache *cachep)
{
	if (unlikely(fault_attr_on(&failslab)))
		return slab_alloc_failslab(cachep);
	return slab_alloc(cachep);
}

/*
 * Without the fold (SLUB, SLOB), failslab costs kmalloc nothing either:
 * while it is on, kmalloc's size table (mm/kmalloc.c) holds NULL, which
 * kmalloc tests anyway on its way to the cache, and kmalloc_table_empty
 * takes the request through slab_kmalloc_alloc_fi. On arm64 that is one cbz
 * where the test of failslab.enabled was three instructions and a branch.
 * kmalloc_failslab_switch(on) - empty or fill the table (failslab went on
 * or off; boot fills it by failslab's state). Any context; allocations
 * racing with it see either setting.
 * slab_kmalloc_alloc - kmalloc's allocation from a cache of that table,
 * failslab already tested: the def header's own (SLUB: its free pointer
 * at offset 0), else slab_alloc.
 */
void kmalloc_failslab_switch(bool on);

/* The generic slab_kfree: slab_free to the page's cache. */
#define slab_generic_kfree(page, p) slab_free((page)->slab_cache, (void *)(p), "kfree")

/*
 * The generic slab_kfree_fast: slab_obj_head, then slab_kfree (kfree_slow
 * then frees a large allocation or reports what is no object). A macro, as
 * only the allocators that name it have slab_obj_head.
 */
#define slab_generic_kfree_fast(p)                                                    \
	({                                                                             \
		const void *kf_p = (p);                                                \
		struct page *kf_head = slab_obj_head(kf_p); /* NULL for NULL, ZERO_SIZE_PTR */ \
		if (likely(kf_head))                                                   \
			slab_kfree(kf_head, kf_p);                                     \
		kf_head != NULL;                                                       \
	})

/* The generic slab_obj_cache and slab_obj_size: the page's cache, its object size. */
static inline struct kmem_cache *slab_generic_obj_cache(const struct page *page, const void *p)
{
	(void)p;
	return page->slab_cache;
}

static inline size_t slab_generic_obj_size(const struct page *page, const void *p)
{
	(void)p;
	return page->slab_cache->object_size;
}

/* The largest object any cache may have, in every build (debug too): a MAX_ORDER block. */
#define KMEM_CACHE_MAX_SIZE	(PAGE_SIZE << MAX_ORDER)

/* Checks every allocator's kmem_cache_* functions share (mm/slab_common.c, mm/kmalloc.c). */
bool kmem_cache_bad_arg(char *buf, size_t len, const char *name, size_t size, size_t align,
			unsigned int flags);
bool slab_cache_live(const struct kmem_cache *cachep);

/*
 * slab_cache_refused - the check of the cache a kmem_cache_* function
 * 'fn' was given: true, reported ("fn(NULL): no cache given", or "fn(ptr):
 * not a live cache ..."), when cachep is NULL or, with check_live, not a
 * live cache (slab_cache_live; only once the allocator is up). The caller
 * then does nothing. *cachep is never read. Any context. Every build
 * checks for NULL where a NULL would be dereferenced off the fast paths
 * (kmem_cache_shrink, kmem_cache_drain_local); CONFIG_SLAB_DEBUG builds
 * check liveness on kmem_cache_alloc too.
 */
bool slab_cache_refused(const struct kmem_cache *cachep, const char *fn, bool check_live);

/*
 * slab_node_arg - the node argument of kmem_cache_alloc_node / kmalloc_node
 * ('fn', for cachep or kmalloc's when NULL): node itself when it is online
 * or NUMA_NO_NODE; otherwise reported ("fn(cache, node N): node N is not
 * online ...") and NUMA_NO_NODE returned, so the caller serves the calling
 * CPU's node. Any context.
 */
unsigned int slab_node_arg(const struct kmem_cache *cachep, unsigned int node, const char *fn);

/*
 * slab_free_cache_refused - kmem_cache_free's liveness check in
 * CONFIG_SLAB_DEBUG builds: true when cachep (not NULL) is not a live
 * cache and objp is not NULL; the free is then reported as a bad free
 * (naming the object and the cache pointer), counted in slab_bad_frees,
 * and the caller frees nothing. Any context.
 */
bool slab_free_cache_refused(struct kmem_cache *cachep, const void *objp);
void kmem_cache_free_no_cache(const void *objp);


#endif
