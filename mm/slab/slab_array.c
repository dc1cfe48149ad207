/*
 * slab_array.c - the life of SLAB's per-CPU and shared arrays and of its
 * nodes: made on a CPU's first use of a cache (cache_make_array, which
 * makes the CPU's node too) or on a node's first overflow (with
 * cache_array_alloc, by slab_cpu.c's flush, which inlines the step so
 * that its path keeps the code it had), all of one CPU's given back at once
 * (slab_drop_local_arrays), and freed with their cache. What the arrays
 * are for, and the paths that fill and empty them, are in slab_cpu.c.
 *
 * An array is kmalloc'ed (alien caches too: mm/slab/slab_alien.c), a node
 * taken from slab_node_cache (made for a CPU's memory node with its first
 * array, or for the node kmem_cache_alloc_node first asks), each with
 * this CPU array-less meanwhile (slab_arrayless below). A new array or
 * node is published whole (WRITE_ONCE, smp_store_release); a shared array
 * under its node's lock. Interrupts are off while an array is made.
 */
#include "mm/slab_impl.h"
#include "kernel/percpu.h"
#include "kernel/string.h"

/*
 * This CPU is making an array, or giving all of them back: its own
 * allocations and frees go array-less meanwhile, so that they neither
 * recurse into making another array nor bring back one just dropped.
 */
static DEFINE_PER_CPU(unsigned int, slab_arrayless);

static inline size_t array_bytes(unsigned int limit)
{
	return sizeof(struct array_cache) + (limit + 1) * sizeof(void *);
}

/*
 * cache_array_alloc - kmalloc an empty array of limit entries (batchcount
 * its batch) for cachep, this CPU's own allocations going array-less
 * meanwhile (and staying so after, if they were already: a flush in the
 * middle of slab_drop_local_arrays can get here). NULL when kmalloc has no
 * memory; the caller kfrees the array. Interrupts off.
 */
struct array_cache *cache_array_alloc(struct kmem_cache *cachep, unsigned int limit,
				      unsigned int batchcount)
{
	unsigned int was = this_cpu_read(slab_arrayless);
	struct array_cache *ac;

	this_cpu_write(slab_arrayless, 1);
	ac = kmalloc(array_bytes(limit));
	this_cpu_write(slab_arrayless, was);
	if (ac)
		*ac = (struct array_cache){ .limit = limit, .batchcount = batchcount,
					    .mark_off = cachep->mark_off };
	if (ac)
		ac->entry[0] = NULL;
	return ac;
}

/*
 * cache_alien_alloc - 'bytes' of zeroed alien cache tables from kmalloc, this CPU's
 * allocations array-less meanwhile (it is made in the middle of a flush of
 * this CPU's array). NULL with no memory. Interrupts off.
 */
struct slab_alien *cache_alien_alloc(size_t bytes)
{
	unsigned int was = this_cpu_read(slab_arrayless);
	struct slab_alien *al;

	assert_irqs_disabled();
	this_cpu_write(slab_arrayless, 1);
	al = kmalloc(bytes);
	this_cpu_write(slab_arrayless, was);
	if (al)
		memset(al, 0, bytes);
	return al;
}

/* cache_node_init - an empty node of cachep (lists, lock, free_limit). */
void cache_node_init(struct kmem_cache *cachep, struct kmem_cache_node *n)
{
	*n = (struct kmem_cache_node){ .free_limit = SLAB_NODE_FREE_LIMIT(cachep) };
	spin_lock_init(&n->list_lock);
	INIT_LIST_HEAD(&n->slabs_full);
	INIT_LIST_HEAD(&n->slabs_partial);
	INIT_LIST_HEAD(&n->slabs_free);
}

/*
 * A node back to slab_node_cache with this CPU array-less, as it was taken:
 * a CPU's first node free would otherwise give it an array of the node
 * cache that outlives the node.
 */
static void node_free(struct kmem_cache_node *n)
{
	unsigned int was = this_cpu_read(slab_arrayless);
	unsigned long flags = arch_irq_save();

	this_cpu_write(slab_arrayless, 1);
	kmem_cache_free(slab_node_cache, n);
	this_cpu_write(slab_arrayless, was);
	arch_irq_restore(flags);
}

/*
 * cache_make_node_at - give cachep its node nid (nid < SLAB_NODES, not 0,
 * whose node is part of the cache) unless it has it, published once whole
 * (a CPU racing to make the same node frees its copy). Returns the node, or
 * NULL with no memory for it (the node's CPUs go on using node 0).
 * Interrupts off (asserted).
 */
