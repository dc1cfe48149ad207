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
		 " failed %lu reaped %lu; min-order grown %lu allocs %lu; shared grown %lu trimmed %lu",
		 s->alloc_hits, s->alloc_misses, s->free_hits, s->free_misses, s->refilled,
		 s->shared_refilled, s->flushed, s->shared_flushed, s->flushed_remote,
		 s->grown_batch, s->grow_failed, s->reaped, s->grown_min, s->alloc_min,
		 s->shared_grown, s->shared_trimmed);
}

/*
 * Add the slabs of cachep (a cache or its min-order twin) whose pages are on
 * memory node 'node' to *c, walking every node's lists under its lock (a
 * slab's home is the node of its pages, but slabs made before the page
 * allocator knew the nodes, and a twin's, sit on node 0's lists).
 */
static void node_counts_add(struct kmem_cache *cachep, unsigned int node, struct cache_counts *c)
{
	for (unsigned int i = 0; i < SLAB_NODES; i++) {
		struct kmem_cache_node *n = READ_ONCE(cachep->node[i]);
		struct list_head *lists[3];
		unsigned long flags;
		struct page *page;

		if (!n)
			continue;
		lists[0] = &n->slabs_full;
		lists[1] = &n->slabs_partial;
		lists[2] = &n->slabs_free;
		flags = spin_lock_irqsave(&n->list_lock);
		for (int l = 0; l < 3; l++) {
			list_for_each_entry(page, lists[l], lru) {
				if (page_to_nid(page) != node)
					continue;
				c->num_slabs++;
				c->active_slabs += page->active != 0;
				c->num_objs += cachep->num;
				c->active_objs += page->active;
			}
		}
		if (n->shared)
			for (unsigned long k = 1; k <= n->shared->avail; k++)
				c->shared_avail +=
					page_to_nid(slab_head_page(n->shared->entry[k])) == node;
		spin_unlock_irqrestore(&n->list_lock, flags);
	}
}

/* kmem_cache_slabinfo_node: see mm/slab_impl.h. Counted by the node of each slab's pages. */
bool kmem_cache_slabinfo_node(struct kmem_cache *cachep, unsigned int node, struct slabinfo *si)
{
	struct cache_counts c = { 0 };

	node_counts_add(cachep, node, &c);
	if (cachep->min_cache)
		node_counts_add(cachep->min_cache, node, &c);
	kmem_cache_slabinfo(cachep, si);
	si->active_objs = c.active_objs;
	si->num_objs = c.num_objs;
	si->active_slabs = c.active_slabs;
	si->num_slabs = c.num_slabs;
	si->shared_avail = c.shared_avail;
	return true;
}
