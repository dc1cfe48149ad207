/*
 * slub.c - SLUB's core: making and freeing slabs, the page's (slub_freelist,
 * counters) pair, kmem_cache_alloc/kmem_cache_free and the free slow path.
 *
 * A new slab (slub_new_slab) has every object on its page freelist, in
 * address order, ending in the slab's tagged end; counters say inuse 0,
 * objects num, not frozen; it is on no list and its maker owns it. The
 * caller then either freezes it as its CPU slab (slab_alloc_slow) or puts
 * it on the node's list (debug caches). A min-order slab
 * (slub_new_min_slab, mm/slub/slub_def.h) is the same with its twin's geometry;
 * its maker freezes it onto the node's min_slabs (mm/slub/slub_partial.c) or,
 * for a debug cache, puts it on the node's list.
 *
 * Invariants of the page pair (changed only by arch_cmpxchg_double, or by
 * the owner of a slab no one else can reach): the page freelist is a
 * chain of distinct free objects of the slab ending in its tagged end;
 * inuse = num - (objects on the page freelist) (objects on a CPU freelist
 * count as in use); frozen slabs belong to one CPU (its CPU slab or on its
 * partial list); unfrozen slabs with a free object are on the node's
 * partial list, unfrozen full slabs on no list.
 *
 * The free slow path (__slab_free) pushes onto the page freelist with one
 * cmpxchg_double and, from the state it replaced, knows what else to do:
 * frozen: nothing (the owning CPU will find the object); unfrozen and full:
 * it freezes the slab in the same cmpxchg and puts it on this CPU's partial
 * list (no lock); unfrozen and now empty: it takes the node lock first
 * (slabs change lists only under it) and frees the slab if the node has
 * enough ready slabs besides (slub_node_spare), else moves it to the front
 * of the node's list. Interrupts stay on except under the node lock.
 *
 * Sheaves give objects back through slub_free_to_slabs (one object: the
 * CPU freelist if it is in the CPU slab, else __slab_free) and
 * slub_free_bulk (runs of objects of one slab chained and pushed with one
 * cmpxchg, onto the CPU freelist or the page freelist), with interrupts
 * off; the classic paths are used alone by caches or CPUs without sheaves
 * (slab_alloc_classic, slub_free_classic).
 *
 * Every free of a caller's object into the slabs here (slab_free_remote,
 * slab_kfree_remote, slab_free_slow) first tests its free word as the fast
 * paths do (slab_free_page; mm/slub/slub_def.h says how), and a word that says
 * free sends it to slub_free_is_double (mm/slub/slub_dfree.c); objects that
 * sheaves give back (slub_free_to_slabs, slub_free_bulk) were tested when
 * they entered the sheaf.
 *
 * Locking: none here but the node lock as said; the callers' rules are in
 * mm/slub/slub_def.h. Departure from Linux: every free tests its object's free
 * word and reports a double free even without debugging (Linux, only with
 * SLAB_FREELIST_HARDENED, one on top of the CPU freelist).
 */
#include "mm/slab_impl.h"
#include "kernel/printk.h"
#include "mm/fault_inject.h"

DEFINE_PER_CPU(struct slub_cpu_slots, slub_cpu);
DEFINE_PER_CPU(unsigned long, slub_events);

/* slab_cpu_events: see slab.h. */
unsigned long slab_cpu_events(unsigned int cpu)
{
	return __atomic_load_n(per_cpu_ptr(slub_events, cpu), __ATOMIC_RELAXED);
}

/*
 * slub_cpu_set - make a CPU's freelist 'freelist' and bump its tid, with
 * the cmpxchg the fast paths use, so that an interrupted fast path on that
 * CPU fails its own. The running CPU's pair with interrupts off, or
 * (remote) another CPU's pair of a cache no CPU is using.
 */
