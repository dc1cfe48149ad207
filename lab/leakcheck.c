/*
 * leakcheck.c - leak accounting (see leakcheck.h): drain, count, compare.
 */
#include "lab/leakcheck.h"
#include "kernel/printk.h"
#include "mm/buddy.h"

/* leak_mark_take: see leakcheck.h. */
void leak_mark_take(struct leak_mark *m)
{
#ifndef CONFIG_ALLOC_NONE
	slab_drain_all();
	m->nr_caches = slab_usage_snapshot(m->caches, LEAK_MAX_CACHES);
#else
	drain_all_pages();
#endif
	m->free_pages = nr_free_pages();
}

#ifndef CONFIG_ALLOC_NONE
/* The entry for cache c in m, or NULL: the same cache object under the same name. */
static const struct slab_usage *usage_of(const struct leak_mark *m, const struct slab_usage *c)
{
	unsigned int n = MIN(m->nr_caches, LEAK_MAX_CACHES);

	for (unsigned int i = 0; i < n; i++) {
		const struct slab_usage *u = &m->caches[i];
		unsigned int k = 0;

		if (u->cache != c->cache)
			continue;
		while (u->name[k] && u->name[k] == c->name[k])
			k++;
		if (u->name[k] == c->name[k])
			return u;
	}
	return NULL;
}

static int compare_caches(const struct leak_mark *b, const struct leak_mark *a, const char *what)
{
	unsigned int na = MIN(a->nr_caches, LEAK_MAX_CACHES), nb = MIN(b->nr_caches, LEAK_MAX_CACHES);
	int found = 0;

	for (unsigned int i = 0; i < na; i++) {
		const struct slab_usage *now = &a->caches[i], *then = usage_of(b, now);

		if (now->internal) {
			/* bookkeeping that comes with a CPU's first use of a cache: not a leak */
			continue;
		} else if (!then) {
			printk("leak: %s: cache %s (%p) created and not destroyed, %lu objects in use\n",
			       what, now->name, now->cache, now->objs);
			found++;
		} else if (now->objs != then->objs) {
			printk("leak: %s: cache %s: %lu objects in use, %lu before (%ld)\n", what,
			       now->name, now->objs, then->objs, (long)(now->objs - then->objs));
			found++;
		}
	}
	for (unsigned int i = 0; i < nb; i++) {
		const struct slab_usage *then = &b->caches[i];

		if (!usage_of(a, then) && then->objs) {
			printk("leak: %s: cache %s (%p) destroyed with %lu objects in use before\n",
			       what, then->name, then->cache, then->objs);
			found++;
		}
	}
	if (a->nr_caches > LEAK_MAX_CACHES || b->nr_caches > LEAK_MAX_CACHES)
		printk("leak: %s: %u caches before, %u after: only the first %d compared\n", what,
		       b->nr_caches, a->nr_caches, LEAK_MAX_CACHES);
	return found;
}
#endif

#ifndef CONFIG_ALLOC_NONE
/* Pages the allocator's internal caches hold in m. */
static unsigned long internal_pages(const struct leak_mark *m)
{
	unsigned long pages = 0;

	for (unsigned int i = 0; i < MIN(m->nr_caches, LEAK_MAX_CACHES); i++)
		if (m->caches[i].internal)
			pages += m->caches[i].pages;
	return pages;
}
#endif

/* leak_mark_compare: see leakcheck.h. */
int leak_mark_compare(const struct leak_mark *before, struct leak_mark *after, const char *what)
{
	long grown = 0;		/* pages the internal caches took meanwhile */
	int found = 0;

	leak_mark_take(after);
#ifndef CONFIG_ALLOC_NONE
	found += compare_caches(before, after, what);
	grown = (long)(internal_pages(after) - internal_pages(before));
#endif
	if ((long)(before->free_pages - after->free_pages) != grown) {
		printk("leak: %s: %lu pages free, %lu before (%ld pages; %ld taken by the "
		       "allocator's own per-CPU bookkeeping)\n", what, after->free_pages,
		       before->free_pages, (long)(after->free_pages - before->free_pages), grown);
		found++;
	}
	return found;
}
