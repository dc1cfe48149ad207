/*
 * slob_def.h - SLOB: one heap of shared pages for every cache, blocks with
 * 8-byte headers, one lock, nothing per CPU.
 *
 * SLOB's internal data structures and inline helpers, shared by
 * mm/slob*.c and mm/kmalloc.c (and read by the tests). Users include
 * mm/slab.h only. Two forms, seed 004's "before" and "after", share all
 * but the heap: ALLOC=slob builds mm/slob/slob_fit.c (sequential fit), ALLOC=
 * slob-seg mm/slob/slob_seg.c (segregated free lists).
 * Documentation/slob.md tells the why and the history.
 *
 * Concepts. One heap for the whole machine: order-0 pages from the buddy allocator
 * (PG_slab, slab_cache NULL) carved into blocks of whole 8-byte units that
 * tile each page from its first byte. Every block, free or allocated,
 * starts with an 8-byte struct slob_hdr: its size and its left neighbour's
 * (boundary tags), what it is (a cache's id, or free and the form's link),
 * and a tag that depends on the header's address only. A caller's pointer
 * is the byte after its header, so kfree finds the block, and the cache
 * through slob_cache_of[id], from the pointer alone. Invariants, under the
 * heap lock: the blocks of a page tile it exactly (units sum to
 * SLOB_PAGE_UNITS, each prev field equals the units of the block before, 0
 * for the first); a header with a valid tag and a live id, or free, is
 * where a block starts: one a merge or an emptied page swallows is made
 * "dead" (or poisoned), so a stale header never passes for a live one.
 * slob coalesces every free at once (no two free blocks side by side);
 * slob-seg does not (mm/slob/slob_seg.c).
 *
 * A cache is a size, an alignment, a constructor and counters: its objects
 * are blocks of the shared heap. A cache whose blocks cannot fit a page
 * (with their alignment) is "big": each object is 2^order pages straight
 * from the buddy allocator, the head page PG_slab with slab_cache = cache.
 * kmalloc uses the kmalloc caches as SLAB and SLUB do; classes of a page
 * or more go to kmalloc_large (KMALLOC_MAX_SLAB).
 *
 * Lock order, outermost first, and what each lock protects:
 *  1. slab_caches_lock: the list of caches and the id table.
 *  2. the heap lock (slob_lock: a test-and-set byte on a cache line of its
 *     own, waited for with backoff): every page of the heap, its headers
 *     and lists, the spare page and every cache's 'inuse'. Only taken with
 *     interrupts off, so any context but NMI may allocate.
 *  3. the buddy allocator's zone lock (heap pages and big objects).
 *  4. the console lock (reports).
 * Nothing is per CPU: no CPU's state to guard.
 *
 * Departures from Linux's SLOB: every block has a header (kfree needs no
 * size word, bad pointers and double frees are found); one empty page is
 * kept as a spare (the pair benchmark would otherwise get and free a page
 * each time); kmalloc goes through size classes, so ksize is a class.
 *
 * Damage (a caller's overrun into a header, a write after free into a free
 * block's links, a wild write): every build checks, before it follows or
 * trusts them, the links it reads from free blocks (sequential fit: they
 * lead forward inside the page; slob-seg: they lead back) and the size of a
 * block it cuts, takes whole or merges; a page found damaged there, by a
 * free's or ksize's checks of its block, or by kmem_cache_check, is
 * quarantined: taken out of the heap for good, reported once, its live
 * objects still theirs to free, its memory leaked on purpose
 * (mm/slob/slob_quarantine.c).
 */
#ifndef MM_SLOB_DEF_H
#define MM_SLOB_DEF_H

#include "kernel/compiler.h"
#include "kernel/list.h"
#include "kernel/spinlock.h"
#include "kernel/percpu.h"
#include "mm/page.h"
#include "mm/slab.h"
#include "mm/buddy.h"
#include "mm/slab_debug.h"
#include <asm/processor.h>
#include <asm/irqflags.h>

#include "mm/slab_stats.h"

