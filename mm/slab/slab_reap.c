/*
 * slab_reap.c - giving back what idle CPUs and idle caches hold: the
 * periodic reap, and draining everything at once.
 *
 * slab_reap() runs on every CPU about every 2 s (from its timer tick) and
 * walks the caches. For each cache it looks at the calling CPU's own array:
 * if the array was refilled or flushed since the last pass (touched: the
 * slow paths set it, the fast paths do not, to save a store per
 * allocation), it only clears the flag; otherwise about a fifth of its
 * limit (at most half of what it holds) goes back to the slabs: its oldest
 * objects, which an array working within its size does not reach. The
 * CPU's alien caches (objects of other memory nodes it freed) go home
 * whole on every pass. Every second visit to a node, by any of its CPUs
 * (about every 4 s per cache with one CPU a node), the CPU also reaps its
 * own memory node (counted in reap_visits): an untouched
 * shared array loses a fifth of its limit to the slabs the same way, and
 * if no allocation needed a free slab since the last node pass
 * (free_touched clear), about a fifth of the free_limit's worth of empty
 * slabs goes back to the buddy allocator: the surplus an idle cache keeps.
 * (Empty slabs beyond free_limit itself never wait for the reap: they go
 * back as soon as the objects that emptied them return.)
 *
 * Locking: the walk holds slab_caches_lock, taken with a trylock so that a
 * reap from a timer tick never waits (a busy lock skips this pass); a cache
 * leaves the list before kmem_cache_destroy() drains it. Per cache: this
 * CPU's array with interrupts off (the only array a reap touches), then its
 * node's lock for the node's fields; objects and slabs go back through
 * cache_drain_array/cache_drain_shared/cache_release_node_free_slabs, which take
 * the node lock and then, with it dropped, the zone lock.
 *
 * slab_drain_all() is the heavy version, for tests and shutdown checks:
 * every CPU drains all its arrays and gives the arrays themselves back
 * (through on_each_cpu_wait), then shared arrays and every empty slab go
 * back, then every CPU's page list. What is left is what live objects
 * need, whichever CPUs happened to use which caches before.
 *
 * Departures from Linux: no per-CPU deferred work; the caller's tick drives
 * the reap, and node passes are paced by counting passes, not by jiffies.
 * Every CPU of a node counts visits to it and reaps it in turn (Linux: one
 * CPU per node, paced by time); alien caches are the CPU's own, drained
 * whole each pass (Linux: one remote node's per pass, under its lock).
 */
#include "mm/slab/slab_def.h"
#include "kernel/smp.h"

static unsigned long reap_events;	/* reap passes that gave anything back */

/* slab_reap_events: see slab.h. */
unsigned long slab_reap_events(void)
{
	return __atomic_load_n(&reap_events, __ATOMIC_RELAXED);
}

/* How much of an untouched array a pass drains: a fifth of its limit, at most half its objects. */
static unsigned int reap_amount(const struct array_cache *ac)
{
	unsigned int n = (ac->limit + 4) / 5;

	return n > ac->avail ? (ac->avail + 1) / 2 : n;
}

/* One cache: this CPU's array, then (every second visit) its node. Interrupts off. */
static bool reap_cache(struct kmem_cache *cachep, void *unused)
{
	unsigned int cpu = smp_processor_id(), nid = slab_node_of_cpu(cpu);
	struct array_cache *ac = cachep->cpu_array[cpu];
	struct kmem_cache_node *n = READ_ONCE(cachep->node[nid]);
	unsigned int shared = 0;
	unsigned long slabs = 0;
	bool worked = false;

	(void)unused;
	if (ac->avail) {
		if (ac->touched) {
			ac->touched = 0;
		} else {
			cache_drain_array(cachep, ac, reap_amount(ac));
			worked = true;
		}
	}
	if (cache_drain_aliens(cachep, cpu, false))
		worked = true;
	if (!n)		/* this CPU uses node 0: node 0's CPUs reap it */
		return worked;
	spin_lock(&n->list_lock);
	if (++n->reap_visits >= 2) {
		n->reap_visits = 0;
		if (n->shared && n->shared->avail) {
			if (n->shared->touched)
				n->shared->touched = 0;
			else
				shared = reap_amount(n->shared);
		}
		if (n->free_touched)
			n->free_touched = 0;
		else if (n->free_slabs)
			slabs = (n->free_limit + 5UL * cachep->num - 1) / (5UL * cachep->num);
	}
	spin_unlock(&n->list_lock);
	if (shared)
		cache_drain_shared(cachep, nid, shared);
	if (slabs)
		cache_release_node_free_slabs(cachep, nid, slabs);
	return worked || shared || slabs;
}

/* slab_reap: see slab.h. */
void slab_reap(void)
{
	if (slab_state == SLAB_UP && slab_caches_try_each(reap_cache, NULL, NULL))
		__atomic_fetch_add(&reap_events, 1, __ATOMIC_RELAXED);
}

static void drop_local_cb(void *unused)
{
	(void)unused;
	slab_drop_local_arrays();
}

/*
 * Every cache's shared arrays (drained, then freed; a node makes another
 * when a CPU next sends it objects) and empty slabs back, this CPU
 * array-less meanwhile.
 */
static void release_all(void)
{
	struct kmem_cache *cachep;
	unsigned long flags;

	flags = spin_lock_irqsave(&slab_caches_lock);
	slab_set_arrayless(true);
	list_for_each_entry(cachep, &slab_caches, list) {
		for (unsigned int i = 0; i < SLAB_NODES; i++)
			cache_release_shared(cachep, i);
		cache_release_free_slabs(cachep);
	}
	slab_set_arrayless(false);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

/* slab_drain_all: see slab.h. */
void slab_drain_all(void)
{
	on_each_cpu_wait(drop_local_cb, NULL);
	/* Twice: freeing a slab can free its off-slab freelist into another cache. */
	release_all();
	release_all();
	drain_all_pages();
}
