/*
 * slub_debug.c - SLUB's part of catching misuse: checking freed pointers
 * by SLUB's geometry, freelist corruption, and the locked debug paths. The
 * red zones, poisoning and the reports are written once for every
 * allocator in mm/slab_debug.c (SLUB's debug objects use its guard-word
 * layout); this file calls them.
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

/* slab_find_head: see slub_def.h and above. */
struct page *slab_find_head(struct kmem_cache *s, const void *objp, const char *fn)
{
	struct page *page = slab_check_page(s, objp, fn), *head;
	struct kmem_cache *owner, *g;
	uintptr_t off;

	if (!page)
		return NULL;
	head = (struct page *)page->private;
	g = page->slab_cache;
	if (head < mem_map || head >= mem_map + mem_map_entries() || !(head->flags & PG_slab) ||
	    !g || head->slab_cache != g) {
		slab_bad_free(s, fn, objp, "slab page without a cache (struct page corrupt)");
		return NULL;
	}
	owner = slub_owner(g);
	if (s && owner != s) {
		slab_wrong_cache(s, fn, objp, owner);
		return NULL;
	}
	off = (uintptr_t)objp - (uintptr_t)page_address(head) - g->obj_offset;
	if (off >= (uintptr_t)g->num * g->size || off % g->size) {
		char what[96];

		slab_boundary_what(what, sizeof(what), objp, off >= (uintptr_t)g->num * g->size ?
				   NULL : (const char *)objp - off % g->size, g->object_size);
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

/*
 * The shared object checks of an object leaving the cache (mm/slab_debug.h);
 * then a constructed cache whose free pointer lies in the object
 * (SLUB_CTOR_AT_ALLOC) and is not poisoned has its ctor run again.
 */
static void debug_alloc_checks(struct kmem_cache *s, void *x)
{
	slab_debug_alloc(s, x);
	if (!(s->flags & SLAB_POISON) && (s->flags & SLUB_CTOR_AT_ALLOC))
		s->ctor(x);	/* the free pointer was written over its state */
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
	slab_corrupt(s, fn, x, what);
}

/* Make a slab with a corrupt freelist full: what its chain held is lost. Node lock held. */
static void cut_freelist(struct kmem_cache *s, struct page *page)
{
	unsigned int num = slub_geom(page)->num;

	WRITE_ONCE(page->slub_freelist, (void *)((uintptr_t)page_address(page) | SLUB_END_TAG));
	WRITE_ONCE(page->counters, slub_counters(num, num, false));
	slub_node_unlist(slub_node_of(s, page), page);
}

/*
 * slub_debug_alloc - allocation for a debug cache: the first object of
 * the first partial slab of node nid (NUMA_NO_NODE: the running CPU's
 * memory node), or of a new slab made there, or where the page allocator
 * fell back (a min-order one when no block of the cache's order is free),
 * taken under that node's lock with its free pointer checked, then
 * checked and marked. Interrupts on or off.
 */
void *slub_debug_alloc(struct kmem_cache *s, unsigned int nid)
{
	struct kmem_cache_node *n;
	struct page *page;
	unsigned long flags;
	void *x, *next;

	if (nid == NUMA_NO_NODE)
		nid = slub_local_nid();
	n = &s->node[nid];
	flags = spin_lock_irqsave(&n->list_lock);
	for (;;) {
		if (list_empty(&n->partial)) {
			spin_unlock_irqrestore(&n->list_lock, flags);
			page = slub_new_slab_node(s, nid);
			if (!page)
				page = slub_new_min_slab(s, nid);
			if (!page)
				return NULL;
			n = slub_node_of(s, page);	/* nid's, or where it fell back */
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
			slub_node_unlist(n, page);
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
	struct kmem_cache_node *n = slub_node_of(s, page);
	unsigned long flags, counters;
	unsigned int k = 0;
	void *o, *prior;

	stat(s, free_slow, 1);
	if (!slab_debug_free(s, x, fn))
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
	stat(s, shared.frees, 1);
	if (slub_is_end(prior)) {
		list_add_tail(&page->lru, &n->partial);
		n->nr_partial++;
	}
	if (slub_inuse(counters - 1) == 0 && n->nr_partial >= s->min_partial) {
		slub_node_unlist(n, page);
		spin_unlock_irqrestore(&n->list_lock, flags);
		slub_discard_slab(s, page);
		return;
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
}
