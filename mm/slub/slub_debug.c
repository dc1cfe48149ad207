/*
 * slub_debug.c - catching misuse in SLUB: checking freed pointers, red
 * zones, poisoning, freelist corruption, the locked debug paths, reports.
 *
 * Every slow free first goes through slab_find_head(): the pointer must be
 * in RAM, on a PG_slab page whose head names a cache (the expected one for
 * kmem_cache_free; a min-order slab's pages name the cache's twin) and on
 * an object boundary of that slab, by the slab's own geometry (slub_geom).
 * Anything else is reported, counted in slab_bad_frees and refused. This
 * runs in every build (the fast path only frees objects on a boundary of
 * the CPU slab).
 *
 * Debug caches (SLAB_RED_ZONE / SLAB_POISON, all caches with
 * CONFIG_SLAB_DEBUG) lay objects out as mm/slub/slub_cache.c says. Red zones
 * are 0xbb.. while the object is free and 0xcc.. while a caller holds it;
 * a free poisoned object is 0x6b ending in 0xa5, an allocated one starts
 * as 0x5a. Such caches have no CPU slab: slub_debug_alloc and
 * slub_debug_free work on the node's slabs under the node lock, and check
 * every free pointer they follow: it must be the slab's tagged end or an
 * object boundary inside the slab, else the freelist is corrupt. A corrupt
 * chain is cut there (its objects are lost; the slab counts as full),
 * which keeps the cache consistent. A free walks its slab's freelist for
 * the object (a double free), after the red zone and poison checks.
 *
 * Reports name cache, call, object and fault on one line, with the offset
 * in the object where it applies ("slub: kmalloc-64: kfree(0x...): red
 * zone after the object overwritten at offset 64 (buffer overrun)").
 *
 * Locking: the checks of an object run with no lock, while the caller or
 * the allocator owns it; the freelist walks under the node lock; printk is
 * a leaf lock. Departure from Linux: the allocator carries on after a
 * report instead of stopping the machine, and a cut freelist leaks.
 */
#include "mm/slub/slub_def.h"
#include "kernel/printk.h"
#include "kernel/string.h"

#define RED_INACTIVE	0xbbbbbbbbbbbbbbbbULL
#define RED_ACTIVE	0xccccccccccccccccULL
#define POISON_FREE	0x6b
#define POISON_END	0xa5
#define POISON_INUSE	0x5a

unsigned long slab_bad_frees;
unsigned long slab_corruptions;

/* slab_print_error - one report line naming the cache (if known), call, address, fault. */
void slab_print_error(const struct kmem_cache *s, const char *fn, const void *objp,
		      const char *what)
{
	if (s)
		printk("slub: %s: %s(%p): %s\n", s->name, fn, objp, what);
	else
		printk("slub: %s(%p): %s\n", fn, objp, what);
}

/* slab_bad_free - report a refused free and count it. */
void slab_bad_free(struct kmem_cache *s, const char *fn, const void *objp, const char *what)
{
	slab_print_error(s, fn, objp, what);
	__atomic_fetch_add(&slab_bad_frees, 1, __ATOMIC_RELAXED);
	if (s)
		stat(s, bad_frees, 1);
}

static void corrupt(struct kmem_cache *s, const char *fn, const void *objp, const char *what)
{
	slab_print_error(s, fn, objp, what);
	__atomic_fetch_add(&slab_corruptions, 1, __ATOMIC_RELAXED);
	stat(s, corruptions, 1);
}

static const char *page_kind(const struct page *page)
{
	if (page->flags & PG_reserved)
		return "not a slab object or large allocation (reserved page)";
	if (page->flags & PG_buddy)
		return "not a slab object or large allocation (free page)";
	if (page->flags & PG_large)
		return "not the start of a large allocation";
	return "not a slab object or large allocation";
}

/* slab_find_head: see slub_def.h and above. */
struct page *slab_find_head(struct kmem_cache *s, const void *objp, const char *fn)
{
	struct kmem_cache *owner, *g;
	struct page *page, *head;
	uintptr_t off;

