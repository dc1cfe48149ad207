/*
 * slab_alien.c - SLAB on several memory nodes: which node serves a CPU,
 * where a new slab's pages come from and which node it then belongs to,
 * the alien caches that carry frees of other nodes' objects home, and
 * kmem_cache_alloc_node.
 *
 * Nodes. A cache has a struct kmem_cache_node per memory node (node 0's
 * part of the cache, the others made on first use). A CPU allocates from
 * its memory node: its own node, or the nearest node with memory when its
 * own has none (slab_mem_node). A slab is made of pages asked of that node
 * (alloc_pages_node, which falls back nearest first), and belongs to the
 * node its pages are on when the cache has that node, else (a fallback to
 * a node the cache never used) to the node it was made for.
 *
 * Alien caches. The free fast path pushes any object on the running CPU's
 * array (it pays no instruction to tell nodes apart); when the array is
 * full, its oldest batch is sorted: this node's objects go to its shared
 * array or slabs as before, each other node's into this CPU's alien cache
 * for that node (struct slab_alien: a small array per remote node, made
 * on first need, hung on the CPU's array). A full alien cache goes home in one visit to its node,
 * shared array first. slab_reap drains the running CPU's alien caches on
 * every pass; kmem_cache_drain_local (so shrink), slab_drop_local_arrays
 * and kmem_cache_destroy drain them too. An object in an alien cache is
 * free (it carries the free mark), counted by its slab as in use, as an
 * object in an array is; kmem_cache_check and the double-free search look
 * at alien caches as at arrays.
 *
 * Locking. A CPU's alien caches are touched only by that CPU with
 * interrupts off, as its array, so they need no lock of their own
 * (destroy and kmem_cache_check read others' with the cache idle). Going
 * home takes the home node's list_lock, one node at a time.
 */
#include "mm/slab_impl.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "mm/fault_inject.h"

/* The topology slab_mem_node's table was built for, and the table. */
static struct {
	uint8_t online;				/* numa_topology()->online when built */
	unsigned int n_ranges;			/* and its range count */
	uint8_t mem_of[MAX_NUMNODES];		/* node -> nearest node with memory */
} slab_numa;

static bool node_has_memory(unsigned int nid)
{
	struct mem_range r;

	return numa_node_range(nid, 0, &r);
}

/* slab_nodes_by_distance: see slab_def.h. */
unsigned int slab_nodes_by_distance(unsigned int self, unsigned int *order)
{
	unsigned int nr = 0;

	if (CONFIG_SLAB_NODE_PER_CPU) {
		for (unsigned int i = 0; i < SLAB_NODES; i++)
			order[nr++] = (self + i) % SLAB_NODES;
		return nr;
	}
	order[nr++] = self;
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
		unsigned int d, at;

		if (nid == self || !numa_node_online(nid) || !node_has_memory(nid))
			continue;
		d = node_distance(self, nid);
		/* insertion: after every node nearer, or as near with a smaller id */
		for (at = nr; at > 1 && node_distance(self, order[at - 1]) > d; at--)
			order[at] = order[at - 1];
		order[at] = nid;
		nr++;
	}
	return nr;
}

bool slab_numa_multi;
uint8_t slab_cpu_nid[NR_CPUS];

/* slab_numa_generation: see slab_def.h. */
unsigned int slab_numa_generation;

