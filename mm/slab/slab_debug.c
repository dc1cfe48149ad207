/*
 * slab_debug.c - catching misuse: checking the pointers given to the free
 * functions, red zones, poisoning, and the reports.
 *
 * Every free first goes through slab_find_head(): the pointer must be in
 * RAM, on a PG_slab page whose head names a cache (the expected one for
 * kmem_cache_free), and exactly on an object boundary of that slab.
 * Anything else is reported, counted in slab_bad_frees and refused; no
 * allocator state is touched. This runs in every build.
 *
 * Debug caches (SLAB_RED_ZONE / SLAB_POISON, or all caches with
 * CONFIG_SLAB_DEBUG) lay each object out as
 *	[pad][red zone 1: 8 bytes][object_size bytes][red zone 2: 8 bytes][pad]
 * A red zone word is 0xbb.. while the object is free (in a CPU array or on
 * its slab) and 0xcc.. while a caller holds it. A poisoned free object is
 * 0x6b with a last byte of 0xa5; an allocated one starts as 0x5a.
 * Free: both red zones 0xbb means a double free (refused); anything but
 * 0xcc means an overrun (reported, repaired, and the free goes on). With
 * poisoning only, an object still wholly poisoned is taken for a double free.
 * Allocation: red zones must be 0xbb and the poison intact, else a write
 * after free or an overrun of a free object is reported and repaired; both
 * zones 0xcc means the freelist handed out an allocated object. Before a
 * debug slab hands out freelist[active], slab_debug_check_freelist checks
 * that the index names a free object and, if not, rebuilds the slab's free
 * stack from the red zones. Reports name the offset of the damage from the
 * caller's pointer (negative: before the object).
 *
 * These checks run on the freeing or allocating CPU with interrupts off,
 * before the object enters or after it leaves the CPU's array; the object is
 * owned by that CPU (or by its caller) then, so no lock is needed. Reports
 * go out through printk, a leaf lock, and may be made under a node lock.
 *
 * Departure from Linux: reports name the cache, the call and the address on
 * one line ("slab: kmalloc-64: kfree(0x...): double free") and the allocator
 * carries on instead of stopping the machine.
 */
#include "mm/slab/slab_def.h"
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
void slab_print_error(const struct kmem_cache *cachep, const char *fn, const void *objp,
		      const char *what)
{
	if (cachep)
		printk("slab: %s: %s(%p): %s\n", cachep->name, fn, objp, what);
	else
		printk("slab: %s(%p): %s\n", fn, objp, what);
}

/* slab_bad_free - report a refused free and count it. */
void slab_bad_free(struct kmem_cache *cachep, const char *fn, const void *objp, const char *what)
{
	slab_print_error(cachep, fn, objp, what);
	__atomic_fetch_add(&slab_bad_frees, 1, __ATOMIC_RELAXED);
	if (cachep)
		stat(cachep, bad_frees, 1);
}

static void slab_corrupt(struct kmem_cache *cachep, const char *fn, const void *objp,
			 const char *what)
{
	slab_print_error(cachep, fn, objp, what);
	__atomic_fetch_add(&slab_corruptions, 1, __ATOMIC_RELAXED);
	stat(cachep, corruptions, 1);
}

/* What a page that is not a slab page is, for the report. */
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

/*
 * slab_find_head - check that objp is on an object boundary of a slab (of
 * cachep or its min-order twin, if cachep is not NULL) and return the
 * slab's head page; otherwise report the fault for call 'fn', count it and
 * return NULL.
 */
struct page *slab_find_head(struct kmem_cache *cachep, const void *objp, const char *fn)
{
	struct page *page, *head;
	struct kmem_cache *owner;
	uintptr_t off;

	if (!virt_addr_valid(objp)) {
		slab_bad_free(cachep, fn, objp,
			      "not a slab object or large allocation (outside RAM)");
		return NULL;
	}
	page = virt_to_page(objp);
	if (!(page->flags & PG_slab)) {
		slab_bad_free(cachep, fn, objp, page_kind(page));
		return NULL;
	}
	head = (struct page *)page->private;
	if (head < mem_map || head >= mem_map + mem_map_entries() || !(head->flags & PG_slab) ||
	    !head->slab_cache) {
		slab_bad_free(cachep, fn, objp, "slab page without a cache (struct page corrupt)");
		return NULL;
	}
	owner = head->slab_cache;
	if (cachep && owner != cachep && owner->min_of != cachep) {	/* twin: cachep's */
		char what[64];

		snprintf(what, sizeof(what), "object of cache %s", owner->name);
		slab_bad_free(cachep, fn, objp, what);
		return NULL;
	}
	off = (uintptr_t)objp - (uintptr_t)head->s_mem;
	if (off >= owner->span || off % owner->size) {
		char what[96];

		if (off >= owner->span)
			snprintf(what, sizeof(what),
				 "not at an object boundary (outside the slab's objects)");
		else
			snprintf(what, sizeof(what),
				 "not at an object boundary (%lu bytes into the %u-byte "
				 "object at %p)",
				 (unsigned long)(off % owner->size), owner->object_size,
				 (const char *)objp - off % owner->size);
		slab_bad_free(owner, fn, objp, what);
		return NULL;
	}
	return head;
}

