/*
 * slab_merge.c - cache merging: kmem_cache_create hands out a live cache
 * whose objects fit the new one's, instead of a cache of its own.
 *
 * Why: every cache keeps its own partly used slabs and per-CPU caching,
 * so many small caches of nearly one size hold more memory than one cache
 * of that size would. Linux merges such caches by default; with merging
 * on, Quarry does the same, which is also what a replay of a Linux trace
 * must do to be compared with Linux's memory.
 *
 * Rules. A new cache may merge when merging is on, the allocator merges
 * (SLAB_ALLOC_MERGES), it has no ctor, asks for no debug flags, and is not
 * a debug build's (CONFIG_SLAB_DEBUG gives every cache red zones).
 * A candidate is a live cache with refcount 1 or more (made by
 * kmem_cache_create, or a kmalloc cache; the allocator's own caches keep
 * 0), no ctor, no debug flags nor SLAB_NO_MERGE, whose object_size is at
 * least the new size rounded up to a pointer and less than a pointer
 * above it, and whose objects and stride keep the new cache's alignment.
 * Of the candidates the oldest wins (kmalloc caches first), as in Linux.
 *
 * Lock: slab_caches_lock, interrupts off, around the walk and every change
 * of a refcount.
 *
 * Departures from Linux: no alias names (the merged cache keeps its own
 * name in slabinfo and the reports); flags other than the debug ones do
 * not have to agree (Quarry's other flag only aligns, which the match
 * checks); off by default, as with CONFIG_SLAB_MERGE_DEFAULT=n, because
 * the self-tests look into the caches they make.
 */
#include "mm/slab_impl.h"
#include "kernel/atomic.h"

static bool merge_on;

/* slab_merge_set: see mm/slab.h. */
void slab_merge_set(bool on)
{
	WRITE_ONCE(merge_on, on);
}

static bool fits(const struct kmem_cache *c, size_t want, size_t align)
{
	return c->refcount && !c->dead && !c->ctor && !(c->flags & (SLAB_DEBUG | SLAB_NO_MERGE)) &&
	       c->object_size >= want && c->object_size - want < sizeof(void *) &&
	       c->align % align == 0 && c->size % align == 0;
}

/* slab_merge_find: see mm/slab_common.h. */
struct kmem_cache *slab_merge_find(size_t size, size_t align, unsigned int flags,
				   void (*ctor)(void *))
{
	size_t want = ALIGN_UP(size, sizeof(void *));
	struct kmem_cache *c, *found = NULL;
	unsigned long irq;

	if (!SLAB_ALLOC_MERGES || !READ_ONCE(merge_on) || CONFIG_SLAB_DEBUG || ctor ||
	    (flags & (SLAB_DEBUG | SLAB_NO_MERGE)))
		return NULL;
	align = slab_cache_align(want, align, flags, sizeof(void *));
	irq = spin_lock_irqsave(&slab_caches_lock);
	/* Newest first on the list: the last that fits is the oldest. */
	list_for_each_entry(c, &slab_caches, list)
		if (fits(c, want, align))
			found = c;
	if (found)
		found->refcount++;
	spin_unlock_irqrestore(&slab_caches_lock, irq);
	return found;
}

/* slab_merge_put: see mm/slab_common.h. */
bool slab_merge_put(struct kmem_cache *cachep)
{
	unsigned long irq = spin_lock_irqsave(&slab_caches_lock);
	bool shared = cachep->refcount > 1;

	if (shared)
		cachep->refcount--;
	spin_unlock_irqrestore(&slab_caches_lock, irq);
	return shared;
}
