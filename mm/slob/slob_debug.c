/*
 * slob_debug.c - catching misuse in SLOB (both forms): checking freed
 * pointers, the reports, red zones and poisoning.
 *
 * Pointers: slab_find_head() takes any pointer a free (or ksize) was given.
 * Outside RAM, on a page that is not PG_slab, inside a big object or not at
 * its start: refused, as SLAB and SLUB say it. On a heap page: the header
 * before it must carry its address's tag and a live cache id, and agree
 * with both neighbours (mm/slob/slob_def.h); a free header there is a double
 * free (free headers are always where a block starts). Anything else, a
 * dead (swallowed) header included, is placed by walking the page's blocks
 * from its first, under the heap lock: inside an allocated block is "not
 * at an object boundary" (naming that block's cache), inside a free block a
 * double free whose header a merge swallowed. Every refusal is printed (cache,
 * call, address, fault), counted in slab_bad_frees and changes nothing.
 * Damage is not a refusal: a live header whose size disagrees with its
 * neighbours, an overwritten header (the page's walk reaches p's header and
 * finds it broken), or a walk broken before p quarantines the page
 * (mm/slob/slob_quarantine.c); p, kept as a live object of the quarantined page
 * when its cache is known (its header's id, the cache the caller named, or
 * in CONFIG_SLAB_DEBUG builds the cache whose active red zone its block
 * shows: the header is mended), is then freed or sized as one. Pointers into a
 * quarantined page are checked against its marked headers only.
 *
 * Debug caches (SLAB_RED_ZONE / SLAB_POISON, every cache with
 * CONFIG_SLAB_DEBUG): an 8-byte red zone after the object is 0xcc while
 * it is allocated and checked by the free (overrun: reported with its
 * offset, the free goes on); before the object the header itself guards:
 * a red-zone cache whose header has only its tag broken (the two bytes
 * under the object) is reported as an underrun, repaired and freed. With
 * SLAB_POISON a freed block's body is 0x6b, and a free block keeps
 * SLOB_POISONED while every block merged into it was poisoned too (the
 * swallowed headers and links are poisoned over); an allocation of a
 * debug cache from such a block checks that the poison is intact (write
 * after free) and hands out 0x5a. With CONFIG_SLAB_DEBUG new heap pages
 * start poisoned. Linux's 0xa5 end byte is not used: a block's end moves
 * as it merges. Reports name the cache, call, address and offset.
 *
 * Locking: the walks and repairs run under the heap lock (taken here, or
 * held by the caller for slob_debug_free); printk is the innermost lock.
 */
#include "mm/slob/slob_def.h"
#include "kernel/printk.h"
#include "kernel/string.h"

/*
 * slob_find_block - the block of page whose extent holds p, walking from
 * the page's first block, or NULL when the walk meets a broken header
 * before it (*broken: that header; else NULL). Heap lock held.
 */
struct slob_hdr *slob_find_block(const struct page *page, const void *p, struct slob_hdr **broken)
{
	struct slob_hdr *h = slob_page_first(page);

	*broken = NULL;
	for (unsigned int n = 0; n < SLOB_PAGE_UNITS && slob_in_page(h, page); n++) {
		struct slob_hdr *next = slob_next(h);

		if ((uintptr_t)p < (uintptr_t)next && h->units)
			return h;
		if (h->tag != slob_tag(h) || !h->units ||
		    slob_off(h) + h->units > SLOB_PAGE_UNITS) {
			*broken = h;
			return NULL;
		}
		h = next;
	}
	return NULL;
}

/* The cache of an allocated header, or NULL. */
static struct kmem_cache *owner_of(const struct slob_hdr *h)
{
	return h->info - 1U < SLOB_MAX_CACHES - 1 ? slob_cache_of[h->info] : NULL;
}

/* b (a header with a live id) agrees with its neighbours and its page. */
static bool tags_agree(const struct slob_hdr *b)
{
	unsigned int off = slob_off(b);
	const struct slob_hdr *r = slob_next(b);

	return b->units >= SLOB_MIN_UNITS && off + b->units <= SLOB_PAGE_UNITS &&
	       (slob_page_end(r) || r->prev == b->units) && b->prev <= off &&
	       (b->prev ? slob_prev(b)->units == b->prev : off == 0);
}

/*
 * A red-zone cache's header with only its tag broken (the two bytes right
 * under the object): an underrun. Report it with the first broken byte's
 * offset and mend the tag. Heap lock held.
 */
