/*
 * slab_cpu.c - the per-CPU array caches and the nodes' shared arrays: what
 * SLAB's fast paths (inline in mm/slab/slab_def.h) fall back on, and
 * refilling, flushing and draining the arrays (making and freeing them,
 * and the nodes: mm/slab/slab_array.c).
 *
 * Each cache has one struct array_cache per CPU (cachep->cpu_array[cpu]), a
 * stack of up to 'limit' object pointers, made on the CPU's first use of the
 * cache (until then the slot holds the empty slab_no_array): CPUs that never
 * use a cache cost it nothing. Allocation pops the running CPU's array and
 * clears the object's free mark; free marks the object and pushes it (an
 * object already marked goes to the slow path, which refuses it if it is
 * free anywhere: a double free; see SLAB_FREE_MARK in slab_def.h). Only
 * the owning CPU touches an array, with interrupts off, so an interrupt
 * handler that allocates on the same CPU runs wholly before or after an
 * array operation: the array needs no lock.
 *
 * Every CPU refills from its own memory node (mm/slab/slab_def.h) and grows
 * slabs there; objects go back to their home node. A full array sends its
 * oldest batch home: on a machine of several nodes, objects of other nodes
 * into this CPU's alien caches (mm/slab/slab_alien.c) and its own node's
 * under that node's lock; on one node (or SLAB_NODE_PER_CPU=1) a run of
 * one home at a time under that node's lock: into the node's shared array while it has room (Linux SLAB's
 * 'shared', shared * batchcount objects), else onto the slabs. An empty
 * array takes a batch from its node's shared array before it looks at
 * slabs. Copying pointers to and from a shared array leaves slab freelists
 * alone, so producer/consumer CPUs trade objects cheaply: the consumer's
 * frees land in the producer's shared array, which the producer refills
 * from. A node gets its shared array when a full array first sends objects
 * home to it, its own CPU's included: an array too small for a burst (more
 * live objects of a size than its limit, freed together) then trades with
 * the shared array, copying pointers, where it would put each object back
 * on its slab and take it off again (host prodcons, one thread: 15 fewer
 * instructions per allocation + free). Linux makes it per node at once;
 * CPUs that never overflow an array cost nothing here.
 *
 * A shared array grows while its cache swings (cache_grow_shared): when a
 * flush found it full (the rest of the batch, scattered over slabs, went to
 * the slabs: runs of one slab, freed in the order handed out, go and come
 * back cheaply and do not count, nor does a cache of one object per slab:
 * the first overflow after a refill from the slabs looks, SHARED_IN_RUNS
 * says it did), then a
 * CPU array was refilled from the slabs (what went there came back:
 * node->shared_swing), the next flush that finds it full doubles it, up to
 * cache_shared_max (SLAB_SHARED_GROW_OBJS entries, SLAB_SHARED_GROW_BYTES),
 * while the node has free pages to spare, so that a burst of frees that an
 * equal burst of allocations follows trades pointers instead of going
 * through the slabs both ways. A cache that only fills and then empties
 * never grows it. kmem_cache_shrink frees the array (the next one starts
 * at the first size); the reap drains an idle one a fifth at a time; when
 * a new slab finds no pages, every other cache's shared arrays give their
 * objects back first (slab_shared_trim). Linux's shared arrays have a
 * fixed size (slabinfo's tunables).
 *
 * Empty array, nothing shared: refill up to 'batchcount' objects (16 while
 * untouched) from the node's partial, then free slabs. Not enough there:
 * grow (seed 001), as many new slabs as the rest of the batch needs, taking
 * this CPU's objects from each while it is private, without the node lock,
 * and only then publishing it
 * (CONFIG_SLAB_GROW_LOCKED publishes first and takes the batch under the
 * lock: seed 001's "before"). No memory for a slab: take objects from the
 * other nodes before giving up. Empty slabs beyond a node's free_limit go
 * back to the buddy allocator once its lock is dropped.
 *
 * kfree finds the object's cache in slab_cache_map (a word per page:
 * slab_def.h) and this CPU's array in the cache, as Linux looks the array
 * up every time.
 *
 * Lock order: interrupts off -> slab_caches_lock (slab_shared_trim) -> one
 * node's list_lock -> zone lock. A whole
 * allocation or free runs with interrupts off (nothing here sleeps). A CPU
 * drains only its own array (slab_reap and slab_drain_all run on each CPU).
 * Debug caches, boot, and a CPU busy making or dropping arrays go to and
 * from the slabs one object at a time under the node lock.
 */
