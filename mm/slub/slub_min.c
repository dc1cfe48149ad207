/*
 * slub_min.c - taking objects from SLUB's min-order slabs (mm/slub/slub_def.h:
 * slabs of the smallest order holding an object, made when no block of a
 * cache's order is free).
 *
 * In a cache without debugging every min-order slab is frozen, on the
 * node's min_slabs list from when it is made until it is freed empty
 * (slub_take_empty, mm/slub/slub_node.c), and never a CPU slab: the fast paths'
 * tests find a CPU slab by slab_mask, which spans more than such a slab.
 * When cpu_new_slab finds no slab of the cache's order (partial or new),
 * slub_min_alloc pops objects off these slabs' page freelists one by one
 * under the node lock, into the caller's hands and a sheaf being refilled,
 * and makes a new min-order slab when none has a free object. The node
 * lock makes it the only popper: frees push lock-free (onto a frozen slab:
 * nothing else to do), so a freelist top still there at the cmpxchg still
 * has the next object read before it. The CPU freelist stays as it was (no
 * slab): the next allocation comes back here while the order stays
 * fragmented. Objects go back by the slow path (their pages name the
 * cache's twin) or, from a sheaf, one by one (slub_free_bulk).
 *
 * Lock order: interrupts off -> node.list_lock -> zone lock (the new slab
 * is made with the node lock dropped).
 */
#include "mm/slub/slub_def.h"

/*
 * Pop one object off min-order slab page's page freelist, or NULL when it
 * has none. Node lock held: the only popper (see above).
 */
static void *min_pop(struct kmem_cache *s, struct page *page)
{
	unsigned long counters;
	void *prior, *next;

	for (;;) {
		prior = READ_ONCE(page->slub_freelist);
		counters = READ_ONCE(page->counters);
		if (slub_is_end(prior))
			return NULL;
		next = slub_get_fp(s, prior);
		if (slub_page_cmpxchg(s, page, (unsigned long)prior, counters,
					(unsigned long)next, counters + 1))
			return prior;
		stat(s, page_retries, 1);
	}
}

/*
 * Pop up to *need objects off node n's min-order slabs (n's lock held):
 * the first into *x, the others into sh. Returns how many.
 */
static unsigned int min_take(struct kmem_cache *s, struct kmem_cache_node *n,
			     struct slub_sheaf *sh, unsigned int need, void **x)
{
	unsigned int got = 0;
	struct page *page;
	void *o;

	assert_spin_locked(&n->list_lock);
	/* The list holds every min-order slab (but one being made or freed): nr_min. */
	for (long seen = atomic_long_read(&n->nr_min);
	     got < need && seen > 0 && !list_empty(&n->min_slabs); seen--) {
		page = list_first_entry(&n->min_slabs, struct page, lru);
		while (got < need && (o = min_pop(s, page)) != NULL) {
			if (got++)
				sh->objects[sh->size++] = o;
			else
				*x = o;
		}
		if (slub_is_end(READ_ONCE(page->slub_freelist)))
			list_move_tail(&page->lru, &n->min_slabs);
	}
	if (got)
		n->alloc_touched = 1;
	return got;
}

/*
 * A new min-order slab (frozen onto its node's min_slabs: the CPU's node's,
 * or where the page allocator fell back), and objects from it; NULL when
 * not even that can be made.
 */
static void *min_fresh(struct kmem_cache *s, struct slub_sheaf *sh, unsigned int need)
{
	struct page *page = slub_new_min_slab(s, NUMA_NO_NODE);
	struct kmem_cache_node *n;
	void *x = NULL;

	if (!page)
		return NULL;
	page->counters |= SLUB_FROZEN;	/* private until listed */
	n = slub_node_of(s, page);
	spin_lock(&n->list_lock);
	stat(s, node_locks, 1);
	list_add(&page->lru, &n->min_slabs);
	min_take(s, n, sh, need, &x);
	spin_unlock(&n->list_lock);
	return x;
}

/*
 * slub_min_alloc: see slub_def.h and above. The CPU's node's min-order
 * slabs, then (several memory nodes) the other nodes' nearest first, for
 * min-order slabs are made wherever the page allocator found a block.
 */
void *slub_min_alloc(struct kmem_cache *s, struct slub_sheaf *sh, unsigned int want)
{
	unsigned int need = sh ? want - (unsigned int)sh->size : 1, nid = slub_local_nid(), f;
	struct kmem_cache_node *n;
	void *x = NULL;

	assert_irqs_disabled();
	ASSERT(!slub_debug_on(s) && (!sh || want > sh->size));
	if (!s->min_cache)
		return NULL;
	for (unsigned int i = 0; (f = i ? slub_fallback_nid(nid, i) : nid) != NUMA_NO_NODE; i++) {
		unsigned int got;

		n = &s->node[f];
		if (!atomic_long_read(&n->nr_min))
			continue;
		spin_lock(&n->list_lock);
		stat(s, node_locks, 1);
		got = min_take(s, n, sh, need, &x);
		spin_unlock(&n->list_lock);
		if (got)
			return x;
		if (!slub_multi_node)
			break;
	}
	return min_fresh(s, sh, need);
}