void slub_cpu_set(struct kmem_cache_cpu *c, void *freelist, bool remote)
{
	ASSERT_DEBUG(remote || arch_irqs_disabled());
	unsigned long tid = READ_ONCE(c->tid);
	void *old = READ_ONCE(c->freelist);
	bool ok;

	if (remote)
		ok = arch_cmpxchg_double(c, (unsigned long)old, tid, (unsigned long)freelist,
					 tid + 1);
	else
		ok = arch_this_cpu_cmpxchg_double(c, (unsigned long)old, tid,
						  (unsigned long)freelist, tid + 1);
	BUG_ON(!ok);
}

/*
 * Make the block 'page' a slab of s with geometry g (s itself, or its
 * twin): see slub_new_slab. Inline, so that slub_new_slab's copy knows g
 * is s (x86_64 test 1, kmalloc(4096): 2 instructions per object more out
 * of line).
 */
static __always_inline struct page *slab_make(struct kmem_cache *s, struct kmem_cache *g, struct page *page,
			      unsigned int taken)
{
	unsigned int nid = page_to_nid(page);
	struct kmem_cache_node *n = &s->node[nid];
	void *end, *next;

	end = (void *)((uintptr_t)page_address(page) | SLUB_END_TAG);
	BUG_ON(slub_base(g, end) != (uintptr_t)page_address(page));	/* aligned to its size */
	for (unsigned long i = 0; i < (1UL << g->order); i++) {
		page[i].flags |= PG_slab;
		page[i].private = (unsigned long)page;
		page[i].slab_cache = g;
	}
	INIT_LIST_HEAD(&page->lru);
	if (unlikely(slub_debug_on(s) || s->ctor)) {
		for (unsigned int i = 0; i < g->num; i++) {
			void *x = slub_obj(g, page, i);

			if (slub_debug_on(s))
				slab_debug_init_obj(s, x);
			if (s->ctor && !(s->flags & (SLAB_POISON | SLUB_CTOR_AT_ALLOC)))
				s->ctor(x);
		}
	}
	BUG_ON(taken > g->num || (taken && slub_debug_on(s)));
	next = end;
	if (taken < g->num) {
		/* From the last object down to object 'taken', each linked to the one after it. */
		char *x = slub_obj(g, page, g->num - 1);

		for (unsigned int n = g->num - taken; n; n--, x -= s->size) {
			slub_set_fp(s, x, next);
			next = x;
		}
	}
	page->slub_freelist = next;
	page->counters = slub_counters(taken, g->num, false);
	page->active = nid;	/* slub_slab_nid */
	atomic_long_add(&n->nr_slabs, 1);
	if (g != s)
		atomic_long_add(&n->nr_min, 1);
	stat(s, shared.slabs_made, 1);
	return page;
}

/*
 * slub_new_slab - pages from the buddy allocator made into an unfrozen slab
 * of s with every object but the first 'taken' on its page freelist (see
 * above; taken 0 for a debug cache), on no list and counted in nr_slabs;
 * the first 'taken' objects (slub_obj 0..taken-1, chained to nothing)
 * count as in use and belong to the caller, who hands them out by address
 * (a sheaf refill: no free pointer written and read back for them). Debug
 * caches get guards and poison, ctor caches constructed objects. Its
 * pages come from the running CPU's node, or the nearest node the page
 * allocator falls back to; the slab is its pages' node's (slub_slab_nid).
 * When no block of s's order is free, the other caches' barns give back
 * what they hold (slub_barns_trim) and the page allocator is asked again.
 * Returns NULL when still none is (the caller may then take
 * slub_new_min_slab). Interrupts on or off, no lock held.
 */
struct page *slub_new_slab(struct kmem_cache *s, unsigned int taken)
{
	struct page *page = alloc_pages(s->order);

	if (!page && slub_barns_trim(s))
		page = alloc_pages(s->order);

	if (!page) {
		stat(s, new_failed, 1);
		return NULL;
	}
	return slab_make(s, s, page, taken);
}