#include "mm/slab_impl.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "mm/fault_inject.h"

struct array_cache slab_no_array;
/* Slow-path operations on this CPU that moved objects to or from slabs. */
static DEFINE_PER_CPU(unsigned long, slab_events);

static void copy_ptrs(void **dst, void *const *src, unsigned long n);

static inline struct array_cache *cpu_array(struct kmem_cache *cachep)
{
	return cachep->cpu_array[smp_processor_id()];
}

/* slab_count_event - count one slow-path operation on this CPU. Interrupts off. */
void slab_count_event(void)
{
	ASSERT_DEBUG(arch_irqs_disabled());
	this_cpu_inc(slab_events);
}

/* slab_cpu_events: see slab.h. */
unsigned long slab_cpu_events(unsigned int cpu)
{
	return READ_ONCE(per_cpu(slab_events, cpu));
}

/*
 * Out of memory for a new slab: take up to max objects from the other
 * nodes' shared arrays and slabs, nearest first, one node lock at a time.
 * They stay homed where they are and go back there when freed. Interrupts off.
 */
static unsigned int cache_take_elsewhere(struct kmem_cache *cachep, void **out, unsigned int max)
{
	unsigned int order[SLAB_NODES], got = 0;
	unsigned int nr = slab_nodes_by_distance(slab_cpu_node(cachep), order);

	for (unsigned int i = 1; i < nr && !got; i++) {
		unsigned int nid = order[i];
		struct kmem_cache_node *n = READ_ONCE(cachep->node[nid]);
		struct array_cache *sh;

		if (!n)
			continue;
		spin_lock(&n->list_lock);
		sh = n->shared;
		if (sh && sh->avail) {
			got = MIN(max, (unsigned int)sh->avail);
			for (unsigned int k = 0; k < got; k++)
				out[k] = sh->entry[sh->avail - k];
			sh->avail -= got;
		} else {
			got = cache_take_from_lists(cachep, nid, out, max);
		}
		spin_unlock(&n->list_lock);
	}
	return got;
}

/*
 * One object straight from this CPU's node or a new slab (no array). A
 * cache without arrays (debug) on several memory nodes makes the CPU's
 * node here, as cache_make_array does for the others. Interrupts off.
 */
static void *cache_alloc_one(struct kmem_cache *cachep)
{
	unsigned int mine = slab_node_of_cpu(smp_processor_id()), nid, got;
	struct kmem_cache_node *n;
	struct page *page;
	void *objp = NULL;

	if (!CONFIG_SLAB_NODE_PER_CPU && mine && !READ_ONCE(cachep->node[mine]) &&
	    slab_state == SLAB_UP && !cachep->min_of && !slab_cpu_arrayless())
		cache_make_node_at(cachep, mine);
	nid = slab_cpu_node(cachep);
	n = cachep->node[nid];

	spin_lock(&n->list_lock);
	got = cache_take_from_lists(cachep, nid, &objp, 1);
	spin_unlock(&n->list_lock);
	slab_count_event();
	if (got)
		return objp;
	page = cache_grow_begin(cachep, nid);
	if (page)
		slab_take_objs(cachep, page, &objp, 1);
	cache_grow_end(cachep, page);
	if (!page)
		cache_take_elsewhere(cachep, &objp, 1);
	return objp;
}

/*
 * Are objs[0..n) scattered over slabs: a quarter or more of them without a
 * neighbour of their own slab (a slab is a buddy block aligned to its size:
 * one shift says whether two objects share one)? A cache of one object per
 * slab is not: each object is a slab, whatever the order.
 */