#ifdef CONFIG_ALLOC_SLOB_SEG
#define SLOB_SEG	1
#define SLOB_NAME	"slob-seg"
#else
#define SLOB_SEG	0
#define SLOB_NAME	"slob"
#endif
#define SLAB_ALLOC_NAME	SLOB_NAME	/* mm/slab_impl.h */
#define SLAB_ALLOC_MERGES	0	/* mm/slab_impl.h: caches share the heap already */
/* SLAB_NODE_PLACED - kmem_cache_alloc_node gives objects of the node asked (mm/slab_impl.h): one heap for every node, as Linux's SLOB. */
#define SLAB_NODE_PLACED	0
/* A bad free is a heap event of the CPU (slab_cpu_events); slob_events is declared below. */
#define SLAB_BAD_FREE_EVENT()	this_cpu_inc(slob_events)

#define SLOB_UNIT		8	/* bytes; every size and offset in a page counts these */
#define SLOB_UNIT_SHIFT		3
#define SLOB_PAGE_UNITS		((unsigned int)(PAGE_SIZE >> SLOB_UNIT_SHIFT))
#define SLOB_MAX_CACHES		1024	/* ids 1..1023 name the caches in headers */
/*
 * The smallest blocks: sequential fit links free blocks by an offset in
 * the header, so one unit is a free block (an allocated one has a payload
 * too); the segregated lists need room for a list_head after the header.
 */
#define SLOB_MIN_UNITS		(SLOB_SEG ? 3U : 2U)
#define SLOB_MIN_FREE_UNITS	(SLOB_SEG ? 3U : 1U)
/*
 * The units at the start of every heap page that no object can use:
 * slob-seg's page header block (mm/slob/slob_seg.h); sequential fit has none.
 * A fresh page's one free block is the rest.
 */
#define SLOB_HDR_UNITS		(SLOB_SEG ? 2U : 0U)

/* Linux SLOB's list breaks: blocks under 256 bytes are small, under 1024 medium. */
#define SLOB_BREAK1		256
#define SLOB_BREAK2		1024
#define SLOB_NR_LISTS		3

/* Segregated classes: exact below 64 units, then four per power of two. */
#define SLOB_EXACT_CLASSES	64
#define SLOB_NR_CLASSES		96
#define SLOB_MAP_WORDS		((SLOB_NR_CLASSES + 63) / 64)

_Static_assert(SLOB_PAGE_UNITS <= 0x3fff, "a page's units and offsets fit 14 bits");

struct slob_hdr {
	uint16_t units;		/* the block's size in units, this header included */
	uint16_t prev;		/* the units of the block before it in the page; 0: first */
	uint16_t info;		/* allocated: its cache's id; else SLOB_FREE | ... or SLOB_DEAD */
	uint16_t tag;		/* slob_tag(this header's address) */
};

/* info of a free block: SLOB_FREE, SLOB_POISONED if its body is all POISON_FREE, and
 * the next free block's page offset in units (sequential fit; 0: none) or its class. */
#define SLOB_FREE		0x8000U
#define SLOB_POISONED		0x4000U
#define SLOB_LINK_MASK		0x3fffU
#define SLOB_DEAD		0x7fffU	/* a header swallowed by a merge (or freed, quarantined) */
#define SLOB_PAGE_HDR		0x7ffeU	/* slob-seg: a page's first block, 1 unit (+ a sliver) */
/* info of an allocated block: its cache's id, with SLOB_QUARANTINED once its page is quarantined. */
#define SLOB_ID_MASK		0x3ffU
#define SLOB_QUARANTINED	0x4000U

/*
 * POISON_FREE: free memory of a poisoned heap or block; POISON_INUSE: a
 * debug object's bytes when handed out; RED_ACTIVE_BYTE: the red zone after
 * an allocated object (mm/slab_debug.h).
 */

/* The tag of a header at h: a hash of its address, nothing else. */
static __always_inline uint16_t slob_tag(const void *h)
{
	return (uint16_t)(((uintptr_t)h * 0x9e3779b97f4a7c15ULL) >> 48);
}

static __always_inline void slob_set_hdr(struct slob_hdr *h, unsigned int units,
					 unsigned int prev, unsigned int info)
{
	*h = (struct slob_hdr){ (uint16_t)units, (uint16_t)prev, (uint16_t)info, slob_tag(h) };
}