static inline uint64_t *red_zone1(const struct kmem_cache *cachep, void *objp)
{
	(void)cachep;
	return (uint64_t *)((char *)objp - 8);
}

static inline uint64_t *red_zone2(const struct kmem_cache *cachep, void *objp)
{
	return (uint64_t *)((char *)objp + cachep->object_size);
}

static void poison_obj(const struct kmem_cache *cachep, void *objp)
{
	memset(objp, POISON_FREE, cachep->object_size - 1);
	((unsigned char *)objp)[cachep->object_size - 1] = POISON_END;
}

/* Offset of the first byte that breaks the poison, or -1 if it is intact. */
static long poison_broken_at(const struct kmem_cache *cachep, const void *objp)
{
	const unsigned char *p = objp;
	unsigned int last = cachep->object_size - 1;

	for (unsigned int i = 0; i < last; i++)
		if (p[i] != POISON_FREE)
			return i;
	return p[last] == POISON_END ? -1 : (long)last;
}

/*
 * red_broken - is the red zone word not 'want'? If so *at is the offset,
 * from the caller's pointer (negative before the object), of its first
 * broken byte.
 */
static bool red_broken(const uint64_t *zone, uint64_t want, long zone_off, long *at)
{
	const unsigned char *b = (const unsigned char *)zone;

	for (long i = 0; i < 8; i++) {
		if (b[i] != (unsigned char)want) {
			*at = zone_off + i;
			return true;
		}
	}
	return false;
}

/* slab_debug_init_obj - a new slab's object: red zones free, poisoned. */
void slab_debug_init_obj(struct kmem_cache *cachep, void *objp)
{
	if (cachep->flags & SLAB_RED_ZONE) {
		*red_zone1(cachep, objp) = RED_INACTIVE;
		*red_zone2(cachep, objp) = RED_INACTIVE;
	}
	if (cachep->flags & SLAB_POISON)
		poison_obj(cachep, objp);
}

/*
 * slab_debug_free - check an object being freed through 'fn'. Returns false
 * (reported and counted) for a double free, which the caller must refuse;
 * otherwise repairs and reports overruns, marks the object free and
 * poisons it, and returns true.
 */
bool slab_debug_free(struct kmem_cache *cachep, void *objp, const char *fn)
{
	if (cachep->flags & SLAB_RED_ZONE) {
		uint64_t r1 = *red_zone1(cachep, objp), r2 = *red_zone2(cachep, objp);
		char what[96];
		long at;

		if (r1 == RED_INACTIVE && r2 == RED_INACTIVE) {
			slab_bad_free(cachep, fn, objp, "double free");
			return false;
		}
		if (red_broken(red_zone1(cachep, objp), RED_ACTIVE, -8, &at)) {
			snprintf(what, sizeof(what), "red zone before the object overwritten at "
				 "offset %ld (buffer underrun)", at);
			slab_corrupt(cachep, fn, objp, what);
		}
		if (red_broken(red_zone2(cachep, objp), RED_ACTIVE, cachep->object_size, &at)) {
			snprintf(what, sizeof(what), "red zone after the object overwritten at "
				 "offset %ld (buffer overrun)", at);
			slab_corrupt(cachep, fn, objp, what);
		}
		*red_zone1(cachep, objp) = RED_INACTIVE;
		*red_zone2(cachep, objp) = RED_INACTIVE;
	} else if ((cachep->flags & SLAB_POISON) && poison_broken_at(cachep, objp) < 0) {
		slab_bad_free(cachep, fn, objp, "double free (object still poisoned)");
		return false;
	}
	if (cachep->flags & SLAB_POISON)
		poison_obj(cachep, objp);
	return true;
}

