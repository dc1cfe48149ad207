/*
 * slob_fit.c - SLOB's heap as sequential fit (ALLOC=slob), the classic
 * design Linux's SLOB had and seed 004 started from.
 *
 * Each heap page keeps its own free blocks on a list in address order,
 * linked by the next block's page offset (in units) in the free header's
 * info, so a one-unit free block is still a block. In struct page:
 * freelist = the first free block (NULL: none), active = the page's free
 * units, private = 1 + the list the page is on (0: full, on none), lru.
 * Pages with free units are on one of three lists by the size of request
 * they serve, as in Linux: small (blocks under SLOB_BREAK1 = 256 bytes),
 * medium (under 1024) and large; a new page joins the list of the request
 * that made it, a full page that gets a block back the list of that
 * block's size. An allocation walks its list from the head, skips pages
 * with fewer free units than it needs, and takes the first fit in a page
 * (first block where the aligned object fits; a leading fragment stays
 * free); then it rotates the list so that the next search starts at that
 * page (next fit). A free walks its page's list to its place, coalesces
 * with the blocks on both sides, and gives the page back to the buddy
 * allocator when it is all free (but one, kept as the spare).
 *
 * Invariants (heap lock, besides mm/slob/slob_def.h's): a page's free list is
 * exactly its free blocks, in address order; active is their units; a
 * page is on list private - 1 exactly when active > 0.
 *
 * Damage: the links live in free headers, where an overrun or a stray
 * write lands. A link is read as an offset inside the page (fnext), every
 * walk checks that each one leads forward (so the walk ends), and the
 * block an allocation takes or a free merges with must be a free header
 * whose size agrees with the page and the next block's boundary tag; else
 * the page is quarantined (mm/slob/slob_quarantine.c: off its list for good)
 * and the allocation goes on elsewhere, the free frees its object from the
 * quarantine. Debug builds check the whole list before each walk. A free's
 * own block is checked by its boundary tags.
 *
 * Lock: the heap lock (mm/slob/slob_def.h), interrupts off, around each whole
 * allocation or free, walks included: the cost seed 004 measured.
 * Departures from Linux: headers on allocated blocks too (mm/slob/slob_def.h),
 * the spare page, and the page walk skipping by free units only (Linux
 * did the same; a page with enough units but no fitting block is walked).
 */
#include "mm/slob/slob_def.h"
#include "kernel/printk.h"
#include "kernel/string.h"

/*
 * The page offset of the free block after h on its page's list (0: none).
 * The link is read as an offset inside the page whatever its high bits
 * hold (a valid one has none), so even a broken link leads to no other page.
 */
static __always_inline unsigned int flink(const struct slob_hdr *h)
{
	return h->info & (SLOB_PAGE_UNITS - 1);
}

/* The free block after h on its page's list, or NULL. */
static __always_inline struct slob_hdr *fnext(struct slob_hdr *base, const struct slob_hdr *h)
{
	unsigned int off = flink(h);

	return off ? base + off : NULL;
}

static __always_inline void set_link(struct slob_hdr *h, unsigned int off)
{
	h->info = (uint16_t)((h->info & ~SLOB_LINK_MASK) | off);
}

/* Link the free list of page so that after 'prevf' (NULL: the first) comes f (NULL: none). */
static __always_inline void link_after(struct page *sp, struct slob_hdr *base,
				       struct slob_hdr *prevf, struct slob_hdr *f)
{
	if (prevf)
		set_link(prevf, f ? (unsigned int)(f - base) : 0);
	else
		sp->freelist = f;
}

static void page_list_add(struct page *sp, unsigned int list)
{
	list_add(&sp->lru, &slob_heap.list[list]);
	sp->private = list + 1;
}

static void page_list_del(struct page *sp)
{
	list_del(&sp->lru);
	sp->private = 0;
}

/* What is damaged, for the quarantine's report (heap lock held: one at a time). */
static char fault[176];

/* page_alloc's answer for a damaged page (what is damaged: fault[]). */
#define PAGE_DAMAGED	((void *)1)

/*
 * A free block, reached by a link (or, 'merge', as b's right neighbour,
 * which b's boundary tag placed), to take or merge with: free, its size
 * inside the page and agreeing with the next block's boundary tag, and
 * (reached by a link) its tag.
 */
static __always_inline bool free_block_ok(const struct slob_hdr *base, const struct slob_hdr *f,
					  bool merge)
{
	unsigned int off = (unsigned int)(f - base);
	const struct slob_hdr *end = f + f->units;

	return (merge || f->tag == slob_tag(f)) && slob_is_free(f) &&
	       off + f->units <= SLOB_PAGE_UNITS &&
	       (off + f->units == SLOB_PAGE_UNITS || end->prev == f->units);
}