static __always_inline bool slob_is_free(const struct slob_hdr *h)
{
	return h->info & SLOB_FREE;
}

/* Address arithmetic in units. */
static __always_inline struct slob_hdr *slob_next(const struct slob_hdr *h)
{
	return (struct slob_hdr *)((uintptr_t)h + ((uintptr_t)h->units << SLOB_UNIT_SHIFT));
}

static __always_inline struct slob_hdr *slob_prev(const struct slob_hdr *h)
{
	return (struct slob_hdr *)((uintptr_t)h - ((uintptr_t)h->prev << SLOB_UNIT_SHIFT));
}

/* A header's offset in its page, in units; 0 is the page's first block. */
static __always_inline unsigned int slob_off(const void *h)
{
	return (unsigned int)(((uintptr_t)h & (PAGE_SIZE - 1)) >> SLOB_UNIT_SHIFT);
}

/* True when h (an address in a page or one past its end) is where the page ends. */
static __always_inline bool slob_page_end(const void *h)
{
	return ((uintptr_t)h & (PAGE_SIZE - 1)) == 0;
}

static __always_inline struct slob_hdr *slob_page_first(const struct page *page)
{
	return page_address(page);
}

/* True while h, walking a page's blocks from its first, is still inside it (h a block). */
static __always_inline bool slob_in_page(const struct slob_hdr *h, const struct page *page)
{
	return (uintptr_t)h - (uintptr_t)page_address(page) < PAGE_SIZE;
}

/* Event counters of one cache (mm/slab_stats.h); all zero unless CONFIG_SLAB_STATS. */
struct kmem_cache_stats {
	struct slab_stats shared;	/* slabs_made: heap pages this cache's allocations brought in */
	unsigned long pages_scanned;	/* pages looked at by the search (sequential fit) */
	unsigned long blocks_scanned;	/* free blocks looked at by the search */
	unsigned long splits;		/* allocations that left a free remainder */
	unsigned long merges;		/* frees that coalesced with a neighbour */
};


struct kmem_cache {
	/* What the paths read, together at the front. */
	unsigned int units;		/* units of one object's block: header, object, red zone */
	unsigned int size;		/* bytes from the caller's pointer to the block's end */
	unsigned int align;		/* the caller's pointer is a multiple of this (8 or more) */
	unsigned int start;		/* where the search starts: a list or a class */
	unsigned int exact;		/* slob-seg: the class of a block of 'units', */
	struct list_head *alloc_head;	/* the list slob_alloc tries first (an empty one: slow) */
	uintptr_t align_mask;		/* align - 1 */
	struct list_head *exact_head;	/* the class's list, */
	uint64_t *exact_word;		/* the word of map[] with its bit, */
	uint64_t exact_bit;		/* and the bit; */
	uint16_t free_info;		/* a free header's info there */
	uint16_t id;			/* this cache in block headers (slob_cache_of) */
	bool slow;			/* big, ctor or debug: allocations go to slob_alloc_slow */
	bool debug;			/* red zone or poison: frees go to slob_free_slow */
	bool fit;			/* slob-seg: a block's fit is checked (slow allocations) */
	bool big;			/* objects of 2^order pages from the buddy allocator */
	unsigned long inuse;		/* objects allocated (heap lock; big caches: atomic) */
	unsigned long quarantined;	/* of them, in quarantined pages (heap lock) */
	unsigned int object_size;	/* bytes the caller may use (ksize) */
	unsigned int order;		/* big caches: pages per object, as an order */
	unsigned int flags;		/* SLAB_* in effect */
	bool dead;			/* destroyed with live objects: kept for their frees */
	unsigned int refcount;		/* creates not yet destroyed (merging: mm/slab_merge.c); */
					/* 0 for the allocator's own caches, never merged */
	void (*ctor)(void *);
	struct list_head list;		/* on slab_caches, under slab_caches_lock */
	char name[SLAB_NAME_LEN];
	struct kmem_cache_stats stats;
};

