/*
 * slab_def.h - SLAB's internal data structures, shared by mm/slab*.c and
 * mm/kmalloc.c (and read by the tests). Users include mm/slab.h only.
 *
 * A cache (struct kmem_cache) owns slabs: blocks of 2^order pages holding
 * 'num' objects 'size' bytes apart from s_mem. There is no slab descriptor:
 * the head struct page of the block describes the slab (page->slab_cache,
 * s_mem, freelist, active, lru); every page of it has PG_slab and
 * page->private pointing at the head, so kfree finds the cache from any
 * object address through virt_to_page() in O(1).
 *
 * Free objects of a slab are a stack of indexes: freelist[] holds num
 * freelist_idx_t; entries [active, num) name the free objects, the next one
 * handed out is freelist[active] and a freed object's index is stored at
 * freelist[active - 1]. The array is only ever read or written at the stack
 * top. Where it lives is the cache's layout (enum slab_layout).
 *
 * Each cache has one node (Quarry has no NUMA) with three lists of slabs by
 * fullness, counters, and list_lock; and one array_cache per CPU, a stack of
 * object pointers that is the allocation fast path.
 *
 * Locks, outermost first: slab_caches_lock (the list of caches) ->
 * node.list_lock (the node's lists, counters and the freelist of every slab
 * on them) -> the buddy allocator's zone lock -> the console lock. A node
 * lock is only taken with interrupts off. A CPU's array_cache is touched only
 * by that CPU with interrupts off; the one exception is kmem_cache_destroy
 * and kmem_cache_check, whose callers guarantee the cache is not in use.
 * A slab being made (between cache_grow_begin and cache_grow_end) is on no
 * list and belongs to the CPU making it: no lock is needed to take objects
 * from it.
 *
 * Departures from Linux: one node; no colouring (the leftover stays at the
 * end of the slab); no shared per-node array yet (sharedfactor prints 0);
 * arrays for all NR_CPUS are made with the cache; a cache that still has
 * objects when destroyed is kept rather than freed; double frees are looked
 * for at the stack tops even without debugging.
 */
#ifndef MM_SLAB_DEF_H
#define MM_SLAB_DEF_H

#include "kernel/compiler.h"
#include "kernel/list.h"
#include "kernel/spinlock.h"
#include "mm/page.h"
#include "mm/slab.h"
#include <asm/processor.h>

#ifndef CONFIG_SLAB_DEBUG
#define CONFIG_SLAB_DEBUG 0
#endif
#ifndef CONFIG_SLAB_STATS
#if CONFIG_SLAB_DEBUG || defined(QUARRY_HOST)
#define CONFIG_SLAB_STATS 1
#else
#define CONFIG_SLAB_STATS 0
#endif
#endif

/*
 * The freelist index: one byte when no slab can hold more than 256 objects.
 * At 4K pages the smallest object is 16 bytes, so an order-0 slab holds at
 * most 256; at 64K pages it would hold 4096 and the index is two bytes.
 * Larger orders must keep num <= SLAB_OBJ_MAX_NUM: calculate_slab_order()
 * stops there and cache setup asserts it for every cache.
 */
#if PAGE_SHIFT == 12
typedef uint8_t freelist_idx_t;
#else
typedef uint16_t freelist_idx_t;
#endif

#define SLAB_OBJ_MIN_SIZE	16
#define SLAB_OBJ_MAX_NUM	(1UL << (8 * sizeof(freelist_idx_t)))

_Static_assert(SLAB_OBJ_MIN_SIZE == KMALLOC_MIN_SIZE, "kmalloc-16 is the smallest cache");
_Static_assert(PAGE_SIZE / SLAB_OBJ_MIN_SIZE <= SLAB_OBJ_MAX_NUM,
	       "an order-0 slab of the smallest objects must fit the index");
_Static_assert(PAGE_SHIFT != 12 || sizeof(freelist_idx_t) == 1, "4K pages: one-byte index");
_Static_assert(PAGE_SHIFT != 16 || sizeof(freelist_idx_t) == 2, "64K pages: two-byte index");

/* Slab orders tried first; larger ones only when an object needs them. */
#define SLAB_MAX_ORDER_SOFT	(PAGE_SHIFT == 12 ? 3 : 1)

