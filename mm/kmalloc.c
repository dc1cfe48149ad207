/*
 * kmalloc.c - general-purpose allocation on top of the slab caches.
 *
 * Size classes: kmalloc_caches[i] holds objects of 2^i bytes for
 * KMALLOC_SHIFT_LOW <= i <= KMALLOC_SHIFT_HIGH; slots 1 and 2 hold the
 * 96- and 192-byte classes (Linux's convention). A request goes to the
 * smallest class that fits: sizes 1 to KMALLOC_TABLE_MAX (8 KiB, or the
 * largest class if smaller) through kmalloc_table[], the cache itself
 * indexed by (size - 1) / 16 (every class boundary is a multiple of 16:
 * one compare, a shift, one load), larger ones by the highest bit of
 * size - 1. Requests above KMALLOC_MAX_SLAB
 * (KMALLOC_MAX_CACHE_SIZE; for SLOB the largest class under a page, as
 * its blocks live inside pages) take whole pages from the buddy allocator: the
 * head page gets PG_large and keeps the order buddy stored in page->order,
 * which is how kfree and ksize know them.
 *
 * The caches are made at boot in increasing size (SLAB: before any per-CPU
 * array exists, the arrays themselves coming from kmalloc) and are never
 * destroyed. After boot kmalloc_caches[] is read-only, so the lookups need
 * no lock; the allocations lock as the allocator describes (mm/slab/slab_cpu.c,
 * mm/slub/slub_def.h).
 *
 * kfree's fast path (slab_kfree_fast) checks that the pointer is in RAM
 * and in a slab (SLAB: its page's word in slab_cache_map, and the object
 * boundary; SLUB: a PG_slab page, the boundary in slab_free), then frees
 * it through the allocator's fast path (slab_free: SLAB pushes on this
 * CPU's array, SLUB on this CPU's sheaf, or without sheaves its
 * freelist). Anything else goes to kfree_slow: a large allocation
 * (PG_large on its first page, pointer at the page's start) back to the
 * buddy allocator, any other pointer reported, counted and refused
 * (slab_find_head).
 *
 * This file is built by every allocator (ALLOC=slab, slub, slob or
 * slob-seg): it reaches the one in use through mm/slab_impl.h, which names
 * what each provides.
 *
 * Departures from Linux: the largest class is 8 KiB at 4K pages and half a
 * page at 64K pages; no DMA or reclaimable variants.
 */
#include "mm/slab_impl.h"
#include "mm/buddy.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "mm/fault_inject.h"

struct kmem_cache *kmalloc_caches[KMALLOC_SHIFT_HIGH + 1];

/*
 * The cache for sizes 1..KMALLOC_TABLE_MAX, by (size - 1) / 16 (filled from
 * kmalloc_index): 4 KiB of pointers at 4K pages, of which a program using a
 * few sizes touches a few cache lines (one per 128 bytes of sizes).
 */
#define KMALLOC_SMALL_MAX	192
#define KMALLOC_TABLE_MAX	MIN(8192UL, KMALLOC_MAX_SLAB)
#define KMALLOC_TABLE_STEP	16
static struct kmem_cache *kmalloc_table[KMALLOC_TABLE_MAX / KMALLOC_TABLE_STEP];

/* Class for sizes 1..192 by (size - 1) / 8: a shift, or 1 (96) or 2 (192). */
static const uint8_t size_index[KMALLOC_SMALL_MAX / 8] = {
	4, 4,			/* 8, 16 */
	5, 5,			/* 24, 32 */
	6, 6, 6, 6,		/* 40 .. 64 */
	1, 1, 1, 1,		/* 72 .. 96 */
	7, 7, 7, 7,		/* 104 .. 128 */
	2, 2, 2, 2, 2, 2, 2, 2,	/* 136 .. 192 */
};

/* Slot of the class for 1 <= size <= KMALLOC_MAX_SLAB. */
static inline unsigned int kmalloc_index(size_t size)
{
	if (size <= 192)
		return size_index[(size - 1) / 8];
	return 64 - (unsigned int)__builtin_clzl(size - 1);
}