/* The heap: every block of every cache. */
struct slob_heap {
	uint8_t locked;			/* the heap lock (slob_lock): everything below, */
					/* every heap page and header */
	/*
	 * From here on a cache line of its own: CPUs waiting for the lock
	 * read 'locked' over and over, and the holder writes the lists and
	 * map below; on one line, every read of a waiter took the line from
	 * the holder in the middle of its critical section, which then grew
	 * with the waiters (on the host workloads, two threads ran slower
	 * the more often the waiter read the lock).
	 */
	unsigned long nr_pages __aligned(SLAB_CACHE_LINE); /* pages of the heap (the spare included) */
	unsigned long quarantined;	/* damaged pages taken out of it, kept (mm/slob/slob_quarantine.c) */
	struct page *spare;		/* the empty page kept, or NULL (or no longer empty) */
	unsigned int spare_age;		/* reap passes that found the spare empty */
	bool poison;			/* CONFIG_SLAB_DEBUG: all free memory is POISON_FREE */
#if SLOB_SEG
	uint64_t map[SLOB_MAP_WORDS];	/* bit c: cls[c] is not empty */
	struct list_head cls[SLOB_NR_CLASSES];	/* free blocks by class, by their list_head */
#else
	struct list_head list[SLOB_NR_LISTS];	/* pages with free units, by page->lru */
#endif
	/* What the last allocation carved, for the debug paths (heap lock). */
	bool last_poisoned;		/* the block came from poisoned free memory */
	unsigned int last_skip;		/* its first bytes that held links, not poison */
};
_Static_assert(offsetof(struct slob_heap, nr_pages) == SLAB_CACHE_LINE &&
	       _Alignof(struct slob_heap) >= SLAB_CACHE_LINE,
	       "the heap lock alone on its cache line");

extern struct slob_heap slob_heap;

/*
 * The heap lock: a byte taken by exchange (test and test-and-set), with
 * interrupts off; slob_lock returns the interrupt state for slob_unlock.
 * Fewer instructions than the kernel's spinlock (kernel/spinlock.h), which matters on
 * paths that are mostly this lock; it is not fair, which the short
 * critical sections make harmless. slob_trylock (interrupts already off)
 * never waits. Acquire on taking, release on dropping. A CPU that finds
 * the lock taken waits with backoff (below).
 */
static __always_inline bool slob_trylock(void)
{
	return !__atomic_exchange_n(&slob_heap.locked, 1, __ATOMIC_ACQUIRE);
}

/* The most pauses a waiter for the heap lock lets pass between two looks at it. */
#define SLOB_LOCK_BACKOFF_MAX	32

/*
 * A waiter looks at the lock after 1, 2, 4, ... up to SLOB_LOCK_BACKOFF_MAX
 * pauses rather than after each: a waiter that takes the lock at every
 * release moves the heap's lines to its CPU at every operation, and one
 * that reads the lock line without pause slows the holder's release; the
 * holder meanwhile goes on with its next operations while the heap's lines
 * are in its cache. Inline and with no call, as the path that finds the
 * lock free must not pay for the wait (a call there cost it registers).
 */
static __always_inline unsigned long slob_lock(void)
{
	unsigned long flags = arch_irq_save();

	while (unlikely(!slob_trylock()))
		for (unsigned int b = 1; __atomic_load_n(&slob_heap.locked, __ATOMIC_RELAXED);
		     b = b < SLOB_LOCK_BACKOFF_MAX ? 2 * b : b)
			for (unsigned int i = 0; i < b; i++)
				cpu_relax();
	return flags;
}

static __always_inline void slob_unlock(unsigned long flags)
{
	__atomic_store_n(&slob_heap.locked, 0, __ATOMIC_RELEASE);
	arch_irq_restore(flags);
}

/*
 * Quarantine (mm/slob/slob_quarantine.c): a heap page found damaged leaves the
 * heap for good; page->slab_cache = &slob_quarantine_mark marks it, so that the
 * paths which take a heap page for one with slab_cache NULL (the free fast
 * paths, the heap walks, the link checks) pass it by.
 */
extern struct kmem_cache slob_quarantine_mark;

static __always_inline bool slob_page_quarantined(const struct page *page)
{
	return page->slab_cache == &slob_quarantine_mark;
}

/*
 * SLOB_CHECK(cond, fmt, ...) - for the heap's consistency checks (functions
 * returning int): when cond is false, print "slob: check failed: ..." (or
 * slob-seg) and return -1.
 */