/* slab_numa_refresh_slow: slab_numa_refresh's work (slab_def.h). Any context; racing callers write the same values. */
void slab_numa_refresh_slow(void)
{
	unsigned int gen = smp_load_acquire(&numa_generation);
	const struct numa_topology *t = numa_topology();
	bool multi = t->nr_nodes > 1;

	if (CONFIG_SLAB_NODE_PER_CPU)
		return;
	if (multi == READ_ONCE(slab_numa_multi) && READ_ONCE(slab_numa.online) == t->online &&
	    READ_ONCE(slab_numa.n_ranges) == t->n_ranges) {
		smp_store_release(&slab_numa_generation, gen);	/* set again, the same */
		return;
	}
	for (unsigned int n = 0; n < MAX_NUMNODES; n++) {
		unsigned int order[MAX_NUMNODES];

		/* order[0] is n itself; order[1], if any, the nearest node with memory */
		if (node_has_memory(n))
			WRITE_ONCE(slab_numa.mem_of[n], n);
		else
			WRITE_ONCE(slab_numa.mem_of[n],
				   slab_nodes_by_distance(n, order) > 1 ? order[1] : 0);
	}
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		WRITE_ONCE(slab_cpu_nid[cpu], multi ? slab_numa.mem_of[cpu_to_node(cpu)] : 0);
	WRITE_ONCE(slab_numa.online, t->online);
	WRITE_ONCE(slab_numa.n_ranges, t->n_ranges);
	smp_store_release(&slab_numa_multi, multi);
	smp_store_release(&slab_numa_generation, gen);
}

/* slab_mem_node: see slab_def.h. */
unsigned int slab_mem_node(unsigned int nid)
{
	slab_numa_refresh();
	if (!READ_ONCE(slab_numa_multi) || nid >= MAX_NUMNODES)
		return 0;
	return READ_ONCE(slab_numa.mem_of[nid]);
}

/*
 * slab_numa_grow_pages - the pages of a new slab for node *nid when slabs
 * are placed by node: asked of that node, which falls back nearest first
 * (alloc_pages_node). *nid becomes the slab's home: the node of its pages
 * when the cache has that node, else *nid as given (no node is made here:
 * a fallback under memory pressure leaves no bookkeeping behind). NULL
 * when no node has a block of the cache's order. Any context; no lock held.
 */
struct page *slab_numa_grow_pages(struct kmem_cache *cachep, unsigned int *nid)
{
	struct page *page = alloc_pages_node(*nid, cachep->order);
	unsigned int pnid;

	if (!page)
		return NULL;
	pnid = page_to_nid(page);
	if (pnid != *nid && pnid < SLAB_NODES && READ_ONCE(cachep->node[pnid]))
		*nid = pnid;
	return page;
}

/* This CPU's alien caches of cachep (hung on its array), made if need be; NULL with no memory. */
static struct slab_alien *alien_of_cpu(struct kmem_cache *cachep)
{
	struct array_cache *ac = cachep->cpu_array[smp_processor_id()];

	if (unlikely(!ac->alien) && ac != &slab_no_array)
		ac->alien = cache_alien_alloc(sizeof(*ac->alien));
	return ac->alien;
}

/*
 * This CPU's alien cache of cachep for node nid, made if need be; NULL with
 * no memory, or while the CPU is array-less (it is dropping its arrays and
 * alien caches, or making one: nothing new may appear behind it).
 */
static struct array_cache *alien_get(struct kmem_cache *cachep, unsigned int nid)
{
	struct slab_alien *al = cachep->cpu_array[smp_processor_id()]->alien;
	struct array_cache *ac;

	if (unlikely(!al || !al->ac[nid]) && slab_cpu_arrayless())
		return NULL;
	al = alien_of_cpu(cachep);
	if (!al)
		return NULL;
	ac = al->ac[nid];
	if (unlikely(!ac)) {
		ac = cache_array_alloc(cachep, SLAB_ALIEN_LIMIT, cachep->batchcount);
		if (!ac)
			return NULL;
		if (al->ac[nid]) {	/* a nested flush made it meanwhile */
			kfree(ac);
			ac = al->ac[nid];
		} else {
			WRITE_ONCE(al->ac[nid], ac);
		}
	}
	return ac;
}

/* Send every object of an alien cache home (one node: one lock round). Interrupts off. */
static void alien_flush(struct kmem_cache *cachep, struct array_cache *ac)
{
	unsigned int n = (unsigned int)ac->avail;

	if (!n)
		return;
	cache_free_home(cachep, &ac->entry[1], n, true);
	ac->avail = 0;
	stat(cachep, flushed_remote, n);
	slab_count_event();
}

