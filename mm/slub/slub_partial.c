/*
 * slub_partial.c - SLUB's slow paths: getting a CPU slab, per-CPU and node
 * partial lists, flushing a CPU's slabs, shrinking, the periodic reap and
 * draining everything.
 *
 * slab_alloc_slow (interrupts off throughout) finds the CPU freelist
 * tagged: used up, or no slab. Used up: it takes the objects other CPUs
 * freed to the slab meanwhile (its page freelist, one cmpxchg_double), or,
 * if there are none, unfreezes the full slab, which then is on no list.
 * Then a new CPU slab: the first of this CPU's partial slabs that is
 * ready, else the first ready one among the node's first SLUB_NODE_SCAN
 * (under its lock, which also moves up to cpu_partial / 2 more ready ones
 * onto this CPU's list, frozen: one lock for several CPU slabs, as Linux's
 * get_partial_node does), else a new one from the buddy allocator; if that
 * fails, any partial slab. Each is frozen and its whole page freelist
 * taken at once. If there is none, no CPU slab: objects of the node's
 * min-order slabs (mm/slub/slub_min.c). The empty ones go back with the node's
 * other empty slabs (slub_take_empty: shrink, destroy, the reap).
 *
 * Ready (slab_ready): at least reuse_free (num / 4) free objects. Tuning,
 * not in Linux, which reuses any partial slab: when frees are scattered
 * (a server freeing old objects at random) most slabs are full, a free
 * makes a full slab partial with one free object, and taking it next means
 * a slow path for nearly every allocation (host larson, one thread,
 * kmalloc-1024: 1.8 objects per slow path even oldest first; 5.8 with
 * the rule). The price is bounded: a slab that is not ready has fewer
 * than num / 4 free objects. The node's slabs that are not ready are
 * moved to its tail as they are passed over, so that ready ones behind
 * them get seen before a new slab is made.
 *
 * A CPU's partial list holds slabs that a free found full: the free froze
 * them for this CPU and put them at the tail, so the list is in the order
 * they got their first free and the CPU takes the first ready one, which
 * has had longest to gather frees (Linux takes the newest, whose one free
 * object is usually all it has); ready slabs from the node go in front.
 * cpu_partial (mm/slub/slub_cache.c) is four times Linux's: a CPU's list is
 * where its slabs wait for frees, and with one to three slabs per list
 * (kmalloc caches of 512 bytes and up) each slab went through the node
 * lock twice. When the list has cpu_partial slabs, the next one first
 * sends the list to the node (unfreeze_partials) but for up to
 * cpu_partial / 2 ready slabs, and takes ready ones from the node up to
 * that many, under the same lock.
 * Unfreezing, and flushing a CPU slab (its CPU freelist goes back onto its
 * page freelist), happen under the node lock: a slab with a free object
 * goes on the node's partial list (at its tail), an empty one is freed if
 * the node's list starts with max(min_partial, cpu_partial) ready slabs
 * (slub_node_spare) and goes to its front otherwise, a full one stays on
 * no list. The lock makes a free that empties an unfrozen slab
 * wait until the slab is on its list.
 *
 * With sheaves, slub_refill_sheaf fills a sheaf through the same paths
 * (the CPU freelist's chain at once, then slab_alloc_slow's cases; a new
 * slab's first objects go into the sheaf by address, and only the rest are
 * chained: test 1 at 192 B, 65 -> 54 instructions per kmalloc), and
 * every path below that gives a CPU's slabs back (kmem_cache_drain_local,
 * kmem_cache_shrink, slab_drain_all, the reap, destroy's slub_flush_cpu)
 * first gives its sheaves back (mm/slub/slub_sheaf.c); shrink and drain_all
 * empty the barn too, then the slub_sheaf cache last.
 *
 * slab_reap (the tick, every 2 s per CPU): a CPU whose pair did not change
 * since the last pass (its tid, and its freelist, which frees move alone)
 * flushes its slab and partial slabs; every second pass over a cache, if
 * no CPU took a slab from the node since, the node frees its empty slabs. It
 * takes its own locks with trylocks only; giving back an idle CPU's sheaves
 * (first) may wait for the node lock where a free would.
 *
 * Lock order: interrupts off -> node.list_lock -> zone lock. A CPU's
 * partial list and its pair change only on that CPU with interrupts off,
 * except kmem_cache_destroy's flush of an idle cache. Departures from
 * Linux: the CPU's slab and partial slabs are flushed by the tick, not by
 * a timer; partial slabs are taken oldest first and only when ready; a
 * CPU's partial list is longer, and a full one keeps its ready slabs; the
 * node frees an empty slab only when it has ready ones to spare.
 */
