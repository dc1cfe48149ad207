/*
 * slab_def.h - SLAB: per-CPU arrays of object pointers in front of slabs
 * whose free objects are a stack of small indexes.
 *
 * SLAB's internal data structures and its inline fast paths, shared by
 * mm/slab*.c and mm/kmalloc.c (and read by the tests). Users include
 * mm/slab.h only. Documentation/slab.md tells the why and the history.
 *
 * Concepts. A cache (struct kmem_cache) owns slabs: blocks of 2^order pages holding
 * 'num' objects 'size' bytes apart. There is no slab descriptor: the head
 * struct page of the block describes the slab (page->slab_cache, s_mem =
 * the caller's pointer to object 0, freelist, active, lru); every page of
 * it has PG_slab, page->private pointing at the head, and the cache and
 * s_mem copied. The fast frees read neither: slab_cache_map[] holds a word
 * per page (PFN - PFN_OFFSET), the cache of the slab it is in or
 * &slab_cache_none, set and reset with the page's slab_cache; kfree and kmem_cache_free find
 * the cache there (virt_to_cache) and check the object boundary from the
 * cache alone (a slab is a buddy block, so aligned to its size). A word is
 * an eighth of a struct page's cache line: the page line was the load a
 * free missed most (host larson: 0.52 L1 misses per free, callgrind).
 *
 * Free objects of a slab are a stack of indexes: freelist[] holds num
 * freelist_idx_t; entries [active, num) name the free objects, the next one
 * handed out is freelist[active] and a freed object's index is stored at
 * freelist[active - 1]. The array is only ever read or written at the stack
 * top. Where it lives is the cache's layout (enum slab_layout).
 *
 * Each cache has a node (struct kmem_cache_node) per memory node, Linux
 * SLAB's NUMA structure: three lists of slabs by fullness, counters, a
 * shared array and list_lock. Node 0 is part of the cache; another node is
 * made when a CPU of it makes its first array of the cache, or when
 * kmem_cache_alloc_node first asks for it (until then, or if that fails,
 * that node's CPUs use node 0), so caches cost memory only on the nodes
 * that use them. A CPU's node is its memory node: cpu_to_node, or for a
 * CPU of a memory-less node the nearest node with memory (slab_mem_node).
 * A CPU refills only from its node and grows slabs from pages asked of it
 * (alloc_pages_node, which falls back nearest first); a slab belongs to the
 * node its pages are on (its home, kept in the head page's flags) when the
 * cache has that node, so a node's slabs are its memory; a fallback onto a
 * node the cache never used stays with the node it was made for (no node
 * is made under memory pressure), and slabs made before the page allocator
 * knew the nodes (boot) are node 0's. Reports count slabs by their pages.
 * Per CPU there is also an array_cache, a stack of object pointers that
 * is the allocation fast path (made on the CPU's first use of the cache;
 * until then cpu_array[cpu] is the empty slab_no_array, which sends both
 * fast paths to the slow path), and alien caches (struct slab_alien, made
 * on the CPU's first flush of another node's objects): per remote node a
 * small array of that node's objects this CPU freed. The free fast path
 * pushes any object on the CPU's array; a full array's oldest batch is
 * sorted (mm/slab/slab_alien.c): the CPU's node's objects go to its shared
 * array or slabs, the others to their alien caches, which go home whole
 * when full, on every slab_reap pass, and on drain, shrink, drop and
 * destroy. So objects always end up on their home node; an object of
 * another node may still be handed out again by the CPU that freed it
 * before its batch is flushed. SLAB_NODE_PER_CPU=1 builds keep the earlier
 * layout instead: a node per CPU (node[] indexed by CPU), slabs homed at
 * the CPU that made them, no alien caches (a flush sends a run of one home
 * at a time under that node's lock), kmem_cache_alloc_node served as
 * kmem_cache_alloc. Both layouts are the same code with SLAB_NODES slots;
 * on a one-node machine the memory-node layout has a single node 0.
 *
 * Lock order, outermost first, and what each lock protects:
 *  1. slab_caches_lock: the list of caches.
 *  2. node[n].list_lock: node n's three slab lists, its counters, its
 *     shared array and the freelist and 'active' of every slab on its
 *     lists. One node lock at a time, except kmem_cache_check, which takes
 *     them in index order. Only taken with interrupts off.
 *  3. the buddy allocator's zone lock (slabs made and freed).
 *  4. the console lock (reports).
 * Alien caches have no lock: like the CPU's array, only their CPU touches
 * them, with interrupts off; sending one home takes its node's lock (2).
 *
 * Who touches a CPU's state, with what disabled: a CPU's array_cache and
 * alien caches are read and written only by that CPU, with interrupts off
 * or, for the fast paths' pop and push of the array, in a restartable
 * sequence (kernel/restart.h: an interrupt landing inside one, such as
 * slab_reap draining the array from the tick, sends it back to its start); kmem_cache_destroy and
 * kmem_cache_check read other CPUs' arrays and alien caches, and their
 * callers guarantee the cache is idle; the double-free search reads them
 * racily (an object the caller holds is in none of them). A slab being
 * made (between cache_grow_begin and cache_grow_end) is on no list and
 * belongs to the CPU making it: no lock is needed to take objects from it.
 *
 * Invariants: a slab's freelist entries [active, num) name exactly its free
 * objects (none of them in any array); a slab is on its home node's full,
 * partial or free list as active is num, between, or 0 (or on none while
 * being made); every page of a slab has slab_cache_map's word naming the
 * slab's cache (its min-order twin for a min-order slab), every other page
 * &slab_cache_none; an object is in at most one array, alien cache or
 * freelist; an alien cache for node n holds only objects homed at n, and
 * (memory-node layout, several nodes) a shared array only its node's; an
 * object in an array or alien cache counts as in use on its slab.
 *
 * Min-order slabs: when no block of a cache's order is free, its objects
 * come from slabs of the smallest order that holds one object with the
 * cache's layout, so that NULL means memory is out, not fragmented at one
 * order. Those slabs belong to the cache's min-order twin (min_cache): a
 * struct kmem_cache from the kmem_cache cache, made with the cache and
 * freed with it, that copies the object geometry and has the minimum
 * order's num, span, slab_mask, obj_bound, waste and freelist. Their pages
 * name the twin in slab_cache and slab_cache_map, so the fast paths' tests
 * (virt_to_cache's boundary, by the twin's slab_mask) are right for them
 * with no instruction more. A twin has no per-CPU or shared array (every
 * allocation and free of it is done under its node 0's lock, as a debug
 * cache's), no free_limit (an empty min-order slab goes back at once, so
 * no reap needs to visit it), and is on no list: cache_alloc_slow falls
 * back to it when the cache's own refill found nothing and could grow no
 * slab; kfree frees into it by itself; kmem_cache_free(cache, obj) takes
 * its objects; shrink, destroy, kmem_cache_check and the reports cover
 * it. Counted in stats.grown_min and alloc_min.
 *
 * Departures from Linux: alien caches per CPU with no lock (Linux: per
 * node and remote node, each with a lock, filled on every remote free),
 * filled only when the CPU's array flushes, so the free fast path tells no
 * node apart and a CPU may reuse a remote object it freed; a node made on
 * first use; no colouring; a word per page naming its cache
 * (slab_cache_map) beside struct page; arrays made lazily per CPU; a cache
 * destroyed with live objects is kept; double frees found even without
 * debugging, through a mark in the freed object (SLAB_FREE_MARK below);
 * the array fast paths are restartable sequences where the arch has them
 * (Linux: interrupts off);
 * debug caches take no per-CPU array (every operation is checked under the
 * node lock).
 */