/* Where a slab's freelist array lives. */
enum slab_layout {
	SLAB_LAYOUT_ON_SLAB,	/* in the slab, right after the last object */
	SLAB_LAYOUT_OFF_SLAB,	/* in a buffer from kmalloc (cache->freelist_cache) */
	SLAB_LAYOUT_IN_OBJ,	/* inside the free object handed out last; none when full */
};

/*
 * Per-CPU array of free objects, a LIFO stack: entry[avail - 1] is the most
 * recently freed (cache-hot) object. Owned by one CPU (see above).
 */
struct array_cache {
	unsigned int avail;		/* objects in entry[] */
	unsigned int limit;		/* most objects entry[] may hold */
	unsigned int batchcount;	/* objects moved per refill or flush */
	unsigned int touched;		/* set when the array was refilled for an allocation */
	void *entry[];			/* limit slots */
};

/* An untouched array refills at most this many objects at once. */
#define BATCHREFILL_LIMIT	16
/* Stack-top entries compared with a freed object to catch a double free cheaply. */
#define SLAB_DFREE_WINDOW	8

/* The slabs of a cache (one node) and the counts derived from them. */
struct kmem_cache_node {
	struct spinlock list_lock;	/* protects everything below and the slabs' freelists */
	struct list_head slabs_full;	/* active == num */
	struct list_head slabs_partial;	/* 0 < active < num */
	struct list_head slabs_free;	/* active == 0 */
	unsigned long total_slabs;	/* slabs on the three lists */
	unsigned long free_slabs;	/* slabs on slabs_free */
	unsigned long free_objects;	/* free objects on the lists' slabs (not in arrays) */
	unsigned long free_limit;	/* above this many free objects, empty slabs go back */
};

/* Event counters of one cache; all zero unless CONFIG_SLAB_STATS. */
struct kmem_cache_stats {
	unsigned long allocs;		/* objects handed to callers */
	unsigned long frees;		/* objects taken back from callers */
	unsigned long alloc_hits;	/* allocations served from the CPU array */
	unsigned long alloc_misses;	/* allocations that found the CPU array empty */
	unsigned long free_hits;	/* frees that found room in the CPU array */
	unsigned long free_misses;	/* frees that flushed the full CPU array first */
	unsigned long refilled;		/* objects moved from slabs into CPU arrays */
	unsigned long flushed;		/* objects moved from CPU arrays back to slabs */
	unsigned long grown;		/* slabs made with pages from the buddy allocator */
	unsigned long grown_batch;	/* objects taken from new slabs before publishing them */
	unsigned long grow_failed;	/* slabs we could not make: no pages or no freelist */
	unsigned long reaped;		/* empty slabs given back to the buddy allocator */
	unsigned long bad_frees;	/* frees reported and refused */
	unsigned long corruptions;	/* red zone or poison damage found */
};

#if CONFIG_SLAB_STATS
/* stat - the one hook for every counter: add n to cachep->stats.field. */
#define stat(cachep, field, n) \
	((void)__atomic_fetch_add(&(cachep)->stats.field, (unsigned long)(n), __ATOMIC_RELAXED))
#else
#define stat(cachep, field, n) ((void)(cachep), (void)(n))
#endif

struct kmem_cache {
	struct array_cache *cpu_array[NR_CPUS]; /* per CPU; NULL until arrays are set up */
	unsigned int size;		/* bytes from one object to the next, guards included */
	unsigned int object_size;	/* bytes the caller may use (ksize) */
	unsigned int obj_offset;	/* from an object's start to the caller's pointer */
	unsigned int num;		/* objects per slab */
	unsigned int order;		/* a slab is 2^order pages */
	unsigned int flags;		/* SLAB_* in effect */
	unsigned int align;		/* object alignment */
	enum slab_layout layout;	/* where the freelist lives */
	unsigned int freelist_size;	/* num * sizeof(freelist_idx_t) */
	struct kmem_cache *freelist_cache; /* OFF_SLAB: kmalloc cache of the freelists */
	unsigned int waste;		/* bytes per slab holding no object (+ off-slab list) */
	unsigned int limit;		/* tunables, as given to the arrays */
	unsigned int batchcount;
	unsigned int shared;
	bool dead;			/* destroyed with live objects: kept for their frees */
	void (*ctor)(void *);
	struct kmem_cache_node node;
	struct list_head list;		/* on slab_caches, under slab_caches_lock */
	char name[SLAB_NAME_LEN];
	struct kmem_cache_stats stats;
};