static bool scattered(const struct kmem_cache *cachep, void *const *objs, unsigned int n)
{
	const unsigned int shift = PAGE_SHIFT + cachep->order;
	unsigned int alone = 0;

	if (cachep->num == 1)
		return false;
	for (unsigned int i = 0; i < n; i++) {
		uintptr_t x = (uintptr_t)objs[i] >> shift;

		alone += (i == 0 || (uintptr_t)objs[i - 1] >> shift != x) &&
			 (i + 1 == n || (uintptr_t)objs[i + 1] >> shift != x);
	}
	return 4 * alone >= n;
}

/*
 * cache_free_home - send objs[0..n) home: the node of the first object's
 * slab takes, under its lock, as many as its shared array has room for
 * when to_shared (whatever their homes: callers on several memory nodes
 * pass one home's objects only, so that a shared array holds its node's),
 * then on its slabs the following objects homed there; the rest goes round
 * again to the next object's home. Interrupts off, no node lock held.
 */
void cache_free_home(struct kmem_cache *cachep, void *const *objs, unsigned int n,
			    bool to_shared)
{
	while (n) {
		struct list_head release = LIST_HEAD_INIT(release);
		unsigned int nid = slab_node_id(slab_head_page(objs[0])), k = 0;
		struct kmem_cache_node *node = cachep->node[nid];
		struct array_cache *sh;

		spin_lock(&node->list_lock);
		sh = node->shared;
		if (to_shared && sh) {
			k = MIN(n, (unsigned int)(sh->limit - sh->avail));
			copy_ptrs(&sh->entry[sh->avail + 1], objs, k);
			sh->avail += k;
			stat(cachep, shared_flushed, k);
			/*
			 * Full: the rest goes to the slabs. The first time since a
			 * refill from the slabs, see whether it is scattered over
			 * slabs (then taking it back costs as much again) or in runs
			 * (freed in the order handed out: cheap both ways).
			 */
			if (k < n && node->shared_swing == SHARED_CALM)
				node->shared_swing = scattered(cachep, objs + k, n - k) ? SHARED_FLUSHED
										     : SHARED_IN_RUNS;
		}
		if (k < n)
			k += cache_free_objs(cachep, nid, objs + k, n - k, &release);
		spin_unlock(&node->list_lock);
		/* Stats builds only: the per-CPU read in slab_cpu_node is never dropped by itself. */
		if (CONFIG_SLAB_STATS && nid != slab_cpu_node(cachep))
			stat(cachep, flushed_remote, k);
		slabs_release(cachep, &release);
		objs += k;
		n -= k;
	}
}

/* One object straight back to its slab (no array). Interrupts off. */
static void cache_free_one(struct kmem_cache *cachep, void *objp)
{
	cache_free_home(cachep, &objp, 1, false);
	slab_count_event();
}

/*
 * copy_ptrs - copy n pointers from src to dst, front to back (so dst may
 * overlap src from below). Four at a time; the barriers keep the compiler
 * from turning the loop into a call to the kernel's byte-wise memmove.
 */
static void copy_ptrs(void **dst, void *const *src, unsigned long n)
{
	unsigned long i = 0;

	for (; i + 4 <= n; i += 4) {
		void *a = src[i], *b = src[i + 1], *c = src[i + 2], *d = src[i + 3];

		barrier();
		dst[i] = a;
		dst[i + 1] = b;
		dst[i + 2] = c;
		dst[i + 3] = d;
		barrier();
	}
	for (; i < n; i++) {
		dst[i] = src[i];
		barrier();
	}
}

/* Drop the n oldest objects (entry[1..n]) of ac, sliding the rest down. */
static void ac_remove_oldest(struct array_cache *ac, unsigned int n)
{
	ac->avail -= n;
	copy_ptrs(&ac->entry[1], &ac->entry[1 + n], ac->avail);
}

/* Move the n newest objects of from (n <= from->avail) on top of to. Node lock held. */
static void ac_transfer(struct array_cache *to, struct array_cache *from, unsigned int n)
{
	copy_ptrs(&to->entry[to->avail + 1], &from->entry[from->avail - n + 1], n);
	from->avail -= n;
	to->avail += n;
}