#ifndef MM_SLAB_DEF_H
#define MM_SLAB_DEF_H

#include "kernel/compiler.h"
#include "kernel/list.h"
#include "kernel/spinlock.h"
#include "mm/page.h"
#include "mm/slab.h"
#include "mm/buddy.h"
#include "mm/slab_debug.h"
#include "kernel/percpu.h"
#include "kernel/atomic.h"
#include "kernel/restart.h"
#include "kernel/numa.h"
#include <asm/processor.h>

#ifndef CONFIG_SLAB_FREELIST_RANDOM
#define CONFIG_SLAB_FREELIST_RANDOM 0	/* SLAB_FREELIST_RANDOM=1: shuffle new slabs' stacks */
#endif
#include "mm/slab_stats.h"
#ifndef CONFIG_SLAB_GROW_LOCKED
#define CONFIG_SLAB_GROW_LOCKED 0
#endif
#ifndef CONFIG_SLAB_NODE_PER_CPU
#define CONFIG_SLAB_NODE_PER_CPU 0	/* SLAB_NODE_PER_CPU=1: a node per CPU, no aliens */
#endif

/*
 * The node slots of a cache: one per memory node (kernel/numa.h), or, in
 * SLAB_NODE_PER_CPU=1 builds, one per CPU (the layout before memory nodes).
 */
#if CONFIG_SLAB_NODE_PER_CPU
#define SLAB_NODES		NR_CPUS
#else
#define SLAB_NODES		MAX_NUMNODES
#endif
/* Objects an alien cache holds (per CPU, per remote node) before it goes home. */
#define SLAB_ALIEN_LIMIT	12

/*
 * The freelist index: one byte when no slab can hold more than 256 objects.
 * At 4K pages the smallest object is 16 bytes, so an order-0 slab holds at
 * most 256; at 64K pages it would hold 4096 and the index is two bytes.
 * CONFIG_SLAB_IDX_BYTES=4 forces four-byte indexes (seed 000's "before",
 * a benchmark variant). Larger orders must keep num <= SLAB_OBJ_MAX_NUM:
 * calculate_slab_order() stops there and cache setup asserts it.
 */
#if defined(CONFIG_SLAB_IDX_BYTES) && CONFIG_SLAB_IDX_BYTES == 4
typedef uint32_t freelist_idx_t;
#elif defined(CONFIG_SLAB_IDX_BYTES)
#error "CONFIG_SLAB_IDX_BYTES may only force 4-byte indexes"
#elif PAGE_SHIFT == 12
typedef uint8_t freelist_idx_t;
#else
typedef uint16_t freelist_idx_t;
#endif

#define SLAB_OBJ_MIN_SIZE	16
/* Objects a slab can hold: the index's range, and no more than fit in a MAX_ORDER block. */
#define SLAB_OBJ_MAX_NUM	MIN(1UL << MIN(8 * sizeof(freelist_idx_t), 31UL), \
				    (PAGE_SIZE << MAX_ORDER) / SLAB_OBJ_MIN_SIZE)

_Static_assert(SLAB_OBJ_MIN_SIZE == KMALLOC_MIN_SIZE, "kmalloc-16 is the smallest cache");
_Static_assert(PAGE_SIZE / SLAB_OBJ_MIN_SIZE <= SLAB_OBJ_MAX_NUM,
	       "an order-0 slab of the smallest objects must fit the index");
