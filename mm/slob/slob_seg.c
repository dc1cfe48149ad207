/*
 * slob_seg.c - SLOB's heap as segregated free lists (ALLOC=slob-seg),
 * seed 004's "after": a request takes the head of a list of free blocks
 * that all fit it, instead of walking pages.
 *
 * Free blocks (struct slob_hdr, then a list_head) sit on one of 96 class
 * lists: exact sizes below 64 units (512 bytes), then four classes per
 * power of two up to a 64K page's 8192 units. A free header's info holds
 * SLOB_FREE and its class; map[] has a bit per non-empty list. A cache
 * asks for units + (align / 8 - 1) units ('start': its alignment's worst
 * case), so every block of every list from there up fits it. A request
 * first tries the head of its own size's list ('exact': its freed blocks
 * come back there), taken when aligned; else the head of the first list
 * from 'start' up: whole when at most SLOB_SPLIT_MIN - 1 units too big and
 * aligned, else cut from its end, the rest staying in place (moved only if
 * its class changes); a sliver of one or two units before the object goes
 * to the block on its left. Frees do not coalesce: a block goes back whole
 * to the head of its class. Each page starts with a two-unit page header
 * block (SLOB_PAGE_HDR) counting its allocated blocks; at zero the page
 * becomes the spare as it is (its blocks stay listed), or, if the spare is
 * empty too, leaves the lists and goes back to the buddy allocator, at that
 * free (the fast path's count reaches zero: page_emptied). An empty spare
 * in pieces is made one block again before the heap grows. What the heap
 * holds after a peak is pages with some blocks still allocated, not empty
 * ones: the lists hand out the freed blocks of every page alike, so the
 * blocks that stay live can be spread over many of the pages the peak took.
 *
 * Invariants (heap lock, besides mm/slob/slob_def.h's): every free block is on
 * exactly the list of its class and its info names it; map[] bit c is set
 * exactly when list c is not empty; blocks are at least 3 units; each
 * page's first block is its page header, whose count is its allocated
 * blocks; no page with a count of 0 is in the heap but the spare.
 *
 * Damage: a free block's links are the first 16 bytes of its body, where
 * a write after free lands. Every link read from a block is checked before
 * it is followed or stored (mm/slob/slob_seg.h: it leads back, its words in
 * RAM); a block cut must agree in size with its page and the next block's
 * boundary tag. A failure quarantines the block's page (mm/slob/slob_quarantine.c;
 * the class lists are rebuilt from the other pages) and the allocation
 * starts again. The fast path checks the one link it follows: the head
 * block's next. Debug builds check each block taken in full.
 *
 * Lock: the heap lock (mm/slob/slob_def.h), interrupts off, around each whole
 * allocation or free; new pages come from alloc_pages under it. Seed 004:
 * kept the segregated lists, kmalloc through size classes, frees without
 * coalescing and the memory-for-speed trade; departed in what a list
 * holds: the seed gave each size its own pages (a small SLUB without
 * per-CPU caches), Quarry keeps SLOB's shared pages and headers, so caches
 * share pages and a freed block serves any size it fits; one lock.
 */
#include "mm/slob/slob_seg.h"
#include "kernel/printk.h"
#include "kernel/string.h"

/* class_lo[c]: the fewest units of class c (class_lo[SLOB_NR_CLASSES]: above all). */
static uint16_t class_lo[SLOB_NR_CLASSES + 1];

/* The first class at or above 'from' with a free block, or -1. */
static __always_inline int first_class(unsigned int from)
{
	uint64_t m;

	if (from < 64) {
		m = slob_heap.map[0] & (~0ULL << from);
		if (m)
			return __builtin_ctzll(m);
		from = 64;
	}
	if (from >= SLOB_NR_CLASSES)
		return -1;
	m = slob_heap.map[1] & (~0ULL << (from - 64));
	return m ? 64 + __builtin_ctzll(m) : -1;
}

