/*
 * slob_quarantine.c - what SLOB (both forms) does with a heap page found
 * damaged: a block whose size or tag disagrees with its neighbours, a free
 * list link that leads backwards or out of its page (sequential fit), a
 * class list link that does not lead back (slob-seg), a page that fails
 * kmem_cache_check. The damage is a caller's bug (an overrun into the next
 * block's header, a write after free into a free block's links, a wild
 * write); once it is seen, nothing in the page can be walked or handed out
 * safely, and whoever broke it may still hold a pointer into it.
 *
 * So the page is quarantined, under the heap lock, once: it leaves every
 * list the form allocates from or walks (sequential fit: its page list;
 * slob-seg: the class lists, rebuilt from the other pages' blocks), stops
 * being the spare, leaves nr_pages for slob_heap.quarantined, and is marked
 * by page->slab_cache = &slob_quarantine_mark. Every path that takes a heap page
 * for one whose slab_cache is NULL then passes it by: the free fast paths
 * send its objects to slob_free_slow, the heap walks (kmem_cache_check,
 * slob_next_heap_page) skip it, and no link into it passes the link checks.
 * One line reports it: the cache, call and address that found the damage,
 * what was broken, the page, its live objects; it is counted in
 * slab_corruptions (and the cache's corruptions when one is named).
 *
 * Its live objects stay their owners': a walk of the page's blocks marks
 * each allocated block SLOB_QUARANTINED and counts it in its cache's
 * 'quarantined' (a header whose boundary tags disagree is stepped over by
 * looking for the next one whose tag holds and whose left neighbour starts
 * at or after it, passing stale headers left in free blocks' bodies). Such an object can still be freed and ksize'd: a free
 * takes it out of its cache's counts and makes its header SLOB_DEAD (a
 * second free is reported), and nothing is written into the page but that
 * header. The block whose own header was overwritten is kept as well when
 * its cache is known (its header's id, the cache kmem_cache_free was
 * given, or in CONFIG_SLAB_DEBUG builds the cache its red zone names): the
 * caller mends its tag and id before the quarantine.
 *
 * The page's memory is never given back: leaked on purpose, one page per
 * incident, reported and counted (slob_heap.quarantined, in "Slab:"). A
 * page handed to the buddy allocator would go to someone else while the
 * buggy writer may still write into it.
 */
#include "mm/slob/slob_def.h"
#include "kernel/printk.h"

/* The mark of a quarantined page: its page->slab_cache. No object is ever of this cache. */
struct kmem_cache slob_quarantine_mark = { .name = "(quarantined)" };

/* The cache of an allocated header's id (not yet marked), or NULL. */
static struct kmem_cache *live_owner(const struct slob_hdr *h)
{
	return h->info - 1U < SLOB_MAX_CACHES - 1 ? slob_cache_of[h->info] : NULL;
}

/*
 * Does the header after h (by h's size) contradict h: a header whose tag
 * holds but whose boundary tag does not give h's size? A stale header, left
 * in a free block's body by an earlier layout of the page (a merge, or the
 * page's earlier life), is contradicted by the block that really follows it;
 * a header at the page's end or with a broken tag says nothing.
 */
static bool contradicted(const struct slob_hdr *h)
{
	const struct slob_hdr *next = slob_next(h);

	return !slob_page_end(next) && next->tag == slob_tag(next) && next->prev != h->units;
}

/*
 * After the block at 'from' whose size cannot be trusted: the first header
 * whose tag holds, not SLOB_DEAD (a header swallowed by a merge never starts
 * a block), with a size inside the page and a left neighbour that starts at
 * or after 'from' (its boundary tag points back into the broken block, or to
 * it), and that the header after it does not contradict; failing that, the
 * first such header even if contradicted; NULL when none is left in the page.
 * Stale headers lie in the broken block's body when it is a free one: taken
 * for a block start, one would hide the live block after it from the walk.
 */
static struct slob_hdr *resync(const struct page *page, struct slob_hdr *from)
{
	struct slob_hdr *first = NULL;

	for (struct slob_hdr *h = from + 1; slob_in_page(h, page); h++) {
		if (h->tag != slob_tag(h) || !h->units || h->info == SLOB_DEAD ||
		    slob_off(h) + h->units > SLOB_PAGE_UNITS || !h->prev ||
		    h->prev > (unsigned int)(h - from))
			continue;
		if (!contradicted(h))
			return h;
		if (!first)
			first = h;
	}
	return first;
}