/*
 * slub_new_slab_node - slub_new_slab(s, 0) with its pages from node nid
 * (NUMA_NO_NODE: the running CPU's), or the nearest node the page
 * allocator falls back to. Interrupts on or off, no lock held.
 */
struct page *slub_new_slab_node(struct kmem_cache *s, unsigned int nid)
{
	struct page *page;

	if (nid == NUMA_NO_NODE)
		return slub_new_slab(s, 0);
	ASSERT(nid < MAX_NUMNODES);
	page = alloc_pages_node(nid, s->order);
	if (!page && slub_barns_trim(s))
		page = alloc_pages_node(nid, s->order);
	if (!page) {
		stat(s, new_failed, 1);
		return NULL;
	}
	return slab_make(s, s, page, 0);
}

/*
 * slub_new_min_slab - slub_new_slab(s, 0, nid) at the order of s's twin,
 * the smallest that holds an object (mm/slub/slub_def.h): its pages name
 * the twin, and it counts in nr_min too. NULL when s has no twin or memory
 * is out. Interrupts on or off, no lock held.
 */
struct page *slub_new_min_slab(struct kmem_cache *s, unsigned int nid)
{
	struct kmem_cache *g = s->min_cache;
	struct page *page;

	if (!g)
		return NULL;
	page = nid == NUMA_NO_NODE ? alloc_pages(g->order) : alloc_pages_node(nid, g->order);
	if (!page)
		return NULL;
	stat(s, new_min, 1);
	return slab_make(s, g, page, 0);
}

/*
 * slub_discard_slab, with n its node (slub_node_of), which the caller
 * knows: free_to_node's emptied slab.
 */
static __always_inline void discard_slab(struct kmem_cache *s, struct kmem_cache_node *n,
					 struct page *page)
{
	const struct kmem_cache *g = slub_geom(page);
	bool min = g != s;	/* its twin */

	BUG_ON(slub_inuse(page->counters) != 0 || (slub_frozen(page->counters) && !min));
	for (unsigned long i = 0; i < (1UL << g->order); i++) {
		page[i].flags &= ~PG_slab;
		page[i].private = 0;
		page[i].slab_cache = NULL;
	}
	page->slub_freelist = NULL;
	page->counters = 0;
	if (min)
		atomic_long_sub(&n->nr_min, 1);
	atomic_long_sub(&n->nr_slabs, 1);
	free_pages(page, g->order);
	stat(s, discarded, 1);
}

/*
 * slub_discard_slab - give an empty slab that is on no list and that no
 * one else can reach back to the buddy allocator (a min-order slab of a
 * cache without debugging is frozen: it is never unfrozen). No node lock
 * held.
 */
void slub_discard_slab(struct kmem_cache *s, struct page *page)
{
	discard_slab(s, slub_node_of(s, page), page);
}

/* slub_discard_list - slub_discard_slab for every slab on list (linked by lru). */
void slub_discard_list(struct kmem_cache *s, struct list_head *list)
{
	struct page *page, *tmp;

	list_for_each_entry_safe(page, tmp, list, lru) {
		list_del(&page->lru);
		discard_slab(s, slub_node_of(s, page), page);
	}
}

/*
 * slub_freeze_take - freeze a slab that has a free object and take its
 * whole page freelist: the page freelist becomes the tagged end and every
 * object counts as in use. Returns the chain taken (never empty). The
 * caller owns the slab's place: it took it off a list, under the node lock
 * for the node's list, or it is the caller's CPU slab.
 */
void *slub_freeze_take(struct kmem_cache *s, struct page *page)
{
	unsigned long counters;
	void *prior;

	for (;;) {
		prior = READ_ONCE(page->slub_freelist);
		counters = READ_ONCE(page->counters);
		if (slub_page_cmpxchg(s, page, (unsigned long)prior, counters,
					(unsigned long)slub_end(s, prior),
					slub_counters(s->num, s->num, true)))
			break;
		stat(s, page_retries, 1);
	}
	BUG_ON(slub_is_end(prior));
	return prior;
}