#ifndef CONFIG_SLAB_IDX_BYTES
_Static_assert(PAGE_SHIFT != 12 || sizeof(freelist_idx_t) == 1, "4K pages: one-byte index");
_Static_assert(PAGE_SHIFT == 12 || sizeof(freelist_idx_t) == 2, "16K and 64K pages: two-byte index");
#endif

/*
 * Slab orders tried first; larger ones only when an object needs them.
 * That is on machines of more than SLAB_SMALL_MEMORY bytes; on smaller
 * ones every object that fits a page gets an order-0 slab (Linux's SLAB
 * does the same: slab_max_order 0 up to 32 MB), since a higher-order slab
 * may then find no free block of its order among free single pages.
 * slab_max_order_soft holds the bound in force (mm/slab/slab_layout.c).
 */
#define SLAB_MAX_ORDER_SOFT	(PAGE_SHIFT == 12 ? 3 : 1)
#define SLAB_SMALL_MEMORY	(32UL << 20)
extern unsigned int slab_max_order_soft;
/*
 * Objects a slab should hold at least, where a soft order allows it at no
 * more memory per object (mm/slab/slab_layout.c): fewer means a slab made and
 * freed every few objects (4096-byte objects at order 0: one per slab).
 */
#ifndef SLAB_MIN_OBJS
#define SLAB_MIN_OBJS		32
#endif

/* Where a slab's freelist array lives. */
enum slab_layout {
	SLAB_LAYOUT_ON_SLAB,	/* in the slab, right after the last object */
	SLAB_LAYOUT_OFF_SLAB,	/* in a buffer from kmalloc (cache->freelist_cache) */
	SLAB_LAYOUT_IN_OBJ,	/* inside the free object handed out last; none when full */
};

/*
 * A stack of free objects: one per CPU (the fast path), and the node's
 * shared array. entry[0] is always NULL; the objects are entry[1..avail],
 * the most recently freed (cache-hot) at entry[avail]. The NULL bottom lets
 * the free fast path compare a freed object with the top without testing
 * for an empty array first.
 */
struct array_cache {
	unsigned long avail;		/* objects in entry[1..avail] (a word: an index as is) */
	unsigned long limit;		/* most objects it may hold */
	unsigned int batchcount;	/* objects moved per refill or flush */
	unsigned int touched;		/* refilled or flushed since the last reap looked
					   (slow paths only: the fast paths pay no store) */
	unsigned long mark_off;		/* its cache's mark_off (the fast paths read it here) */
	struct slab_alien *alien;	/* a CPU array's alien caches, or NULL (slab_alien.c) */
	void *entry[];			/* limit + 1 slots */
};

/*
 * The free mark: the always-on double-free check of caches with per-CPU
 * arrays (every cache without debugging). Freeing an object writes
 * SLAB_FREE_MARK(cachep), the address of its own cache, into the word
 * 'mark' at mark_off in it, and handing it out writes 0 there; a free that
 * finds the mark already in place goes to the slow path, which looks for
 * the object among the free ones (every array, every shared array, its
 * slab's free stack) and refuses it as a double free if it is there, else
 * (the caller stored that address itself) frees it. The cache's address is
 * in a register on every free path (it chose the array), so the mark costs
 * no instruction to make: a fixed odd constant would take one more per
 * free on arm64 (a mov to a register, for the compare and the store), and
 * one derived from the word's address two.
 * A caller's data equals it only where an object's word at mark_off holds
 * a pointer to that object's own cache: such a free is correct, only slow.
 * mark_off is 0, or past the object for caches with a ctor (whose free
 * objects keep their constructed state). Costs the free fast path a load,
 * a compare and a store of a word in the object, the allocation fast path
 * a store. Not seen: a double free after the object was handed out again
 * in between (that is a use after free), or of an object whose slab keeps
 * its freelist in it (IN_OBJ layout, slab full when it came back; the
 * slab's stack top check still applies).
 */
/* The mark a free writes into the free mark's word of an object of cachep. */
#define SLAB_FREE_MARK(cachep)	((uintptr_t)(cachep))

static __always_inline uintptr_t *slab_mark(void *objp, unsigned long mark_off)
{
	return (uintptr_t *)((char *)objp + mark_off);
}

/* The array of every CPU that has none (yet): avail 0, limit 0, never written. */
extern struct array_cache slab_no_array;

/*
 * This CPU's number as a word, set for every CPU by kmem_cache_init(): the
 * fast paths index cpu_array[] with it in one load, where the 32-bit
 * smp_processor_id() would cost a zero-extension more. SLAB_CPU_FAILSLAB on
 * every CPU while failslab is on (slab_failslab_switch); nothing else may
 * take it for the CPU's number.
 */
DECLARE_PER_CPU(unsigned long, slab_cpu_index);

/* slab_failslab_switch - failslab went on or off: set every CPU's slab_cpu_index. */
void slab_failslab_switch(bool on);
#define SLAB_FAILSLAB_SWITCH(on)	slab_failslab_switch(on)

/* An untouched array refills at most this many objects at once. */
#define BATCHREFILL_LIMIT	16
/* Shared array size, in batches, when more than one CPU may run (slabinfo's sharedfactor). */
#define SLAB_SHARED_FACTOR	8
/*
 * A shared array grows while its cache swings (slab_cpu.c: cache_grow_shared)
 * up to SLAB_SHARED_GROW_OBJS entries holding SLAB_SHARED_GROW_BYTES.
 */
