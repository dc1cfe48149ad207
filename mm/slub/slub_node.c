/*
 * slub_node.c - SLUB on several memory nodes: which node is whose, the
 * fallback order, the free path's node test, and kmem_cache_alloc_node's
 * own path (mm/slub/slub_def.h, "Nodes", is the design).
 *
 * The topology (kernel/numa.h) is read into three small tables by
 * slub_nodes_refresh: each online node's memory node (itself, or the
 * nearest node with memory for a node without), each node's fallback
 * order over the nodes with memory (nearest first, ties by lower id, as
 * the page allocator's), and each CPU's memory node. slub_local_nid reads
 * the last one (inline, slub_def.h); slub_nodes_check refreshes the
 * tables whenever the number of online nodes changed, which on a booted
 * machine happens once, after numa_setup: before it every CPU is on node
 * 0, every page too. Until the next reap pass sees the change, CPUs keep
 * node 0 as theirs and frees skip the node test: a policy, not a
 * correctness matter, for a slab's lists are always its own node's. The
 * tables are written whole by whoever refreshes; two CPUs refreshing at
 * once write the same values.
 *
 * kmem_cache_alloc_node's node path (slub_alloc_node_slow) takes one
 * object at a time under the node's lock from a partial slab of the node
 * (popped off its page freelist by a cmpxchg: pushes by other CPUs may
 * race with it, pops may not, for every pop of an unfrozen listed slab is
 * under its node's lock), or makes a new slab there and lists it; it
 * never installs a CPU slab, so a CPU asking for another node's objects
 * keeps its own CPU slab and sheaves for its node. Slabs made before the
 * topology was known count as node 0's for life (slub_slab_nid) though
 * their pages may be another's: the node path skips them on other nodes'
 * lists and kmem_cache_alloc_node checks what the fast paths give.
 *
 * Also the node lists' walks: emptying them (slub_node_release_empty,
 * slub_take_empty) and counting their free objects (slub_count_free).
 *
 * Locking: node locks, one at a time; interrupts off under them.
 */
#include "mm/slab_impl.h"
#include "kernel/smp.h"

static unsigned int nodes_seen;			/* numa_num_nodes() at the last refresh */
static uint8_t mem_nid[MAX_NUMNODES];		/* node -> its memory node */
static uint8_t fallback[MAX_NUMNODES][MAX_NUMNODES];	/* node -> memory nodes, nearest first */
static uint8_t nr_fallback[MAX_NUMNODES];
uint8_t slub_cpu_nid[NR_CPUS];			/* CPU -> its memory node */
bool slub_multi_node;				/* more than one node has memory */

static bool has_memory(unsigned int nid)
{
	struct mem_range r;

	return numa_node_online(nid) && numa_node_range(nid, 0, &r);
}

/* slub_node_check_of: see mm/slub/slub_node.h. */
bool slub_node_check_of(const struct kmem_cache *s)
{
	return slub_multi_node && s->sheaf_capacity;
}

/* slub_nodes_refresh: see mm/slub/slub_node.h. */
void slub_nodes_refresh(void)
{
	unsigned int nodes = numa_num_nodes(), mem = 0;
	struct kmem_cache *s;

	for (unsigned int a = 0; a < MAX_NUMNODES; a++) {
		unsigned int n = 0;

		for (unsigned int b = 0; b < MAX_NUMNODES; b++) {
			unsigned int j;

			if (!has_memory(b))
				continue;
			/* Insertion by (distance, id): b is the highest id so far. */
			for (j = n; j > 0 && node_distance(a, fallback[a][j - 1]) > node_distance(a, b);
			     j--)
				fallback[a][j] = fallback[a][j - 1];
			fallback[a][j] = (uint8_t)b;
			n++;
		}
		if (n == 0) {		/* no topology yet: node 0 holds everything */
			fallback[a][0] = 0;
			n = 1;
		}
		nr_fallback[a] = (uint8_t)n;
		mem_nid[a] = fallback[a][0];
		mem += has_memory(a);
	}
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		slub_cpu_nid[cpu] = mem_nid[cpu_to_node(cpu) % MAX_NUMNODES];
	slub_multi_node = mem > 1;
	if (slab_state == SLAB_UP) {
		/*
		 * A trylock: the caller may hold any SLUB lock, even this one
		 * (a cache being made); then a later call does it.
		 */
		unsigned long flags = arch_irq_save();

		if (!spin_trylock(&slab_caches_lock)) {
			arch_irq_restore(flags);
			return;
		}
		list_for_each_entry(s, &slab_caches, list)
			slub_set_node_check(s, slub_node_check_of(s));
		if (slub_sheaf_cache)
			slub_set_node_check(slub_sheaf_cache, false);
		spin_unlock(&slab_caches_lock);
		arch_irq_restore(flags);
	}
	WRITE_ONCE(nodes_seen, nodes);
}