/* The report of a free list that leads from prevf (NULL: the page's list head) to cur. */
static const char *list_fault(const struct slob_hdr *base, const struct slob_hdr *prevf,
			      const struct slob_hdr *cur)
{
	if (prevf)
		snprintf(fault, sizeof(fault), "freelist corrupt: the free block's link at offset -4 "
			 "(header info 0x%x) leads to %p, not a free block after it", prevf->info,
			 (const void *)cur);
	else
		snprintf(fault, sizeof(fault), "freelist corrupt: page %p's first free block %p is "
			 "not one", (const void *)base, (const void *)cur);
	return fault;
}

/* The report of cur, reached by a link or as a neighbour, not passing free_block_ok. */
static const char *block_fault(const struct slob_hdr *base, const struct slob_hdr *prevf,
			       const struct slob_hdr *cur)
{
	if (cur->tag != slob_tag(cur) || !slob_is_free(cur))
		return list_fault(base, prevf, cur);
	snprintf(fault, sizeof(fault), "heap corrupt: the free block %p's size (%u units) disagrees "
		 "with its neighbours (its header overwritten)", (const void *)cur, cur->units);
	return fault;
}

#if CONFIG_SLAB_DEBUG
/*
 * Debug builds: before a walk of page sp's free list, the whole list: a
 * chain of free headers in address order inside the page. NULL, or the
 * first link that leads elsewhere (a stray write into a free block's
 * header), for the quarantine.
 */
static const char *fit_list_check(struct page *sp)
{
	struct slob_hdr *base = page_address(sp), *prevf = NULL, *cur;

	for (cur = sp->freelist; cur; prevf = cur, cur = fnext(base, cur)) {
		if ((uintptr_t)cur - (uintptr_t)base >= PAGE_SIZE || (prevf && cur <= prevf) ||
		    cur->tag != slob_tag(cur) || !slob_is_free(cur))
			return list_fault(base, prevf, cur);
	}
	return NULL;
}
#else
static __always_inline const char *fit_list_check(struct page *sp)
{
	(void)sp;
	return NULL;
}
#endif

/*
 * First fit in page sp for c: the first free block where c's aligned
 * block fits, cut from its start. Returns the caller's pointer, NULL when
 * nothing fits, or PAGE_DAMAGED, changing nothing, when a link does not
 * lead forward or the block to take is not a free block agreeing with its
 * neighbours (fault[] says which): the caller quarantines the page.
 */
static void *page_alloc(struct page *sp, struct kmem_cache *c)
{
	struct slob_hdr *base = page_address(sp), *prevf = NULL, *cur, *nxt;

	if (unlikely(fit_list_check(sp)))
		return PAGE_DAMAGED;
	for (cur = sp->freelist; cur; prevf = cur, cur = nxt) {
		uintptr_t payload = ALIGN_UP((uintptr_t)(cur + 1), (uintptr_t)c->align);
		struct slob_hdr *b = (struct slob_hdr *)payload - 1, *end;
		unsigned int delta = (unsigned int)(b - cur), avail = cur->units;
		unsigned int pois = cur->info & SLOB_POISONED, next, prev, units, rest;

		stat(c, blocks_scanned, 1);
		nxt = fnext(base, cur);
		if (unlikely(nxt && nxt <= cur)) {	/* links lead forward, so the walk ends */
			list_fault(base, cur, nxt);
			return PAGE_DAMAGED;
		}
		if (avail < delta + c->units)
			continue;
		if (unlikely(!free_block_ok(base, cur, false))) {
			block_fault(base, prevf, cur);
			return PAGE_DAMAGED;
		}
		next = flink(cur);
		end = cur + avail;
		if (delta) {			/* the fragment before stays free, linked as is */
			cur->units = (uint16_t)delta;
			prevf = cur;
			avail -= delta;
			prev = delta;
		} else {
			prev = cur->prev;
		}
		rest = avail - c->units;
		units = avail;
		if (rest) {			/* the rest after it becomes a free block */
			struct slob_hdr *t = b + c->units;

			slob_set_hdr(t, rest, c->units, SLOB_FREE | pois | next);
			next = (unsigned int)(t - base);
			units = c->units;
			stat(c, splits, 1);
		}
		link_after(sp, base, prevf, next ? base + next : NULL);
		slob_set_hdr(b, units, prev, c->id);
		if (!slob_page_end(end))
			end->prev = (uint16_t)(rest ? rest : units);
		sp->active -= units;
		if (!sp->active)
			page_list_del(sp);
		slob_heap.last_poisoned = pois;
		slob_heap.last_skip = 0;
		return (void *)payload;
	}
	return NULL;
}