/*
 * The array is empty: refill it from this CPU's node (shared array, then
 * slabs), a new slab, or at worst the other nodes, then pop one object.
 * NULL when memory is out. Interrupts off.
 */
static void *cache_alloc_refill(struct kmem_cache *cachep, struct array_cache *ac)
{
	unsigned int nid = slab_cpu_node(cachep);
	struct kmem_cache_node *n = cachep->node[nid];
	unsigned int batch = ac->batchcount;
	struct array_cache *shared;
	struct page *page;
	bool from_shared = false;

	if (!ac->touched && batch > BATCHREFILL_LIMIT)
		batch = BATCHREFILL_LIMIT;
	BUG_ON(ac->avail != 0);

	spin_lock(&n->list_lock);
	shared = n->shared;
	if (shared && shared->avail) {
		batch = MIN(batch, shared->avail);
		ac_transfer(ac, shared, batch);
		shared->touched = 1;
		from_shared = true;
		stat(cachep, shared_refilled, batch);
	} else {
		ac->avail = cache_take_from_lists(cachep, nid, &ac->entry[1], batch);
		if (n->shared_swing == SHARED_FLUSHED)	/* what went to the slabs comes back */
			n->shared_swing = SHARED_SWINGS;
		else if (n->shared_swing == SHARED_IN_RUNS)
			n->shared_swing = SHARED_CALM;	/* the next overflow looks again */
	}
	spin_unlock(&n->list_lock);
	stat(cachep, refilled, ac->avail);
	slab_count_event();

#if CONFIG_SLAB_GROW_LOCKED
	/*
	 * Seed 001's "before": publish the new slab first, then take the batch
	 * under the lock, growing again if other CPUs emptied it meanwhile.
	 */
	(void)from_shared;
	while (!ac->avail) {
		page = cache_grow_begin(cachep, nid);
		if (!page) {
			ac->avail = cache_take_elsewhere(cachep, &ac->entry[1], batch);
			stat(cachep, refilled, ac->avail);
			if (!ac->avail)
				return NULL;
			break;
		}
		cache_grow_end(cachep, page);
		/* The slab's home: another node's when this one had no pages. */
		n = cachep->node[slab_node_id(page)];
		spin_lock(&n->list_lock);
		ac->avail = cache_take_from_lists(cachep, slab_node_id(page), &ac->entry[1], batch);
		spin_unlock(&n->list_lock);
		stat(cachep, refilled, ac->avail);
	}
#else
	/*
	 * Seed 001: fill the array from new slabs before anyone can see them,
	 * as many as the batch needs (a slab of large objects holds fewer
	 * than a batch: each refill making one slab would send every few
	 * allocations to the page allocator).
	 */
	if (ac->avail < batch && !from_shared) {
		while (ac->avail < batch) {
			unsigned int got;

			page = cache_grow_take(cachep, nid, &ac->entry[1 + ac->avail],
					       batch - (unsigned int)ac->avail, &got);
			if (!page)
				break;
			ac->avail += got;
			stat(cachep, grown_batch, got);
			cache_grow_end(cachep, page);
		}
		if (!ac->avail) {
			ac->avail = cache_take_elsewhere(cachep, &ac->entry[1], batch);
			stat(cachep, refilled, ac->avail);
		}
		if (!ac->avail)
			return NULL;
	}
#endif
	ac->touched = 1;
	return ac->entry[ac->avail--];
}

/*
 * One object from cachep's min-order twin (see slab_def.h): its node's
 * slabs or a new min-order slab. NULL when memory is out. Interrupts off.
 */
static void *cache_alloc_min(struct kmem_cache *cachep)
{
	struct kmem_cache *t = cachep->min_cache;
	void *objp = cache_alloc_one(t);

	if (objp) {
		if (slab_debug_on(t))
			slab_debug_alloc(t, objp);
		stat(cachep, alloc_min, 1);
	}
	return objp;
}