#include "mm/slab_impl.h"
#include "kernel/errno.h"
#include "kernel/smp.h"

static unsigned long reap_events;	/* reap passes that gave anything back */

/* slab_reap_events: see slab.h. */
unsigned long slab_reap_events(void)
{
	return __atomic_load_n(&reap_events, __ATOMIC_RELAXED);
}

/* Hand x to the caller and make the rest of its chain this CPU's freelist. Interrupts off. */
static void *cpu_install(struct kmem_cache *s, struct kmem_cache_cpu *c, void *x)
{
	slub_cpu_set(c, slub_get_fp(s, x), false);
	return x;
}

/*
 * The CPU slab (freelist at its tagged end 'end') is used up: take the
 * objects freed to it meanwhile, or unfreeze it full. Returns an object or NULL.
 */
static void *cpu_refill(struct kmem_cache *s, struct kmem_cache_cpu *c, void *end)
{
	struct page *page = slub_page(s, end);
	unsigned long counters, new;
	void *prior;

	for (;;) {
		prior = READ_ONCE(page->slub_freelist);
		counters = READ_ONCE(page->counters);
		BUG_ON(!slub_frozen(counters));
		new = slub_is_end(prior) ? counters & ~SLUB_FROZEN
					 : slub_counters(s->num, s->num, true);
		if (slub_page_cmpxchg(s, page, (unsigned long)prior, counters,
					(unsigned long)end, new))
			break;
		stat(s, page_retries, 1);
	}
	if (!slub_is_end(prior)) {
		stat(s, refill_remote, 1);
		return cpu_install(s, c, prior);
	}
	BUG_ON(slub_inuse(new) != s->num);	/* full and unfrozen: on no list */
	slub_cpu_set(c, SLUB_NO_SLAB, false);
	return NULL;
}

/* Freeze an unfrozen slab with a free object, leaving its page freelist alone. */
static void slab_freeze(struct kmem_cache *s, struct page *page)
{
	unsigned long counters;
	void *prior;

	for (;;) {
		prior = READ_ONCE(page->slub_freelist);
		counters = READ_ONCE(page->counters);
		BUG_ON(slub_frozen(counters) || slub_is_end(prior));
		if (slub_page_cmpxchg(s, page, (unsigned long)prior, counters,
					(unsigned long)prior, counters | SLUB_FROZEN))
			return;
		stat(s, page_retries, 1);
	}
}

/*
 * Whether a partial slab has enough free objects to be taken as a CPU slab
 * (a slab of the cache's order: min-order slabs are on these lists only in
 * debug caches, which take no CPU slab).
 */
static bool slab_ready(const struct kmem_cache *s, const struct page *page)
{
	return s->num - slub_inuse(READ_ONCE(page->counters)) >= s->reuse_free;
}

/*
 * Under node n's lock: take slabs with reuse_free free objects (any, when
 * 'any') off the node's list, looking at SLUB_NODE_SCAN of them at most
 * and moving those that are not ready to its tail (so that ready slabs
 * behind them are not left unseen while new slabs are made):
 * the first for the caller's CPU slab if 'for_cpu' (returned, still
 * unfrozen), then up to 'more' frozen onto the front of p's partial list,
 * so that one lock serves several CPU slabs (as Linux's get_partial_node).
 * Returns the CPU slab, or NULL.
 */