#define SLAB_SHARED_GROW_OBJS	2048
#define SLAB_SHARED_GROW_BYTES	(2UL << 20)

/* The most entries node's shared array of cachep grows to (at least what it starts with). */
#define cache_shared_max(cachep) \
	MAX((cachep)->shared * (cachep)->batchcount, \
	    (unsigned int)MIN((unsigned long)SLAB_SHARED_GROW_OBJS, SLAB_SHARED_GROW_BYTES / (cachep)->size))

/* kmem_cache_node.shared_swing: a flush past the full shared array, then a refill from the slabs. */
#define SHARED_CALM	0	/* no overflow since the array was made or grew */
#define SHARED_FLUSHED	1	/* a flush found it full: scattered objects went to the slabs */
#define SHARED_SWINGS	2	/* ... and a CPU array was refilled from the slabs after it */
#define SHARED_IN_RUNS	3	/* a flush found it full, the rest in runs: not again until a refill */

/* The slabs of a cache homed at one node and the counts derived from them. */
struct kmem_cache_node {
	struct spinlock list_lock;	/* protects everything below and the slabs' freelists */
	struct list_head slabs_full;	/* active == num */
	struct list_head slabs_partial;	/* 0 < active < num */
	struct list_head slabs_free;	/* active == 0 */
	unsigned long total_slabs;	/* slabs on the three lists */
	unsigned long free_slabs;	/* slabs on slabs_free */
	unsigned long free_objects;	/* free objects on the lists' slabs (not in arrays) */
	unsigned long free_limit;	/* above this many free objects, empty slabs go back */
	struct array_cache *shared;	/* this node's objects freed by CPUs in a batch; NULL
					   until another CPU first frees some */
	unsigned int free_touched;	/* a free slab was allocated from since the last node reap */
	unsigned int reap_visits;	/* slab_reap passes since the last node reap */
	unsigned int shared_swing;	/* SHARED_*: whether the shared array should grow; a
					   hint: set under list_lock but for the trim and a
					   growth refused, read without it by the flush */
} __aligned(64);			/* different nodes share no cache line */
_Static_assert(_Alignof(struct kmem_cache_node) >= SLAB_CACHE_LINE &&
	       sizeof(struct kmem_cache_node) % SLAB_CACHE_LINE == 0,
	       "a node is whole cache lines: another CPU's node never shares one");

/*
 * Free objects a node keeps on empty slabs before giving slabs back: as
 * Linux's (1 + CPUs of the node) batches plus a slab, counted for one CPU.
 * A min-order twin keeps none: its slabs go back as soon as they are empty.
 */
#define SLAB_NODE_FREE_LIMIT(cachep) \
	((cachep)->min_of ? 0UL : 2UL * (cachep)->batchcount + (cachep)->num)

/* A slab's home node, in bits 8..15 of its head page's flags (set by cache_grow_begin). */
#define SLAB_NODE_SHIFT		8
#define SLAB_NODE_MASK		(0xffUL << SLAB_NODE_SHIFT)
_Static_assert(SLAB_NODES <= 256, "a node number fits eight bits of page->flags");

/*
 * A CPU's alien caches of one cache (hung on its array_cache, made on its
 * first flush of another node's objects, freed with the array): for each
 * other memory node, a small array of objects of that node's slabs that
 * this CPU's array flushed. Only the owning CPU touches them, with
 * interrupts off, as its array.
 */
struct slab_alien {
	struct array_cache *ac[MAX_NUMNODES];	/* NULL until first needed; own node's never */
};

/* Event counters of one cache (mm/slab_stats.h); all zero unless CONFIG_SLAB_STATS. */
struct kmem_cache_stats {
	struct slab_stats shared;	/* slabs_made: slabs made with pages from the buddy */
	unsigned long alloc_hits;	/* allocations served from the CPU array */
	unsigned long alloc_misses;	/* allocations that found the CPU array empty */
	unsigned long free_hits;	/* frees that found room in the CPU array */
	unsigned long free_misses;	/* frees that flushed the full CPU array first */
	unsigned long refilled;		/* objects moved into CPU arrays from slabs or shared */
	unsigned long shared_refilled;	/* of those, from the shared array */
	unsigned long flushed;		/* objects moved out of CPU arrays (to slabs or shared) */
	unsigned long shared_flushed;	/* of those, into the shared array */
	unsigned long flushed_remote;	/* of those, to another CPU's node (its lock, its lines) */
	unsigned long grown_batch;	/* objects taken from new slabs before publishing them */
	unsigned long grow_failed;	/* slabs we could not make: no pages or no freelist */
	unsigned long shared_grown;	/* a node's shared array doubled (the cache swings) */
	unsigned long shared_trimmed;	/* shared arrays emptied for another cache's slab */
	unsigned long grown_min;	/* min-order slabs made in the twin: the order was not free */
	unsigned long alloc_min;	/* objects handed out from the twin's min-order slabs */
	unsigned long reaped;		/* empty slabs given back to the buddy allocator */
};


/*
 * The per-CPU index every CPU's slab_cpu_index holds while failslab is on:
 * cpu_array[SLAB_CPU_FAILSLAB] is slab_no_array in every cache, so each
 * allocation falls to cache_alloc_slow, which asks should_fail first. The
 * fast path thus pays nothing for fault injection (mm/fault_inject.h).
 */