/* A free found x on top of its page freelist, or its slab with nothing in use. */
static __noinline void free_double(struct kmem_cache *s, void *x, const char *fn, bool on_top)
{
	slab_bad_free(s, fn, x,
		      on_top ? "double free (already on its slab's freelist)"
			     : "double free (its slab has no object in use)");
}

/*
 * The free of x needs its slab's node lock (or did when last read): it
 * empties an unfrozen slab, or it is the first free into an unfrozen full
 * slab of another node than the running CPU's (a full slab of the CPU's
 * node is frozen for this CPU instead, as without nodes). Take the lock
 * of the slab's node, then push; a full slab goes onto its node's list,
 * an empty one is freed if the node has slub_node_spare, else moved to
 * the front of the node's list. The slab is on its node's partial list
 * while it is unfrozen with a free object, and the lock keeps it there.
 */
static __noinline void free_to_node(struct kmem_cache *s, struct page *page, void *x,
				    const char *fn)
{
	struct kmem_cache_node *n = slub_node_of(s, page);
	unsigned long flags, counters, new;
	void *prior;

	flags = spin_lock_irqsave(&n->list_lock);
	stat(s, node_locks, 1);
	this_cpu_inc(slub_events);
	for (;;) {
		prior = READ_ONCE(page->slub_freelist);
		counters = READ_ONCE(page->counters);
		if (unlikely(prior == x || slub_inuse(counters) == 0)) {
			spin_unlock_irqrestore(&n->list_lock, flags);
			free_double(s, x, fn, prior == x);
			return;
		}
		new = counters - 1;
		/* It became full meanwhile: frozen if it is the CPU's node's. */
		if (!slub_frozen(counters) && slub_is_end(prior) &&
		    (!slub_multi_node || slub_slab_nid(page) == slub_local_nid()))
			new |= SLUB_FROZEN;
		slub_set_fp(s, x, prior);
		if (slub_page_cmpxchg(s, page, (unsigned long)prior, counters,
					(unsigned long)x, new))
			break;
		stat(s, page_retries, 1);
	}
	stat(s, free_slow, 1);
	if (slub_frozen(counters) || slub_frozen(new)) {
		spin_unlock_irqrestore(&n->list_lock, flags);
		if (!slub_frozen(counters))
			slub_put_cpu_partial(s, page);
		return;
	}
	if (slub_is_end(prior)) {	/* full, on no list: onto its node's */
		stat(s, free_remote, 1);
		list_add_tail(&page->lru, &n->partial);
		n->nr_partial++;
	}
	if (slub_inuse(new) != 0) {
		spin_unlock_irqrestore(&n->list_lock, flags);
		return;
	}
	if (slub_node_spare(s, n, page)) {
		slub_node_unlist(n, page);
		spin_unlock_irqrestore(&n->list_lock, flags);
		discard_slab(s, n, page);
		return;
	}
	/*
	 * Empty slabs kept are at the front. The known ready front stands
	 * (page was in it, or behind it and now before it) and is at least page.
	 */
	list_move(&page->lru, &n->partial);
	n->ready_front = MAX(n->ready_front, 1U);
	spin_unlock_irqrestore(&n->list_lock, flags);
}

/*
 * What page_push did: pushed, or nothing because the push is a double free
 * (an object of it on top of the page freelist, or fewer objects in use
 * than it frees) or needs the slab's node lock (free_to_node's cases: it
 * would empty an unfrozen slab, or make another node's full slab partial).
 */
enum page_push_result { PAGE_PUSHED, PAGE_PUSH_DOUBLE, PAGE_PUSH_LOCKED };

/*
 * page_push - push the chain head..tail of cnt objects (linked to each
 * other by their free pointers, tail's set here; objs[1..cnt) the others,
 * in order, when cnt > 1) onto the page freelist of the slab headed by
 * page, in one cmpxchg_double. The common cases (frozen, stays partial,
 * full becomes this CPU's partial slab) take no lock. *prior_out: the
 * freelist's top when it refused a double free.
 */