static struct page *node_take(struct kmem_cache *s, struct kmem_cache_node *n,
			      struct kmem_cache_cpu_partial *p, bool for_cpu, unsigned int more,
			      bool any)
{
	struct page *page, *tmp, *took = NULL;
	unsigned int seen = 0;

	assert_spin_locked(&n->list_lock);
	list_for_each_entry_safe(page, tmp, &n->partial, lru) {
		if (++seen > SLUB_NODE_SCAN || (!for_cpu && !more))
			break;
		if (!any && !slab_ready(s, page)) {
			/* Not ready, so past ready_front: the count stands. */
			list_move_tail(&page->lru, &n->partial);	/* the next look sees others */
			continue;
		}
		slub_node_unlist(n, page);
		n->alloc_touched = 1;
		if (for_cpu) {
			took = page;
			for_cpu = false;
			continue;
		}
		slab_freeze(s, page);
		list_add(&page->lru, &p->partial);
		p->nr_partial++;
		more--;
	}
	return took;
}

/*
 * A CPU slab from other nodes' partial lists than the CPU's node, when
 * that looks out of free blocks or 'any' (no slab can be made), nearest first (node_take: ready ones, any when 'any'), none for the CPU's
 * partial list: its first object returned, the rest the CPU freelist; or
 * NULL. Out of line: one-node machines never come here. Interrupts off.
 */
static __noinline void *remote_cpu_slab(struct kmem_cache *s, struct kmem_cache_cpu *c,
					bool any)
{
	struct kmem_cache_cpu_partial *p = &s->cpu[smp_processor_id()];
	unsigned int nid = slub_local_nid(), f;

	if (!any && !slub_node_low(nid, s->order))
		return NULL;
	for (unsigned int i = 1; (f = slub_fallback_nid(nid, i)) != NUMA_NO_NODE; i++) {
		struct kmem_cache_node *n = &s->node[f];
		struct page *page;
		void *x = NULL;

		if (!READ_ONCE(n->nr_partial))
			continue;
		spin_lock(&n->list_lock);
		stat(s, node_locks, 1);
		page = node_take(s, n, p, true, 0, any);
		if (page)
			x = slub_freeze_take(s, page);
		spin_unlock(&n->list_lock);
		if (page) {
			stat(s, node_alloc, 1);
			return cpu_install(s, c, x);
		}
	}
	return NULL;
}

/*
 * A CPU slab from the partial slabs: the first of this CPU's own that is
 * ready (slab_ready; any when 'any'), else the first of its node's (and,
 * unless 'any', up to half of cpu_partial more onto the CPU's list), else,
 * on a machine of several nodes, another node's (remote_cpu_slab). Returns
 * its first object, the rest the CPU freelist; or NULL. Inline: 'any' is
 * a constant at both callers. Interrupts off.
 */
static __always_inline void *cpu_partial_slab(struct kmem_cache *s, struct kmem_cache_cpu *c,
					      bool any)
{
	unsigned int cpu = smp_processor_id();
	struct kmem_cache_cpu_partial *p = &s->cpu[cpu];
	struct kmem_cache_node *n;
	struct page *page;
	void *x;

	list_for_each_entry(page, &p->partial, lru) {
		if (any || slab_ready(s, page)) {
			list_del(&page->lru);
			p->nr_partial--;
			stat(s, cpu_partial_alloc, 1);
			return cpu_install(s, c, slub_freeze_take(s, page));
		}
	}
	/*
	 * The CPU's node, then, when it looks full or no slab can be made,
	 * the others nearest first: only a CPU slab from those, none for the
	 * CPU's partial list (which holds its node's slabs).
	 */
	n = &s->node[slub_cpu_nid[cpu]];	/* slub_local_node */
	if (READ_ONCE(n->nr_partial)) {
		unsigned int room = s->cpu_partial - MIN(s->cpu_partial, p->nr_partial);

		spin_lock(&n->list_lock);
		stat(s, node_locks, 1);
		page = node_take(s, n, p, true, any ? 0 : MIN(room, s->cpu_partial / 2), any);
		if (page)
			x = slub_freeze_take(s, page);
		spin_unlock(&n->list_lock);
		if (page) {
			stat(s, node_alloc, 1);
			return cpu_install(s, c, x);
		}
	}
	if (unlikely(slub_multi_node))
		return remote_cpu_slab(s, c, any);
	return NULL;
}

