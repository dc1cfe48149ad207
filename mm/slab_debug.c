/*
 * slab_debug.c - the misuse checks and reports of every object allocator,
 * written once (mm/slab_debug.h says what each does and the layout the
 * object checks assume). Built with the chosen allocator's def header
 * (mm/slab_impl.h) for the names every allocator gives: a cache's name,
 * flags, object_size and ctor, stat(), SLAB_ALLOC_NAME and
 * SLAB_BAD_FREE_EVENT. Each allocator keeps only what its own geometry
 * needs: where an object's boundary is, how its free objects are chained.
 */
#include "mm/slab_impl.h"
#include "kernel/printk.h"
#include "kernel/string.h"

unsigned long slab_bad_frees;
unsigned long slab_corruptions;

/* slab_print_error: see slab_debug.h. */
void slab_print_error(const struct kmem_cache *c, const char *fn, const void *p,
		      const char *what)
{
	if (c)
		printk(SLAB_ALLOC_NAME ": %s: %s(%p): %s\n", c->name, fn, p, what);
	else
		printk(SLAB_ALLOC_NAME ": %s(%p): %s\n", fn, p, what);
}

/* slab_bad_free: see slab_debug.h. */
void slab_bad_free(struct kmem_cache *c, const char *fn, const void *p, const char *what)
{
	slab_print_error(c, fn, p, what);
	__atomic_fetch_add(&slab_bad_frees, 1, __ATOMIC_RELAXED);
	SLAB_BAD_FREE_EVENT();
	if (c)
		stat(c, shared.bad_frees, 1);
}

/* slab_corrupt: see slab_debug.h. */
void slab_corrupt(struct kmem_cache *c, const char *fn, const void *p, const char *what)
{
	slab_print_error(c, fn, p, what);
	__atomic_fetch_add(&slab_corruptions, 1, __ATOMIC_RELAXED);
	if (c)
		stat(c, shared.corruptions, 1);
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

/* slab_check_page: see slab_debug.h. */
struct page *slab_check_page(struct kmem_cache *c, const void *p, const char *fn)
{
	struct page *page;

	if (!virt_addr_valid(p)) {
		slab_bad_free(c, fn, p, "not a slab object or large allocation (outside RAM)");
		return NULL;
	}
	page = virt_to_page(p);
	if (!(page->flags & PG_slab)) {
		slab_bad_free(c, fn, p, page_kind(page));
		return NULL;
	}
	return page;
}

/* slab_wrong_cache: see slab_debug.h. */
void slab_wrong_cache(struct kmem_cache *c, const char *fn, const void *p,
		      const struct kmem_cache *owner)
{
	char what[64];

	ASSERT(c && owner);
	snprintf(what, sizeof(what), "object of cache %s", owner->name);
	slab_bad_free(c, fn, p, what);
}

/* slab_boundary_what: see slab_debug.h. */
const char *slab_boundary_what(char *buf, size_t len, const void *p, const void *obj,
			       unsigned int object_size)
{
	ASSERT(buf && len);
	if (!obj)
		snprintf(buf, len, "not at an object boundary (outside the slab's objects)");
	else
		snprintf(buf, len, "not at an object boundary (%ld bytes into the %u-byte "
			 "object at %p)", (long)((const char *)p - (const char *)obj),
			 object_size, obj);
	return buf;
}

/* slab_poison: see slab_debug.h. */
void slab_poison(void *p, size_t len)
{
	memset(p, POISON_FREE, len);
}

/* slab_poison_broken: see slab_debug.h. */
long slab_poison_broken(const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != POISON_FREE)
			return (long)i;
	return -1;
}

/* slab_red_broken: see slab_debug.h. */
bool slab_red_broken(const void *zone, unsigned int len, unsigned char want, long zone_off,
		     long *at)
{
	const unsigned char *b = zone;

	for (unsigned int i = 0; i < len; i++) {
		if (b[i] != want) {
			*at = zone_off + (long)i;
			return true;
		}
	}
	return false;
}

/* slab_report_red: see slab_debug.h. */
void slab_report_red(struct kmem_cache *c, const char *fn, const void *p, bool before, long at)
{
	char what[96];

	snprintf(what, sizeof(what), "red zone %s the object overwritten at offset %ld (%s)",
		 before ? "before" : "after", at, before ? "buffer underrun" : "buffer overrun");
	slab_corrupt(c, fn, p, what);
}

/* slab_report_poison: see slab_debug.h. */
void slab_report_poison(struct kmem_cache *c, const void *p, long at)
{
	char what[80];

	snprintf(what, sizeof(what), "write after free: poison broken at offset %ld", at);
	slab_corrupt(c, "alloc", p, what);
}