#define SLAB_CPU_FAILSLAB	NR_CPUS

#define SLAB_ALLOC_NAME	"slab"	/* the reports' prefix (mm/slab_impl.h) */
#define SLAB_ALLOC_MERGES	1	/* mm/slab_impl.h */
/* SLAB_NODE_PLACED - kmem_cache_alloc_node gives objects of the node asked (mm/slab_impl.h). */
#define SLAB_NODE_PLACED	(!CONFIG_SLAB_NODE_PER_CPU)
#define SLAB_BAD_FREE_EVENT()	((void)0)	/* a bad free is no per-CPU event here */

struct kmem_cache {
	/* What the fast paths read, together at the front. */
	struct array_cache *cpu_array[NR_CPUS + 1]; /* per CPU; &slab_no_array until made;
						       [SLAB_CPU_FAILSLAB] always */
	uint64_t obj_magic;		/* floor((2^64 - 1) / size) + 2: divides by size */
	uint64_t obj_bound;		/* num * (size * obj_magic mod 2^64): see virt_to_cache */
	uintptr_t slab_mask;		/* (PAGE_SIZE << order) - 1: an address's offset in its slab */
	uintptr_t obj_start;		/* obj_offset as a word: object 0's offset in its slab */
	unsigned int size;		/* bytes from one object to the next, guards included */
	unsigned int span;		/* num * size: bytes from s_mem covering every object */
	unsigned int object_size;	/* bytes the caller may use (ksize) */
	unsigned int obj_offset;	/* from an object's start to the caller's pointer */
	unsigned int mark_off;		/* the free mark's word, from the caller's pointer */
	unsigned int tail;		/* bytes past the last slot its red zone 2 reaches */
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
	unsigned int shared;		/* shared array size in batches (0: none) */
	bool dead;			/* destroyed with live objects: kept for their frees */
	unsigned int refcount;		/* creates not yet destroyed (merging: mm/slab_merge.c); */
					/* 0 for the allocator's own caches, never merged */
	struct atomic nr_arrays;	/* CPUs that have an array of this cache */
	void (*ctor)(void *);
	struct kmem_cache_node *node[SLAB_NODES]; /* per node, made on first use; NULL: */
						/* its CPUs use node 0 (see slab_cpu_node) */
	struct kmem_cache_node node0;		/* node[0], made with the cache */
	struct list_head list;		/* on slab_caches, under slab_caches_lock */
	struct kmem_cache *min_cache;	/* the min-order twin (see above), or NULL when no
					   smaller slab holds an object */
	struct kmem_cache *min_of;	/* in a twin: the cache it serves; else NULL */
	char name[SLAB_NAME_LEN];
	struct kmem_cache_stats stats;
};

/*
 * kmalloc asks power-of-two classes up to a page to be aligned to their
 * size, as mm/slab.h promises: without red zones that changes nothing (a
 * slab's objects start at its first byte), with them (CONFIG_SLAB_DEBUG)
 * the red zone before each object takes a whole alignment unit.
 */
#define KMALLOC_ALIGN(size) \
	(((size) & ((size) - 1)) == 0 ? MIN((size_t)(size), (size_t)PAGE_SIZE) : 0)

/* Boot steps, slab_caches, kmalloc_caches[], kmem_cache_boot, making a cache. */
#include "mm/slab_common.h"

/* The nodes of CPUs other than 0 (aligned to a cache line, which kmalloc's red zones would break). */
extern struct kmem_cache *slab_node_cache;

/* The caller's object pointer for index idx of the slab headed by page. */
static inline void *slab_obj(const struct kmem_cache *cachep, const struct page *page,
			     unsigned int idx)
{
	return (char *)page->s_mem + (size_t)idx * cachep->size;
}

/*
 * The index of a caller's object pointer known to lie in the slab:
 * offset / size as the high half of offset * obj_magic (exact for offsets
 * below 2^32: the error term offset * (obj_magic * size - 2^64) stays far
 * below 2^64 / size).
 */