static __always_inline enum page_push_result page_push(struct kmem_cache *s, struct page *page,
							void *head, void *tail, void **objs,
							unsigned int cnt, void **prior_out)
{
	unsigned long counters, new;
	void *prior;

	for (;;) {
		prior = READ_ONCE(page->slub_freelist);
		counters = READ_ONCE(page->counters);
		if (unlikely(prior == head || slub_inuse(counters) < cnt))
			goto double_free;
		for (unsigned int i = 1; i < cnt; i++)
			if (unlikely(objs[i] == prior))
				goto double_free;
		new = counters - cnt;
		if (!slub_frozen(counters)) {
			if (slub_is_end(prior)) {
				/* Another node's goes onto that node's list: free_to_node. */
				if (unlikely(slub_multi_node) &&
				    slub_slab_nid(page) != slub_local_nid())
					return PAGE_PUSH_LOCKED;
				new |= SLUB_FROZEN; /* full: it becomes this CPU's partial slab */
			} else if (unlikely(slub_inuse(new) == 0)) {
				return PAGE_PUSH_LOCKED;
			}
		}
		slub_set_fp(s, tail, prior);
		if (slub_page_cmpxchg(s, page, (unsigned long)prior, counters,
					(unsigned long)head, new))
			break;
		stat(s, page_retries, 1);
	}
	stat(s, free_slow, 1);
	if (slub_frozen(counters))
		stat(s, free_frozen, 1);
	else if (slub_frozen(new))
		slub_put_cpu_partial(s, page);
	return PAGE_PUSHED;
double_free:
	*prior_out = prior;
	return PAGE_PUSH_DOUBLE;
}

/*
 * __slab_free - push x onto its slab's page freelist (page_push). 'page' is
 * the slab's head page; x is on one of its object boundaries. A double
 * free is reported; a free that needs the node lock goes to free_to_node.
 * 'caller' (a constant at each call): x comes from a caller's free, which
 * the shared frees counter counts once taken (not an object a sheaf gives
 * back). A double free that only free_to_node's
 * locked re-check finds (two CPUs freeing x at once) counts in both frees
 * and bad frees.
 */
static __always_inline void __slab_free(struct kmem_cache *s, struct page *page, void *x,
					const char *fn, bool caller)
{
	void *prior;

	switch (page_push(s, page, x, x, NULL, 1, &prior)) {
	case PAGE_PUSHED:
		if (caller)
			stat(s, shared.frees, 1);
		break;
	case PAGE_PUSH_DOUBLE:
		free_double(s, x, fn, prior == x);
		break;
	case PAGE_PUSH_LOCKED:
		if (caller)
			stat(s, shared.frees, 1);
		free_to_node(s, page, x, fn);
		break;
	}
}

/*
 * free_refused - x's free word says x is free: if slub_free_is_double
 * finds it free, report the double free (counted in slab_bad_frees) and
 * return true: the caller drops the free. False: free x. Interrupts on or
 * off; x an object of s on a boundary of a slab page of s.
 */
static __noinline bool free_refused(struct kmem_cache *s, void *x, const char *fn)
{
	unsigned long flags = arch_irq_save();
	char what[80];
	bool found = slub_free_is_double(s, x, what, sizeof(what));

	arch_irq_restore(flags);
	if (found)
		slab_bad_free(s, fn, x, what);
	return found;
}

/* slab_free_page's object whose free word says free: free_refused, else __slab_free. */
static __noinline void free_page_suspect(struct kmem_cache *s, struct page *page, void *x,
					 const char *fn)
{
	if (!free_refused(s, x, fn))
		__slab_free(s, page, x, fn, true);
}

/*
 * slab_free_page - __slab_free for a caller's object x of s (no debug
 * cache) on a boundary of the slab headed by page, after the test of its
 * free word (mm/slub/slub_def.h); one that says free goes to free_page_suspect
 * (a tail call, so that the remote paths keep no frame).
 */
