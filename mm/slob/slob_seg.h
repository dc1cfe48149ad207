/*
 * slob_seg.h - SLOB-seg's heap layout (ALLOC=slob-seg): the page header
 * block, the class lists and their inline helpers, shared by mm/slob/slob_seg.c
 * (the allocation and free paths) and mm/slob/slob_seg_check.c (kmem_cache_check,
 * the debug free-list checks, the heap table). See mm/slob/slob_seg.c's design
 * header; everything here is used under the heap lock.
 */
#ifndef MM_SLOB_SEG_H
#define MM_SLOB_SEG_H

#include "mm/slob/slob_def.h"

/* A remainder after an object of fewer units (1 or 2) stays with the object. */
#define SLOB_SPLIT_MIN		SLOB_MIN_UNITS
#define SLOB_CLASS_MASK		0x7fU
#define SLOB_SEEN		0x2000U	/* kmem_cache_check's mark, under the lock only */
#define SLOB_EMPTY_UNITS	(SLOB_PAGE_UNITS - SLOB_HDR_UNITS)	/* an empty page's block */

_Static_assert(SLOB_NR_CLASSES - 1 <= SLOB_CLASS_MASK && !(SLOB_SEEN & SLOB_CLASS_MASK),
	       "a class fits the free header's info");

/* The first block of every heap page: SLOB_HDR_UNITS (mm/slob/slob_def.h), its header and count. */
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

/*
 * The links in a free block's body are its caller's memory until it was
 * freed: a write after free lands there. Every link read from a block is
 * checked before it is followed or stored, in every build: the word it
 * leads to is in RAM and 8-aligned (safe to read), and leads back. n, the
 * next link of l (a node of the list at head): the head, or a node whose
 * prev is l; p, l's prev link: the head, or a node whose next is l. No
 * header is read; debug builds check each node in full besides
 * (slob_seg_cls_check). The heads themselves (slob_heap) hold only links
 * that passed.
 */
static __always_inline bool link_word_ok(uintptr_t w)
{
	return !(w & (sizeof(void *) - 1)) && virt_addr_valid((const void *)w);
}

static __always_inline bool next_ok(const struct list_head *n, const struct list_head *l,
				    const struct list_head *head)
{
	return n == head ||
	       (link_word_ok((uintptr_t)n + offsetof(struct list_head, prev)) && n->prev == l);
}

static __always_inline bool prev_ok(const struct list_head *p, const struct list_head *l,
				    const struct list_head *head)
{
	return p == head ||
	       (link_word_ok((uintptr_t)p + offsetof(struct list_head, next)) && p->next == l);
}

/* Both links of free block h, on list c. */
static __always_inline bool cls_links_ok(struct slob_hdr *h, unsigned int c)
{
	struct list_head *head = &slob_heap.cls[c], *l = blk_link(h);

	return next_ok(l->next, l, head) && prev_ok(l->prev, l, head);
}

/* Take h off list c, its links checked first: false, changing nothing, when one is broken. */
static __always_inline bool cls_del(struct slob_hdr *h, unsigned int c)
{
	struct list_head *head = &slob_heap.cls[c], *l = blk_link(h), *n = l->next, *p = l->prev;

	if (unlikely(!next_ok(n, l, head) || !prev_ok(p, l, head)))
		return false;
	if (n == p)			/* the only block on the list */
		slob_heap.map[c / 64] &= ~(1ULL << (c % 64));
	n->prev = p;
	p->next = n;
	return true;
}

/*
 * slob_seg_damaged - free block h of list cls (taken for c's allocation, or
 * a page's release: c NULL; 'fn' names the call) has a broken link or a
 * size that disagrees with its page: report it (the link's offset in the
 * block's body) and quarantine its page (mm/slob/slob_quarantine.c), the class
 * lists rebuilt from the other pages. Heap lock held.
 */
void slob_seg_damaged(struct kmem_cache *c, const char *fn, struct slob_hdr *h, unsigned int cls);

/* Every class list rebuilt from the heap pages' free blocks (quarantined pages skipped). */
void slob_seg_rebuild(void);

#if CONFIG_SLAB_DEBUG
/*
 * slob_seg_cls_check - debug builds: before free block h of list cls is
 * taken off it (for c's allocation, or a page's release: c NULL; 'fn' names
 * the call), check it and its neighbours in full (each a free block of the
 * class in a heap page, linked both ways). A fault is reported and h's page
 * quarantined (slob_seg_damaged). Heap lock held. Returns true then: the
 * caller starts again.
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