/* cache_alloc_slow: see slab_def.h. */
void *cache_alloc_slow(struct kmem_cache *cachep, unsigned long irqflags)
{
	struct array_cache *ac = cpu_array(cachep);
	void *objp;

	if (unlikely(fault_attr_on(&failslab)) && __should_fail(&failslab)) {
		arch_irq_restore(irqflags);	/* failslab: fail before touching the cache */
		return NULL;
	}
	if (unlikely(slab_debug_on(cachep))) {
		objp = cache_alloc_one(cachep);
		if (objp)
			slab_debug_alloc(cachep, objp);
		goto out;
	}
	if (ac == &slab_no_array) {
		ac = cache_make_array(cachep);
		if (!ac) {
			objp = cache_alloc_one(cachep);
			goto out;
		}
	}
	stat(cachep, alloc_misses, 1);
	if (unlikely(ac->avail)) {	/* failslab on, or a new array filled by a nested alloc */
		ac->touched = 1;
		objp = ac->entry[ac->avail--];
	} else
		objp = cache_alloc_refill(cachep, ac);
out:
	if (unlikely(!objp) && cachep->min_cache)
		objp = cache_alloc_min(cachep);	/* no slab of the cache's order */
	if (likely(objp)) {
		if (!slab_debug_on(cachep))
			*slab_mark(objp, cachep->mark_off) = 0;	/* handed out: not free */
		stat(cachep, shared.allocs, 1);
	}
	arch_irq_restore(irqflags);
	return objp;
}

/*
 * cache_make_shared - give node nid (made) its shared array, unless another
 * CPU got there first; no memory: it stays without one. Interrupts off
 * (asserted in the builds that check). Here, beside its one caller, which
 * inlines it: out of line (in slab_array.c), or with an always-on assert,
 * it changed the registers of cache_flusharray's path, an instruction more
 * per flush.
 */
static void cache_make_shared(struct kmem_cache *cachep, unsigned int nid)
{
	struct kmem_cache_node *n = cachep->node[nid];
	struct array_cache *sh;

	ASSERT_DEBUG(arch_irqs_disabled());
	sh = cache_array_alloc(cachep, cachep->shared * cachep->batchcount, cachep->batchcount);
	if (!sh)
		return;
	spin_lock(&n->list_lock);
	if (!n->shared) {
		n->shared = sh;
		n->shared_swing = SHARED_CALM;
		sh = NULL;
	}
	spin_unlock(&n->list_lock);
	kfree(sh);
}

/*
 * cache_grow_shared - node nid's shared array cannot take the next batch,
 * and the cache swings (a flush found it full, then a CPU array was
 * refilled from the slabs: what a flush sends to the slabs comes back):
 * double it, up to cache_shared_max, while the node has free pages to
 * spare (16 times what the growth may hold), copying what it holds; the
 * old array is freed. No memory: it stays as it is. Interrupts off, no
 * node lock held.
 */
static void cache_grow_shared(struct kmem_cache *cachep, unsigned int nid, unsigned int batch)
{
	struct kmem_cache_node *n = cachep->node[nid];
	struct array_cache *sh = READ_ONCE(n->shared), *old;
	unsigned int limit;

	if (!sh || READ_ONCE(sh->avail) + batch <= sh->limit)
		return;
	limit = MIN(2 * sh->limit, cache_shared_max(cachep));
	if (limit <= sh->limit ||
	    nr_free_pages_node(nid) < 16 * (((unsigned long)(limit - sh->limit) * cachep->size) >> PAGE_SHIFT)) {
		WRITE_ONCE(n->shared_swing, SHARED_CALM);	/* as big as it gets: flush as before */
		return;
	}
	sh = cache_array_alloc(cachep, limit, cachep->batchcount);
	if (!sh)
		return;
	spin_lock(&n->list_lock);
	old = n->shared;
	if (old && old->limit < limit) {
		copy_ptrs(&sh->entry[1], &old->entry[1], old->avail);
		sh->avail = old->avail;
		sh->touched = old->touched;
		n->shared = sh;
		n->shared_swing = SHARED_CALM;
		sh = old;
		stat(cachep, shared_grown, 1);
	}
	spin_unlock(&n->list_lock);
	kfree(sh);
}