/*
 * No slab of the cache's order can be made: any partial slab (full but
 * for one free object will do), else objects of min-order slabs
 * (slub_min_alloc, no CPU slab). Out of line: memory is nearly out.
 * Interrupts off.
 */
static __noinline void *cpu_any_slab(struct kmem_cache *s, struct kmem_cache_cpu *c,
				     struct slub_sheaf *sh, unsigned int want)
{
	void *x = cpu_partial_slab(s, c, true);

	return x ? x : slub_min_alloc(s, sh, want);
}

/*
 * A new CPU slab: a ready partial slab (cpu_partial_slab), else a new one;
 * if none can be made, cpu_any_slab. Returns its first object, the rest on
 * the CPU freelist. Filling sheaf sh (NULL: none) up to 'want', a new
 * slab's first objects go into it by address instead, up to want - 1 of
 * them, and only the others are chained (slub_new_slab's 'taken').
 * Interrupts off.
 */
static void *cpu_new_slab(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slub_sheaf *sh,
			  unsigned int want)
{
	unsigned int taken;
	struct page *page;
	void *x, *rest;

	x = cpu_partial_slab(s, c, false);
	if (x)
		return x;
	/* Object 0 is returned; objects 1..taken-1 go into the sheaf. */
	taken = sh ? MIN(s->num, want - (unsigned int)sh->size) : 1;
	/* The CPU's node, or the nearest with a free block: alloc_pages's own order. */
	page = slub_new_slab(s, taken);
	if (unlikely(!page))
		return cpu_any_slab(s, c, sh, want);
	x = slub_obj(s, page, 0);
	if (taken > 1) {
		void **slot = &sh->objects[sh->size], **end = slot + taken - 1;
		char *o = x;

		do {
			o += s->size;
			*slot++ = o;
		} while (slot < end);
		sh->size += taken - 1;
	}
	/* Private until installed: freeze it and take its chain (or end) without a cmpxchg. */
	rest = page->slub_freelist;
	page->slub_freelist = slub_end(s, x);
	page->counters = slub_counters(s->num, s->num, true);
	slub_cpu_set(c, rest, false);
	return x;
}

/* slab_alloc_slow: see slub_def.h; the cases are described above. */
void *slab_alloc_slow(struct kmem_cache *s)
{
	struct kmem_cache_cpu *c;
	unsigned long flags;
	void *x;

	this_cpu_inc(slub_events);
	stat(s, alloc_slow, 1);
	if (unlikely(slub_debug_on(s))) {
		x = slub_debug_alloc(s, NUMA_NO_NODE);
		stat(s, shared.allocs, x != NULL);
		return x;
	}
	flags = arch_irq_save();
	c = slub_this_cpu(s);
	x = READ_ONCE(c->freelist);
	if (unlikely(!slub_is_end(x)))		/* an interrupt refilled it meanwhile */
		x = cpu_install(s, c, x);
	else if (x == SLUB_NO_SLAB || !(x = cpu_refill(s, c, x)))
		x = cpu_new_slab(s, c, NULL, 0);
	arch_irq_restore(flags);
	if (x)
		slub_fw_clear(s, x, false);	/* handed out: see slub_def.h */
	stat(s, shared.allocs, x != NULL);
	return x;
}

/*
 * slub_refill_sheaf - fill sheaf sh of s up to 'want' objects through the
 * paths above: the rest of the CPU freelist's chain (taken at once, one
 * cmpxchg on the pair), then, while it is used up, the next CPU slab
 * (slab_alloc_slow's cases: remote frees, partial slabs, a new slab).
 * Returns the objects added; fewer when out of memory. Interrupts off, on
 * the running CPU; s no debug cache.
 */