static bool underrun_mended(struct slob_hdr *b, const char *fn, const void *p)
{
	struct kmem_cache *owner = owner_of(b);
	uint16_t want = slob_tag(b);

	if (!owner || !(owner->flags & SLAB_RED_ZONE) || !tags_agree(b))
		return false;
	slab_report_red(owner, fn, p, true, (b->tag & 0xff) != (want & 0xff) ? -2 : -1);
	b->tag = want;
	return true;
}

/*
 * The units of block b whose header is overwritten, from the first header
 * after it whose tag holds and whose boundary tag leads back to b (the
 * page's end: the rest of the page); 0 when none does.
 */
static unsigned int units_by_next(const struct page *page, const struct slob_hdr *b)
{
	for (const struct slob_hdr *h = b + 1; slob_in_page(h, page); h++)
		if (h->tag == slob_tag(h) && h->prev == (unsigned int)(h - b))
			return h->prev;
	return SLOB_PAGE_UNITS - slob_off(b);
}

/* A red-zone cache whose object p, in a block of 'units', would show its active red zone. */
static bool red_zone_fits(const struct kmem_cache *c, const unsigned char *p, unsigned int units)
{
	long at;

	return c && !c->big && (c->flags & SLAB_RED_ZONE) && c->units <= units &&
	       !((uintptr_t)p & (c->align - 1)) &&
	       !slab_red_broken(p + c->object_size, SLOB_UNIT, RED_ACTIVE_BYTE, c->object_size, &at);
}

/*
 * CONFIG_SLAB_DEBUG builds, a kfree of p whose header b is overwritten
 * whole (no id left, no cache named): the cache whose active red zone is
 * where p's block shows one. A kmalloc class first (kfree's own objects;
 * the largest that fits), else the one cache that fits. NULL when none, or
 * several, do. Heap lock held.
 */
static struct kmem_cache *owner_by_red_zone(const struct page *page, const struct slob_hdr *b)
{
	const unsigned char *p = (const unsigned char *)(b + 1);
	unsigned int units = units_by_next(page, b);
	struct kmem_cache *found = NULL;

	for (unsigned int i = KMALLOC_SHIFT_HIGH; i > 0; i--)
		if (red_zone_fits(kmalloc_caches[i], p, units))
			return kmalloc_caches[i];
	for (unsigned int id = 1; id < SLOB_MAX_CACHES; id++) {
		if (!red_zone_fits(slob_cache_of[id], p, units))
			continue;
		if (found)
			return NULL;
		found = slob_cache_of[id];
	}
	return found;
}

/*
 * Heap lock held: p's header b was overwritten (the walk of the page leads
 * to b, whose tag is broken), or a header before it broke the walk: the
 * page is quarantined. b is kept as a live object when the walk reached it
 * and its cache is known (its id, else the cache the caller named, else in
 * CONFIG_SLAB_DEBUG builds the cache its red zone names), its tag and id
 * mended. Returns the cache of the object p now (NULL: none; *what
 * says why).
 */
static struct kmem_cache *overwritten(struct kmem_cache *c, struct page *page, const void *p,
				      const char *fn, bool reached, const char **what)
{
	struct slob_hdr *b = (struct slob_hdr *)p - 1, *keep = NULL;
	struct kmem_cache *owner = reached ? owner_of(b) : NULL;

	if (CONFIG_SLAB_DEBUG && reached && !owner && !c)
		owner = owner_by_red_zone(page, b);
	if (reached && (owner || c)) {
		keep = b;
		b->info = (owner ? owner : c)->id;
		b->tag = slob_tag(b);
	}
	slob_quarantine(page, owner ? owner : c, fn, p, reached ? "header overwritten (buffer "
			"underrun, or a wild write)" : "heap corrupt: the page's blocks do not lead "
			"to it (a header before it is overwritten)", keep);
	return slob_quarantined_owner(p, what);
}

/*
 * The heap part of slab_find_head: p on heap page 'page' (or a page
 * quarantined meanwhile). Returns true for a live block (of c, if c is
 * given), else reports and returns false. Damage to the page's blocks seen
 * on the way quarantines it (mm/slob/slob_quarantine.c): then a live object p
 * (its cache known) is still one, to be freed or sized as such.
 */