static __always_inline void slab_free_page(struct kmem_cache *s, struct page *page, void *x,
					   const char *fn)
{
	uintptr_t *slot = slub_fw_slot(s, x);

	if (unlikely(slub_fw_free(s, *slot, slub_fw_mark(s, x, slot)))) {
		free_page_suspect(s, page, x, fn);
		return;
	}
	__slab_free(s, page, x, fn, true);
}

/*
 * slab_free_suspect - the classic fast path found the free word of x (in
 * this CPU's slab) saying free: free_refused, or, if x is not free, the
 * fast path again without the test.
 */
void slab_free_suspect(void *x, struct kmem_cache *s, const char *fn, bool on_slab)
{
	if (!free_refused(s, x, fn))
		slub_free_classic(s, x, fn, on_slab, false);
}

/*
 * slab_free_remote - the fast path found x on an object boundary (if x is
 * in a slab of s) but not in this CPU's slab, or on top of its freelist
 * (head, as the fast path read it): if x is not head, x's page is a slab
 * page of s and s no debug cache, push x onto its slab's page freelist;
 * else slab_free_slow decides (and reports the double free).
 */
void slab_free_remote(void *x, struct kmem_cache *s, const char *fn, const void *head)
{
	struct page *page;

	if (likely(x != head && virt_addr_valid(x))) {
		page = virt_to_page(x);
		if (likely((page->flags & PG_slab) && page->slab_cache == s &&
			   !(s->flags & SLUB_DEBUG_FLAGS))) {
			slab_free_page(s, (struct page *)page->private, x, fn);
			return;
		}
	}
	slab_free_slow(x, s, fn);
}

/*
 * slab_kfree_remote - slab_free_remote for kfree, which found x in RAM on
 * a slab page of s (s is that page's slab_cache), so only the debug flag
 * and the double free on top of the CPU freelist remain to check. The
 * page is found again here rather than kept through kfree's fast path.
 */
void slab_kfree_remote(void *x, struct kmem_cache *s, const char *fn, const void *head)
{
	if (likely(x != head && !(s->flags & SLUB_DEBUG_FLAGS)))
		slab_free_page(s, (struct page *)virt_to_page(x)->private, x, fn);
	else
		slab_free_slow(x, s, fn);
}

/*
 * slab_free_slow - a free the fast paths did not take: x not on an object
 * boundary, or on top of this CPU's freelist, or not a slab object of s,
 * or s a debug cache, or x in a min-order slab (kfree then passes s's
 * twin as s), or s->node_check (obj_bound 0: slub_set_node_check). Checks
 * x in full (reporting and refusing a bad pointer), then frees it onto its
 * slab's page freelist, or through the debug path, or under node_check to
 * slub_sheaf_free_slow (the fast path's sheaves, with their node test).
 * NULL is ignored.
 */
void slab_free_slow(void *x, struct kmem_cache *s, const char *fn)
{
	struct page *page;

	if (unlikely(!x))
		return;
#if CONFIG_SLUB_SHEAVES
	/* The fast path's obj_bound 0 (slub_set_node_check): its push, with the node test. */
	if (READ_ONCE(s->node_check) && slub_free_try(s, x, fn, false, s->slab_bound, true))
		return;
#endif
	this_cpu_inc(slub_events);
	s = slub_owner(s);
	page = slab_find_head(s, x, fn);
	if (!page)
		return;
	if (unlikely(slub_debug_on(s))) {
		slub_debug_free(s, page, x, fn);
		return;
	}
	if (unlikely(x == READ_ONCE(slub_this_cpu(s)->freelist))) {
		slab_bad_free(s, fn, x, "double free (already on the CPU's freelist)");
		return;
	}
	if (READ_ONCE(s->node_check) && slub_geom(page) == s) {
		/* The fast path's obj_bound 0 (slub_set_node_check): the sheaves and their node test. */
		slub_sheaf_free_slow(x, s, fn, true, arch_irq_save());
		return;
	}
	slab_free_page(s, page, x, fn);
}