#define SLOB_CHECK(cond, fmt, ...)                                                   \
	do {                                                                         \
		if (unlikely(!(cond))) {                                             \
			printk(SLOB_NAME ": check failed: " fmt "\n", ##__VA_ARGS__); \
			return -1;                                                   \
		}                                                                    \
	} while (0)

/* Boot steps, slab_caches, kmalloc_caches[], kmem_cache_boot, making a cache. */
#include "mm/slab_common.h"

extern struct kmem_cache *slob_cache_of[SLOB_MAX_CACHES];
/* Heap page events per CPU (new, emptied, released pages; bad frees): slab_cpu_events. */
DECLARE_PER_CPU(unsigned long, slob_events);

/* kmalloc: power-of-two classes aligned to their size (mm/slab.h), debug or not. */
#define KMALLOC_ALIGN(size) \
	(((size) & ((size) - 1)) == 0 ? MIN((size_t)(size), (size_t)PAGE_SIZE) : 0)
/* Blocks live inside pages: classes from half a page up go to kmalloc_large. */
#define KMALLOC_SLAB_SHIFT_HIGH	MIN(KMALLOC_SHIFT_HIGH, PAGE_SHIFT - 1)
#define KMALLOC_MAX_SLAB	(1UL << KMALLOC_SLAB_SHIFT_HIGH)

/* Seg classes: the class of a free block of 'units', and the least units of class c. */
static __always_inline unsigned int slob_class(unsigned int units)
{
	unsigned int log;

	if (units < SLOB_EXACT_CLASSES)
		return units;
	log = 31 - (unsigned int)__builtin_clz(units);
	return SLOB_EXACT_CLASSES + ((log - 6) << 2) + ((units >> (log - 2)) & 3);
}

static inline unsigned int slob_class_lo(unsigned int c)
{
	if (c < SLOB_EXACT_CLASSES)
		return c;
	c -= SLOB_EXACT_CLASSES;
	return (4 + (c & 3)) << (c / 4 + 4);
}

/* Sequential fit: the list of a block (or request) of 'bytes'. */
static inline unsigned int slob_list_of(unsigned long bytes)
{
	return bytes < SLOB_BREAK1 ? 0 : bytes < SLOB_BREAK2 ? 1 : 2;
}

/*
 * slab_obj_head - for kfree: the page p lies in when it is in RAM and on
 * a PG_slab page (a heap page, or the head of a big object), else NULL
 * (NULL and ZERO_SIZE_PTR too). The block itself is checked by slab_kfree.
 */
static __always_inline struct page *slab_obj_head(const void *p)
{
	struct page *page;

	if (unlikely(!virt_addr_valid(p)))
		return NULL;
	page = virt_to_page(p);
	if (unlikely(!(page->flags & PG_slab)))
		return NULL;
	return page;
}

/* mm/slob/slob_fit.c or mm/slob/slob_seg.c: the paths. */
extern struct list_head slob_no_list;
void *slob_alloc(struct kmem_cache *c);
void slob_free(struct kmem_cache *c, void *p, const char *fn);
void slob_kfree(struct page *page, const void *p);

/* The names mm/kmalloc.c and the neutral tests use (mm/slab_impl.h). */
static __always_inline void *slab_alloc(struct kmem_cache *c)
{
	return slob_alloc(c);
}

static __always_inline void slab_free(struct kmem_cache *c, void *p, const char *fn)
{
	slob_free(c, p, fn);
}

#define slab_kfree(page, p) slob_kfree(page, p)

size_t slab_obj_size(const struct page *page, const void *p);
/* slab_obj_cache: mm/slab_impl.h; a heap block's cache comes from its header. */
struct kmem_cache *slab_obj_cache(const struct page *page, const void *p);

/*
 * The heap (mm/slob/slob_fit.c or mm/slob/slob_seg.c), heap lock held unless said:
 * slob_heap_init - empty lists (kmem_cache_init, no lock);
 * slob_heap_start - a cache's 'start' for blocks of 'units' needing 'r'
 *	units at worst for their alignment: its list or first class; *fit
 *	says whether blocks found from there must still be checked, *exact
 *	the class of a block of 'units' (slob-seg);
 * slob_heap_alloc - carve a block for c (growing the heap), count it in
 *	c->inuse; NULL when out of memory;
 * slob_heap_free - free block b of owner in page: NULL, or what is damaged
 *	(b's boundary tags or the page's free list), changing nothing;
 * slob_heap_take_spare - the spare page off the heap if it is still empty,
 *	for the caller to release after the lock; else NULL;
 * slob_heap_unlist - take quarantined page off every list of the form (it
 *	is marked already);
 * slob_heap_check_lists/_block/_page, slob_heap_check_unmark - the form's
 *	part of kmem_cache_check (mm/slob/slob_info.c);
 * slob_heap_show - the form's table of free blocks (takes the lock).
 */
void slob_heap_init(void);
unsigned int slob_heap_start(unsigned int units, unsigned int r, bool *fit,
			     unsigned int *exact);
void *slob_heap_alloc(struct kmem_cache *c);
const char *slob_heap_free(struct page *page, struct slob_hdr *b, struct kmem_cache *owner);
struct page *slob_heap_take_spare(void);
void slob_heap_unlist(struct page *page);
int slob_heap_check_lists(unsigned long *listed);
int slob_heap_check_block(struct page *page, struct slob_hdr *h);
long slob_heap_check_page(struct page *page, unsigned long free_units,
			  unsigned long free_blocks, unsigned long alloc_blocks);
void slob_heap_check_unmark(void);
void slob_heap_show(void);

/* mm/slob/slob_cache.c: caches, big objects, the slow paths. */
void *slob_alloc_slow(struct kmem_cache *c);
void slob_free_slow(struct kmem_cache *c, void *p, const char *fn);
struct page *slob_new_page(void);
void slob_release_page(struct page *page);

/* mm/slob/slob_info.c: the heap's pages in mem_map order (heap lock held); NULL after the last. */
struct page *slob_next_heap_page(struct page *after);

/*
 * mm/slob/slob_debug.c: the pointer checks of SLOB's heap and its red zone
 * and poison by block (the reports, poison and red-zone checks themselves
 * are mm/slab_debug.h's, shared by every allocator).
 */
struct page *slab_find_head(struct kmem_cache *c, const void *p, const char *fn);
struct slob_hdr *slob_find_block(const struct page *page, const void *p, struct slob_hdr **broken);
void slob_debug_alloc(struct kmem_cache *c, void *p, bool poisoned, unsigned int skip);
void slob_debug_free(struct kmem_cache *c, void *p, const char *fn);

/* slob_poison - fill [from, to) with POISON_FREE (slab_poison by its ends). */
static inline void slob_poison(void *from, void *to)
{
	slab_poison(from, (size_t)((char *)to - (char *)from));
}

/* slob_poison_broken - the offset of the first byte of [from, to) that is not poison, or -1. */
static inline long slob_poison_broken(const void *from, const void *to)
{
	return slab_poison_broken(from, (size_t)((const char *)to - (const char *)from));
}

/* mm/slob/slob_quarantine.c: damaged heap pages (heap lock held for all three). */
void slob_quarantine(struct page *page, struct kmem_cache *c, const char *fn, const void *p,
		     const char *what, struct slob_hdr *keep);
struct kmem_cache *slob_quarantined_owner(const void *p, const char **what);
void slob_quarantined_free(struct kmem_cache *owner, const void *p);

/*
 * The hooks of mm/slab_impl.h. SLOB's own: slab_kfree, slab_obj_size and
 * slab_obj_cache (a heap block's header names its cache), KMALLOC_MAX_SLAB
 * (classes under a page), KMALLOC_ALIGN; failslab empties kmalloc's table;
 * the rest generic.
 */
#define slab_kmalloc_alloc_fi(cachep)	slab_generic_kmalloc_alloc_fi(cachep)
#define KMALLOC_TABLE_FAILSLAB		1
#define SLAB_FAILSLAB_SWITCH(on)	kmalloc_failslab_switch(on)
#define slab_kmalloc_alloc(cachep)	slab_alloc(cachep)
#define slab_kfree_fast(p)		slab_generic_kfree_fast(p)

#endif