/*
 * cache_flush_sorted - send objs[0..n) (the oldest batch of the running
 * CPU's array, which the caller then drops from it) home: this CPU's
 * node's objects to its shared array or slabs, the others into this CPU's
 * alien caches, each going home when full (with no memory for an alien
 * cache, an object goes home alone). objs[] is reordered. Interrupts off.
 */
void cache_flush_sorted(struct kmem_cache *cachep, void **objs, unsigned int n)
{
	unsigned int me = slab_cpu_node(cachep), k = 0;

	ASSERT_DEBUG(arch_irqs_disabled());
	for (unsigned int i = 0; i < n; i++) {
		void *objp = objs[i];
		unsigned int home = slab_node_id(slab_head_page(objp));
		struct array_cache *ac;

		if (home == me) {
			objs[k++] = objp;
			continue;
		}
		ac = alien_get(cachep, home);
		if (!ac) {
			cache_free_home(cachep, &objp, 1, true);
			continue;
		}
		if (ac->avail >= ac->limit)
			alien_flush(cachep, ac);
		ac->entry[++ac->avail] = objp;
	}
	if (k)
		cache_free_home(cachep, objs, k, true);
}

/*
 * cache_drain_aliens - send every object in CPU cpu's alien caches of
 * cachep home to its slabs, and free them too when release. Returns
 * how many objects went.
 * Interrupts off; cpu is the running CPU, or the cache is idle everywhere
 * (off slab_caches: kmem_cache_destroy). Both asserted where checked.
 */
unsigned int cache_drain_aliens(struct kmem_cache *cachep, unsigned int cpu, bool release)
{
	struct array_cache *cpu_ac = cachep->cpu_array[cpu];
	struct slab_alien *al = cpu_ac->alien;
	unsigned int done = 0;

	ASSERT_DEBUG(arch_irqs_disabled());
	ASSERT_DEBUG(cpu == smp_processor_id() || list_empty(&cachep->list));
	if (!al)
		return 0;
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
		struct array_cache *ac = al->ac[nid];
		unsigned int k;
		struct kmem_cache_node *lockn = READ_ONCE(cachep->node[nid]);

		if (!ac)
			continue;
		/* Taken out under the home node's lock (kmem_cache_check's view). */
		k = cache_drain_oldest(cachep, lockn ? lockn : &cachep->node0,
				       (struct array_cache *const *)&al->ac[nid], ~0U);
		if (k)
			slab_count_event();
		done += k;
		if (release) {
			WRITE_ONCE(al->ac[nid], NULL);
			kfree(ac);
		}
	}
	if (release) {
		WRITE_ONCE(cpu_ac->alien, NULL);
		kfree(al);
	}
	return done;
}

/* cache_free_aliens - free every CPU's (drained) alien caches of a cache being destroyed. */
void cache_free_aliens(struct kmem_cache *cachep)
{
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct array_cache *cpu_ac = cachep->cpu_array[cpu];
		struct slab_alien *al = cpu_ac->alien;

		if (!al)
			continue;
		for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
			BUG_ON(al->ac[nid] && al->ac[nid]->avail);
			kfree(al->ac[nid]);
		}
		cpu_ac->alien = NULL;
		kfree(al);
	}
}

/*
 * cache_alien_holds - the double-free report when objp is in some CPU's
 * alien cache of cachep (read without the owners' cooperation, as other
 * CPUs' arrays are), else NULL. Interrupts off.
 */
const char *cache_alien_holds(struct kmem_cache *cachep, const void *objp)
{
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct slab_alien *al = READ_ONCE(READ_ONCE(cachep->cpu_array[cpu])->alien);

		for (unsigned int nid = 0; al && nid < MAX_NUMNODES; nid++) {
			struct array_cache *ac = READ_ONCE(al->ac[nid]);
			unsigned long avail = ac ? MIN(READ_ONCE(ac->avail), ac->limit) : 0;

			for (unsigned long i = 1; i <= avail; i++)
				if (READ_ONCE(ac->entry[i]) == objp)
					return "double free (already in an alien cache)";
		}
	}
	return NULL;
}
/*
 * One object of node nid's slabs (its shared array, its slabs, or a new
 * slab of pages asked of nid), else of the nearest node that has one.
 * NULL when memory is out. Interrupts off.
 */
