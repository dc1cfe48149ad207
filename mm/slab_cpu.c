/*
 * slab_cpu.c - the per-CPU array caches: SLAB's allocation and free fast
 * path, refill, flush and drain.
 *
 * Each cache has one struct array_cache per CPU (cachep->cpu_array[cpu]), a
 * stack of up to 'limit' object pointers. kmem_cache_alloc pops the running
 * CPU's array; kmem_cache_free pushes on it. Only the owning CPU touches an
 * array, and only with interrupts off, so an interrupt handler that
 * allocates on the same CPU runs wholly before or after an array operation:
 * no lock is needed for the array. The sole exceptions are
 * kmem_cache_destroy() and kmem_cache_check(), whose callers guarantee the
 * cache is idle on every CPU.
 *
 * Empty array: refill up to 'batchcount' objects (16 while the array is
 * untouched) from the node's partial slabs, then free slabs, under the node
 * lock. If no slab has a free object, grow (seed 001): make a slab with
 * cache_grow_begin(), take this CPU's batch from it while it is still
 * private, without the node lock, and only then publish it with
 * cache_grow_end(). Full array: flush the oldest 'batchcount' objects back
 * to their slabs under the node lock; empty slabs beyond the node's
 * free_limit go back to the buddy allocator after the lock is dropped.
 *
 * Interrupts stay off for a whole allocation or free, slow path included
 * (nothing here sleeps), so the array found at entry is the array at exit.
 *
 * Draining another CPU's array needs that CPU's cooperation: SMP (issue 4)
 * will run kmem_cache_drain_local() on each CPU by IPI. Until then
 * kmem_cache_shrink() drains only the calling CPU's array: other CPUs'
 * arrays keep at most 'limit' objects each, and their slabs stay. Before the
 * arrays exist (boot), objects go to and from the slabs one at a time.
 *
 * Departure from Linux: a freed object is compared with the top
 * SLAB_DFREE_WINDOW entries of the array, a cheap double-free check that
 * Linux only has in debug builds.
 */
#include "mm/slab_def.h"
#include "kernel/printk.h"
#include "kernel/errno.h"

static inline struct array_cache *cpu_array(struct kmem_cache *cachep)
{
	return cachep->cpu_array[smp_processor_id()];
}

/* Boot, before the arrays: one object straight from the slabs. Interrupts off. */
static void *cache_alloc_one(struct kmem_cache *cachep)
{
	struct kmem_cache_node *n = &cachep->node;
	struct page *page;
	void *objp = NULL;
	unsigned int got;

	assert_irqs_disabled();
	spin_lock(&n->list_lock);
	got = cache_take_from_lists(cachep, &objp, 1);
	spin_unlock(&n->list_lock);
	if (got)
		return objp;
	page = cache_grow_begin(cachep);
	if (page)
		slab_take_objs(cachep, page, &objp, 1);
	cache_grow_end(cachep, page);
	return objp;
}

/* Boot, before the arrays: one object straight back to its slab. Interrupts off. */
static void cache_free_one(struct kmem_cache *cachep, void *objp)
{
	struct kmem_cache_node *n = &cachep->node;
	struct list_head release = LIST_HEAD_INIT(release);

	assert_irqs_disabled();
	spin_lock(&n->list_lock);
	cache_free_objs(cachep, &objp, 1, &release);
	spin_unlock(&n->list_lock);
	slabs_release(cachep, &release);
}

/*
 * The array is empty: refill it from the node's slabs or from a new slab,
 * then pop one object. NULL when memory is out. Interrupts off.
 */
static void *cache_alloc_refill(struct kmem_cache *cachep, struct array_cache *ac)
{
	struct kmem_cache_node *n = &cachep->node;
	unsigned int batch = ac->batchcount;
	struct page *page;

	assert_irqs_disabled();
	if (!ac->touched && batch > BATCHREFILL_LIMIT)
		batch = BATCHREFILL_LIMIT;
	BUG_ON(ac->avail != 0);

	spin_lock(&n->list_lock);
	ac->avail = cache_take_from_lists(cachep, ac->entry, batch);
	spin_unlock(&n->list_lock);
	stat(cachep, refilled, ac->avail);

	if (!ac->avail) {
		/* Seed 001: fill the array from the new slab before anyone can see it. */
		page = cache_grow_begin(cachep);
		if (page) {
			ac->avail = slab_take_objs(cachep, page, ac->entry, batch);
			stat(cachep, grown_batch, ac->avail);
		}
		cache_grow_end(cachep, page);
		if (!ac->avail)
			return NULL;
	}
	ac->touched = 1;
	return ac->entry[--ac->avail];
}