unsigned int slub_refill_sheaf(struct kmem_cache *s, struct slub_sheaf *sh, unsigned int want)
{
	struct kmem_cache_cpu *c = slub_this_cpu(s);
	unsigned int start = sh->size;

	/*
	 * Never called without sheaves; saying so leaves cpu_new_slab one
	 * caller there, inlined into slab_alloc_slow as before sheaves.
	 */
	if (!CONFIG_SLUB_SHEAVES)
		return 0;
	assert_irqs_disabled();
	this_cpu_inc(slub_events);
	while (sh->size < want) {
		void *v = READ_ONCE(c->freelist), *x;

		if (slub_is_end(v)) {
			x = v == SLUB_NO_SLAB ? NULL : cpu_refill(s, c, v);
			if (!x)
				x = cpu_new_slab(s, c, sh, want);
			if (!x)
				break;
			sh->objects[sh->size++] = x;
			continue;
		}
		{
			unsigned long n = sh->size;
			void **objs = sh->objects;
			const uintptr_t secret = s->fp_secret;	/* in locals, as the stores */
			const unsigned int offset = s->offset;	/* could alias s */

			do {
				const uintptr_t *slot = (const uintptr_t *)((char *)v + offset);

				objs[n++] = v;
				v = (void *)(*slot ^ slub_fp_key_of(secret, slot));
			} while (!slub_is_end(v) && n < want);
			sh->size = n;
		}
		slub_cpu_set(c, v, false);
	}
	stat(s, sheaf_refills, 1);
	return sh->size - start;
}

/*
 * slub_node_spare - whether the first max(min_partial, cpu_partial) slabs
 * on node n's list (n a node of s), not counting 'self', are all ready (slab_ready): then
 * an empty slab may go back to the buddy allocator. Linux frees it once
 * the node has min_partial partial slabs of any kind. Here slabs that are
 * not ready cannot be allocated from, and a CPU that only frees sends its
 * partial list to the node in batches of cpu_partial mostly empty slabs:
 * with Linux's rule the host's producer/consumer pair made and freed 16-22
 * thousand slabs per 500 thousand objects (kmalloc-512), 0.4 thousand with
 * this one. 'self' (NULL: none) is an empty slab on the list, or not on it.
 * Node lock held.
 *
 * The walk is remembered in node.ready_front: a slab on the node's list
 * only gains free objects (allocation takes it off the list first, but for
 * debug caches, which reset the count), so the first ready_front slabs stay
 * ready until one leaves the list, when the count drops by one
 * (slub_node_unlist), or an empty slab goes to the front, when it rises by
 * one. With 'want' known (one more when self is on the list), no walk: an 8 KiB kmalloc/kfree loop
 * freeing every fourth object's slab walked 12 slabs for each (53 of its
 * 208 instructions per free on the host).
 */
bool slub_node_spare(struct kmem_cache *s, struct kmem_cache_node *n, const struct page *self)
{
	unsigned int ready = 0, front = 0, want = MAX(s->min_partial, s->cpu_partial);
	struct page *page;

	assert_spin_locked(&n->list_lock);
	if (n->ready_front >= want + (self != NULL))	/* self may be one of them */
		return true;
	list_for_each_entry(page, &n->partial, lru) {
		if (ready == want)
			break;
		if (page != self && !slab_ready(s, page))
			break;
		front++;		/* self is empty, so ready too */
		ready += page != self;
	}
	n->ready_front = front;
	return ready == want;
}

/* slub_node_unlist - take page off n's list (n's lock held): see slub_node_spare. */
void slub_node_unlist(struct kmem_cache_node *n, struct page *page)
{
	assert_spin_locked(&n->list_lock);
	list_del(&page->lru);
	n->nr_partial--;
	if (n->ready_front)
		n->ready_front--;
}

/*
 * Where an unfrozen slab goes, its own node n's lock held: 'counters' is its new
 * state. Empty: onto 'discard' (freed once the lock is dropped) if the node
 * has slub_node_spare, else the front of the node's list (so that the
 * node keeps max(min_partial, cpu_partial) empty slabs at most); any other
 * free object: the tail of the node's list; full: nowhere.
 */