static unsigned int kmalloc_class_size(unsigned int i)
{
	return i == 1 ? 96 : i == 2 ? 192 : 1U << i;
}

/*
 * Fill kmalloc_table: each slot with its class's cache, or with NULL while
 * failslab is on (empty: every request then goes to kmalloc_table_empty,
 * which asks failslab; see slab_impl.h, KMALLOC_TABLE_FAILSLAB). SLAB never
 * empties it.
 */
static void kmalloc_table_fill(bool empty)
{
	for (unsigned int k = 0; k < ARRAY_SIZE(kmalloc_table); k++)
		WRITE_ONCE(kmalloc_table[k],
			   empty ? NULL : kmalloc_caches[kmalloc_index((k + 1) * KMALLOC_TABLE_STEP)]);
}

/*
 * kmalloc_slab - the cache that kmalloc(size) would use, or NULL for size 0,
 * a size above KMALLOC_MAX_SLAB, or a class not made yet (boot).
 */
struct kmem_cache *kmalloc_slab(size_t size)
{
	if (size == 0 || size > KMALLOC_MAX_SLAB)
		return NULL;
	return kmalloc_caches[kmalloc_index(size)];
}

/*
 * kmalloc_caches_init - make the kmalloc caches in increasing size, so that
 * an off-slab freelist can come from a smaller class made before. Boot only.
 */
void kmalloc_caches_init(void)
{
	static const unsigned int order[] = { 4, 5, 6, 1, 7, 2 };
	char name[SLAB_NAME_LEN];

	BUILD_BUG_ON(KMALLOC_SLAB_SHIFT_HIGH < 11 || KMALLOC_SLAB_SHIFT_HIGH > KMALLOC_SHIFT_HIGH);
	BUILD_BUG_ON(KMALLOC_MAX_SLAB != 1UL << KMALLOC_SLAB_SHIFT_HIGH);
	for (unsigned int k = 0; k < ARRAY_SIZE(order) + KMALLOC_SLAB_SHIFT_HIGH - 7; k++) {
		unsigned int i = k < ARRAY_SIZE(order) ? order[k] : k - ARRAY_SIZE(order) + 8;
		unsigned int size = kmalloc_class_size(i);
		struct kmem_cache *cachep;

		snprintf(name, sizeof(name), "kmalloc-%u", size);
		cachep = __kmem_cache_create(name, size, KMALLOC_ALIGN(size), 0, NULL);
		if (!cachep)
			panic("slab: cannot create %s", name);
		slab_caches_add(cachep);
		cachep->refcount = 1;	/* mergeable, as a made cache (mm/slab_merge.c) */
		kmalloc_caches[i] = cachep;
	}
	for (unsigned int k = 0; k < ARRAY_SIZE(kmalloc_table); k++) {
		size_t first = (size_t)k * KMALLOC_TABLE_STEP + 1;
		size_t last = first + KMALLOC_TABLE_STEP - 1;

		/* Sizes first..last share a class: class boundaries are multiples of 16. */
		BUG_ON(kmalloc_index(first) != kmalloc_index(last));
	}
	kmalloc_table_fill(KMALLOC_TABLE_FAILSLAB && fault_attr_on(&failslab));
}

#if KMALLOC_TABLE_FAILSLAB
/* kmalloc_failslab_switch: see slab_impl.h. */
void kmalloc_failslab_switch(bool on)
{
	kmalloc_table_fill(on);
}
#endif

/* A large kmalloc's block of pages (NULL: none) marked as one, as its address. */
static __always_inline void *kmalloc_large_mark(struct page *page)
{
	if (!page)
		return NULL;
	page->flags |= PG_large;
	return page_address(page);
}

/*
 * Whole pages for a large kmalloc from the CPU's own node; kept apart from
 * kmalloc_large_node so that kmalloc pays no node test.
 */
static __noinline void *kmalloc_large(size_t size)
{
	if (size > (PAGE_SIZE << MAX_ORDER))
		return NULL;
	return kmalloc_large_mark(alloc_pages(get_order(size)));
}