struct kmem_cache_node *cache_make_node_at(struct kmem_cache *cachep, unsigned int nid)
{
	unsigned int was = this_cpu_read(slab_arrayless);
	struct kmem_cache_node *n = READ_ONCE(cachep->node[nid]);

	assert_irqs_disabled();
	BUG_ON(nid >= SLAB_NODES);
	if (n)
		return n;
	this_cpu_write(slab_arrayless, 1);
	n = kmem_cache_alloc(slab_node_cache);
	this_cpu_write(slab_arrayless, was);
	if (!n)
		return NULL;
	cache_node_init(cachep, n);
	if (!__atomic_compare_exchange_n(&cachep->node[nid], &(struct kmem_cache_node *){ NULL },
					 n, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
		node_free(n);
		n = READ_ONCE(cachep->node[nid]);
	}
	return n;
}

/* cache_free_nodes - free the nodes of a destroyed cache (empty, no shared arrays). */
void cache_free_nodes(struct kmem_cache *cachep)
{
	for (unsigned int i = 1; i < SLAB_NODES; i++) {
		struct kmem_cache_node *n = cachep->node[i];

		if (!n)
			continue;
		BUG_ON(n->total_slabs || n->shared);
		cachep->node[i] = NULL;
		node_free(n);
	}
}

/*
 * cache_make_array - this CPU's first use of the cache: make its node (if
 * it has none) and its array, and count the array. Returns the array, or
 * NULL (array-less for now: boot, nested, or out of memory). Interrupts off.
 */
struct array_cache *cache_make_array(struct kmem_cache *cachep)
{
	struct array_cache *ac;

	assert_irqs_disabled();
	if (slab_state < SLAB_UP || this_cpu_read(slab_arrayless) || cachep->min_of)
		return NULL;	/* a min-order twin never has one */
	slab_numa_refresh();
	if (slab_node_of_cpu(smp_processor_id()) != 0)
		cache_make_node_at(cachep, slab_node_of_cpu(smp_processor_id()));
	ac = cache_array_alloc(cachep, cachep->limit, cachep->batchcount);
	if (!ac)
		return NULL;
	atomic_inc(&cachep->nr_arrays);
	WRITE_ONCE(cachep->cpu_array[smp_processor_id()], ac);
	return ac;
}

/* slab_cpu_arrayless - whether this CPU is array-less now (making or dropping arrays). */
bool slab_cpu_arrayless(void)
{
	return this_cpu_read(slab_arrayless) != 0;
}

/* Stay array-less on this CPU (on) or not (off). Interrupts off. */
void slab_set_arrayless(bool on)
{
	ASSERT_DEBUG(arch_irqs_disabled());
	this_cpu_write(slab_arrayless, on ? 1 : 0);
}

/*
 * slab_drop_local_arrays - this CPU drains every array it has and gives
 * the arrays themselves back to kmalloc: it is as if it had never used a
 * cache. Not from an interrupt handler.
 */
void slab_drop_local_arrays(void)
{
	unsigned int cpu = smp_processor_id();
	struct kmem_cache *cachep;
	unsigned long flags;

	flags = spin_lock_irqsave(&slab_caches_lock);
	slab_set_arrayless(true);
	list_for_each_entry(cachep, &slab_caches, list) {
		struct array_cache *ac = cachep->cpu_array[cpu];

		if (ac == &slab_no_array)
			continue;
		/* Aliens first: freeing them may push onto this very array, drained next. */
		cache_drain_aliens(cachep, cpu, true);
		cache_drain_array(cachep, ac, ~0U);
		WRITE_ONCE(cachep->cpu_array[cpu], &slab_no_array);
		atomic_dec(&cachep->nr_arrays);
		kfree(ac);
	}
	slab_set_arrayless(false);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

/* cache_free_arrays - free the (drained) arrays of a cache being destroyed. */
void cache_free_arrays(struct kmem_cache *cachep)
{
	cache_free_aliens(cachep);	/* hung on the arrays */
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct array_cache *ac = cachep->cpu_array[cpu];

		if (ac == &slab_no_array)
			continue;
		BUG_ON(ac->avail != 0);
		cachep->cpu_array[cpu] = &slab_no_array;
		kfree(ac);
	}
	for (unsigned int i = 0; i < SLAB_NODES; i++) {
		struct kmem_cache_node *n = cachep->node[i];

		if (!n)
			continue;
		BUG_ON(n->shared && n->shared->avail);
		kfree(n->shared);
		n->shared = NULL;
	}
	atomic_set(&cachep->nr_arrays, 0);
}