/*
 * slob_heap_alloc: see slob_def.h. Walk c's list, next fit; grow if nothing
 * fits. A page found damaged is quarantined and the walk starts again.
 */
void *slob_heap_alloc(struct kmem_cache *c)
{
	struct list_head *head = &slob_heap.list[c->start], *prev;
	struct page *sp;
	void *p = NULL;

again:
	list_for_each_entry(sp, head, lru) {
		stat(c, pages_scanned, 1);
		if (sp->active < c->units)
			continue;
		prev = sp->lru.prev;
		p = page_alloc(sp, c);
		if (unlikely(p == PAGE_DAMAGED)) {
			slob_quarantine(sp, c, "alloc", page_address(sp), fault, NULL);
			p = NULL;
			goto again;
		}
		if (!p)
			continue;
		/* Next fit: start the next search here (at the page after, if this one filled). */
		if (prev->next != head && head->next != prev->next)
			list_move_tail(head, prev->next);
		break;
	}
	if (!p) {
		sp = slob_new_page();
		if (!sp)
			return NULL;
		sp->freelist = slob_page_first(sp);
		sp->active = SLOB_PAGE_UNITS;
		page_list_add(sp, c->start);
		stat(c, shared.slabs_made, 1);
		p = page_alloc(sp, c);
		ASSERT(p && p != PAGE_DAMAGED);
	}
	c->inuse++;
	return p;
}

/* slob_alloc: see slob_def.h. */
void *slob_alloc(struct kmem_cache *c)
{
	unsigned long flags;
	void *p;

	if (unlikely(c->slow))
		return slob_alloc_slow(c);
	flags = slob_lock();
	p = slob_heap_alloc(c);
	slob_unlock(flags);
	stat(c, shared.allocs, 1);
	return p;
}

/* The page is all free (one block): the spare, or off its list for the caller to release. */
static void page_emptied(struct page *sp, struct page **release)
{
	struct page *spare = slob_heap.spare;

	this_cpu_inc(slob_events);
	if (spare && spare != sp && spare->active == SLOB_PAGE_UNITS) {
		if (sp->private)
			page_list_del(sp);
		slob_heap.nr_pages--;
		*release = sp;
		return;
	}
	if (!sp->private)
		page_list_add(sp, SLOB_NR_LISTS - 1);
	slob_heap.spare = sp;
	slob_heap.spare_age = 0;
}

/*
 * Free b (allocated, in page sp): check its boundary tags, then put it in
 * its place on the page's list, coalescing with the free blocks on either
 * side. 'pois': its body is poisoned (the merged block stays poisoned only
 * if its neighbours were too). Returns NULL, or what is damaged, changing
 * nothing: b's tags disagree, the list does not lead forward inside the
 * page or holds b, the free block after b has a broken header.
 */
static const char *heap_free(struct page *sp, struct slob_hdr *b, bool pois,
			     struct page **release)
{
	struct slob_hdr *base = page_address(sp), *prevf = NULL, *cur, *nxt, *r = slob_next(b);
	unsigned int units = b->units, off = (unsigned int)(b - base), total = units, link;
	unsigned int pbit = pois ? SLOB_POISONED : 0;
	const char *broken;

	if (unlikely(units < SLOB_MIN_UNITS || off + units > SLOB_PAGE_UNITS ||
		     (!slob_page_end(r) && r->prev != units) || b->prev > off ||
		     (b->prev ? slob_prev(b)->units != b->prev : off != 0)))
		return "heap corrupt: the block's size disagrees with its neighbours";
	if (!sp->active) {			/* a full page: b is its only free block */
		b->info = (uint16_t)(SLOB_FREE | pbit);
		sp->freelist = b;
		sp->active = units;
		if (units == SLOB_PAGE_UNITS)
			page_emptied(sp, release);
		else
			page_list_add(sp, slob_list_of((unsigned long)units * SLOB_UNIT));
		return NULL;
	}
	broken = fit_list_check(sp);
	if (unlikely(broken))
		return broken;
	for (cur = sp->freelist; cur && cur < b; prevf = cur, cur = nxt) {
		nxt = fnext(base, cur);
		if (unlikely(nxt && nxt <= cur))	/* links lead forward, so the walk ends */
			return list_fault(base, cur, nxt);
	}
	if (unlikely(cur == b))
		return "freelist corrupt: the block being freed is on its page's free list";
	link = cur ? (unsigned int)(cur - base) : 0;
	if (cur && cur == r) {			/* the block after is free: swallow it */
		if (unlikely(!free_block_ok(base, r, true)))
			return block_fault(base, prevf, r);
		pbit &= cur->info;
		total += cur->units;
		link = flink(cur);
		if (pbit)
			slob_poison(cur, cur + 1);
		else
			cur->info = SLOB_DEAD;
	}
	if (prevf && slob_next(prevf) == b) {	/* the block before is free: it swallows b */
		pbit &= prevf->info;
		prevf->units = (uint16_t)(prevf->units + total);
		prevf->info = (uint16_t)(SLOB_FREE | pbit | link);
		if (pbit)
			slob_poison(b, b + 1);
		else
			b->info = SLOB_DEAD;
		b = prevf;
	} else {
		b->units = (uint16_t)total;
		b->info = (uint16_t)(SLOB_FREE | pbit | link);
		link_after(sp, base, prevf, b);
	}
	r = slob_next(b);
	if (!slob_page_end(r))
		r->prev = b->units;
	sp->active += units;
	if (sp->active == SLOB_PAGE_UNITS)
		page_emptied(sp, release);
	return NULL;
}