/*
 * The array is full: send its oldest batch home, shared arrays first. The
 * first time objects go home to a node, that node gets its shared array
 * (made before the batch is taken: making it may allocate from this very
 * array). Interrupts off.
 */
static void cache_flusharray(struct kmem_cache *cachep, struct array_cache *ac)
{
	unsigned int nid = slab_node_id(slab_head_page(ac->entry[1])), batch;

	if (cachep->shared && !READ_ONCE(cachep->node[nid]->shared))
		cache_make_shared(cachep, nid);
	batch = MIN(ac->batchcount, ac->avail);
	if (!batch)
		return;
	if (unlikely(READ_ONCE(cachep->node[nid]->shared_swing) == SHARED_SWINGS))
		cache_grow_shared(cachep, nid, batch);
	ac->touched = 1;	/* in use: the reap leaves it alone once */
	if (slab_numa_on())
		cache_flush_sorted(cachep, &ac->entry[1], batch);	/* others' to aliens */
	else
		cache_free_home(cachep, &ac->entry[1], batch, true);
	ac_remove_oldest(ac, batch);
	stat(cachep, flushed, batch);
	slab_count_event();
}

/* Is objp among the first avail entries of ac (read racily for other CPUs' arrays)? */
static bool ac_holds(const struct array_cache *ac, const void *objp)
{
	unsigned long avail = MIN(READ_ONCE(ac->avail), ac->limit);

	for (unsigned long i = 1; i <= avail; i++)
		if (READ_ONCE(ac->entry[i]) == objp)
			return true;
	return false;
}

/* Is objp on its slab's free stack (freelist[active..num-1])? Its node's lock held. */
static bool on_slab_freelist(struct kmem_cache *cachep, struct page *head, const void *objp)
{
	const freelist_idx_t *fl = slab_freelist(head);
	unsigned int idx = slab_obj_index(cachep, head, objp);

	if (!fl)
		return false;	/* IN_OBJ and full: nothing free */
	for (unsigned int i = head->active; i < cachep->num; i++)
		if (fl[i] == idx)
			return true;
	return false;
}

/*
 * free_mark_where - objp carries the free mark: where is it free? The
 * running CPU's array, then its home node's shared array and its slab's
 * free stack, then every other node's shared array (any node's shared
 * array takes any object) under that node's lock, then the other CPUs'
 * arrays and every CPU's alien caches, read without their owners' cooperation (an object the caller
 * really holds is in none of them, so a stale read cannot accuse it).
 * Returns the report, or NULL if it is free nowhere: the caller wrote the
 * mark's value itself and the free is good. Interrupts off, no lock held.
 */
static const char *free_mark_where(struct kmem_cache *cachep, void *objp)
{
	struct page *head = slab_head_page(objp);
	unsigned int home = slab_node_id(head), me = smp_processor_id();
	const char *what = NULL;

	if (ac_holds(cpu_array(cachep), objp))
		return "double free (already in the CPU's array)";
	for (unsigned int k = 0; k < SLAB_NODES && !what; k++) {
		unsigned int nid = (home + k) % SLAB_NODES;
		struct kmem_cache_node *n = READ_ONCE(cachep->node[nid]);

		if (!n)
			continue;
		spin_lock(&n->list_lock);
		if (n->shared && ac_holds(n->shared, objp))
			what = "double free (already in a node's shared array)";
		else if (nid == home && on_slab_freelist(cachep, head, objp))
			what = "double free (already on its slab's freelist)";
		spin_unlock(&n->list_lock);
	}
	for (unsigned int cpu = 0; cpu < NR_CPUS && !what; cpu++)
		if (cpu != me && ac_holds(READ_ONCE(cachep->cpu_array[cpu]), objp))
			what = "double free (already in another CPU's array)";
	return what ? what : cache_alien_holds(cachep, objp);
}