	if (!virt_addr_valid(objp)) {
		slab_bad_free(s, fn, objp, "not a slab object or large allocation (outside RAM)");
		return NULL;
	}
	page = virt_to_page(objp);
	if (!(page->flags & PG_slab)) {
		slab_bad_free(s, fn, objp, page_kind(page));
		return NULL;
	}
	head = (struct page *)page->private;
	g = page->slab_cache;
	if (head < mem_map || head >= mem_map + mem_map_entries() || !(head->flags & PG_slab) ||
	    !g || head->slab_cache != g) {
		slab_bad_free(s, fn, objp, "slab page without a cache (struct page corrupt)");
		return NULL;
	}
	owner = slub_owner(g);
	if (s && owner != s) {
		char what[64];

		snprintf(what, sizeof(what), "object of cache %s", owner->name);
		slab_bad_free(s, fn, objp, what);
		return NULL;
	}
	off = (uintptr_t)objp - (uintptr_t)page_address(head) - g->obj_offset;
	if (off >= (uintptr_t)g->num * g->size || off % g->size) {
		char what[96];

		if (off >= (uintptr_t)g->num * g->size)
			snprintf(what, sizeof(what),
				 "not at an object boundary (outside the slab's objects)");
		else
			snprintf(what, sizeof(what),
				 "not at an object boundary (%lu bytes into the %u-byte "
				 "object at %p)",
				 (unsigned long)(off % g->size), g->object_size,
				 (const char *)objp - off % g->size);
		slab_bad_free(owner, fn, objp, what);
		return NULL;
	}
	return head;
}

/*
 * slub_fp_valid - fp may follow an object of page's slab (page: its head)
 * on a freelist: the slab's tagged end, or an object boundary inside the
 * slab (by its own geometry: a min-order slab holds fewer objects).
 */
bool slub_fp_valid(const struct kmem_cache *s, const struct page *page, const void *fp)
{
	uintptr_t base = (uintptr_t)page_address(page), off = (uintptr_t)fp - base - s->obj_offset;

	if (fp == (void *)(base | SLUB_END_TAG))
		return true;
	return off < (uintptr_t)slub_geom(page)->num * s->size && off % s->size == 0;
}

static inline uint64_t *red_zone1(void *x)
{
	return (uint64_t *)((char *)x - 8);
}

static inline uint64_t *red_zone2(const struct kmem_cache *s, void *x)
{
	return (uint64_t *)((char *)x + s->object_size);
}

static void poison_obj(const struct kmem_cache *s, void *x)
{
	memset(x, POISON_FREE, s->object_size - 1);
	((unsigned char *)x)[s->object_size - 1] = POISON_END;
}

/* Offset of the first byte that breaks the poison, or -1 if it is intact. */
static long poison_broken_at(const struct kmem_cache *s, const void *x)
{
	const unsigned char *p = x;
	unsigned int last = s->object_size - 1;

	for (unsigned int i = 0; i < last; i++)
		if (p[i] != POISON_FREE)
			return i;
	return p[last] == POISON_END ? -1 : (long)last;
}

/*
 * A red zone word that is not 'want': true, with *at the offset (from the
 * caller's pointer, negative before the object) of its first broken byte.
 */
static bool red_broken(const uint64_t *zone, uint64_t want, long zone_off, long *at)
{
	const unsigned char *p = (const unsigned char *)zone;

	for (int i = 0; i < 8; i++) {
		if (p[i] != (unsigned char)want) {
			*at = zone_off + i;
			return true;
		}
	}
	return false;
}

/* slub_debug_init_obj - an object of a new debug slab: red zones free, poisoned. */
void slub_debug_init_obj(struct kmem_cache *s, void *x)
{
	if (s->flags & SLAB_RED_ZONE) {
		*red_zone1(x) = RED_INACTIVE;
		*red_zone2(s, x) = RED_INACTIVE;
	}
	if (s->flags & SLAB_POISON)
		poison_obj(s, x);
}