/* slob_heap_free: see slob_def.h. */
const char *slob_heap_free(struct page *page, struct slob_hdr *b, struct kmem_cache *owner)
{
	struct page *release = NULL;
	const char *broken = heap_free(page, b, owner->flags & SLAB_POISON, &release);

	if (!broken)
		owner->inuse--;
	if (release)
		slob_release_page(release);	/* zone lock inside the heap lock: allowed */
	return broken;
}

/* slob_heap_unlist: see slob_def.h. Off its page list; its free list forgotten. */
void slob_heap_unlist(struct page *page)
{
	if (page->private)
		page_list_del(page);
	page->freelist = NULL;
	page->active = 0;
}

/* The free path for a block of a heap page (see mm/slob/slob_seg.c's free_block). */
static __always_inline void free_block(struct kmem_cache *c, struct page *page, const void *p,
				       const char *fn)
{
	struct slob_hdr *b = (struct slob_hdr *)p - 1;
	struct page *release = NULL;
	struct kmem_cache *owner;
	unsigned long flags;
	unsigned int id;

	if (unlikely(b->tag != slob_tag(b)))
		goto slow;
	flags = slob_lock();
	id = b->info;
	if (unlikely(id - 1 >= SLOB_MAX_CACHES - 1))
		goto slow_unlock;
	owner = slob_cache_of[id];
	if (unlikely(!owner || owner->debug || (c && c != owner) ||
		     heap_free(page, b, false, &release)))
		goto slow_unlock;
	owner->inuse--;
	slob_unlock(flags);
	stat(owner, shared.frees, 1);
	if (unlikely(release))
		slob_release_page(release);
	return;
slow_unlock:
	slob_unlock(flags);
slow:
	slob_free_slow(c, (void *)p, fn);
}

/* slob_free and slob_kfree: the entry both heaps share, around free_block above. */
#include "mm/slob/slob_free_entry.h"

/* slob_heap_take_spare: see slob_def.h. */
struct page *slob_heap_take_spare(void)
{
	struct page *spare = slob_heap.spare;

	slob_heap.spare = NULL;
	if (!spare || spare->active != SLOB_PAGE_UNITS)
		return NULL;
	page_list_del(spare);
	slob_heap.nr_pages--;
	return spare;
}

/* slob_heap_init: see slob_def.h. */
void slob_heap_init(void)
{
	for (unsigned int i = 0; i < SLOB_NR_LISTS; i++)
		INIT_LIST_HEAD(&slob_heap.list[i]);
}

/* slob_heap_start: see slob_def.h. The list of the block's size (alignment aside). */
unsigned int slob_heap_start(unsigned int units, unsigned int r, bool *fit, unsigned int *exact)
{
	(void)r;
	*exact = 0;
	*fit = false;			/* the first fit checks every block */
	return slob_list_of((unsigned long)units * SLOB_UNIT);
}

/* slob_heap_check_lists: see slob_def.h. Each page once, on the list it says; 'listed' pages. */
int slob_heap_check_lists(unsigned long *listed)
{
	unsigned long n = 0;

	for (unsigned int i = 0; i < SLOB_NR_LISTS; i++) {
		struct list_head *head = &slob_heap.list[i], *l;

		for (l = head->next; l != head; l = l->next) {
			struct page *sp = list_entry(l, struct page, lru);

			SLOB_CHECK(l->next->prev == l && l->prev->next == l,
				   "list %u badly linked at %p", i, (void *)sp);
			SLOB_CHECK(sp >= mem_map && sp < mem_map + mem_map_entries() &&
				       (sp->flags & PG_slab) && !sp->slab_cache,
				   "list %u: %p is no heap page", i, (void *)sp);
			SLOB_CHECK(sp->private == i + 1 && sp->active > 0,
				   "page %p on list %u says list %lu, %u free units",
				   page_address(sp), i, sp->private - 1, sp->active);
			SLOB_CHECK(++n <= slob_heap.nr_pages, "the lists hold more pages than the heap");
		}
	}
	*listed = n;
	return 0;
}