static __always_inline void place_unfrozen(struct kmem_cache *s, struct kmem_cache_node *n, struct page *page,
			   unsigned long counters, struct list_head *discard)
{
	assert_spin_locked(&n->list_lock);
	if (slub_inuse(counters) == 0 && slub_node_spare(s, n, NULL)) {
		list_add(&page->lru, discard);
	} else if (slub_inuse(counters) == 0) {
		list_add(&page->lru, &n->partial);
		n->nr_partial++;
		n->ready_front++;	/* empty, so ready */
	} else if (slub_inuse(counters) < s->num) {
		list_add_tail(&page->lru, &n->partial);
		n->nr_partial++;
	}
}

/*
 * Unfreeze the slabs on p's partial list onto their nodes, but keep up to
 * 'keep' ready ones (slab_ready), at the front. Interrupts off; *held is
 * the node lock held (slub_node_lock: each slab's node's in turn).
 */
static __always_inline void unfreeze_partials(struct kmem_cache *s,
					      struct kmem_cache_cpu_partial *p,
			      struct kmem_cache_node **held, struct list_head *discard,
			      unsigned int keep)
{
	struct list_head kept = LIST_HEAD_INIT(kept);
	unsigned int nr_kept = 0, nid = NUMA_NO_NODE;
	struct kmem_cache_node *n = NULL;

	while (!list_empty(&p->partial)) {
		struct page *page = list_first_entry(&p->partial, struct page, lru);
		unsigned long counters;
		void *prior;

		if (nr_kept < keep && slab_ready(s, page)) {
			list_move_tail(&page->lru, &kept);
			nr_kept++;
			continue;
		}
		list_del(&page->lru);
		if (slub_slab_nid(page) != nid) {	/* a node per run of slabs, not per slab */
			nid = slub_slab_nid(page);
			n = slub_node_of(s, page);
			slub_node_lock(held, n);
		}
		do {
			prior = READ_ONCE(page->slub_freelist);
			counters = READ_ONCE(page->counters);
			BUG_ON(!slub_frozen(counters) || slub_is_end(prior));
		} while (!slub_page_cmpxchg(s, page, (unsigned long)prior, counters,
					      (unsigned long)prior, counters & ~SLUB_FROZEN));
		place_unfrozen(s, n, page, counters & ~SLUB_FROZEN, discard);
		stat(s, unfrozen, 1);
	}
	while (!list_empty(&kept))
		list_move_tail(kept.next, &p->partial);
	p->nr_partial = nr_kept;
}

/*
 * Give back c's CPU slab: its CPU freelist goes onto the page freelist and
 * the slab is unfrozen and placed, under its node's lock (made *held,
 * slub_node_lock). Interrupts off; c is the running CPU's pair or (remote)
 * one of an idle cache.
 */
static void cpu_deactivate(struct kmem_cache *s, struct kmem_cache_cpu *c, bool remote,
			   struct kmem_cache_node **held, struct list_head *discard)
{
	void *v = READ_ONCE(c->freelist), *tail = NULL, *prior;
	unsigned long counters, new;
	struct kmem_cache_node *n;
	unsigned int cnt = 0;
	struct page *page;

	if (v == SLUB_NO_SLAB)
		return;
	slub_cpu_set(c, SLUB_NO_SLAB, remote);
	page = slub_page(s, v);
	n = slub_node_of(s, page);
	slub_node_lock(held, n);
	for (void *o = v; !slub_is_end(o); o = slub_get_fp(s, o)) {
		tail = o;
		BUG_ON(++cnt > s->num);
	}
	for (;;) {
		prior = READ_ONCE(page->slub_freelist);
		counters = READ_ONCE(page->counters);
		BUG_ON(!slub_frozen(counters) || slub_inuse(counters) < cnt);
		if (tail)
			slub_set_fp(s, tail, prior);
		new = (counters - cnt) & ~SLUB_FROZEN;
		if (slub_page_cmpxchg(s, page, (unsigned long)prior, counters,
					(unsigned long)(tail ? v : prior), new))
			break;
		stat(s, page_retries, 1);
	}
	place_unfrozen(s, n, page, new, discard);
	stat(s, flushes, 1);
}

