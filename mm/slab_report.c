/*
 * slab_report.c - the reports every object allocator prints the same way:
 * /proc/slabinfo version 2.1 (slabinfo_show, slabinfo_line), meminfo's
 * "Slab:" line, and the statistics report: one line per cache, the
 * allocator's own counters (kmem_cache_stats_own) then the shared ones
 * (mm/slab_stats.h).
 *
 * The allocator fills a struct slabinfo per cache (kmem_cache_slabinfo,
 * mm/slab_impl.h: what its numbers mean is said in its own *_info.c) and
 * this file formats it; the allocator's own tables (SLOB's heap) follow
 * the 2.1 table (slab_alloc_tables_show). Caches are listed in
 * slab_caches order, newest first, as Linux does.
 *
 * Lock order: slab_caches_lock (held for a walk) -> whatever the allocator
 * takes to fill a record -> the console lock. Not for interrupt handlers.
 */
#include "mm/slab_impl.h"
#include "kernel/printk.h"

/* slabinfo_line: see slab.h. */
int slabinfo_line(struct kmem_cache *cachep, char *buf, size_t size)
{
	struct slabinfo si = { 0 };

	kmem_cache_slabinfo(cachep, &si);
	return snprintf(buf, size,
			"%-17s %6lu %6lu %6u %4u %4u"
			" : tunables %4u %4u %4u : slabdata %6lu %6lu %6lu",
			cachep->name, si.active_objs, si.num_objs, si.objsize, si.objperslab,
			si.pagesperslab, si.limit, si.batchcount, si.sharedfactor, si.active_slabs,
			si.num_slabs, si.shared_avail);
}

/* The online nodes' part of each cache (slabinfo_show's tail); nothing on one node. */
static void slabinfo_nodes_show(void)
{
	struct kmem_cache *cachep;
	struct slabinfo si;
	unsigned long flags;
	char line[320];
	int len;

	if (numa_num_nodes() < 2)
		return;
	si = (struct slabinfo){ 0 };
	if (!kmem_cache_slabinfo_node(&kmem_cache_boot, 0, &si)) {
		printk("%s: no slab account per node\n", SLAB_ALLOC_NAME);
		return;
	}
	printk("# per node: N<node>=<active_objs>/<num_objs>:<active_slabs>/<num_slabs>\n");
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(cachep, &slab_caches, list) {
		len = snprintf(line, sizeof(line), "%-17s", cachep->name);
		for (unsigned int n = 0; n < MAX_NUMNODES; n++) {
			if (!numa_node_online(n))
				continue;
			si = (struct slabinfo){ 0 };
			(void)kmem_cache_slabinfo_node(cachep, n, &si);
			if (len < (int)sizeof(line))
				len += snprintf(line + len, sizeof(line) - (size_t)len,
						" N%u=%lu/%lu:%lu/%lu", n, si.active_objs,
						si.num_objs, si.active_slabs, si.num_slabs);
		}
		printk("%s\n", line);
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

/* Pages of node's slabs, every cache; false when the allocator keeps no account by node. */
static bool slab_node_pages(unsigned int node, unsigned long *pages)
{
	struct kmem_cache *cachep;
	struct slabinfo si;
	unsigned long flags;
	bool known = true;

	*pages = 0;
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(cachep, &slab_caches, list) {
		si = (struct slabinfo){ 0 };
		if (!kmem_cache_slabinfo_node(cachep, node, &si)) {
			known = false;
			break;
		}
		*pages += si.num_slabs * si.pagesperslab;
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return known;
}

/* slabinfo_show: see slab.h. */
void slabinfo_show(void)
{
	struct kmem_cache *cachep;
	unsigned long flags;
	char line[160];

	printk("slabinfo - version: 2.1\n");
	printk("# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab>"
	       " : tunables <limit> <batchcount> <sharedfactor>"
	       " : slabdata <active_slabs> <num_slabs> <sharedavail>\n");
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(cachep, &slab_caches, list) {
		slabinfo_line(cachep, line, sizeof(line));
		printk("%s\n", line);
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	slab_alloc_tables_show();
	slabinfo_nodes_show();
}

/* slab_meminfo_show: see slab.h. */
void slab_meminfo_show(void)
{
	unsigned long pages;

	printk("%-16s%8lu kB\n", "Slab:", slab_total_pages() * (PAGE_SIZE / 1024));
	if (numa_num_nodes() < 2)
		return;
	for (unsigned int n = 0; n < MAX_NUMNODES; n++)
		if (numa_node_online(n) && slab_node_pages(n, &pages))
			printk("Node %u %-11s%8lu kB\n", n, "Slab:", pages * (PAGE_SIZE / 1024));
}

/* kmem_cache_stats_line: see slab.h. */
int kmem_cache_stats_line(struct kmem_cache *cachep, char *buf, size_t len)
{
	const struct slab_stats *s = &cachep->stats.shared;
	char own[512];

	kmem_cache_stats_own(cachep, own, sizeof(own));
	return snprintf(buf, len, "%-17s %s; allocs %lu frees %lu slabs made %lu bad %lu corrupt %lu",
			cachep->name, own, s->allocs, s->frees, s->slabs_made, s->bad_frees,
			s->corruptions);
}

/* kmem_cache_stats_show: see slab.h. */
void kmem_cache_stats_show(struct kmem_cache *cachep)
{
#if CONFIG_SLAB_STATS
	char line[640];

	kmem_cache_stats_line(cachep, line, sizeof(line));
	printk("  %s\n", line);
#else
	(void)cachep;
#endif
}

/* kmem_cache_stats_reset: see slab.h. */
void kmem_cache_stats_reset(struct kmem_cache *cachep)
{
	cachep->stats = (struct kmem_cache_stats){ 0 };
	kmem_cache_locks_reset(cachep);
}

static void stats_print(const char *line, void *arg)
{
	(void)arg;
	printk("  %s\n", line);
}

/* slab_stats_show: see slab.h. */
void slab_stats_show(void)
{
	if (!CONFIG_SLAB_STATS) {
		printk("%s: statistics not counted (build with CONFIG_SLAB_STATS=1)\n",
		       SLAB_ALLOC_NAME);
		return;
	}
	slab_stats_each(stats_print, NULL, false);
}

/* slab_stats_each: see slab.h. */
void slab_stats_each(void (*fn)(const char *line, void *arg), void *arg, bool reset)
{
	struct kmem_cache *cachep;
	unsigned long flags;
	char line[640];

	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(cachep, &slab_caches, list) {
		if (fn) {
			kmem_cache_stats_line(cachep, line, sizeof(line));
			fn(line, arg);
		}
		if (reset)
			kmem_cache_stats_reset(cachep);
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

/* slab_totals: see slab.h. */
void slab_totals(struct slab_totals *t)
{
	struct kmem_cache *cachep;
	struct slabinfo si;
	unsigned long flags;

	*t = (struct slab_totals){ 0 };
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(cachep, &slab_caches, list) {
		si = (struct slabinfo){ 0 };
		kmem_cache_slabinfo(cachep, &si);
		t->active += (unsigned long long)si.active_objs * si.objsize;
		t->objects += (unsigned long long)si.num_objs * si.objsize;
		t->empty += (unsigned long long)(si.num_slabs - si.active_slabs) * si.objperslab *
			    si.objsize;
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}
