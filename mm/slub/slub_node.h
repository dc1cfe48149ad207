/*
 * slub_node.h - SLUB's memory nodes: which node is the running CPU's, the
 * fallback order, the node locks' helpers and kmem_cache_alloc_node's own
 * path (mm/slub/slub_node.c). Included by mm/slub/slub_def.h, whose design
 * header ("Nodes") tells how SLUB uses nodes; not on its own.
 */
#ifndef MM_SLUB_NODE_H
#define MM_SLUB_NODE_H

/*
 * mm/slub/slub_node.c: memory nodes (see "Nodes" above). slub_cpu_nid - each
 * CPU's memory node (slub_nodes_refresh). slub_local_nid - the running
 * CPU's: its node, or the nearest node with memory when its node has none.
 * Interrupts off, or a caller that accepts a node that is no longer the
 * CPU's (Quarry never migrates). slub_obj_remote - whether x, an object on
 * a slab page, lies on another node than that: such a free goes past the
 * sheaves to its own slab. Tested only when s->node_check (several memory
 * nodes), by the sheaves' free slow path; the fast path tests nothing for
 * it (slub_set_node_check: its boundary test fails then).
 */
extern uint8_t slub_cpu_nid[NR_CPUS];
static __always_inline unsigned int slub_local_nid(void)
{
	return slub_cpu_nid[smp_processor_id()];
}

static __always_inline bool slub_obj_remote(const void *x)
{
	return page_to_nid(virt_to_page(x)) != slub_local_nid();
}

/*
 * mm/slub/slub_node.c: memory nodes (see above, "Nodes").
 * slub_nodes_refresh - read the topology again (kernel/numa.h): each node's
 * memory node and fallback order, each CPU's memory node, node_check; the
 * host tests call it after each numa_init. slub_nodes_check - the same when
 * the number of online nodes changed since: the reap (every tick pass),
 * cache creation, kmem_cache_alloc_node and the reports call it, so a
 * booted machine reads its topology within a reap pass of numa_setup (the
 * slow paths do not: one call less each). Any context but under
 * slab_caches_lock (then a later call does it); idempotent.
 * slub_mem_nid - nid (online) if it has memory, else the nearest node
 * with memory (ties by lower id).
 * slub_fallback_nid - the i-th node with memory by distance from node nid
 * (i 0: slub_mem_nid(nid)); NUMA_NO_NODE past the last.
 * slub_node_low - whether node nid (with memory) looks out of blocks of
 * 'order' pages (its free pages say so): then slabs come from other
 * nodes' partial lists, nearest first, before a new one is made.
 * slub_local_node - s's part of the running CPU's memory node.
 */
void slub_nodes_refresh(void);
void slub_nodes_check(void);
extern bool slub_multi_node;	/* more than one node has memory (as of the last refresh) */
/* slub_node_check_of - the node_check s gets: several memory nodes, and s has sheaves. */
bool slub_node_check_of(const struct kmem_cache *s);

/*
 * slub_set_node_check - set s->node_check to on, and obj_bound with it: 0
 * when on, so that the free fast path's boundary test sends every free to
 * slab_free_slow (which tries the push again with the node test,
 * slub_free_try, and sends what that leaves on to slub_sheaf_free_slow),
 * s->slab_bound when off; the fast path tests no more than a one-node
 * machine's. A free racing the change may take either path.
 */
static inline void slub_set_node_check(struct kmem_cache *s, bool on)
{
	WRITE_ONCE(s->node_check, on);
	WRITE_ONCE(s->obj_bound, on ? 0 : s->slab_bound);
}
unsigned int slub_mem_nid(unsigned int nid);
unsigned int slub_fallback_nid(unsigned int nid, unsigned int i);
bool slub_node_low(unsigned int nid, unsigned int order);
static inline struct kmem_cache_node *slub_local_node(struct kmem_cache *s)
{
	return &s->node[slub_local_nid()];
}

/*
 * slub_node_lock - make *held the node lock of n, dropping the one held
 * before (NULL: none) if it is another's: a walk over slabs of several
 * nodes holds one node lock at a time (SLUB_NODES_ALL: the caller holds
 * them all, ascending, taken by trylocks: the reap). slub_node_unlock -
 * drop *held if any (not SLUB_NODES_ALL). Interrupts off.
 */
#define SLUB_NODES_ALL	((struct kmem_cache_node *)1)	/* *held: every node lock is held */
static inline void slub_node_lock(struct kmem_cache_node **held, struct kmem_cache_node *n)
{
	if (*held == n || *held == SLUB_NODES_ALL)
		return;
	if (*held)
		spin_unlock(&(*held)->list_lock);
	spin_lock(&n->list_lock);
	*held = n;
}

static inline void slub_node_unlock(struct kmem_cache_node **held)
{
	if (*held)
		spin_unlock(&(*held)->list_lock);
	*held = NULL;
}

/*
 * slub_alloc_node_slow - kmem_cache_alloc_node's object of node nid (a
 * memory node) when the CPU's own paths cannot give one: from nid's partial
 * slabs under its lock, else from a new slab on nid (listed on it, not
 * made a CPU slab); when nid looks full (slub_node_low), other nodes'
 * partial slabs nearest first, then a new slab wherever the page
 * allocator falls back. NULL when memory is out. Interrupts on or off.
 */
void *slub_alloc_node_slow(struct kmem_cache *s, unsigned int nid);

/* mm/slub/slub.c: slub_new_slab_node - slub_new_slab(s, 0) on node nid (see there). */
struct page *slub_new_slab_node(struct kmem_cache *s, unsigned int nid);

#endif