/* Whole pages for a large kmalloc_node from node (online, or NUMA_NO_NODE). */
static __noinline void *kmalloc_large_node(size_t size, unsigned int node)
{
	if (node == NUMA_NO_NODE)
		return kmalloc_large(size);
	if (size > (PAGE_SIZE << MAX_ORDER))
		return NULL;
	return kmalloc_large_mark(alloc_pages_node(node, get_order(size)));
}

/* kmalloc for sizes above the table: a large class, a whole-page allocation, or size 0. */
static __noinline void *kmalloc_other(size_t size)
{
	if (likely(size - 1 < KMALLOC_MAX_SLAB))
		return slab_kmalloc_alloc_fi(kmalloc_caches[64 - __builtin_clzl(size - 1)]);
	if (size == 0)
		return ZERO_SIZE_PTR;
	return kmalloc_large(size);
}

/*
 * kmalloc for a size of the table while the table is empty (failslab on,
 * KMALLOC_TABLE_FAILSLAB): its class through kmalloc_caches, failslab asked.
 */
static __noinline void *kmalloc_table_empty(size_t size)
{
	return slab_kmalloc_alloc_fi(kmalloc_caches[kmalloc_index(size)]);
}

/* kmalloc: see slab.h. Size 0 leaves the first test (size - 1 wraps). */
void *kmalloc(size_t size)
{
	unsigned long k = (size - 1) / KMALLOC_TABLE_STEP;

	/*
	 * Compared after the shift, which the compiler would undo: an
	 * immediate on arm64. The other sizes start again from size, so that
	 * size - 1 need not stay in a register (a move on x86_64).
	 */
	__asm__("" : "+r"(k));
	if (likely(k < ARRAY_SIZE(kmalloc_table))) {
		struct kmem_cache *cachep = kmalloc_table[k];

		if (!KMALLOC_TABLE_FAILSLAB)
			return slab_kmalloc_alloc_fi(cachep);	/* SLAB: folded in */
		if (likely(cachep))
			return slab_kmalloc_alloc(cachep);
		return kmalloc_table_empty(size);	/* failslab on */
	}
	return kmalloc_other(size);
}

/*
 * kmalloc_node: see slab.h. Off the fast path: the class by kmalloc_index,
 * the allocation by the allocator's kmem_cache_alloc_node (which asks
 * failslab as kmem_cache_alloc does).
 */
void *kmalloc_node(size_t size, unsigned int node)
{
	node = slab_node_arg(NULL, node, "kmalloc_node");
	if (size - 1 < KMALLOC_MAX_SLAB)
		return kmem_cache_alloc_node(kmalloc_caches[kmalloc_index(size)], node);
	if (size == 0)
		return ZERO_SIZE_PTR;
	return kmalloc_large_node(size, node);
}

/* slab_alloc_failslab: see fault_inject.h. */
__noinline void *slab_alloc_failslab(struct kmem_cache *cachep)
{
	if (should_fail(&failslab))
		return NULL;
	return slab_alloc(cachep);
}

/* kzalloc: see slab.h. */
void *kzalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p && p != ZERO_SIZE_PTR)
		memset(p, 0, size);
	return p;
}

/* kmalloc_array: see slab.h. */
void *kmalloc_array(size_t n, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return kmalloc(bytes);
}

/* kcalloc: see slab.h. */
void *kcalloc(size_t n, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return kzalloc(bytes);
}

/* The first page of a large allocation starting at p, or NULL. */
static struct page *large_head(const void *p)
{
	struct page *page;

	if (!virt_addr_valid(p))
		return NULL;
	page = virt_to_page(p);
	if ((page->flags & (PG_large | PG_slab)) != PG_large || p != page_address(page))
		return NULL;
	return page;
}

/*
 * obj_size - the usable bytes of p (a large allocation's pages or a slab
 * object's size class); 0 for NULL/ZERO_SIZE_PTR, and 0 after reporting
 * (naming the call fn) a pointer that is neither.
 */