/* cache_free_slow: see slab_def.h. */
void cache_free_slow(struct kmem_cache *cachep, void *objp, unsigned long irqflags,
		     const char *fn)
{
	struct array_cache *ac = cpu_array(cachep);
	uintptr_t *mark = slab_mark(objp, cachep->mark_off);

	if (!slab_debug_on(cachep) && *mark == SLAB_FREE_MARK(cachep)) {
		const char *what = free_mark_where(cachep, objp);

		if (what) {
			slab_bad_free(cachep, fn, objp, what);
			goto out;
		}
	}
	if (unlikely(slab_debug_on(cachep))) {
		/* Red zones: a pointer just before s_mem passes the fast test; look again. */
		if (slab_find_head(cachep, objp, fn) && slab_debug_free(cachep, objp, fn)) {
			cache_free_one(cachep, objp);
			stat(cachep, shared.frees, 1);
		}
		goto out;
	}
	*mark = SLAB_FREE_MARK(cachep);
	if (ac == &slab_no_array) {
		ac = cache_make_array(cachep);
		if (!ac) {
			cache_free_one(cachep, objp);
			stat(cachep, shared.frees, 1);
			goto out;
		}
	}
	if (ac->avail >= ac->limit) {
		stat(cachep, free_misses, 1);
		cache_flusharray(cachep, ac);
	} else {
		stat(cachep, free_hits, 1);
	}
	ac->entry[++ac->avail] = objp;
	stat(cachep, shared.frees, 1);
out:
	arch_irq_restore(irqflags);
}

/* kmem_cache_alloc: see slab.h. failslab's test is in cache_alloc_slow (SLAB_CPU_FAILSLAB). */
void *kmem_cache_alloc(struct kmem_cache *cachep)
{
	if (CONFIG_SLAB_DEBUG && unlikely(slab_cache_refused(cachep, "kmem_cache_alloc", true)))
		return NULL;
	return slab_alloc(cachep);
}

/* slab_failslab_switch: see slab_def.h. */
void slab_failslab_switch(bool on)
{
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		WRITE_ONCE(per_cpu(slab_cpu_index, cpu), on ? SLAB_CPU_FAILSLAB : cpu);
}

/* kmem_cache_free: see slab.h. */
void kmem_cache_free(struct kmem_cache *cachep, void *objp)
{
	struct page *head;

	if (CONFIG_SLAB_DEBUG && unlikely(slab_free_cache_refused(cachep, objp)))
		return;
	if (unlikely(virt_to_cache(objp) != cachep || !cachep)) {	/* NULL objp too */
		if (objp && !cachep)
			kmem_cache_free_no_cache(objp);			/* reported, kept */
		else if (objp && (head = slab_find_head(cachep, objp, "kmem_cache_free")))
			/* past slab_cache_map, or in a min-order slab: its twin's */
			slab_free(head->slab_cache, objp, "kmem_cache_free");
		return;
	}
	slab_free(cachep, objp, "kmem_cache_free");
}

/*
 * cache_drain_oldest - send up to n of the oldest objects of *acp home, a
 * chunk at a time taken out of the array under lockn's lock, so that
 * kmem_cache_check (holding every node lock) never sees an object both in
 * an array and free on its slab. *acp is read under that lock each time (a
 * node's shared array may go meanwhile). Returns how many went. Interrupts
 * off (asserted in the builds that check), no node lock held.
 */
unsigned int cache_drain_oldest(struct kmem_cache *cachep, struct kmem_cache_node *lockn,
				 struct array_cache *const *acp, unsigned int n)
{
	unsigned int done = 0;
	void *chunk[32];

	ASSERT_DEBUG(arch_irqs_disabled());
	while (done < n) {
		struct array_cache *ac;
		unsigned int k = 0;

		spin_lock(&lockn->list_lock);
		ac = *acp;
		if (ac) {
			k = MIN(n - done, MIN((unsigned int)ac->avail, (unsigned int)ARRAY_SIZE(chunk)));
			copy_ptrs(chunk, &ac->entry[1], k);
			ac_remove_oldest(ac, k);
		}
		spin_unlock(&lockn->list_lock);
		if (!k)
			break;
		cache_free_home(cachep, chunk, k, false);
		done += k;
	}
	return done;
}

