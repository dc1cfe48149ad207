/*
 * slab_common.h - what every object allocator declares the same way, for
 * its own files and the code they share (mm/slab_common.c, mm/kmalloc.c):
 * the boot steps, the list of caches, kmalloc's table, the cache of
 * struct kmem_cache, and making a cache. Included by each allocator's def
 * header once its struct kmem_cache is complete.
 */
#ifndef MM_SLAB_COMMON_H
#define MM_SLAB_COMMON_H

/* Boot progress (SLAB's names, so that the shared code reads every allocator). */
enum slab_state {
	SLAB_DOWN,	/* nothing yet */
	SLAB_PARTIAL,	/* the kmem_cache cache works (SLAB: array-less) */
	SLAB_KMALLOC,	/* kmalloc caches exist (SLAB: array-less) */
	SLAB_UP,	/* everything (SLAB: CPUs make their arrays as they use a cache) */
};

extern enum slab_state slab_state;
extern struct list_head slab_caches;		/* newest first, under slab_caches_lock */
extern struct spinlock slab_caches_lock;
extern struct kmem_cache *kmalloc_caches[KMALLOC_SHIFT_HIGH + 1];
/* The cache of struct kmem_cache: every cache (and min-order twin) made after boot. */
extern struct kmem_cache kmem_cache_boot;

/*
 * kmem_cache_setup - the allocator's part of making a cache: fill in the
 * zeroed c (geometry, order, its own state) for objects of size bytes
 * aligned to align (0: the allocator's least), flags SLAB_*, ctor or NULL.
 * The arguments are valid (kmem_cache_bad_arg passed them, or boot code
 * gave them). False, reported on the console with the cache's name, when
 * no slab holds such an object or what the cache needs could not be had;
 * nothing is left to undo then but c itself. Not from interrupts.
 */
bool kmem_cache_setup(struct kmem_cache *c, const char *name, size_t size, size_t align,
		      unsigned int flags, void (*ctor)(void *));

/*
 * __kmem_cache_create (mm/slab_common.c) - a cache from kmem_cache_boot set
 * up by kmem_cache_setup, not yet on slab_caches (the caller adds it with
 * slab_caches_add). NULL when no struct could be had or the setup failed
 * (reported). Destroyed by kmem_cache_destroy once listed.
 */
struct kmem_cache *__kmem_cache_create(const char *name, size_t size, size_t align,
				       unsigned int flags, void (*ctor)(void *));

/*
 * slab_cache_align - the alignment of a cache's objects: align (0: none
 * asked), least (the allocator's own, a power of two), and with
 * SLAB_HWCACHE_ALIGN a cache line, halved while two objects of size bytes
 * still fit in the half (so small objects do not each take a line). Never
 * fails (mm/slab_common.c).
 */
size_t slab_cache_align(size_t size, size_t align, unsigned int flags, size_t least);

/* slab_caches_add - put a made cache on slab_caches, newest first (mm/slab_common.c). */
void slab_caches_add(struct kmem_cache *cachep);

/*
 * slab_caches_try_each - fn(cachep, arg) for every cache on slab_caches but
 * 'except', under slab_caches_lock taken with a trylock and interrupts off
 * (its holder may be the code an interrupt cut in on): true if any call
 * returned true; false, with nothing called, when the lock was held. For
 * an allocator's paths that may run in any context (the reap, giving back
 * on memory pressure). fn must not take slab_caches_lock nor make or
 * destroy a cache (mm/slab_common.c).
 */
bool slab_caches_try_each(bool (*fn)(struct kmem_cache *cachep, void *arg), void *arg,
			  const struct kmem_cache *except);

/*
 * slab_merge_find - with merging on (slab_merge_set), a live cache that a
 * new one of these arguments may share (mm/slab_merge.c), its refcount
 * raised; NULL when merging is off, the allocator never merges, the new
 * cache would have a ctor, debug flags or SLAB_NO_MERGE, or no cache fits.
 * The arguments are good (kmem_cache_bad_arg). Not from interrupts.
 */
struct kmem_cache *slab_merge_find(size_t size, size_t align, unsigned int flags,
				   void (*ctor)(void *));

/*
 * slab_merge_put - for kmem_cache_destroy, after its live check: true, with
 * the refcount lowered, when another create still uses cachep (the destroy
 * then does nothing more); false when this is its last user.
 */
bool slab_merge_put(struct kmem_cache *cachep);

/* kmalloc_caches_init - make kmalloc's caches (mm/kmalloc.c): boot, from kmem_cache_init. */
void kmalloc_caches_init(void);

#endif