static bool heap_block_ok(struct kmem_cache *c, struct page *page, const void *p, const char *fn)
{
	uintptr_t off = (uintptr_t)p & (PAGE_SIZE - 1);
	struct slob_hdr *b = (struct slob_hdr *)p - 1, *h, *broken;
	struct kmem_cache *owner = NULL;
	const char *what = NULL;
	unsigned long flags;
	char buf[96];

	flags = slob_lock();
	if (!(page->flags & PG_slab) || (page->slab_cache && !slob_page_quarantined(page))) {
		what = "not a slab object (its page left the heap meanwhile)";
	} else if (slob_page_quarantined(page)) {
		owner = slob_quarantined_owner(p, &what);
	} else if (!(off & 7) && off && b->tag == slob_tag(b) && (slob_is_free(b) || owner_of(b))) {
		if (slob_is_free(b)) {
			what = "double free (the block is free)";
		} else if (!tags_agree(b)) {
			owner = owner_of(b);
			slob_quarantine(page, owner, fn, p, "heap corrupt: the block's size "
					"disagrees with its neighbours", b);
			owner = slob_quarantined_owner(p, &what);
		} else {
			owner = owner_of(b);
		}
	} else if (!(h = slob_find_block(page, p, &broken))) {
		owner = overwritten(c, page, p, fn, broken == b, &what);
	} else if (slob_is_free(h)) {
		what = "double free (inside a free block)";
	} else if (h == b && b->tag == slob_tag(b)) {	/* a page header, a swallowed one */
		what = "not at an object boundary (no cache has its header's id)";
	} else if (h == b && underrun_mended(b, fn, p)) {
		owner = owner_of(b);
	} else if (h == b) {
		owner = overwritten(c, page, p, fn, true, &what);
	} else {
		owner = owner_of(h);
		what = slab_boundary_what(buf, sizeof(buf), p, h + 1,
					  owner ? owner->object_size : 0);
	}
	slob_unlock(flags);
	if (what) {
		slab_bad_free(owner ? owner : c, fn, p, what);
		return false;
	}
	if (c && c != owner) {
		slab_wrong_cache(c, fn, p, owner);
		return false;
	}
	return true;
}

/*
 * slab_find_head - check p as a free (or ksize) of an object of c (NULL:
 * any cache) would: returns its page (a heap page, or a big object's head
 * page), or reports why it is not one of c's live objects, counts it in
 * slab_bad_frees and returns NULL. No lock held.
 */
struct page *slab_find_head(struct kmem_cache *c, const void *p, const char *fn)
{
	struct kmem_cache *owner;
	struct page *page = slab_check_page(c, p, fn);

	if (!page)
		return NULL;
	owner = page->slab_cache;
	if (!owner || owner == &slob_quarantine_mark)
		return heap_block_ok(c, page, p, fn) ? page : NULL;
	if (p != page_address(page) || !(page->flags & PG_head)) {
		slab_bad_free(owner, fn, p, "not at an object boundary");
		return NULL;
	}
	if (c && c != owner) {
		slab_wrong_cache(c, fn, p, owner);
		return NULL;
	}
	return page;
}

/*
 * slob_debug_alloc - a debug cache's new object p: if its block was cut
 * from poisoned memory, the poison must be intact past the first 'skip'
 * bytes (the free block's links), else a write after free is reported;
 * then the object is 0x5a (SLAB_POISON) and its red zone active.
 */
void slob_debug_alloc(struct kmem_cache *c, void *p, bool poisoned, unsigned int skip)
{
	char *x = p;

	if (poisoned && skip < c->size) {
		long at = slab_poison_broken(x + skip, c->size - skip);

		if (at >= 0)
			slab_report_poison(c, p, at + (long)skip);
	}
	if (c->flags & SLAB_POISON)
		memset(x, POISON_INUSE, c->object_size);
	if (c->flags & SLAB_RED_ZONE)
		memset(x + c->object_size, RED_ACTIVE_BYTE, SLOB_UNIT);
}

/*
 * slob_debug_free - a debug cache's object p on its way back (heap lock
 * held, the block checked live): its red zone must be intact (an overrun
 * is reported with its offset; the free goes on), then with SLAB_POISON
 * the block's whole body is poisoned.
 */
void slob_debug_free(struct kmem_cache *c, void *p, const char *fn)
{
	struct slob_hdr *b = (struct slob_hdr *)p - 1;
	unsigned char *x = p;
	long at;

	if ((c->flags & SLAB_RED_ZONE) &&
	    slab_red_broken(x + c->object_size, SLOB_UNIT, RED_ACTIVE_BYTE, c->object_size, &at))
		slab_report_red(c, fn, p, false, at);
	if (c->flags & SLAB_POISON)
		slob_poison(x, slob_next(b));
}