/*
 * cache_drain_array - give the n oldest objects of ac (all if fewer) back
 * to their slabs on their home nodes. Interrupts off; ac is the running
 * CPU's array (or slab_no_array), or the cache is idle everywhere, which
 * is known by its being off slab_caches (kmem_cache_destroy takes it off
 * before it drains every CPU's array). Both asserted in the builds that
 * check (ASSERT_DEBUG): another CPU's array of a listed cache would race
 * with that CPU's lock-free pushes and pops.
 */
void cache_drain_array(struct kmem_cache *cachep, struct array_cache *ac, unsigned int n)
{
	ASSERT_DEBUG(arch_irqs_disabled());
	ASSERT_DEBUG(ac == cpu_array(cachep) || ac == &slab_no_array ||
		     list_empty(&cachep->list));
	n = cache_drain_oldest(cachep, cachep->node[slab_cpu_node(cachep)], &ac, n);
	if (n) {
		stat(cachep, flushed, n);
		slab_count_event();
	}
}

/*
 * cache_drain_shared - give the n oldest objects of node nid's shared array
 * back to their slabs on their home nodes. Interrupts on or off.
 */
void cache_drain_shared(struct kmem_cache *cachep, unsigned int nid, unsigned int n)
{
	struct kmem_cache_node *node = READ_ONCE(cachep->node[nid]);
	unsigned long flags;

	if (!node)
		return;
	flags = arch_irq_save();
	if (cache_drain_oldest(cachep, node, &node->shared, n))
		slab_count_event();
	arch_irq_restore(flags);
}

/* slab_shared_trim's part for one cache: its shared arrays drained; whether they held anything. */
static bool shared_trim_cache(struct kmem_cache *cachep, void *unused)
{
	bool worked = false;

	(void)unused;
	for (unsigned int nid = 0; nid < SLAB_NODES; nid++) {
		struct kmem_cache_node *n = READ_ONCE(cachep->node[nid]);

		if (!n || !n->shared || !READ_ONCE(n->shared->avail))
			continue;
		cache_drain_shared(cachep, nid, ~0U);
		WRITE_ONCE(n->shared_swing, SHARED_CALM);
		stat(cachep, shared_trimmed, 1);
		worked = true;
	}
	return worked;
}

/*
 * slab_shared_trim - a slab of 'except' found no pages: every other
 * cache's shared arrays give their objects back to the slabs (whose empty
 * slabs beyond the node's free_limit go to the page allocator) and stop
 * growing until they swing again. True if any object went back; false,
 * with nothing done, when slab_caches_lock is held (perhaps by the code
 * an interrupt cut in on). Interrupts on or off, no lock held.
 */
bool slab_shared_trim(struct kmem_cache *except)
{
	return slab_caches_try_each(shared_trim_cache, NULL, except);
}

/*
 * cache_release_shared - drain node nid's shared array back to the slabs
 * and free it, if it is then empty (another CPU may flush into it
 * meanwhile: it then stays); the node makes another when objects next go
 * home to it. Not from interrupts.
 */
void cache_release_shared(struct kmem_cache *cachep, unsigned int nid)
{
	struct kmem_cache_node *n = READ_ONCE(cachep->node[nid]);
	struct array_cache *sh = NULL;
	unsigned long flags;

	if (!n)
		return;
	cache_drain_shared(cachep, nid, ~0U);
	flags = spin_lock_irqsave(&n->list_lock);
	if (n->shared && !n->shared->avail) {
		sh = n->shared;
		n->shared = NULL;
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	kfree(sh);
}

/* kmem_cache_drain_local: see slab.h. */
void kmem_cache_drain_local(struct kmem_cache *cachep)
{
	unsigned long flags;

	if (slab_cache_refused(cachep, "kmem_cache_drain_local", CONFIG_SLAB_DEBUG))
		return;
	flags = arch_irq_save();
	cache_drain_array(cachep, cpu_array(cachep), ~0U);
	cache_drain_aliens(cachep, smp_processor_id(), false);
	arch_irq_restore(flags);
}

/* slab_drain_local_all: see slab.h. */
void slab_drain_local_all(void)
{
	struct kmem_cache *cachep;
	unsigned long flags;

	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(cachep, &slab_caches, list)
		kmem_cache_drain_local(cachep);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}