/* A free block f, its links checked already, grew to 'units': on the list of its new class. */
static void grown(struct slob_hdr *f, unsigned int units)
{
	unsigned int fc = cls_of(f), nc = slob_class(units);

	f->units = (uint16_t)units;
	if (nc != fc) {
		bool ok = cls_del(f, fc);

		ASSERT(ok);
		f->info = (uint16_t)((f->info & ~SLOB_CLASS_MASK) | nc);
		cls_add(f, nc);
	}
}

/* f's size agrees with its page and with the block after it (whose boundary tag is its size). */
static __always_inline bool extent_ok(const struct slob_hdr *f)
{
	uintptr_t end = ((uintptr_t)f & (PAGE_SIZE - 1)) + ((uintptr_t)f->units << SLOB_UNIT_SHIFT);

	return end < PAGE_SIZE ? slob_next(f)->prev == f->units : end == PAGE_SIZE;
}

/*
 * Cut c's block from the end of the free block f (class fc) and count it
 * in its page. Returns the caller's pointer, or NULL, changing nothing,
 * when f is damaged: its size disagrees with its page or the next block, a
 * link is broken where a block must leave its list (f's, or the free
 * block's left of f that takes a sliver), or f's boundary tag disagrees
 * with that block. 'record': note for the debug path whether the block
 * came from poisoned memory.
 */
static __always_inline void *carve(struct slob_hdr *f, unsigned int fc, struct kmem_cache *c,
				   bool record)
{
	uintptr_t fs = (uintptr_t)f, end = fs + ((uintptr_t)f->units << SLOB_UNIT_SHIFT);
	uintptr_t payload = (end - c->size) & ~((uintptr_t)c->align - 1);
	struct slob_hdr *b = (struct slob_hdr *)payload - 1;
	uintptr_t bend = payload + c->size;
	unsigned int lead, pois = f->info & SLOB_POISONED, prev, units;

	if (unlikely(!extent_ok(f)))
		return NULL;
	if (end - bend - 1 < (SLOB_SPLIT_MIN - 1) * SLOB_UNIT) {
		/* a one- or two-unit tail: one alignment step down makes it a block, if f has room */
		if (payload - c->align - SLOB_UNIT >= fs) {
			payload -= c->align;
			b = (struct slob_hdr *)payload - 1;
			bend = payload + c->size;
		} else {
			bend = end;
		}
	}
	lead = (unsigned int)(((uintptr_t)b - fs) >> SLOB_UNIT_SHIFT);
	prev = lead;
	if (likely(lead >= class_lo[fc])) {		/* f keeps its start and its class */
		f->units = (uint16_t)lead;
	} else if (lead >= SLOB_MIN_UNITS) {		/* f keeps its start, changes class */
		unsigned int nc = slob_class(lead);

		if (unlikely(!cls_del(f, fc)))
			return NULL;
		f->units = (uint16_t)lead;
		f->info = (uint16_t)(SLOB_FREE | pois | nc);
		cls_add(f, nc);
	} else {					/* b takes f's place, a sliver aside */
		struct slob_hdr *l = slob_prev(f);

		if (unlikely(lead && (!f->prev || f->prev > slob_off(f) || l->units != f->prev ||
				      (slob_is_free(l) && !cls_links_ok(l, cls_of(l))))))
			return NULL;
		if (unlikely(!cls_del(f, fc)))
			return NULL;
		prev = f->prev;
		if (lead) {
			if (slob_is_free(l)) {
				if (l->info & SLOB_POISONED)	/* f's header and links */
					slob_poison(f, f + lead);
				grown(l, l->units + lead);
			} else {
				l->units = (uint16_t)(l->units + lead);
			}
			prev = l->units;
		}
	}
	units = (unsigned int)((bend - (uintptr_t)b) >> SLOB_UNIT_SHIFT);
	slob_set_hdr(b, units, prev, c->id);
	if (unlikely(bend != end)) {
		struct slob_hdr *t = (struct slob_hdr *)bend;
		unsigned int tu = (unsigned int)((end - bend) >> SLOB_UNIT_SHIFT), tc = slob_class(tu);

		slob_set_hdr(t, tu, units, SLOB_FREE | pois | tc);
		cls_add(t, tc);
		units = tu;
		stat(c, splits, 1);
	}
	if (likely(!slob_page_end((void *)end)))
		((struct slob_hdr *)end)->prev = (uint16_t)units;
	page_hdr(b)->nr_alloc++;
	if (record) {
		slob_heap.last_poisoned = pois;
		slob_heap.last_skip = fs + 24 > payload ? (unsigned int)(fs + 24 - payload) : 0;
	}
	return (void *)payload;
}