/* Checks of an object leaving the cache (report and repair), then mark it allocated. */
static void debug_alloc_checks(struct kmem_cache *s, void *x)
{
	char what[96];

	if (s->flags & SLAB_RED_ZONE) {
		long at;

		if (red_broken(red_zone1(x), RED_INACTIVE, -8, &at) ||
		    red_broken(red_zone2(s, x), RED_INACTIVE, s->object_size, &at)) {
			snprintf(what, sizeof(what),
				 "red zone of a free object overwritten at offset %ld", at);
			corrupt(s, "alloc", x, what);
		}
		*red_zone1(x) = RED_ACTIVE;
		*red_zone2(s, x) = RED_ACTIVE;
	}
	if (s->flags & SLAB_POISON) {
		long at = poison_broken_at(s, x);

		if (at >= 0) {
			snprintf(what, sizeof(what),
				 "write after free: poison broken at offset %ld", at);
			corrupt(s, "alloc", x, what);
		}
		memset(x, POISON_INUSE, s->object_size);
		if (s->ctor)
			s->ctor(x);
	} else if (s->flags & SLUB_CTOR_AT_ALLOC) {
		s->ctor(x);	/* the free pointer was written over its state */
	}
}

/*
 * Checks of an object coming back through 'fn'. False (reported) for a
 * double free the guards show; else overruns are reported and repaired,
 * and the object is marked free and poisoned.
 */
static bool debug_free_checks(struct kmem_cache *s, void *x, const char *fn)
{
	char what[96];

	if (s->flags & SLAB_RED_ZONE) {
		uint64_t r1 = *red_zone1(x), r2 = *red_zone2(s, x);
		long at;

		if (r1 == RED_INACTIVE && r2 == RED_INACTIVE) {
			slab_bad_free(s, fn, x, "double free");
			return false;
		}
		if (red_broken(red_zone1(x), RED_ACTIVE, -8, &at)) {
			snprintf(what, sizeof(what),
				 "red zone before the object overwritten at offset %ld", at);
			corrupt(s, fn, x, what);
		}
		if (red_broken(red_zone2(s, x), RED_ACTIVE, s->object_size, &at)) {
			snprintf(
			    what, sizeof(what),
			    "red zone after the object overwritten at offset %ld (buffer overrun)",
			    at);
			corrupt(s, fn, x, what);
		}
		*red_zone1(x) = RED_INACTIVE;
		*red_zone2(s, x) = RED_INACTIVE;
	} else if ((s->flags & SLAB_POISON) && poison_broken_at(s, x) < 0) {
		slab_bad_free(s, fn, x, "double free (object still poisoned)");
		return false;
	}
	if (s->flags & SLAB_POISON)
		poison_obj(s, x);
	return true;
}

/* Report a bad free pointer fp found in object x of page's slab. */
static void freelist_corrupt(struct kmem_cache *s, const char *fn, const struct page *page,
			     const void *x, const void *fp)
{
	uintptr_t base = (uintptr_t)page_address(page);
	char what[128];

	snprintf(what, sizeof(what), "freelist corrupt: free pointer %p at offset %u %s", fp,
		 s->offset, (uintptr_t)fp - base < ((uintptr_t)PAGE_SIZE << slub_geom(page)->order)
				    ? "not on an object boundary" : "outside its slab");
	corrupt(s, fn, x, what);
}

/* Make a slab with a corrupt freelist full: what its chain held is lost. Node lock held. */
static void cut_freelist(struct kmem_cache *s, struct page *page)
{
	unsigned int num = slub_geom(page)->num;

	WRITE_ONCE(page->slub_freelist, (void *)((uintptr_t)page_address(page) | SLUB_END_TAG));
	WRITE_ONCE(page->counters, slub_counters(num, num, false));
	slub_node_unlist(s, page);
}

/*
 * slub_debug_alloc - allocation for a debug cache: the first object of
 * the first partial slab (a new slab when there is none: a min-order one
 * when no block of the cache's order is free), taken under the node lock
 * with its free pointer checked, then checked and marked.
 */