static void *cache_alloc_from_node(struct kmem_cache *cachep, unsigned int nid)
{
	struct kmem_cache_node *n = cache_make_node_at(cachep, nid);
	unsigned int order[SLAB_NODES], nr, got = 0;
	struct page *page;
	void *objp = NULL;

	if (n) {
		struct array_cache *sh;

		spin_lock(&n->list_lock);
		sh = n->shared;
		if (sh && sh->avail && slab_node_id(slab_head_page(sh->entry[sh->avail])) == nid)
			objp = sh->entry[sh->avail--];
		else
			got = cache_take_from_lists(cachep, nid, &objp, 1);
		spin_unlock(&n->list_lock);
		(void)got;
		slab_count_event();
		if (objp)
			return objp;
	}
	page = cache_grow_take(cachep, n ? nid : 0, &objp, 1, &got);
	cache_grow_end(cachep, page);
	if (objp)
		return objp;
	/* No block anywhere: another node's free objects, nearest first. */
	nr = slab_nodes_by_distance(nid, order);
	for (unsigned int i = 1; i < nr && !objp; i++) {
		struct kmem_cache_node *o = READ_ONCE(cachep->node[order[i]]);

		if (!o)
			continue;
		spin_lock(&o->list_lock);
		cache_take_from_lists(cachep, order[i], &objp, 1);
		spin_unlock(&o->list_lock);
	}
	return objp;
}

/*
 * kmem_cache_alloc_node: see slab.h. On several memory nodes, an object of
 * the node asked (of its nearest node with memory, for a memory-less one):
 * this CPU's array when that is its node and the array's top object is of
 * it, else that node's shared array or slabs or a new slab of its pages,
 * falling back nearest first. SLAB_NODE_PER_CPU=1 builds and one-node
 * machines: kmem_cache_alloc.
 */
void *kmem_cache_alloc_node(struct kmem_cache *cachep, unsigned int node)
{
	struct array_cache *ac;
	unsigned long flags;
	unsigned int nid;
	void *objp;

	node = slab_node_arg(cachep, node, "kmem_cache_alloc_node");
	if (!CONFIG_SLAB_NODE_PER_CPU)
		slab_numa_refresh();
	if (!slab_numa_on() || node == NUMA_NO_NODE)
		return kmem_cache_alloc(cachep);
	if (CONFIG_SLAB_DEBUG && unlikely(slab_cache_refused(cachep, "kmem_cache_alloc_node", true)))
		return NULL;
	nid = slab_mem_node(node);
	flags = arch_irq_save();
	ac = cachep->cpu_array[this_cpu_read(slab_cpu_index)];
	if (ac == &slab_no_array || !ac->avail) {
		if (nid == slab_cpu_node(cachep) && !slab_debug_on(cachep))
			return cache_alloc_slow(cachep, flags);	/* refills from nid */
	} else if (slab_node_id(slab_head_page(ac->entry[ac->avail])) == nid) {
		objp = ac->entry[ac->avail--];		/* the fast path's pop */
		*slab_mark(objp, ac->mark_off) = 0;
		stat(cachep, alloc_hits, 1);
		stat(cachep, shared.allocs, 1);
		arch_irq_restore(flags);
		return objp;
	}
	if (unlikely(fault_attr_on(&failslab)) && __should_fail(&failslab)) {
		arch_irq_restore(flags);
		return NULL;
	}
	objp = cache_alloc_from_node(cachep, nid);
	if (objp) {
		if (slab_debug_on(cachep))
			slab_debug_alloc(cachep, objp);
		else
			*slab_mark(objp, cachep->mark_off) = 0;	/* handed out: not free */
		stat(cachep, shared.allocs, 1);
	}
	arch_irq_restore(flags);
	if (!objp && cachep->min_cache)
		objp = kmem_cache_alloc(cachep);	/* the min-order twin's slabs */
	return objp;
}