/* Take the whole free block f (class fc) for c; NULL, changing nothing, when a link is broken. */
static __always_inline void *take_whole(struct slob_hdr *f, unsigned int fc, struct kmem_cache *c,
					bool record)
{
	if (unlikely(!cls_del(f, fc)))
		return NULL;
	if (record) {
		slob_heap.last_poisoned = f->info & SLOB_POISONED;
		slob_heap.last_skip = sizeof(struct list_head);
	}
	f->info = c->id;
	page_hdr(f)->nr_alloc++;
	return f + 1;
}

/*
 * c's block from the free block f of list fc: f whole when it fits as it
 * is (at most SLOB_SPLIT_MIN - 1 units more, aligned), else cut from its
 * end. NULL, changing nothing, when f is damaged (slob_seg_damaged says how).
 */
static __always_inline void *take(struct slob_hdr *f, unsigned int fc, struct kmem_cache *c,
				  bool record)
{
	if (f->units < c->units + SLOB_SPLIT_MIN && !((uintptr_t)(f + 1) & (c->align - 1)))
		return take_whole(f, fc, c, record);
	return carve(f, fc, c, record);
}

/* An empty page as one free block (of 'pois'), on the top list. Heap lock held. */
static void page_one_block(struct page *page, unsigned int pois)
{
	struct slob_page_hdr *ph = (struct slob_page_hdr *)slob_page_first(page);
	struct slob_hdr *f = &ph->hdr + SLOB_HDR_UNITS;

	slob_set_hdr(&ph->hdr, SLOB_HDR_UNITS, 0, SLOB_PAGE_HDR);
	ph->nr_alloc = 0;
	ph->pad = 0;
	slob_set_hdr(f, SLOB_EMPTY_UNITS, SLOB_HDR_UNITS,
		     SLOB_FREE | pois | slob_class(SLOB_EMPTY_UNITS));
	cls_add(f, slob_class(SLOB_EMPTY_UNITS));
}

/* A new page: its page header block, then one free block on the top list. */
static bool grow(struct kmem_cache *c)
{
	struct page *page = slob_new_page();

	if (!page)
		return false;
	page_one_block(page, slob_page_first(page)->info & SLOB_POISONED);
	stat(c, shared.slabs_made, 1);
	return true;
}

/*
 * Take the free blocks of 'page' (none allocated) off their lists, 'fn'
 * naming the call: their AND of SLOB_POISONED in *pois. False when they do
 * not tile the page (each size inside it, agreeing with the next block's
 * boundary tag, so that none is passed over) or a link is broken: the page
 * is quarantined then, and the lists rebuilt without it (the blocks taken
 * off before the fault do not matter).
 */
static bool unlist_page(struct page *page, const char *fn, unsigned int *pois)
{
	struct slob_hdr *first = slob_page_first(page), *h = first, *next;
	struct slob_hdr *end = (struct slob_hdr *)((uintptr_t)first + PAGE_SIZE);

	*pois = SLOB_POISONED;
	for (;; h = next) {
		/* next's boundary tag agrees: no block passed over, and a size of 0 is caught */
		next = h + h->units;
		if (unlikely(next >= end ? next != end : next->prev != h->units || next == h))
			goto tiling;
		if (h != first) {
			if (slob_seg_cls_check(NULL, fn, h, cls_of(h)))
				return false;
			if (unlikely(!cls_del(h, cls_of(h)))) {
				slob_seg_damaged(NULL, fn, h, cls_of(h));
				return false;
			}
			*pois &= h->info;
			h->info = SLOB_DEAD;
		}
		if (next == end)
			return true;
	}
tiling:
	slob_quarantine(page, NULL, fn, h + 1, "heap corrupt: the blocks of a page without "
			"objects do not tile it", NULL);
	return false;
}