/*
 * free_chain - push the chain objs[0..cnt) of the slab headed by page
 * (linked to the next by their free pointers) onto its page freelist with
 * page_push. False, with nothing done, when that needs the node lock
 * (free_to_node) or is a double free: the caller then frees them one by one,
 * which handles and reports those.
 */
static bool free_chain(struct kmem_cache *s, struct page *page, void **objs, unsigned int cnt)
{
	void *prior;

	return page_push(s, page, objs[0], objs[cnt - 1], objs, cnt, &prior) == PAGE_PUSHED;
}

/*
 * slub_free_bulk - slub_free_to_slabs for objs[0..n), objects of s on
 * object boundaries that sheaves held: each run of objects of one slab
 * goes back as one chain, onto this CPU's freelist (its CPU slab) or its
 * page freelist (free_chain), one cmpxchg for the run; a run that meets a
 * double free or the slab's last object, or of min-order slabs (a run is
 * cut by slab_mask), goes one by one. Returns how many objects were alone
 * in their run (no neighbour in objs of the same slab): a measure of how
 * scattered they were. Interrupts off.
 */
unsigned int slub_free_bulk(struct kmem_cache *s, void **objs, unsigned int n, const char *fn)
{
	struct kmem_cache_cpu *c = slub_this_cpu(s);
	/* In locals: the free pointers stored below could alias s for the compiler. */
	const uintptr_t mask = s->slab_mask, secret = s->fp_secret;
	const unsigned int offset = s->offset;
	unsigned int alone = 0;

	assert_irqs_disabled();
	for (unsigned int i = 0, cnt; i < n; i += cnt) {
		uintptr_t base = (uintptr_t)objs[i] & ~mask;
		void *head = READ_ONCE(c->freelist);
		bool cpu_slab = head != SLUB_NO_SLAB && ((uintptr_t)head & ~mask) == base, ok = true;

		for (cnt = 1; i + cnt < n && ((uintptr_t)objs[i + cnt] & ~mask) == base; cnt++) {
			uintptr_t *slot = (uintptr_t *)((char *)objs[i + cnt - 1] + offset);

			*slot = (uintptr_t)objs[i + cnt] ^ slub_fp_key_of(secret, slot);
			ok &= objs[i + cnt] != head;
		}
		if (cpu_slab && ok && objs[i] != head) {
			slub_set_fp(s, objs[i + cnt - 1], head);
			slub_cpu_set(c, objs[i], false);
			continue;
		}
		alone += cnt == 1;
		/* Min-order slabs (their pages name s's twin) may share a block: one by one. */
		if (!cpu_slab && likely(virt_to_page(objs[i])->slab_cache == s)) {
			struct page *page = (struct page *)virt_to_page(objs[i])->private;

			if (free_chain(s, page, &objs[i], cnt))
				continue;
			/* Perhaps the run empties the slab: all but its last as a chain. */
			if (cnt > 2 && free_chain(s, page, &objs[i], cnt - 1)) {
				slub_free_to_slabs(s, objs[i + cnt - 1], fn);
				continue;
			}
		}
		for (unsigned int k = 0; k < cnt; k++)
			slub_free_to_slabs(s, objs[i + k], fn);
	}
	return alone;
}

/*
 * slab_alloc_retry - slab_alloc's cmpxchg failed (an interrupt took an
 * object or changed the CPU slab in between): count it and start again.
 * Out of line, so that the fast path is straight code with no loop.
 */
void *slab_alloc_retry(struct kmem_cache *s)
{
	stat(s, alloc_retries, 1);
	return slub_alloc_classic_at(s, false);
}