/*
 * p, this CPU's partial list, is full: send it to the nodes but for
 * cpu_partial / 2 ready slabs, and top it up from the CPU's node's ready
 * ones. Out of line: the common case keeps no frame. Interrupts off.
 */
static __noinline void put_cpu_partial_flush(struct kmem_cache *s,
					     struct kmem_cache_cpu_partial *p)
{
	struct list_head discard = LIST_HEAD_INIT(discard);
	struct kmem_cache_node *held = NULL, *n = slub_local_node(s);

	stat(s, node_locks, 1);
	slub_node_lock(&held, n);	/* first: the CPU's slabs are mostly its node's */
	unfreeze_partials(s, p, &held, &discard, s->cpu_partial / 2);
	slub_node_lock(&held, n);
	node_take(s, n, p, false, s->cpu_partial / 2 - p->nr_partial, false);
	slub_node_unlock(&held);
	slub_discard_list(s, &discard);
}

/*
 * slub_put_cpu_partial - a free froze the full slab 'page' for this CPU:
 * put it at the tail of this CPU's partial list, first sending the list to
 * the nodes if it is full (all but cpu_partial / 2 ready slabs, topped up
 * from the CPU's node: put_cpu_partial_flush). Interrupts on or off.
 */
void slub_put_cpu_partial(struct kmem_cache *s, struct page *page)
{
	unsigned long flags = arch_irq_save();
	struct kmem_cache_cpu_partial *p = &s->cpu[smp_processor_id()];

	this_cpu_inc(slub_events);
	if (p->nr_partial >= s->cpu_partial)
		put_cpu_partial_flush(s, p);
	list_add_tail(&page->lru, &p->partial);
	p->nr_partial++;
	stat(s, cpu_partial_free, 1);
	arch_irq_restore(flags);
}

/*
 * slub_flush_cpu - give back cpu's CPU slab and partial slabs of s to the
 * node. cpu is the running CPU, or any CPU when no CPU uses s (destroy).
 * Interrupts on or off, no lock held.
 */
void slub_flush_cpu(struct kmem_cache *s, unsigned int cpu)
{
	struct list_head discard = LIST_HEAD_INIT(discard);
	bool remote = cpu != smp_processor_id();
	struct kmem_cache_cpu_partial *p = &s->cpu[cpu];
	struct kmem_cache_cpu *c = slub_cpu_of(s, cpu);
	unsigned long flags;

	flags = arch_irq_save();
	slub_sheaves_release_cpu(s, cpu);
	if (READ_ONCE(c->freelist) != SLUB_NO_SLAB || p->nr_partial) {
		struct kmem_cache_node *held = NULL;

		this_cpu_inc(slub_events);
		stat(s, node_locks, 1);
		cpu_deactivate(s, c, remote, &held, &discard);
		unfreeze_partials(s, p, &held, &discard, 0);
		slub_node_unlock(&held);
		slub_discard_list(s, &discard);
	}
	arch_irq_restore(flags);
}

/* kmem_cache_drain_local: see slab.h. */
void kmem_cache_drain_local(struct kmem_cache *cachep)
{
	if (slab_cache_refused(cachep, "kmem_cache_drain_local", CONFIG_SLAB_DEBUG))
		return;
	slub_flush_cpu(cachep, smp_processor_id());
}