/* slub_nodes_check: see mm/slub/slub_node.h. */
void slub_nodes_check(void)
{
	if (unlikely(READ_ONCE(nodes_seen) != numa_num_nodes()))
		slub_nodes_refresh();
}

/* slub_mem_nid: see mm/slub/slub_node.h. */
unsigned int slub_mem_nid(unsigned int nid)
{
	slub_nodes_check();
	return nid < MAX_NUMNODES ? mem_nid[nid] : mem_nid[0];
}

/* slub_fallback_nid: see mm/slub/slub_node.h. */
unsigned int slub_fallback_nid(unsigned int nid, unsigned int i)
{
	nid = nid < MAX_NUMNODES ? nid : 0;
	return i < nr_fallback[nid] ? fallback[nid][i] : NUMA_NO_NODE;
}

/* slub_node_low: see mm/slub/slub_node.h. */
bool slub_node_low(unsigned int nid, unsigned int order)
{
	return slub_multi_node && nr_free_pages_node(nid) < (2UL << order);
}


/*
 * Pop one object off the unfrozen slab headed by page, listed on n (its
 * lock held); the slab leaves the list when that was its last free
 * object. NULL when its freelist is empty (it cannot be: listed slabs
 * have a free object, and only holders of this lock pop).
 */
static void *node_pop(struct kmem_cache *s, struct kmem_cache_node *n, struct page *page)
{
	unsigned long counters;
	void *prior, *next;

	assert_spin_locked(&n->list_lock);
	for (;;) {
		prior = READ_ONCE(page->slub_freelist);
		counters = READ_ONCE(page->counters);
		if (WARN_ON(slub_is_end(prior)))
			return NULL;
		next = slub_get_fp(s, prior);
		if (slub_page_cmpxchg(s, page, (unsigned long)prior, counters, (unsigned long)next,
				      counters + 1))
			break;
		stat(s, page_retries, 1);
	}
	if (slub_is_end(next))
		slub_node_unlist(n, page);
	n->ready_front = 0;	/* a listed slab lost a free object (slub_node_spare) */
	n->alloc_touched = 1;
	return prior;
}

/*
 * One object from a partial slab of node nid whose pages are nid's
 * (slabs made before the topology was known may not be), or NULL.
 * Interrupts off.
 */
static void *node_partial_pop(struct kmem_cache *s, unsigned int nid)
{
	struct kmem_cache_node *n = &s->node[nid];
	struct page *page;
	void *x = NULL;

	if (!READ_ONCE(n->nr_partial))
		return NULL;
	spin_lock(&n->list_lock);
	stat(s, node_locks, 1);
	list_for_each_entry(page, &n->partial, lru) {
		if (page_to_nid(page) == nid && !slub_is_min(page)) {
			x = node_pop(s, n, page);
			break;
		}
	}
	spin_unlock(&n->list_lock);
	return x;
}

/* A new slab made for the node path: one object taken, the slab listed on its node. */
static void *node_new_slab(struct kmem_cache *s, unsigned int nid)
{
	struct page *page = slub_new_slab_node(s, nid);
	struct kmem_cache_node *n;
	void *x;

	if (!page)
		page = slub_new_min_slab(s, nid);
	if (!page)
		return NULL;
	n = slub_node_of(s, page);
	spin_lock(&n->list_lock);
	stat(s, node_locks, 1);
	if (slub_is_min(page)) {	/* frozen on min_slabs, popped under the lock */
		page->counters |= SLUB_FROZEN;
		list_add(&page->lru, &n->min_slabs);
		x = page->slub_freelist;
		page->slub_freelist = slub_get_fp(s, x);
		page->counters++;
	} else {
		list_add_tail(&page->lru, &n->partial);
		n->nr_partial++;
		x = node_pop(s, n, page);
	}
	spin_unlock(&n->list_lock);
	return x;
}