/*
 * slab_debug_alloc - check an object leaving the cache: red zones still
 * free and poison intact (else report and repair), then mark it allocated,
 * fill it with 0x5a, and run the ctor that the poison undid.
 */
void slab_debug_alloc(struct kmem_cache *cachep, void *objp)
{
	if (cachep->flags & SLAB_RED_ZONE) {
		char what[96];
		long at;

		if (*red_zone1(cachep, objp) == RED_ACTIVE &&
		    *red_zone2(cachep, objp) == RED_ACTIVE) {
			slab_corrupt(cachep, "alloc", objp, "freelist corrupt: the object is "
				     "allocated already (handed out twice)");
		} else if (red_broken(red_zone1(cachep, objp), RED_INACTIVE, -8, &at) ||
			   red_broken(red_zone2(cachep, objp), RED_INACTIVE, cachep->object_size,
				      &at)) {
			snprintf(what, sizeof(what), "red zone of a free object overwritten at "
				 "offset %ld", at);
			slab_corrupt(cachep, "alloc", objp, what);
		}
		*red_zone1(cachep, objp) = RED_ACTIVE;
		*red_zone2(cachep, objp) = RED_ACTIVE;
	}
	if (cachep->flags & SLAB_POISON) {
		long at = poison_broken_at(cachep, objp);

		if (at >= 0) {
			char what[80];

			snprintf(what, sizeof(what),
				 "write after free: poison broken at offset %ld", at);
			slab_corrupt(cachep, "alloc", objp, what);
		}
		memset(objp, POISON_INUSE, cachep->object_size);
		if (cachep->ctor)
			cachep->ctor(objp);
	}
}

/*
 * slab_debug_verify_free - for kmem_cache_check: a free object's red zones
 * say free and its poison is intact. Returns 0 or -1 (printed).
 */
int slab_debug_verify_free(struct kmem_cache *cachep, void *objp)
{
	if ((cachep->flags & SLAB_RED_ZONE) && (*red_zone1(cachep, objp) != RED_INACTIVE ||
						*red_zone2(cachep, objp) != RED_INACTIVE)) {
		slab_print_error(cachep, "check", objp, "free object's red zone not 0xbb");
		return -1;
	}
	if ((cachep->flags & SLAB_POISON) && poison_broken_at(cachep, objp) >= 0) {
		slab_print_error(cachep, "check", objp, "free object's poison broken");
		return -1;
	}
	return 0;
}

/* Is object idx of the slab headed by page allocated, as its red zones say? */
static bool obj_allocated(struct kmem_cache *cachep, struct page *page, unsigned int idx)
{
	void *objp = slab_obj(cachep, page, idx);

	return (cachep->flags & SLAB_RED_ZONE) && *red_zone1(cachep, objp) == RED_ACTIVE &&
	       *red_zone2(cachep, objp) == RED_ACTIVE;
}

/*
 * slab_debug_check_freelist - a debug cache's slab is about to hand out
 * object freelist[active]: that index must name an object of the slab,
 * and (red zones) one not allocated. If not, report it (cache, slab,
 * freelist position, index) and repair: an on- or off-slab free stack is
 * rebuilt from the red zones (objects not marked allocated are free); an
 * in-object one, whose home is in doubt, is given up (the slab is made
 * full; its free objects are lost). Returns false after a repair: the
 * caller recounts from page->active. Node lock held; active < num.
 */
bool slab_debug_check_freelist(struct kmem_cache *cachep, struct page *page)
{
	freelist_idx_t *fl = slab_freelist(page);
	unsigned int pos = page->active, idx = fl[pos], k = cachep->num;
	char what[128];

	if (idx < cachep->num && !obj_allocated(cachep, page, idx))
		return true;
	snprintf(what, sizeof(what), "freelist corrupt: freelist[%u] = %u %s (slab of %u "
		 "objects); %s", pos, idx, idx < cachep->num ? "is allocated" : "is no object",
		 cachep->num, cachep->layout == SLAB_LAYOUT_IN_OBJ ? "slab given up" :
		 "free stack rebuilt from the red zones");
	slab_corrupt(cachep, "alloc", page->s_mem, what);
	if (cachep->layout == SLAB_LAYOUT_IN_OBJ) {
		page->active = cachep->num;
		page->freelist = NULL;
		return false;
	}
	for (unsigned int i = cachep->num; i-- > 0;)
		if (!obj_allocated(cachep, page, i))
			fl[--k] = (freelist_idx_t)i;
	page->active = k;
	return false;
}