/*
 * Mark the page's allocated blocks SLOB_QUARANTINED, each counted in its
 * cache's 'quarantined'; returns how many. A block is taken at a place the
 * walk trusts (the page's first, one whose boundary tag agrees with the
 * block before, or one resync found): there a live id with a broken tag is
 * still its cache's object, and the tag is mended.
 */
static unsigned int mark_live(const struct page *page)
{
	struct slob_hdr *h = slob_page_first(page), *next;
	unsigned int n = 0;

	while (h) {
		struct kmem_cache *owner = live_owner(h);
		bool fits = h->units && slob_off(h) + h->units <= SLOB_PAGE_UNITS;

		if (owner) {
			h->tag = slob_tag(h);
			h->info = (uint16_t)(h->info | SLOB_QUARANTINED);
			owner->quarantined++;
			n++;
		}
		next = fits ? slob_next(h) : NULL;
		if (next && slob_page_end(next))
			break;
		h = next && next->prev == h->units ? next : resync(page, h);
	}
	return n;
}

/*
 * slob_quarantine - take the damaged heap page 'page' out of use for good
 * (see above). Heap lock held, interrupts off. c, fn, p: the cache (NULL:
 * none in particular), call and address that found the damage, and 'what'
 * it is, for the one report line. keep: a block of the page whose
 * overwritten header the caller has mended (tag and its cache's id) to keep
 * it as a live object, or NULL. A page quarantined already is left as it
 * is (nothing reported). Nothing is freed; the page's memory is leaked.
 */
void slob_quarantine(struct page *page, struct kmem_cache *c, const char *fn, const void *p,
		     const char *what, struct slob_hdr *keep)
{
	unsigned int live;
	char buf[256];

	ASSERT(slob_heap.locked && (page->flags & PG_slab));
	assert_irqs_disabled();
	if (slob_page_quarantined(page))
		return;
	ASSERT(!page->slab_cache);
	page->slab_cache = &slob_quarantine_mark;	/* first: the form's list rebuild skips it */
	slob_heap_unlist(page);
	if (slob_heap.spare == page)
		slob_heap.spare = NULL;
	slob_heap.nr_pages--;
	slob_heap.quarantined++;
	this_cpu_inc(slob_events);
	live = mark_live(page);
	if (keep && live_owner(keep)) {
		live_owner(keep)->quarantined++;
		keep->info = (uint16_t)(keep->info | SLOB_QUARANTINED);
		live++;
	}
	snprintf(buf, sizeof(buf), "%s; page %p quarantined: out of the heap for good, its "
		 "memory not reused (%u live objects in it can still be freed)", what,
		 page_address(page), live);
	slab_corrupt(c, fn, p, buf);
}

/*
 * slob_quarantined_owner - p, a pointer into a quarantined page: the cache
 * of the live object there (marked SLOB_QUARANTINED), or NULL with *what
 * saying why not. Heap lock held.
 */
struct kmem_cache *slob_quarantined_owner(const void *p, const char **what)
{
	const struct slob_hdr *b = (const struct slob_hdr *)p - 1;
	uintptr_t off = (uintptr_t)p & (PAGE_SIZE - 1);
	struct kmem_cache *owner = NULL;

	if ((off & (SLOB_UNIT - 1)) || !off || b->tag != slob_tag(b))
		*what = "not at an object boundary (in a quarantined page: its header is broken, "
			"or no block starts there)";
	else if (b->info == SLOB_DEAD)
		*what = "double free (in a quarantined page)";
	else if (slob_is_free(b))
		*what = "double free (a free block of a quarantined page)";
	else if (!(b->info & SLOB_QUARANTINED) || !(owner = slob_cache_of[b->info & SLOB_ID_MASK]))
		*what = "not at an object boundary (in a quarantined page)";
	return owner;
}

/*
 * slob_quarantined_free - free owner's live object p of a quarantined page
 * (slob_quarantined_owner said so, under this hold of the heap lock): it
 * leaves its cache's counts, its header becomes SLOB_DEAD, its memory stays
 * out of use.
 */
void slob_quarantined_free(struct kmem_cache *owner, const void *p)
{
	struct slob_hdr *b = (struct slob_hdr *)p - 1;

	ASSERT(owner->inuse && owner->quarantined);
	owner->inuse--;
	owner->quarantined--;
	b->info = SLOB_DEAD;
}