/* Boot progress: kmalloc and per-CPU arrays become usable in steps. */
enum slab_state {
	SLAB_DOWN,	/* nothing yet */
	SLAB_PARTIAL,	/* the kmem_cache cache works, array-less */
	SLAB_KMALLOC,	/* kmalloc caches exist, array-less */
	SLAB_UP,	/* every cache has its per-CPU arrays */
};

extern enum slab_state slab_state;
extern struct list_head slab_caches;
extern struct spinlock slab_caches_lock;
extern struct kmem_cache *kmalloc_caches[KMALLOC_SHIFT_HIGH + 1];

/* The caller's object pointer for index idx of the slab headed by page. */
static inline void *slab_obj(const struct kmem_cache *cachep, const struct page *page,
			     unsigned int idx)
{
	return (char *)page->s_mem + (size_t)idx * cachep->size + cachep->obj_offset;
}

/* The index of a caller's object pointer known to be on an object boundary. */
static inline unsigned int slab_obj_index(const struct kmem_cache *cachep, const struct page *page,
					  const void *objp)
{
	uintptr_t off = (uintptr_t)objp - (uintptr_t)page->s_mem - cachep->obj_offset;

	return (uint32_t)off / cachep->size;
}

static inline freelist_idx_t *slab_freelist(const struct page *page)
{
	return (freelist_idx_t *)page->freelist;
}

/* The head page of the slab holding objp. Precondition: its page has PG_slab. */
static inline struct page *slab_head_page(const void *objp)
{
	return (struct page *)virt_to_page(objp)->private;
}

static inline bool slab_debug_on(const struct kmem_cache *cachep)
{
	return cachep->flags & SLAB_DEBUG;
}

/* mm/slab.c: slabs and their lists. */
struct page *cache_grow_begin(struct kmem_cache *cachep);
void cache_grow_end(struct kmem_cache *cachep, struct page *page);
unsigned int slab_take_objs(struct kmem_cache *cachep, struct page *page, void **out,
			    unsigned int max);
unsigned int cache_take_from_lists(struct kmem_cache *cachep, void **out, unsigned int max);
void cache_free_objs(struct kmem_cache *cachep, void *const *objs, unsigned int n,
		     struct list_head *release);
void slabs_release(struct kmem_cache *cachep, struct list_head *release);

/* mm/slab_cpu.c: per-CPU arrays. */
int cache_setup_arrays(struct kmem_cache *cachep);
void cache_free_arrays(struct kmem_cache *cachep);
void cache_drain_array(struct kmem_cache *cachep, struct array_cache *ac);
void __kmem_cache_free(struct kmem_cache *cachep, void *objp, const char *fn);

/* mm/slab_debug.c: guards, poison and pointer checks. */
void slab_debug_init_obj(struct kmem_cache *cachep, void *objp);
bool slab_debug_free(struct kmem_cache *cachep, void *objp, const char *fn);
void slab_debug_alloc(struct kmem_cache *cachep, void *objp);
int slab_debug_verify_free(struct kmem_cache *cachep, void *objp);
struct page *slab_find_head(struct kmem_cache *cachep, const void *objp, const char *fn);
void slab_print_error(const struct kmem_cache *cachep, const char *fn, const void *objp,
			      const char *what);
void slab_bad_free(struct kmem_cache *cachep, const char *fn, const void *objp, const char *what);

/* mm/kmalloc.c */
void kmalloc_caches_init(void);
struct kmem_cache *kmalloc_slab(size_t size);

/* mm/slab_layout.c */
bool cache_setup(struct kmem_cache *cachep, const char *name, size_t size, size_t align,
		 unsigned int flags, void (*ctor)(void *));
const char *slab_layout_name(const struct kmem_cache *cachep);

/* mm/slab.c */
void slab_caches_add(struct kmem_cache *cachep);
struct kmem_cache *__kmem_cache_create(const char *name, size_t size, size_t align,
				       unsigned int flags, void (*ctor)(void *));

#endif