/* slub_alloc_node_slow: see mm/slub/slub_node.h. */
void *slub_alloc_node_slow(struct kmem_cache *s, unsigned int nid)
{
	unsigned long flags;
	void *x;

	ASSERT(nid < MAX_NUMNODES);
	if (unlikely(slub_debug_on(s))) {
		x = slub_debug_alloc(s, nid);
		stat(s, shared.allocs, x != NULL);
		return x;
	}
	flags = arch_irq_save();
	this_cpu_inc(slub_events);
	x = node_partial_pop(s, nid);
	if (!x && slub_node_low(nid, s->order)) {
		for (unsigned int i = 1, f; !x && (f = slub_fallback_nid(nid, i)) != NUMA_NO_NODE;
		     i++)
			x = node_partial_pop(s, f);
	}
	if (!x)
		x = node_new_slab(s, nid);
	arch_irq_restore(flags);
	if (x) {
		slub_fw_clear(s, x, false);	/* handed out: see slub_def.h */
		stat(s, alloc_node, 1);
		stat(s, alloc_fallback, page_to_nid(virt_to_page(x)) != nid);
	}
	stat(s, shared.allocs, x != NULL);
	return x;
}

/* slub_take_empty: see slub_def.h. */
unsigned long slub_take_empty(struct kmem_cache_node *n, struct list_head *out,
			      unsigned long max)
{
	struct page *page, *tmp;
	unsigned long took = 0;

	assert_spin_locked(&n->list_lock);
	list_for_each_entry_safe(page, tmp, &n->partial, lru) {
		if (took == max)
			break;
		/* Under the lock nothing can allocate from it: empty stays empty. */
		if (slub_inuse(READ_ONCE(page->counters)) == 0) {
			slub_node_unlist(n, page);
			list_add(&page->lru, out);
			took++;
		}
	}
	list_for_each_entry_safe(page, tmp, &n->min_slabs, lru) {
		if (took == max)
			break;
		if (slub_inuse(READ_ONCE(page->counters)) == 0) {
			list_move(&page->lru, out);
			took++;
		}
	}
	return took;
}

/*
 * slub_node_release_empty - free every empty slab on every node's lists.
 * Returns how many. Interrupts on or off, no lock held.
 */
unsigned long slub_node_release_empty(struct kmem_cache *s)
{
	unsigned long flags, took = 0;

	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
		struct list_head discard = LIST_HEAD_INIT(discard);
		struct kmem_cache_node *n = &s->node[nid];

		if (nid && !numa_node_online(nid))
			continue;
		flags = spin_lock_irqsave(&n->list_lock);
		stat(s, node_locks, 1);
		took += slub_take_empty(n, &discard, ~0UL);
		spin_unlock_irqrestore(&n->list_lock, flags);
		slub_discard_list(s, &discard);
	}
	return took;
}

/*
 * slub_count_free - free objects on node nid's partial and min-order
 * slabs (the objects slabinfo calls inactive), and in *empty the empty
 * slabs among them; nid NUMA_NO_NODE: every node's. Takes the node locks
 * in turn.
 */
unsigned long slub_count_free(struct kmem_cache *s, unsigned int nid, unsigned long *empty)
{
	unsigned long flags, free = 0, e = 0;
	struct kmem_cache_node *n;
	struct page *page;

	if (nid == NUMA_NO_NODE) {
		for (unsigned int i = 0; i < MAX_NUMNODES; i++) {
			unsigned long ei;

			if (i && !numa_node_online(i))
				continue;
			free += slub_count_free(s, i, &ei);
			e += ei;
		}
		if (empty)
			*empty = e;
		return free;
	}
	n = &s->node[nid];
	/* Not counted in node_locks: a report's read is no path of the allocator's. */
	flags = spin_lock_irqsave(&n->list_lock);
	list_for_each_entry(page, &n->partial, lru) {
		unsigned int inuse = slub_inuse(READ_ONCE(page->counters));

		free += slub_geom(page)->num - inuse;
		e += inuse == 0;
	}
	list_for_each_entry(page, &n->min_slabs, lru) {
		unsigned int inuse = slub_inuse(READ_ONCE(page->counters));

		free += slub_geom(page)->num - inuse;
		e += inuse == 0;
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	if (empty)
		*empty = e;
	return free;
}