/*
 * slab_free_retry - slub_free's cmpxchg failed (an interrupt on this CPU
 * changed the freelist in between): count it and start again, as
 * slab_alloc_retry does, without the free-word test (x's word holds the
 * pointer the failed push stored).
 */
void slab_free_retry(void *x, struct kmem_cache *s, const char *fn, bool on_slab)
{
	stat(s, free_retries, 1);
	slub_free_classic(s, x, fn, on_slab, false);
}

/*
 * slab_alloc_classic - an allocation by the classic paths (CPU freelist,
 * then slab_alloc_slow), for a cache or CPU without sheaves. Any context.
 */
void *slab_alloc_classic(struct kmem_cache *s)
{
	return slub_alloc_classic_at(s, false);
}

/*
 * slub_free_to_slabs - give x, an object of s on an object boundary that
 * a sheaf held, back to its slab: onto this CPU's freelist if it is in the
 * CPU slab (and not its top), else onto its slab's page freelist
 * (__slab_free). A double free found there (x on top of a freelist, or its
 * slab with nothing in use) is reported and refused. Interrupts off.
 */
void slub_free_to_slabs(struct kmem_cache *s, void *x, const char *fn)
{
	struct kmem_cache_cpu *c = slub_this_cpu(s);
	void *head = READ_ONCE(c->freelist);

	assert_irqs_disabled();
	if (((uintptr_t)head ^ (uintptr_t)x) - 1 < s->slab_mask) {
		slub_set_fp(s, x, head);
		slub_cpu_set(c, x, false);
		return;
	}
	if (unlikely(x == head)) {
		slab_bad_free(s, fn, x, "double free (already on the CPU's freelist)");
		return;
	}
	__slab_free(s, (struct page *)virt_to_page(x)->private, x, fn, false);
}

/* kmem_cache_alloc: see slab.h. */
void *kmem_cache_alloc(struct kmem_cache *cachep)
{
	if (CONFIG_SLAB_DEBUG && unlikely(slab_cache_refused(cachep, "kmem_cache_alloc", true)))
		return NULL;
	if (unlikely(fault_attr_on(&failslab)))
		return slab_alloc_failslab(cachep);
	return slab_alloc(cachep);
}

/*
 * kmem_cache_alloc_node: see slab.h. The node's memory node (a node
 * without memory: the nearest with) gets the request. The running CPU's
 * node: the fast paths, unless what they give is another node's (a refill
 * when the node was full, a slab made before the topology was known),
 * which goes back. Another node: slub_alloc_node_slow. One memory node:
 * kmem_cache_alloc.
 */
void *kmem_cache_alloc_node(struct kmem_cache *cachep, unsigned int node)
{
	void *x;

	node = slab_node_arg(cachep, node, "kmem_cache_alloc_node");
	if (node != NUMA_NO_NODE)
		node = slub_mem_nid(node);
	if (node == NUMA_NO_NODE || !slub_multi_node)
		return kmem_cache_alloc(cachep);
	if (CONFIG_SLAB_DEBUG && unlikely(slab_cache_refused(cachep, "kmem_cache_alloc_node", true)))
		return NULL;
	if (unlikely(fault_attr_on(&failslab)))
		return slab_alloc_failslab(cachep);
	if (node == slub_local_nid() && !slub_debug_on(cachep)) {
		x = slab_alloc(cachep);
		if (!x || likely(page_to_nid(virt_to_page(x)) == node))
			return x;
		slab_free(cachep, x, "kmem_cache_alloc_node");
	}
	return slub_alloc_node_slow(cachep, node);
}

/* kmem_cache_free: see slab.h. */
void kmem_cache_free(struct kmem_cache *cachep, void *objp)
{
	if (CONFIG_SLAB_DEBUG && unlikely(slab_free_cache_refused(cachep, objp)))
		return;
	if (unlikely(!cachep)) {
		if (objp)
			kmem_cache_free_no_cache(objp);	/* reported, kept */
		return;
	}
	slab_free(cachep, objp, "kmem_cache_free");
}
