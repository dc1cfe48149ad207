/*
 * slabinfo.c - the reports: /proc/slabinfo version 2.1, the meminfo "Slab:"
 * line, and the layout (and statistics) report.
 *
 * Every number comes from a cache's node counters, added up over its nodes
 * (each read under its list_lock): num_objs = total_slabs * num,
 * active_objs = num_objs - free_objects (objects in per-CPU and shared
 * arrays count as active, as in Linux's SLAB), active_slabs = total_slabs -
 * free_slabs, sharedfactor the cache's shared tunable and sharedavail the
 * objects now in the nodes' shared arrays.
 * The statistics are the ones stat() counts (struct kmem_cache_stats): SLAB's
 * own are formatted here (kmem_cache_stats_own), mm/slab_report.c prints them.
 *
 * Lock order: slab_caches_lock (held for the walk) -> a node's list_lock
 * (held only to copy the counters, with interrupts off) -> the console lock
 * (printk, after the node lock is dropped). Not for interrupt handlers.
 *
 * Caches are listed newest first, as Linux does; the boot caches last.
 * Departure from Linux: the statistics are a separate report so the 2.1
 * table stays exactly what slabtop reads.
 */
#include "mm/slab_impl.h"
#include "kernel/printk.h"

struct cache_counts {
	unsigned long active_objs, num_objs, active_slabs, num_slabs, shared_avail, pages;
};

static void cache_counts(struct kmem_cache *cachep, struct cache_counts *c)
{
	struct slab_counts sum;

	cache_counts_sum(cachep, &sum);
	c->num_slabs = sum.total_slabs;
	c->active_slabs = sum.total_slabs - sum.free_slabs;
	c->num_objs = sum.total_slabs * cachep->num;
	c->active_objs = c->num_objs - sum.free_objects;
	c->shared_avail = sum.shared_avail;
	c->pages = sum.total_slabs << cachep->order;
	if (cachep->min_cache) {	/* its min-order slabs count as its own */
		const struct kmem_cache *t = cachep->min_cache;

		cache_counts_sum(cachep->min_cache, &sum);
		c->num_slabs += sum.total_slabs;
		c->active_slabs += sum.total_slabs - sum.free_slabs;
		c->num_objs += sum.total_slabs * t->num;
		c->active_objs += sum.total_slabs * t->num - sum.free_objects;
		c->pages += sum.total_slabs << t->order;
	}
}

/* kmem_cache_slabinfo: see mm/slab_impl.h. */
void kmem_cache_slabinfo(struct kmem_cache *cachep, struct slabinfo *si)
{
	struct cache_counts c;

	cache_counts(cachep, &c);
	*si = (struct slabinfo){ .active_objs = c.active_objs, .num_objs = c.num_objs,
				 .objsize = cachep->size, .objperslab = cachep->num,
				 .pagesperslab = 1U << cachep->order, .limit = cachep->limit,
				 .batchcount = cachep->batchcount, .sharedfactor = cachep->shared,
				 .active_slabs = c.active_slabs, .num_slabs = c.num_slabs,
				 .shared_avail = c.shared_avail };
}

/* slab_alloc_tables_show: see mm/slab_impl.h. SLAB has no table of its own. */
void slab_alloc_tables_show(void)
{
}

/* kmem_cache_usage: see slab.h. */
void kmem_cache_usage(struct kmem_cache *cachep, struct slab_usage *u)
{
	struct cache_counts c;

	cache_counts(cachep, &c);
	u->objs = c.active_objs;
	u->pages = c.pages;
	u->internal = cachep == slab_node_cache;
}

/* slab_total_pages: see slab.h. */
unsigned long slab_total_pages(void)
{
	struct kmem_cache *cachep;
	struct cache_counts c;
	unsigned long pages = 0, flags;

	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(cachep, &slab_caches, list) {
		cache_counts(cachep, &c);
		pages += c.pages;
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return pages;
}

/* slab_layout_show: see slab.h. */
void slab_layout_show(void)
{
	struct kmem_cache *cachep;
	unsigned long flags;

	printk("slab: freelist index %u byte(s), objects >= %u bytes, at most %lu per slab\n",
	       (unsigned int)sizeof(freelist_idx_t), SLAB_OBJ_MIN_SIZE, SLAB_OBJ_MAX_NUM);
	printk("slab: %-17s %6s %6s %5s %-9s %8s %s\n", "cache", "size", "num", "order",
	       "freelist", "waste", "flags");
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(cachep, &slab_caches, list) {
		char where[SLAB_NAME_LEN + 16];

		if (cachep->layout == SLAB_LAYOUT_OFF_SLAB)
			snprintf(where, sizeof(where), "off-slab (%s)",
				 cachep->freelist_cache->name);
		else
			snprintf(where, sizeof(where), "%s", slab_layout_name(cachep));
		printk("slab: %-17s %6u %6u %5u %-9s %8u%s%s%s\n", cachep->name, cachep->size,
		       cachep->num, cachep->order, where, cachep->waste,
		       cachep->flags & SLAB_RED_ZONE ? " redzone" : "",
		       cachep->flags & SLAB_POISON ? " poison" : "", cachep->dead ? " dead" : "");
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

/* kmem_cache_locks_reset: see mm/slab_impl.h. SLAB reports no lock counters: nothing to zero. */
void kmem_cache_locks_reset(struct kmem_cache *cachep)
{
	(void)cachep;
}

/* kmem_cache_stats_own: see mm/slab_impl.h. */
void kmem_cache_stats_own(struct kmem_cache *cachep, char *buf, size_t len)
{
	const struct kmem_cache_stats *s = &cachep->stats;

	snprintf(buf, len, "alloc array %lu refill %lu; free array %lu flush %lu;"
		 " refilled %lu (shared %lu) flushed %lu (shared %lu, remote %lu) grown in batch %lu"
		 " failed %lu reaped %lu; min-order grown %lu allocs %lu",
		 s->alloc_hits, s->alloc_misses, s->free_hits, s->free_misses, s->refilled,
		 s->shared_refilled, s->flushed, s->shared_flushed, s->flushed_remote,
		 s->grown_batch, s->grow_failed, s->reaped, s->grown_min, s->alloc_min);
}

/* kmem_cache_slabinfo_node: see mm/slab_impl.h. Not kept by memory node yet. */
bool kmem_cache_slabinfo_node(struct kmem_cache *cachep, unsigned int node, struct slabinfo *si)
{
	(void)cachep;
	(void)node;
	(void)si;
	return false;
}