/* An empty page's blocks as one again (poisoned if they all were); false: quarantined instead. */
static bool page_rebuild(struct page *page)
{
	unsigned int pois;

	if (!unlist_page(page, "alloc", &pois))
		return false;
	if (pois)
		slob_poison(slob_page_first(page) + SLOB_HDR_UNITS, (char *)page_address(page) +
								    PAGE_SIZE);
	page_one_block(page, pois);
	return true;
}

/* True when the spare is a page without allocated blocks. */
static __always_inline bool spare_empty(const struct page *spare)
{
	return spare && page_hdr(page_address(spare))->nr_alloc == 0;
}

/* The aligned block of c fits the free block f (always, from c->start up, unless c->fit). */
static __always_inline bool fits(const struct slob_hdr *f, const struct kmem_cache *c)
{
	uintptr_t end = (uintptr_t)f + ((uintptr_t)f->units << SLOB_UNIT_SHIFT);

	return ((end - c->size) & ~((uintptr_t)c->align - 1)) - SLOB_UNIT >= (uintptr_t)f;
}

/* Blocks of a list slob_heap_alloc tries for a cache that must check the fit. */
#define SLOB_FIT_TRIES		8

/*
 * slob_heap_alloc: see slob_def.h. Heap lock held; counts the object in
 * c->inuse. From c->start up every block fits, unless c->fit (alignment so
 * large the worst case would exceed a page): then up to SLOB_FIT_TRIES
 * blocks of each list are tried, and a new page always fits. A damaged
 * block (a broken link, a size that disagrees) quarantines its page, and
 * the search starts again on the rebuilt lists.
 */
void *slob_heap_alloc(struct kmem_cache *c)
{
	struct slob_hdr *f;
	void *p;
	int cls;

again:
	for (cls = first_class(c->start); cls >= 0; cls = first_class((unsigned int)cls + 1)) {
		struct list_head *head = &slob_heap.cls[cls], *l = head->next;

		for (unsigned int n = 0; l != head && n < SLOB_FIT_TRIES; l = l->next, n++) {
			f = link_blk(l);
			if (slob_seg_cls_check(c, "alloc", f, (unsigned int)cls))
				goto again;
			stat(c, blocks_scanned, 1);
			if (likely(!c->fit || fits(f, c)))
				goto found;
			if (unlikely(!next_ok(l->next, l, head))) {
				slob_seg_damaged(c, "alloc", f, (unsigned int)cls);
				goto again;
			}
		}
	}
	if (spare_empty(slob_heap.spare) &&
	    (slob_page_first(slob_heap.spare) + SLOB_HDR_UNITS)->units != SLOB_EMPTY_UNITS) {
		if (!page_rebuild(slob_heap.spare))	/* the empty spare's pieces, one block */
			goto again;			/* quarantined instead */
	} else if (!grow(c)) {
		return NULL;
	}
	cls = (int)slob_class(SLOB_EMPTY_UNITS);
	f = link_blk(slob_heap.cls[cls].next);
	ASSERT(fits(f, c));
found:
	p = take(f, (unsigned int)cls, c, true);
	if (unlikely(!p)) {
		slob_seg_damaged(c, "alloc", f, (unsigned int)cls);
		goto again;
	}
	c->inuse++;
	return p;
}

/* The list of slow caches' alloc_head: always empty, so they reach alloc_search. */
struct list_head slob_no_list = LIST_HEAD_INIT(slob_no_list);

/*
 * The rest of slob_alloc, heap locked (flags: the interrupt state to
 * restore): a slow cache's allocation, or the search from c->start.
 */
static __noinline void *alloc_search(struct kmem_cache *c, unsigned long flags)
{
	int cls;
	void *p;

	if (c->slow) {
		slob_unlock(flags);
		return slob_alloc_slow(c);
	}
	cls = first_class(c->start);
	p = NULL;
	if (likely(cls >= 0)) {
		struct slob_hdr *f = link_blk(slob_heap.cls[cls].next);

		p = take(f, (unsigned int)cls, c, false);
		if (likely(p))
			c->inuse++;
		else
			slob_seg_damaged(c, "alloc", f, (unsigned int)cls);
	}
	if (!p)
		p = slob_heap_alloc(c);
	slob_unlock(flags);
	stat(c, shared.allocs, p != NULL);
	return p;
}