/* The guard-word layout's red zones of the object at p. */
static inline uint64_t *red_zone1(void *p)
{
	return (uint64_t *)((char *)p - SLAB_RED_BYTES);
}

static inline uint64_t *red_zone2(const struct kmem_cache *c, void *p)
{
	return (uint64_t *)((char *)p + c->object_size);
}

/* Poison the object at p: POISON_FREE ending in POISON_END. */
static void poison_obj(const struct kmem_cache *c, void *p)
{
	slab_poison(p, c->object_size - 1);
	((unsigned char *)p)[c->object_size - 1] = POISON_END;
}

/* Offset of the first byte that breaks the object's poison, or -1 if it is whole. */
static long poison_obj_broken(const struct kmem_cache *c, const void *p)
{
	unsigned int last = c->object_size - 1;
	long at = slab_poison_broken(p, last);

	if (at >= 0)
		return at;
	return ((const unsigned char *)p)[last] == POISON_END ? -1 : (long)last;
}

/* slab_debug_init_obj: see slab_debug.h. */
void slab_debug_init_obj(struct kmem_cache *c, void *p)
{
	if (c->flags & SLAB_RED_ZONE) {
		*red_zone1(p) = RED_INACTIVE;
		*red_zone2(c, p) = RED_INACTIVE;
	}
	if (c->flags & SLAB_POISON)
		poison_obj(c, p);
}

/* slab_debug_free: see slab_debug.h. */
bool slab_debug_free(struct kmem_cache *c, void *p, const char *fn)
{
	if (c->flags & SLAB_RED_ZONE) {
		long at;

		if (*red_zone1(p) == RED_INACTIVE && *red_zone2(c, p) == RED_INACTIVE) {
			slab_bad_free(c, fn, p, "double free");
			return false;
		}
		if (slab_red_broken(red_zone1(p), SLAB_RED_BYTES, RED_ACTIVE_BYTE, -SLAB_RED_BYTES,
				    &at))
			slab_report_red(c, fn, p, true, at);
		if (slab_red_broken(red_zone2(c, p), SLAB_RED_BYTES, RED_ACTIVE_BYTE,
				    c->object_size, &at))
			slab_report_red(c, fn, p, false, at);
		*red_zone1(p) = RED_INACTIVE;
		*red_zone2(c, p) = RED_INACTIVE;
	} else if ((c->flags & SLAB_POISON) && poison_obj_broken(c, p) < 0) {
		slab_bad_free(c, fn, p, "double free (object still poisoned)");
		return false;
	}
	if (c->flags & SLAB_POISON)
		poison_obj(c, p);
	return true;
}

/* slab_debug_alloc: see slab_debug.h. */
void slab_debug_alloc(struct kmem_cache *c, void *p)
{
	if (c->flags & SLAB_RED_ZONE) {
		char what[96];
		long at;

		if (*red_zone1(p) == RED_ACTIVE && *red_zone2(c, p) == RED_ACTIVE) {
			slab_corrupt(c, "alloc", p, "freelist corrupt: the object is allocated "
				     "already (handed out twice)");
		} else if (slab_red_broken(red_zone1(p), SLAB_RED_BYTES, RED_INACTIVE_BYTE,
					   -SLAB_RED_BYTES, &at) ||
			   slab_red_broken(red_zone2(c, p), SLAB_RED_BYTES, RED_INACTIVE_BYTE,
					   c->object_size, &at)) {
			snprintf(what, sizeof(what), "red zone of a free object overwritten at "
				 "offset %ld", at);
			slab_corrupt(c, "alloc", p, what);
		}
		*red_zone1(p) = RED_ACTIVE;
		*red_zone2(c, p) = RED_ACTIVE;
	}
	if (c->flags & SLAB_POISON) {
		long at = poison_obj_broken(c, p);

		if (at >= 0)
			slab_report_poison(c, p, at);
		memset(p, POISON_INUSE, c->object_size);
		if (c->ctor)
			c->ctor(p);
	}
}

/* slab_debug_verify_free: see slab_debug.h. */
int slab_debug_verify_free(struct kmem_cache *c, void *p)
{
	if ((c->flags & SLAB_RED_ZONE) &&
	    (*red_zone1(p) != RED_INACTIVE || *red_zone2(c, p) != RED_INACTIVE)) {
		slab_print_error(c, "check", p, "free object's red zone not 0xbb");
		return -1;
	}
	if ((c->flags & SLAB_POISON) && poison_obj_broken(c, p) >= 0) {
		slab_print_error(c, "check", p, "free object's poison broken");
		return -1;
	}
	return 0;
}