/* slab_drain_local_all: see slab.h. */
void slab_drain_local_all(void)
{
	struct kmem_cache *s;
	unsigned long flags;

	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(s, &slab_caches, list)
		kmem_cache_drain_local(s);
	if (slub_sheaf_cache)	/* again: the other caches' sheaves went there meanwhile */
		kmem_cache_drain_local(slub_sheaf_cache);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

/* kmem_cache_shrink: see slab.h. */
int kmem_cache_shrink(struct kmem_cache *cachep)
{
	if (slab_cache_refused(cachep, "kmem_cache_shrink", CONFIG_SLAB_DEBUG))
		return -EINVAL;
	slub_barn_flush(cachep);
	kmem_cache_drain_local(cachep);
	if (slub_sheaf_cache && cachep->sheaf_capacity) {	/* the sheaves just freed */
		kmem_cache_drain_local(slub_sheaf_cache);
		slub_node_release_empty(slub_sheaf_cache);
	}
	slub_node_release_empty(cachep);
	return slub_nr_slabs(cachep, false) ? 1 : 0;
}

/* Drop the locks of s's nodes below 'below'. */
static void unlock_nodes(struct kmem_cache *s, unsigned int below)
{
	for (unsigned int nid = 0; nid < below; nid++)
		spin_unlock(&s->node[nid].list_lock);
}

/*
 * Trylock every node of s, ascending: true with all held, false with none
 * (the reap may interrupt a holder on this CPU, so it never waits).
 */
static bool trylock_nodes(struct kmem_cache *s)
{
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
		if (!spin_trylock(&s->node[nid].list_lock)) {
			unlock_nodes(s, nid);
			return false;
		}
	}
	return true;
}

/* One cache on this CPU's reap pass (see above). Interrupts off. */
static bool reap_cache(struct kmem_cache *s, void *unused)
{
	struct list_head discard = LIST_HEAD_INIT(discard);
	struct kmem_cache_cpu_partial *p = &s->cpu[smp_processor_id()];
	struct kmem_cache_cpu *c = slub_this_cpu(s);
	struct kmem_cache_node *held = NULL;
	unsigned long tid = READ_ONCE(c->tid);
	void *freelist = READ_ONCE(c->freelist);
	bool idle, worked = slub_sheaves_reap(s);

	(void)unused;
	tid = READ_ONCE(c->tid);	/* the sheaves' flush may have changed the pair */
	freelist = READ_ONCE(c->freelist);
	idle = tid == p->reap_tid && freelist == p->reap_freelist;
	p->reap_tid = tid;
	p->reap_freelist = freelist;
	if (idle && (READ_ONCE(c->freelist) != SLUB_NO_SLAB || p->nr_partial) &&
	    trylock_nodes(s)) {
		held = SLUB_NODES_ALL;
		cpu_deactivate(s, c, false, &held, &discard);
		unfreeze_partials(s, p, &held, &discard, 0);
		unlock_nodes(s, MAX_NUMNODES);
		p->reap_tid = READ_ONCE(c->tid);
		p->reap_freelist = READ_ONCE(c->freelist);
		worked = true;
	}
	/* Every node's empty slabs (nodes without CPUs have none to reap them). */
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
		struct kmem_cache_node *n = &s->node[nid];

		if (nid && !numa_node_online(nid))
			continue;
		if (!spin_trylock(&n->list_lock))
			continue;
		if (++n->reap_visits >= 2) {
			n->reap_visits = 0;
			if (n->alloc_touched)
				n->alloc_touched = 0;
			else
				worked |= slub_take_empty(n, &discard, ~0UL) != 0;
		}
		spin_unlock(&n->list_lock);
	}
	slub_discard_list(s, &discard);
	return worked;
}

/* slab_reap: see slab.h. */
void slab_reap(void)
{
	slub_nodes_check();	/* before the lock: a refresh takes it */
	if (slab_state == SLAB_UP && slab_caches_try_each(reap_cache, NULL, NULL)) {
		this_cpu_inc(slub_events);
		__atomic_fetch_add(&reap_events, 1, __ATOMIC_RELAXED);
	}
}

static void drain_local_cb(void *unused)
{
	(void)unused;
	slab_drain_local_all();
}

/* slab_drain_all: see slab.h. */
void slab_drain_all(void)
{
	struct kmem_cache *s;
	unsigned long flags;

	on_each_cpu_wait(drain_local_cb, NULL);
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(s, &slab_caches, list) {
		slub_barn_flush(s);
		slub_flush_cpu(s, smp_processor_id());	/* what the barn's objects froze */
		slub_node_release_empty(s);
	}
	if (slub_sheaf_cache) {	/* last: the barns' sheaves went there */
		slub_flush_cpu(slub_sheaf_cache, smp_processor_id());
		slub_node_release_empty(slub_sheaf_cache);
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	drain_all_pages();
}
