/*
 * slab_debug.c - SLAB's part of catching misuse: the checks of a pointer
 * given to the free functions by SLAB's geometry, and of a debug slab's
 * free stack. The red zones, poisoning and the reports are written once
 * for every allocator in mm/slab_debug.c; SLAB's objects use its
 * guard-word layout, and slab_cpu.c, slab.c and slab_check.c call it.
 *
 * Every free first goes through slab_find_head(): the pointer must be in
 * RAM, on a PG_slab page whose head names a cache (the expected one for
 * kmem_cache_free), and exactly on an object boundary of that slab.
 * Anything else is reported, counted in slab_bad_frees and refused; no
 * allocator state is touched. This runs in every build.
 *
 * Debug caches (SLAB_RED_ZONE / SLAB_POISON, or all caches with
 * CONFIG_SLAB_DEBUG) lay each object out as (mm/slab_debug.h)
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

/*
 * slab_find_head - check that objp is on an object boundary of a slab (of
 * cachep or its min-order twin, if cachep is not NULL) and return the
 * slab's head page; otherwise report the fault for call 'fn', count it and
 * return NULL.
 */
struct page *slab_find_head(struct kmem_cache *cachep, const void *objp, const char *fn)
{
	struct page *page = slab_check_page(cachep, objp, fn), *head;
	struct kmem_cache *owner;
	uintptr_t off;

	if (!page)
		return NULL;
	head = (struct page *)page->private;
	if (head < mem_map || head >= mem_map + mem_map_entries() || !(head->flags & PG_slab) ||
	    !head->slab_cache) {
		slab_bad_free(cachep, fn, objp, "slab page without a cache (struct page corrupt)");
		return NULL;
	}
	owner = head->slab_cache;
	if (cachep && owner != cachep && owner->min_of != cachep) {	/* twin: cachep's */
		slab_wrong_cache(cachep, fn, objp, owner);
		return NULL;
	}
	off = (uintptr_t)objp - (uintptr_t)head->s_mem;
	if (off >= owner->span || off % owner->size) {
		char what[96];

		slab_boundary_what(what, sizeof(what), objp, off >= owner->span ? NULL :
				   (const char *)objp - off % owner->size, owner->object_size);
		slab_bad_free(owner, fn, objp, what);
		return NULL;
	}
	return head;
}

/* Is object idx of the slab headed by page allocated, as its red zones say? */
static bool obj_allocated(struct kmem_cache *cachep, struct page *page, unsigned int idx)
{
	const char *objp = slab_obj(cachep, page, idx);

	return (cachep->flags & SLAB_RED_ZONE) &&
	       *(const uint64_t *)(objp - SLAB_RED_BYTES) == RED_ACTIVE &&
	       *(const uint64_t *)(objp + cachep->object_size) == RED_ACTIVE;
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