/* slob_heap_check_block: see slob_def.h. Free blocks are checked against the list per page. */
int slob_heap_check_block(struct page *page, struct slob_hdr *h)
{
	(void)page;
	(void)h;
	return 0;
}

/*
 * slob_heap_check_page: see slob_def.h. The page's free list is its free
 * blocks in address order and active their units; returns 1 if the page
 * is on a list (it has free units), 0 if not, -1 on a violation.
 */
long slob_heap_check_page(struct page *sp, unsigned long free_units, unsigned long free_blocks,
			  unsigned long alloc_blocks)
{
	struct slob_hdr *base = page_address(sp), *h = base, *f = sp->freelist;
	unsigned long n = 0;

	(void)alloc_blocks;
	SLOB_CHECK(sp->active == free_units, "page %p: active %u, its free blocks hold %lu units",
		   (void *)base, sp->active, free_units);
	SLOB_CHECK((sp->private != 0) == (free_units != 0) && sp->private <= SLOB_NR_LISTS,
		   "page %p: %lu free units, list %lu", (void *)base, free_units, sp->private);
	for (; slob_in_page(h, sp) && h->units; h = slob_next(h)) {
		if (!slob_is_free(h))
			continue;
		SLOB_CHECK(f == h, "page %p: free block %p, its list has %p there", (void *)base,
			   (void *)h, (void *)f);
		f = fnext(base, f);
		n++;
	}
	SLOB_CHECK(!f && n == free_blocks, "page %p: the free list goes on past its blocks (%p)",
		   (void *)base, (void *)f);
	return sp->private ? 1 : 0;
}

/* slob_heap_check_unmark: see slob_def.h. Nothing is marked in this form. */
void slob_heap_check_unmark(void)
{
}

/* slob_heap_show: see slob_def.h. The three lists: pages, free bytes and blocks on each. */
void slob_heap_show(void)
{
	static const char *const names[SLOB_NR_LISTS] = { "small", "medium", "large" };
	unsigned long pages[SLOB_NR_LISTS] = { 0 }, units[SLOB_NR_LISTS] = { 0 };
	unsigned long blocks[SLOB_NR_LISTS] = { 0 }, full = 0, nr_pages, quarantined;
	unsigned long flags = slob_lock();
	bool spare = slob_heap.spare && slob_heap.spare->active == SLOB_PAGE_UNITS;

	for (unsigned int i = 0; i < SLOB_NR_LISTS; i++) {
		struct page *sp;

		list_for_each_entry(sp, &slob_heap.list[i], lru) {
			struct slob_hdr *base = page_address(sp);
			unsigned int n = 0;

			pages[i]++;
			units[i] += sp->active;
			for (struct slob_hdr *f = sp->freelist; f && n < SLOB_PAGE_UNITS;
			     f = fnext(base, f))
				n++;
			blocks[i] += n;
		}
		full += pages[i];
	}
	nr_pages = slob_heap.nr_pages;
	quarantined = slob_heap.quarantined;
	full = nr_pages - full;
	slob_unlock(flags);
	printk(SLOB_NAME ": %lu heap pages (%lu kB)%s, %lu full; pages with free space by "
	       "request size:\n", nr_pages, nr_pages * (PAGE_SIZE / 1024),
	       spare ? ", one kept empty" : "", full);
	if (quarantined)
		printk(SLOB_NAME ": %lu damaged pages quarantined (out of the heap, not reused)\n",
		       quarantined);
	printk(SLOB_NAME ": %-7s %11s %6s %10s %8s\n", "list", "block bytes", "pages",
	       "free bytes", "blocks");
	for (unsigned int i = 0; i < SLOB_NR_LISTS; i++)
		printk(SLOB_NAME ": %-7s %4u-%-6s %6lu %10lu %8lu\n", names[i],
		       i == 0 ? 8U : i == 1 ? SLOB_BREAK1 : SLOB_BREAK2,
		       i == 0 ? "255" : i == 1 ? "1023" : "", pages[i], units[i] * SLOB_UNIT,
		       blocks[i]);
}
