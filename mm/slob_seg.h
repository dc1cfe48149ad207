/*
 * slob_seg.h - SLOB-seg's heap layout (ALLOC=slob-seg): the page header
 * block, the class lists and their inline helpers, shared by mm/slob_seg.c
 * (the allocation and free paths) and mm/slob_seg_check.c (kmem_cache_check,
 * the debug free-list checks, the heap table). See mm/slob_seg.c's design
 * header; everything here is used under the heap lock.
 */
#ifndef MM_SLOB_SEG_H
#define MM_SLOB_SEG_H

#include "mm/slob_def.h"

/* A remainder after an object of fewer units (1 or 2) stays with the object. */
#define SLOB_SPLIT_MIN		SLOB_MIN_UNITS
#define SLOB_CLASS_MASK		0x7fU
#define SLOB_SEEN		0x2000U	/* kmem_cache_check's mark, under the lock only */
#define SLOB_EMPTY_UNITS	(SLOB_PAGE_UNITS - SLOB_HDR_UNITS)	/* an empty page's block */

_Static_assert(SLOB_NR_CLASSES - 1 <= SLOB_CLASS_MASK && !(SLOB_SEEN & SLOB_CLASS_MASK),
	       "a class fits the free header's info");

/* The first block of every heap page: SLOB_HDR_UNITS (mm/slob_def.h), its header and count. */
struct slob_page_hdr {
	struct slob_hdr hdr;	/* SLOB_HDR_UNITS units (more with slivers), prev 0, SLOB_PAGE_HDR */
	uint32_t nr_alloc;	/* allocated blocks in the page */
	uint32_t pad;
};

_Static_assert(sizeof(struct slob_page_hdr) == SLOB_HDR_UNITS * SLOB_UNIT, "page header size");

static __always_inline struct slob_page_hdr *page_hdr(const void *p)
{
	return (struct slob_page_hdr *)((uintptr_t)p & PAGE_MASK);
}

static __always_inline struct list_head *blk_link(struct slob_hdr *h)
{
	return (struct list_head *)(h + 1);
}

static __always_inline struct slob_hdr *link_blk(struct list_head *l)
{
	return (struct slob_hdr *)l - 1;
}

static __always_inline unsigned int cls_of(const struct slob_hdr *h)
{
	return h->info & SLOB_CLASS_MASK;
}

static __always_inline void cls_add(struct slob_hdr *h, unsigned int c)
{
	struct list_head *head = &slob_heap.cls[c], *l = blk_link(h), *n = head->next;

	n->prev = l;
	l->next = n;
	l->prev = head;
	head->next = l;
	slob_heap.map[c / 64] |= 1ULL << (c % 64);
}

static __always_inline void cls_del(struct slob_hdr *h, unsigned int c)
{
	struct list_head *l = blk_link(h);

	if (l->next == l->prev)		/* the only block on the list */
		slob_heap.map[c / 64] &= ~(1ULL << (c % 64));
	l->next->prev = l->prev;
	l->prev->next = l->next;
}

#if CONFIG_SLAB_DEBUG
/*
 * slob_seg_cls_check - debug builds: before free block h of list cls is
 * taken off it (for c's allocation, or a page's release: c NULL; 'fn' names
 * the call), check its links. A broken one is reported with the block and
 * the link's offset and every class list is rebuilt from the heap pages.
 * Heap lock held. Returns true when it rebuilt: the caller starts again.
 */
bool slob_seg_cls_check(struct kmem_cache *c, const char *fn, struct slob_hdr *h,
			unsigned int cls);
#else
static __always_inline bool slob_seg_cls_check(struct kmem_cache *c, const char *fn,
					       struct slob_hdr *h, unsigned int cls)
{
	(void)c, (void)fn, (void)h, (void)cls;
	return false;
}
#endif

#endif