static size_t obj_size(const void *p, const char *fn)
{
	struct page *page;

	if (ZERO_OR_NULL_PTR(p))
		return 0;
	page = large_head(p);
	if (page)
		return PAGE_SIZE << page->order;
	page = slab_find_head(NULL, p, fn);
	return page ? slab_obj_size(page, p) : 0;
}

/* kmalloc_slab_max: see slab.h. */
size_t kmalloc_slab_max(void)
{
	return KMALLOC_MAX_SLAB;
}

/* ksize: see slab.h. */
size_t ksize(const void *p)
{
	return obj_size(p, "ksize");
}

/*
 * krealloc: see slab.h. A pointer that is not an allocation is reported
 * as krealloc's and counted in slab_bad_frees: krealloc would have freed
 * it, and that free is refused; NULL comes back and nothing changes.
 */
void *krealloc(void *p, size_t new_size)
{
	size_t old;
	void *q;

	if (ZERO_OR_NULL_PTR(p))
		return kmalloc(new_size);
	if (new_size == 0) {
		kfree(p);
		return ZERO_SIZE_PTR;
	}
	old = obj_size(p, "krealloc");
	if (old == 0)
		return NULL;	/* not ours: reported */
	if (new_size <= old)
		return p;
	q = kmalloc(new_size);
	if (!q)
		return NULL;
	memcpy(q, p, old);
	kfree(p);
	return q;
}

/* kfree's slow path: nothing to free, a large allocation, or a pointer to refuse. */
static __noinline void kfree_slow(const void *p)
{
	struct page *page;

	if (ZERO_OR_NULL_PTR(p))
		return;
	page = large_head(p);
	if (page) {
		page->flags &= ~PG_large;
		free_pages(page, page->order);
		return;
	}
	/* The start of a free page: most likely a large allocation freed before. */
	if (virt_addr_valid(p) && IS_ALIGNED((uintptr_t)p, PAGE_SIZE) &&
	    buddy_page_free(virt_to_page(p))) {
		slab_bad_free(NULL, "kfree", p,
			      "double free (the page is free: a large allocation freed twice?)");
		return;
	}
	page = slab_find_head(NULL, p, "kfree");	/* reports why it is not an object */
	if (page)
		slab_kfree(page, p);
}

/* kfree: see slab.h. */
void kfree(const void *p)
{
	if (unlikely(!slab_kfree_fast(p)))	/* false for NULL and ZERO_SIZE_PTR too */
		kfree_slow(p);
}

/*
 * kmem_cache_free_no_cache - kmem_cache_free(NULL, objp): the pointer is
 * checked as kfree would (a bad one reported as such); a good one is
 * reported with the cache it belongs to and counted in slab_bad_frees.
 * Other builds then keep it allocated: the caller has lost track of its
 * cache, and the object is not freed on a guess. CONFIG_SLAB_DEBUG builds
 * free it after the report, to the cache its page says it belongs to (a
 * large kmalloc to the page allocator), as Linux's hardened free takes the
 * object's real cache: no object is lost to the misuse, and its cache can
 * still be emptied and destroyed. objp not NULL.
 */
void kmem_cache_free_no_cache(const void *objp)
{
	struct page *page = large_head(objp);
	struct kmem_cache *owner;
	char what[112];

	if (page) {
		slab_bad_free(NULL, "kmem_cache_free", objp, CONFIG_SLAB_DEBUG ?
			      "no cache given (cachep NULL) for a large kmalloc; freed as one" :
			      "no cache given (cachep NULL) for a large kmalloc; not freed");
		if (CONFIG_SLAB_DEBUG)
			kfree(objp);
		return;
	}
	page = slab_find_head(NULL, objp, "kmem_cache_free");
	if (!page)
		return;
	owner = slab_obj_cache(page, objp);
	snprintf(what, sizeof(what), "no cache given (cachep NULL) for an object of cache %s; %s",
		 owner->name, CONFIG_SLAB_DEBUG ? "freed to it" : "not freed");
	slab_bad_free(NULL, "kmem_cache_free", objp, what);
	if (CONFIG_SLAB_DEBUG)
		kmem_cache_free(owner, (void *)objp);
}