/* slob_alloc's way out when the head block's next link is broken (heap locked). */
static __noinline void *alloc_damaged(struct kmem_cache *c, struct slob_hdr *f,
				      unsigned long flags)
{
	slob_seg_damaged(c, "alloc", f, c->exact);
	return alloc_search(c, flags);
}

/*
 * slob_alloc: see slob_def.h. The allocation path of every cache: first
 * the head of its own size's list, a block of its own, when aligned (a
 * slow cache's alloc_head is an empty list: it goes on to alloc_search).
 * The head block's next link is followed only when it leads back to it.
 */
void *slob_alloc(struct kmem_cache *c)
{
	struct list_head *head = c->alloc_head, *l, *n;
	struct slob_hdr *f;
	unsigned long flags;

	flags = slob_lock();
	l = head->next;
	f = link_blk(l);
	if (unlikely(l == head || f->units < c->units || ((uintptr_t)l & c->align_mask)))
		return alloc_search(c, flags);
	n = l->next;
	if (n == head)				/* the only block on its list */
		*c->exact_word &= ~c->exact_bit;
	else if (unlikely(!next_ok(n, l, head)))
		return alloc_damaged(c, f, flags);
	n->prev = head;
	head->next = n;
	f->info = c->id;
	page_hdr(f)->nr_alloc++;
	c->inuse++;
	slob_unlock(flags);
	stat(c, shared.allocs, 1);
	return f + 1;
}

/*
 * The last allocated block of page (not the spare) went: it becomes the
 * spare, as it is, if the spare has blocks allocated again (or there is
 * none); else it goes back to the buddy allocator (the zone lock nests
 * inside the heap lock).
 */
static __noinline void page_emptied(struct page *page)
{
	unsigned int pois;

	this_cpu_inc(slob_events);
	if (spare_empty(slob_heap.spare)) {
		if (!unlist_page(page, "free", &pois))
			return;			/* damaged: quarantined instead */
		slob_heap.nr_pages--;
		slob_release_page(page);
		return;
	}
	slob_heap.spare = page;
	slob_heap.spare_age = 0;
}

/* b's size agrees with its page and the next block's boundary tag. */
static __always_inline bool size_ok(const struct slob_hdr *b)
{
	const struct slob_hdr *r = slob_next(b);

	return slob_off(b) + b->units <= SLOB_PAGE_UNITS && (slob_page_end(r) || r->prev == b->units);
}

/* b, just freed, to the head of its class list (poisoned if 'pois': its body is). */
static __always_inline void push_free(struct slob_hdr *b, unsigned int pois)
{
	unsigned int units = b->units, nc = units < SLOB_EXACT_CLASSES ? units : slob_class(units);

	b->info = (uint16_t)(SLOB_FREE | pois | nc);
	cls_add(b, nc);
}

/*
 * slob_heap_free: see slob_def.h. b goes whole to the head of its class
 * list, poisoned if its owner poisons (slob_debug_free did its body); a
 * page left without allocated blocks goes to page_emptied.
 */
const char *slob_heap_free(struct page *page, struct slob_hdr *b, struct kmem_cache *owner)
{
	if (b->units < SLOB_MIN_UNITS || !size_ok(b))
		return "heap corrupt: the block's size disagrees with its neighbours";
	owner->inuse--;
	push_free(b, owner->flags & SLAB_POISON ? SLOB_POISONED : 0);
	if (--page_hdr(b)->nr_alloc == 0 && page != slob_heap.spare)
		page_emptied(page);
	return NULL;
}

/* The free fast path's way out when its page emptied, or it must report (heap locked). */
static __noinline void free_emptied(struct page *page, unsigned long flags)
{
	page_emptied(page);
	slob_unlock(flags);
}