void *slub_debug_alloc(struct kmem_cache *s)
{
	struct kmem_cache_node *n = &s->node;
	struct page *page;
	unsigned long flags;
	void *x, *next;

	flags = spin_lock_irqsave(&n->list_lock);
	for (;;) {
		if (list_empty(&n->partial)) {
			spin_unlock_irqrestore(&n->list_lock, flags);
			page = slub_new_slab(s, 0);
			if (!page)
				page = slub_new_min_slab(s);
			if (!page)
				return NULL;
			flags = spin_lock_irqsave(&n->list_lock);
			list_add(&page->lru, &n->partial);
			n->nr_partial++;
		}
		page = list_first_entry(&n->partial, struct page, lru);
		x = page->slub_freelist;
		if (unlikely(slub_is_end(x) || !slub_fp_valid(s, page, x))) {
			freelist_corrupt(s, "alloc", page, page_address(page), x);
			cut_freelist(s, page);
			continue;
		}
		next = slub_get_fp(s, x);
		if (unlikely(!slub_fp_valid(s, page, next))) {
			freelist_corrupt(s, "alloc", page, x, next);
			cut_freelist(s, page);
			break;
		}
		WRITE_ONCE(page->slub_freelist, next);
		WRITE_ONCE(page->counters, page->counters + 1);
		if (slub_is_end(next))
			slub_node_unlist(s, page);
		break;
	}
	n->ready_front = 0;	/* a listed slab lost a free object (slub_node_spare) */
	n->alloc_touched = 1;
	spin_unlock_irqrestore(&n->list_lock, flags);
	slub_fw_clear(s, x, false);	/* handed out: see slub_def.h */
	debug_alloc_checks(s, x);
	return x;
}

/*
 * slub_debug_free - free for a debug cache, x already checked by
 * slab_find_head: guard and poison checks, then under the node lock a
 * walk of the slab's freelist for x, the push, and the slab's list.
 */
void slub_debug_free(struct kmem_cache *s, struct page *page, void *x, const char *fn)
{
	struct kmem_cache_node *n = &s->node;
	unsigned long flags, counters;
	unsigned int k = 0;
	void *o, *prior;

	stat(s, free_slow, 1);
	if (!debug_free_checks(s, x, fn))
		return;
	flags = spin_lock_irqsave(&n->list_lock);
	prior = page->slub_freelist;
	counters = page->counters;
	for (o = prior; !slub_is_end(o); o = slub_get_fp(s, o)) {
		void *fp = slub_get_fp(s, o);

		if (o == x) {
			spin_unlock_irqrestore(&n->list_lock, flags);
			slab_bad_free(s, fn, x, "double free (already on its slab's freelist)");
			return;
		}
		if (!slub_fp_valid(s, page, fp) || ++k > s->num) {
			freelist_corrupt(s, fn, page, o, fp);
			if (!slub_is_end(prior))
				cut_freelist(s, page);
			prior = page->slub_freelist;
			counters = page->counters;
			break;
		}
	}
	if (slub_inuse(counters) == 0) {
		spin_unlock_irqrestore(&n->list_lock, flags);
		slab_bad_free(s, fn, x, "double free (its slab has no object in use)");
		return;
	}
	slub_set_fp(s, x, prior);
	WRITE_ONCE(page->slub_freelist, x);
	WRITE_ONCE(page->counters, counters - 1);
	if (slub_is_end(prior)) {
		list_add_tail(&page->lru, &n->partial);
		n->nr_partial++;
	}
	if (slub_inuse(counters - 1) == 0 && n->nr_partial >= s->min_partial) {
		slub_node_unlist(s, page);
		spin_unlock_irqrestore(&n->list_lock, flags);
		slub_discard_slab(s, page);
		return;
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
}

/*
 * slub_debug_verify_free - for kmem_cache_check: a free object of a debug
 * cache has free red zones and intact poison. Returns 0 or -1 (printed).
 */
int slub_debug_verify_free(struct kmem_cache *s, void *x)
{
	if ((s->flags & SLAB_RED_ZONE) &&
	    (*red_zone1(x) != RED_INACTIVE || *red_zone2(s, x) != RED_INACTIVE)) {
		slab_print_error(s, "check", x, "free object's red zone not 0xbb");
		return -1;
	}
	if ((s->flags & SLAB_POISON) && poison_broken_at(s, x) >= 0) {
		slab_print_error(s, "check", x, "free object's poison broken");
		return -1;
	}
	return 0;
}
