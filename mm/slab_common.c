/*
 * slab_common.c - code every object allocator shares (SLAB, SLUB, both
 * SLOBs), written once against what each one's def header gives under the
 * same names (mm/slab_impl.h: slab_caches, slab_caches_lock, name, list).
 * Today: the snapshot of every cache's objects in use that leak accounting
 * compares (kernel/leakcheck.c), through each allocator's
 * kmem_cache_usage().
 */
#include "mm/slab_impl.h"

/* slab_usage_snapshot: see slab.h. */
unsigned int slab_usage_snapshot(struct slab_usage *u, unsigned int n)
{
	struct kmem_cache *c;
	unsigned long flags;
	unsigned int i = 0;

	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(c, &slab_caches, list) {
		if (i < n) {
			size_t k = 0;

			u[i].cache = c;
			for (; c->name[k] && k < sizeof(u[i].name) - 1; k++)
				u[i].name[k] = c->name[k];
			u[i].name[k] = '\0';
			kmem_cache_usage(c, &u[i]);
		}
		i++;
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return i;
}