static __noinline void free_refused(struct kmem_cache *c, const void *p, const char *fn,
				    unsigned long flags)
{
	slob_unlock(flags);
	slob_free_slow(c, (void *)p, fn);
}

/*
 * The free fast path for a block of a heap page: a plain owner, a header
 * with its tag and its cache's size (another size must agree with its page
 * and its right neighbour's boundary tag); b goes to the head of its
 * class. Anything else goes to slob_free_slow, which reports. The unlikely
 * ways out are tail calls, so this path saves no registers.
 */
static __always_inline void free_block(struct kmem_cache *c, struct page *page, const void *p,
				       const char *fn)
{
	struct slob_hdr *b = (struct slob_hdr *)p - 1;
	struct kmem_cache *owner;
	unsigned long flags;
	unsigned int id;

	if (unlikely(b->tag != slob_tag(b))) {
		slob_free_slow(c, (void *)p, fn);
		return;
	}
	flags = slob_lock();
	id = b->info;
	if (unlikely(id >= SLOB_MAX_CACHES)) {	/* free, dead, a page header */
		free_refused(c, p, fn, flags);
		return;
	}
	owner = slob_cache_of[id];		/* slob_cache_of[0] is NULL */
	if (unlikely(!owner || owner->debug || (c && c != owner))) {
		free_refused(c, p, fn, flags);
		return;
	}
	if (likely(b->units == owner->units)) {	/* its cache's own size: its exact list */
		struct list_head *head = owner->exact_head, *l = blk_link(b), *n = head->next;

		b->info = owner->free_info;
		n->prev = l;
		l->next = n;
		l->prev = head;
		head->next = l;
		*owner->exact_word |= owner->exact_bit;
	} else if (likely(size_ok(b))) {	/* a block with a tail: check it in full */
		push_free(b, 0);
	} else {
		free_refused(c, p, fn, flags);
		return;
	}
	owner->inuse--;
	stat(owner, shared.frees, 1);	/* here: a free that empties its page counts too */
	if (unlikely(--page_hdr(b)->nr_alloc == 0) && page != slob_heap.spare) {
		free_emptied(page, flags);
		return;
	}
	slob_unlock(flags);
}

/* slob_free and slob_kfree: the entry both heaps share, around free_block above. */
#include "mm/slob/slob_free_entry.h"

/* slob_heap_take_spare: see slob_def.h. Heap lock held. */
struct page *slob_heap_take_spare(void)
{
	struct page *spare = slob_heap.spare;
	unsigned int pois;

	slob_heap.spare = NULL;
	if (!spare_empty(spare) || !unlist_page(spare, "release of the spare", &pois))
		return NULL;
	slob_heap.nr_pages--;
	return spare;
}

/* slob_heap_unlist: see slob_def.h. Its blocks leave the class lists: all rebuilt without it. */
void slob_heap_unlist(struct page *page)
{
	(void)page;
	slob_seg_rebuild();
}

/* slob_heap_init: see slob_def.h. */
void slob_heap_init(void)
{
	for (unsigned int c = 0; c < SLOB_NR_CLASSES; c++)
		INIT_LIST_HEAD(&slob_heap.cls[c]);
	for (unsigned int w = 0; w < SLOB_MAP_WORDS; w++)
		slob_heap.map[w] = 0;
	for (unsigned int c = 0; c <= SLOB_NR_CLASSES; c++)
		class_lo[c] = (uint16_t)(c < SLOB_NR_CLASSES ? slob_class_lo(c) : 0xffff);
}

/*
 * slob_heap_start: see slob_def.h. The first class whose every block has r
 * units; when r is more than a page can give, the class of 'units' (and
 * *fit: each block's fit is checked).
 */
unsigned int slob_heap_start(unsigned int units, unsigned int r, bool *fit, unsigned int *exact)
{
	unsigned int c;

	*exact = slob_class(units);
	if (*exact >= SLOB_NR_CLASSES)
		*exact = SLOB_NR_CLASSES - 1;

	*fit = r > SLOB_EMPTY_UNITS;
	if (*fit)
		r = units;
	c = slob_class(r);
	return slob_class_lo(c) == r ? c : c + 1;
}