static inline unsigned int slab_obj_index(const struct kmem_cache *cachep, const struct page *page,
					  const void *objp)
{
	uint32_t off = (uint32_t)((uintptr_t)objp - (uintptr_t)page->s_mem);

	return (unsigned int)(((unsigned __int128)cachep->obj_magic * off) >> 64);
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

/* The node a slab (its head page) belongs to. */
static inline unsigned int slab_node_id(const struct page *head)
{
	return (unsigned int)((head->flags & SLAB_NODE_MASK) >> SLAB_NODE_SHIFT);
}

static inline struct kmem_cache_node *slab_node(struct kmem_cache *cachep, const struct page *head)
{
	return cachep->node[slab_node_id(head)];
}

/*
 * slab_mem_node - the memory node whose slabs serve node nid: nid itself
 * when it has memory, else the nearest node that has (by node_distance,
 * ties by id); 0 on one-node machines and for a nid out of range
 * (mm/slab/slab_alien.c). Any context.
 */
unsigned int slab_mem_node(unsigned int nid);

/*
 * What SLAB knows of the topology (mm/slab/slab_alien.c), read by the slow
 * paths with one load: slab_numa_multi is true while the machine has more
 * than one node, slab_cpu_nid[cpu] is CPU cpu's memory node (0 on one
 * node). slab_numa_refresh() sets them from kernel/numa.h; it runs in
 * kmem_cache_init, kmem_cache_create, a CPU's first array of a cache,
 * kmem_cache_alloc_node and every slab_reap pass, so a topology known
 * after boot (numa_init follows kmem_cache_init) is taken up at the first
 * of those; until then SLAB runs as on one node, every slab node 0's.
 */
extern bool slab_numa_multi;
extern uint8_t slab_cpu_nid[NR_CPUS];
extern unsigned int slab_numa_generation;	/* numa_generation they were set at */
void slab_numa_refresh_slow(void);

/* slab_numa_refresh - take up a topology set since the last call: one compare when none was. */
static __always_inline void slab_numa_refresh(void)
{
	if (!CONFIG_SLAB_NODE_PER_CPU &&
	    unlikely(READ_ONCE(slab_numa_generation) != smp_load_acquire(&numa_generation)))
		slab_numa_refresh_slow();
}

/* The node slot of CPU cpu: its memory node, or (SLAB_NODE_PER_CPU=1) the CPU itself. */
static inline unsigned int slab_node_of_cpu(unsigned int cpu)
{
	if (CONFIG_SLAB_NODE_PER_CPU)
		return cpu;
	return READ_ONCE(slab_cpu_nid[cpu]);
}

/* True when slabs are placed by memory node: several nodes, not SLAB_NODE_PER_CPU=1. */
static inline bool slab_numa_on(void)
{
	return !CONFIG_SLAB_NODE_PER_CPU && READ_ONCE(slab_numa_multi);
}

/*
 * The node the running CPU allocates from and grows slabs for: its own once
 * the cache has it (made with the CPU's first array of the cache), else node 0.
 */
static inline unsigned int slab_cpu_node(const struct kmem_cache *cachep)
{
	unsigned int nid = slab_node_of_cpu(smp_processor_id());

	return READ_ONCE(cachep->node[nid]) ? nid : 0;
}

static inline bool slab_debug_on(const struct kmem_cache *cachep)
{
	return cachep->flags & SLAB_DEBUG;
}

/*
 * slab_cache_map.cache[i]: the cache of the slab holding the page of PFN
 * PFN_OFFSET + i, or &slab_cache_none (not a slab page: a cache whose
 * obj_bound of 0 fails every boundary test, so virt_to_cache needs no NULL
 * test). slab_cache_map.nr entries (mem_map's, unless the map could not be
 * that large: pages past it take the slow paths). The two words together,
 * for one address to form (arm64: one adrp). Written under no lock: a
 * slab's pages are set before it is published and reset after it left
 * every list.
 */
struct slab_cache_map {
	struct kmem_cache **cache;	/* a word per page, from PFN_OFFSET */
	unsigned long nr;		/* its entries */
};
extern struct slab_cache_map slab_cache_map;
extern struct kmem_cache slab_cache_none;

/*
 * virt_to_cache - the cache of the slab objp is in, if objp is in RAM (NULL
 * and ZERO_SIZE_PTR are not), on a slab page, and on an object boundary of
 * that slab; else NULL (slab_find_head() then says why). Linux's name; it
 * reads the cache from the folio and checks nothing.
 *
 * The boundary test is one multiplication: with K = obj_magic and E =
 * size * K mod 2^64 (size <= E < 2 * size), an offset q * size + r
 * (0 <= r < size, offset < 2^32) gives offset * K mod 2^64 = q * E + r * K.
 * For r = 0 that is q * E, below obj_bound = num * E exactly when q < num;
 * for r > 0 it is at least K > 2^42, far above any obj_bound (< 2^24). The
 * offset from object 0 is the address's offset in its slab (slab_mask: the
 * slab is a buddy block, naturally aligned, and the direct map keeps that
 * alignment) less obj_start; a pointer before object 0 wraps to a huge
 * offset, which fails the test as well, and so does every pointer into a
 * page that is no slab's (slab_cache_none: obj_bound 0).
 */
static __always_inline struct kmem_cache *virt_to_cache(const void *objp)
{
	struct kmem_cache *cachep;
	uintptr_t off;
	/*
	 * virt_addr_valid's page index. Where the first page number of the
	 * direct map fits an add immediate (arm64: a 12-bit number shifted
	 * by 12), subtract it after the shift: two instructions, not three;
	 * x86_64's needs a 64-bit constant either way. A pointer below the
	 * map wraps to a huge index in both forms.
	 */
	const uintptr_t base = (uintptr_t)PHYS_TO_VIRT(ARCH_PHYS_OFFSET);
	unsigned long idx = (base >> PAGE_SHIFT) < (1UL << 24) ?
				    ((uintptr_t)objp >> PAGE_SHIFT) - (base >> PAGE_SHIFT) :
				    ((uintptr_t)objp - base) >> PAGE_SHIFT;

	/* Both words at once (arm64: one ldp), the compare's before its branch. */
	const struct slab_cache_map map = slab_cache_map;

	if (unlikely(idx >= map.nr))
		return NULL;
	cachep = map.cache[idx];
	off = ((uintptr_t)objp & cachep->slab_mask) - cachep->obj_start;
	if (unlikely(off * cachep->obj_magic >= cachep->obj_bound))
		return NULL;
	return cachep;
}

/* mm/slab/slab_cpu.c: what the fast paths fall back on. Entered with interrupts off (irqflags). */
void *cache_alloc_slow(struct kmem_cache *cachep, unsigned long irqflags);
void cache_free_slow(struct kmem_cache *cachep, void *objp, unsigned long irqflags,
		     const char *fn);

/*
 * slab_alloc_marked - the allocation fast path: pop this CPU's array (in a
 * restartable sequence, kernel/restart.h, where the arch has them; else
 * with interrupts off) and clear the object's free mark, mark_off bytes in
 * (kmalloc's caches: 0, a constant; others: the array's copy). An empty
 * array (or none, or a debug cache, or failslab on: SLAB_CPU_FAILSLAB)
 * goes to cache_alloc_slow, which restores interrupts itself.
 */
static __always_inline void *slab_alloc_marked(struct kmem_cache *cachep, bool mark_at_0)
{
#if ARCH_HAS_RESTARTABLE
	void *objp = restartable_pop_at(cachep->cpu_array, this_cpu_read(slab_cpu_index),
					offsetof(struct array_cache, avail),
					offsetof(struct array_cache, entry[1]));

	if (unlikely(!objp))
		return cache_alloc_slow(cachep, arch_irq_save());
	*slab_mark(objp, mark_at_0 ? 0 : cachep->mark_off) = 0;
	stat(cachep, alloc_hits, 1);
	stat(cachep, shared.allocs, 1);
	return objp;
#else
	unsigned long flags = arch_irq_save();
	struct array_cache *ac = cachep->cpu_array[this_cpu_read(slab_cpu_index)];
	unsigned long avail = ac->avail;
	void *objp;

	if (unlikely(!avail))
		return cache_alloc_slow(cachep, flags);
	/* Loaded before avail is stored: arm64 then loads it into the return register. */
	objp = ac->entry[avail];
	__asm__("" : "+r"(objp));
	ac->avail = avail - 1;
	*slab_mark(objp, mark_at_0 ? 0 : ac->mark_off) = 0;
	stat(cachep, alloc_hits, 1);
	stat(cachep, shared.allocs, 1);
	arch_irq_restore(flags);
	return objp;
#endif
}

/* slab_alloc - the allocation fast path of any cache (see slab_alloc_marked). */
static __always_inline void *slab_alloc(struct kmem_cache *cachep)
{
	return slab_alloc_marked(cachep, false);
}

/* kmalloc's (failslab folded in): its caches have no ctor, so their free mark is at 0. */
static __always_inline void *slab_kmalloc_alloc_fi(struct kmem_cache *cachep)
{
	return slab_alloc_marked(cachep, true);
}

/*
 * slab_free - the free fast path for an object known to be on a boundary of
 * one of cachep's slabs: mark it free and push it on this CPU's array (in a
 * restartable sequence where the arch has them, else with interrupts off).
 * A full array (or none), or an object already marked free
 * (a double free, most likely), goes to cache_free_slow. 'fn' names the
 * caller for reports. (No per-CPU hint of the cache freed to last: with
 * objects of many sizes it misses two frees in three, and a miss costs
 * more than the lookup.)
 */
static __always_inline void slab_free(struct kmem_cache *cachep, void *objp, const char *fn)
{
#if ARCH_HAS_RESTARTABLE
	uintptr_t *mark = slab_mark(objp, cachep->mark_off);

	/* The mark goes in inside the sequence: once objp is on the array, a flush may move it. */
	if (unlikely(*mark == SLAB_FREE_MARK(cachep)) ||
	    unlikely(!restartable_push_at(cachep->cpu_array, this_cpu_read(slab_cpu_index),
					  offsetof(struct array_cache, avail),
					  offsetof(struct array_cache, limit),
					  offsetof(struct array_cache, entry[1]), objp, mark,
					  SLAB_FREE_MARK(cachep)))) {
		cache_free_slow(cachep, objp, arch_irq_save(), fn);
		return;
	}
	stat(cachep, free_hits, 1);
	stat(cachep, shared.frees, 1);
#else
	unsigned long flags = arch_irq_save();
	struct array_cache *ac = cachep->cpu_array[this_cpu_read(slab_cpu_index)];
	unsigned long avail = ac->avail;
	uintptr_t *mark = slab_mark(objp, ac->mark_off);

	if (unlikely(avail >= ac->limit || *mark == SLAB_FREE_MARK(cachep))) {
		cache_free_slow(cachep, objp, flags, fn);
		return;
	}
	*mark = SLAB_FREE_MARK(cachep);
	ac->entry[avail + 1] = objp;
	ac->avail = avail + 1;
	stat(cachep, free_hits, 1);
	stat(cachep, shared.frees, 1);
	arch_irq_restore(flags);
#endif
}

/*
 * slab_kfree_fast - kfree's fast path: free p through virt_to_cache and
 * slab_free and return true, or return false (p is not a slab object on a
 * mapped page: kfree_slow decides) having touched nothing.
 */
static __always_inline bool slab_kfree_fast(const void *p)
{
	struct kmem_cache *cachep = virt_to_cache(p);

	if (unlikely(!cachep))
		return false;
	slab_free(cachep, (void *)p, "kfree");
	return true;
}

/* mm/slab/slab.c: slabs and their lists. */
struct page *cache_grow_take(struct kmem_cache *cachep, unsigned int nid, void **out,
			     unsigned int max, unsigned int *got);
/* cache_grow_begin - cache_grow_take taking no object (the whole slab stays free). */
struct page *cache_grow_begin(struct kmem_cache *cachep, unsigned int nid);
void slab_shuffle_freelist(struct kmem_cache *cachep, freelist_idx_t *fl);
void cache_grow_end(struct kmem_cache *cachep, struct page *page);
unsigned int slab_take_objs(struct kmem_cache *cachep, struct page *page, void **out,
			    unsigned int max);
unsigned int cache_take_from_lists(struct kmem_cache *cachep, unsigned int nid, void **out,
				   unsigned int max);
unsigned int cache_free_objs(struct kmem_cache *cachep, unsigned int nid, void *const *objs,
			     unsigned int n, struct list_head *release);
void slabs_release(struct kmem_cache *cachep, struct list_head *release);
unsigned long cache_release_node_free_slabs(struct kmem_cache *cachep, unsigned int nid,
					    unsigned long max);
unsigned long cache_release_free_slabs(struct kmem_cache *cachep);
/* A cache's counters added up over its nodes (cache_counts_sum). */
struct slab_counts {
	unsigned long total_slabs;	/* slabs on the nodes' lists */
	unsigned long free_slabs;	/* of those, empty */
	unsigned long free_objects;	/* free objects on them (not in arrays) */
	unsigned long shared_avail;	/* objects in the nodes' shared arrays */
};
void cache_counts_sum(struct kmem_cache *cachep, struct slab_counts *c);

/* mm/slab/slab_cpu.c: per-CPU and shared arrays, the paths through them. */
void cache_drain_array(struct kmem_cache *cachep, struct array_cache *ac, unsigned int n);
void cache_drain_shared(struct kmem_cache *cachep, unsigned int nid, unsigned int n);
bool slab_shared_trim(struct kmem_cache *except);
void cache_release_shared(struct kmem_cache *cachep, unsigned int nid);
void slab_count_event(void);
unsigned int cache_drain_oldest(struct kmem_cache *cachep, struct kmem_cache_node *lockn,
				struct array_cache *const *acp, unsigned int n);
void cache_free_home(struct kmem_cache *cachep, void *const *objs, unsigned int n,
		     bool to_shared);

/* mm/slab/slab_alien.c: memory nodes, alien caches, allocation from a chosen node. */
void cache_flush_sorted(struct kmem_cache *cachep, void **objs, unsigned int n);
unsigned int cache_drain_aliens(struct kmem_cache *cachep, unsigned int cpu, bool release);
void cache_free_aliens(struct kmem_cache *cachep);
const char *cache_alien_holds(struct kmem_cache *cachep, const void *objp);
struct page *slab_numa_grow_pages(struct kmem_cache *cachep, unsigned int *nid);
/*
 * slab_nodes_by_distance - fill order[] (SLAB_NODES entries) with self, then
 * the other online nodes that have memory, nearest to self first (ties by
 * id); every slot in ring order in SLAB_NODE_PER_CPU=1 builds. Returns how
 * many it wrote. Any context.
 */
unsigned int slab_nodes_by_distance(unsigned int self, unsigned int *order);

/* mm/slab/slab_array.c: making and freeing the arrays and nodes. */
struct array_cache *cache_make_array(struct kmem_cache *cachep);
struct array_cache *cache_array_alloc(struct kmem_cache *cachep, unsigned int limit,
				      unsigned int batchcount);
void cache_free_arrays(struct kmem_cache *cachep);
void slab_set_arrayless(bool on);
bool slab_cpu_arrayless(void);
void slab_drop_local_arrays(void);
void cache_node_init(struct kmem_cache *cachep, struct kmem_cache_node *n);
struct slab_alien *cache_alien_alloc(size_t bytes);
struct kmem_cache_node *cache_make_node_at(struct kmem_cache *cachep, unsigned int nid);
void cache_free_nodes(struct kmem_cache *cachep);

/*
 * mm/slab/slab_debug.c: the pointer checks and the freelist check of SLAB's
 * geometry. The guards, poison and reports every allocator shares are in
 * mm/slab_debug.h (SLAB's objects use its guard-word layout).
 */
bool slab_debug_check_freelist(struct kmem_cache *cachep, struct page *page);
struct page *slab_find_head(struct kmem_cache *cachep, const void *objp, const char *fn);

/* mm/slab/slab_layout.c */
bool cache_setup(struct kmem_cache *cachep, const char *name, size_t size, size_t align,
		 unsigned int flags, void (*ctor)(void *));
/*
 * slab_set_max_order_soft - set slab_max_order_soft from the memory the
 * page allocator manages. From kmem_cache_init(), before the first cache
 * is laid out; caches made before keep their order.
 */
void slab_set_max_order_soft(void);
const char *slab_layout_name(const struct kmem_cache *cachep);
bool slab_min_cache_make(struct kmem_cache *cachep);
void slab_min_cache_free(struct kmem_cache *cachep);


/*
 * The hooks of mm/slab_impl.h. SLAB's own: slab_kmalloc_alloc_fi and
 * SLAB_FAILSLAB_SWITCH (failslab folded into the fast path: see
 * SLAB_CPU_FAILSLAB), slab_kfree_fast (the cache from slab_cache_map, no
 * struct page read), KMALLOC_ALIGN; the rest generic.
 */
#define KMALLOC_TABLE_FAILSLAB		0
#define slab_kmalloc_alloc(cachep)	slab_alloc(cachep)
#define KMALLOC_MAX_SLAB		KMALLOC_MAX_CACHE_SIZE
#define KMALLOC_SLAB_SHIFT_HIGH		KMALLOC_SHIFT_HIGH
#define slab_kfree(page, p)		slab_generic_kfree(page, p)
#define slab_obj_cache(page, p)		slab_generic_obj_cache(page, p)
#define slab_obj_size(page, p)		slab_generic_obj_size(page, p)

#endif