/* kmem_cache_alloc: see slab.h. */
void *kmem_cache_alloc(struct kmem_cache *cachep)
{
	unsigned long flags = arch_irq_save();
	struct array_cache *ac = cpu_array(cachep);
	void *objp;

	if (likely(ac && ac->avail)) {
		ac->touched = 1;
		objp = ac->entry[--ac->avail];
		stat(cachep, alloc_hits, 1);
	} else if (ac) {
		stat(cachep, alloc_misses, 1);
		objp = cache_alloc_refill(cachep, ac);
	} else {
		objp = cache_alloc_one(cachep);
	}
	if (likely(objp)) {
		if (unlikely(slab_debug_on(cachep)))
			slab_debug_alloc(cachep, objp);
		stat(cachep, allocs, 1);
	}
	arch_irq_restore(flags);
	return objp;
}

/* Give the oldest batchcount objects of a full array back to their slabs. Interrupts off. */
static void cache_flusharray(struct kmem_cache *cachep, struct array_cache *ac)
{
	struct kmem_cache_node *n = &cachep->node;
	struct list_head release = LIST_HEAD_INIT(release);
	unsigned int batch = MIN(ac->batchcount, ac->avail);

	assert_irqs_disabled();
	spin_lock(&n->list_lock);
	cache_free_objs(cachep, ac->entry, batch, &release);
	spin_unlock(&n->list_lock);
	ac->avail -= batch;
	for (unsigned int i = 0; i < ac->avail; i++)
		ac->entry[i] = ac->entry[i + batch];
	stat(cachep, flushed, batch);
	slabs_release(cachep, &release);
}

/*
 * __kmem_cache_free - free an object already checked to lie on an object
 * boundary of one of cachep's slabs. 'fn' names the caller's entry point
 * for reports.
 */
void __kmem_cache_free(struct kmem_cache *cachep, void *objp, const char *fn)
{
	unsigned long flags = arch_irq_save();
	struct array_cache *ac;

	if (unlikely(slab_debug_on(cachep)) && !slab_debug_free(cachep, objp, fn))
		goto out;
	ac = cpu_array(cachep);
	if (unlikely(!ac)) {
		cache_free_one(cachep, objp);
		goto out;
	}
	for (unsigned int i = ac->avail; i > 0 && i + SLAB_DFREE_WINDOW > ac->avail; i--) {
		if (unlikely(ac->entry[i - 1] == objp)) {
			slab_bad_free(cachep, fn, objp, "double free (already in the CPU's array)");
			goto out;
		}
	}
	if (unlikely(ac->avail >= ac->limit)) {
		stat(cachep, free_misses, 1);
		cache_flusharray(cachep, ac);
	} else {
		stat(cachep, free_hits, 1);
	}
	ac->entry[ac->avail++] = objp;
	stat(cachep, frees, 1);
out:
	arch_irq_restore(flags);
}

/* kmem_cache_free: see slab.h. */
void kmem_cache_free(struct kmem_cache *cachep, void *objp)
{
	if (!objp)
		return;
	if (slab_find_head(cachep, objp, "kmem_cache_free"))
		__kmem_cache_free(cachep, objp, "kmem_cache_free");
}

/*
 * cache_drain_array - give every object in 'ac' back to its slab. Interrupts
 * off; ac is the running CPU's array, or the cache is idle everywhere.
 */
void cache_drain_array(struct kmem_cache *cachep, struct array_cache *ac)
{
	struct kmem_cache_node *n = &cachep->node;
	struct list_head release = LIST_HEAD_INIT(release);

	assert_irqs_disabled();
	if (!ac->avail)
		return;
	spin_lock(&n->list_lock);
	cache_free_objs(cachep, ac->entry, ac->avail, &release);
	spin_unlock(&n->list_lock);
	stat(cachep, flushed, ac->avail);
	ac->avail = 0;
	slabs_release(cachep, &release);
}

/* kmem_cache_drain_local: see slab.h. */
void kmem_cache_drain_local(struct kmem_cache *cachep)
{
	unsigned long flags = arch_irq_save();
	struct array_cache *ac = cpu_array(cachep);

	if (ac)
		cache_drain_array(cachep, ac);
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

/*
 * cache_setup_arrays - give the cache an empty array for every CPU, sized by
 * its tunables, from kmalloc. Returns 0, or -ENOMEM with none made.
 */
int cache_setup_arrays(struct kmem_cache *cachep)
{
	struct array_cache *made[NR_CPUS];
	size_t bytes = sizeof(struct array_cache) + cachep->limit * sizeof(void *);

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		made[cpu] = kmalloc(bytes);
		if (!made[cpu]) {
			while (cpu--)
				kfree(made[cpu]);
			return -ENOMEM;
		}
		made[cpu]->avail = 0;
		made[cpu]->limit = cachep->limit;
		made[cpu]->batchcount = cachep->batchcount;
		made[cpu]->touched = 0;
	}
	/* Publish: until now this CPU used the array-less path for cachep. */
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		WRITE_ONCE(cachep->cpu_array[cpu], made[cpu]);
	return 0;
}

/* cache_free_arrays - free the (drained) arrays of a cache being destroyed. */
void cache_free_arrays(struct kmem_cache *cachep)
{
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct array_cache *ac = cachep->cpu_array[cpu];

		if (!ac)
			continue;
		BUG_ON(ac->avail != 0);
		cachep->cpu_array[cpu] = NULL;
		kfree(ac);
	}
}
