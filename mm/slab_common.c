/*
 * slab_common.c - code every object allocator shares (SLAB, SLUB, both
 * SLOBs), written once against what each one's def header gives under the
 * same names (mm/slab_impl.h: slab_caches, slab_caches_lock, name, list).
 * The snapshot of every cache's objects in use that leak accounting
 * compares (lab/leakcheck.c), through each allocator's
 * kmem_cache_usage(); the pseudo-random numbers the hardening options use;
 * the checks of kmem_cache_create's arguments and of a cache pointer given
 * to kmem_cache_destroy; putting a new cache on slab_caches.
 */
#include "mm/slab_impl.h"
#include "mm/buddy.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include <asm/processor.h>

/* slab_random's state: SplitMix64's counter; 0 until the first call seeds it. */
static uint64_t slab_rng;

#define SLAB_RNG_GAMMA	0x9e3779b97f4a7c15ULL

/* slab_random: see slab.h. */
uint64_t slab_random(void)
{
	uint64_t z = __atomic_load_n(&slab_rng, __ATOMIC_RELAXED);

	if (unlikely(!z)) {
		uint64_t seed = arch_random_seed() | 1;

		/* the first caller's seed wins; a racing one just uses the winner's */
		__atomic_compare_exchange_n(&slab_rng, &z, seed, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
	}
	z = __atomic_add_fetch(&slab_rng, SLAB_RNG_GAMMA, __ATOMIC_RELAXED);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* slab_usage_snapshot: see slab.h. */
unsigned int slab_usage_snapshot(struct slab_usage *u, unsigned int n)
{
	struct kmem_cache *c;
	unsigned long flags;
	unsigned int i = 0;

	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(c, &slab_caches, list) {
		if (i < n) {
			size_t k = 0;

			u[i].cache = c;
			for (; c->name[k] && k < sizeof(u[i].name) - 1; k++)
				u[i].name[k] = c->name[k];
			u[i].name[k] = '\0';
			kmem_cache_usage(c, &u[i]);
		}
		i++;
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return i;
}

/*
 * kmem_cache_bad_arg - why kmem_cache_create's arguments are refused, in
 * buf ("name is NULL", "align 3 is not a power of two", ...), or false
 * when they are good. Every allocator accepts objects of up to
 * KMEM_CACHE_MAX_SIZE bytes, in debug builds too.
 */
bool kmem_cache_bad_arg(char *buf, size_t len, const char *name, size_t size, size_t align,
			unsigned int flags)
{
	unsigned int known = SLAB_HWCACHE_ALIGN | SLAB_DEBUG | SLAB_NO_DEBUG | SLAB_NO_MERGE;

	if (!name)
		snprintf(buf, len, "name is NULL");
	else if (size == 0)
		snprintf(buf, len, "size is 0");
	else if (size > KMEM_CACHE_MAX_SIZE)
		snprintf(buf, len, "size %zu is above the largest object (%lu bytes)", size,
			 KMEM_CACHE_MAX_SIZE);
	else if (align & (align - 1))
		snprintf(buf, len, "align %zu is not a power of two", align);
	else if (align > PAGE_SIZE)
		snprintf(buf, len, "align %zu is above the page size (%lu)", align, PAGE_SIZE);
	else if (flags & ~known)
		snprintf(buf, len, "unknown flags 0x%x", flags & ~known);
	else
		return false;
	return true;
}

/*
 * slab_cache_live - true when cachep is on slab_caches: made by
 * kmem_cache_create (or at boot) and not destroyed since. Walks the list
 * under slab_caches_lock without touching *cachep; a caller that holds
 * the lock already (a walk of every cache that frees or allocates) has
 * the list walked under its own hold. Any context.
 */
bool slab_cache_live(const struct kmem_cache *cachep)
{
	const struct kmem_cache *c;
	unsigned long flags = arch_irq_save();
	bool mine = spin_is_locked(&slab_caches_lock) &&
		    slab_caches_lock.cpu == (int)smp_processor_id();
	bool found = false;

	if (!mine)
		spin_lock(&slab_caches_lock);
	list_for_each_entry(c, &slab_caches, list) {
		if (c == cachep) {
			found = true;
			break;
		}
	}
	if (!mine)
		spin_unlock(&slab_caches_lock);
	arch_irq_restore(flags);
	return found;
}

/* The words every report of a pointer that is not a live cache ends with. */
#define NOT_LIVE "not a live cache (destroyed already, or never made by kmem_cache_create)"

/* slab_cache_refused: see mm/slab_impl.h. */
bool slab_cache_refused(const struct kmem_cache *cachep, const char *fn, bool check_live)
{
	if (!cachep) {
		printk("slab: %s(NULL): no cache given; nothing done\n", fn);
		return true;
	}
	if (check_live && slab_state == SLAB_UP && !slab_cache_live(cachep)) {
		printk("slab: %s(%p): " NOT_LIVE "; refused\n", fn, (const void *)cachep);
		return true;
	}
	return false;
}

/* slab_node_arg: see mm/slab_impl.h. */
unsigned int slab_node_arg(const struct kmem_cache *cachep, unsigned int node, const char *fn)
{
	if (likely(node == NUMA_NO_NODE || numa_node_online(node)))
		return node;
	printk("slab: %s(%s, node %u): node %u is not online (the machine has %u node%s); "
	       "served from the calling CPU's node\n", fn, cachep ? cachep->name : "kmalloc",
	       node, node, numa_num_nodes(), numa_num_nodes() == 1 ? "" : "s");
	return NUMA_NO_NODE;
}

/* slab_free_cache_refused: see mm/slab_impl.h. */
bool slab_free_cache_refused(struct kmem_cache *cachep, const void *objp)
{
	char what[160];

	if (!cachep || !objp || slab_state != SLAB_UP || slab_cache_live(cachep))
		return false;
	snprintf(what, sizeof(what), "cache %p is " NOT_LIVE "; not freed", (const void *)cachep);
	slab_bad_free(NULL, "kmem_cache_free", objp, what);
	return true;
}

/* slab_cache_align: see mm/slab_common.h. */
size_t slab_cache_align(size_t size, size_t align, unsigned int flags, size_t least)
{
	size_t ralign = least;

	if (flags & SLAB_HWCACHE_ALIGN) {
		size_t r = SLAB_CACHE_LINE;

		while (size <= r / 2 && r > ralign)
			r /= 2;
		ralign = MAX(ralign, r);
	}
	return MAX(ralign, align);
}

/* slab_caches_add: see mm/slab_common.h. Newest first. */
void slab_caches_add(struct kmem_cache *cachep)
{
	unsigned long flags = spin_lock_irqsave(&slab_caches_lock);

	list_add(&cachep->list, &slab_caches);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

/* slab_caches_try_each: see mm/slab_common.h. */
bool slab_caches_try_each(bool (*fn)(struct kmem_cache *cachep, void *arg), void *arg,
			  const struct kmem_cache *except)
{
	unsigned long flags = arch_irq_save();
	struct kmem_cache *cachep;
	bool worked = false;

	if (spin_trylock(&slab_caches_lock)) {
		list_for_each_entry(cachep, &slab_caches, list)
			if (cachep != except)
				worked |= fn(cachep, arg);
		spin_unlock(&slab_caches_lock);
	}
	arch_irq_restore(flags);
	return worked;
}

/* __kmem_cache_create: see mm/slab_common.h. */
struct kmem_cache *__kmem_cache_create(const char *name, size_t size, size_t align,
				       unsigned int flags, void (*ctor)(void *))
{
	struct kmem_cache *cachep = kmem_cache_alloc(&kmem_cache_boot);

	if (!cachep)
		return NULL;
	memset(cachep, 0, sizeof(*cachep));
	if (!kmem_cache_setup(cachep, name, size, align, flags, ctor)) {
		kmem_cache_free(&kmem_cache_boot, cachep);
		return NULL;
	}
	return cachep;
}

/* kmem_cache_create: see slab.h. __kmem_cache_create makes it. */
struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
				     unsigned int flags, void (*ctor)(void *))
{
	struct kmem_cache *cachep;
	char why[80];

	if (kmem_cache_bad_arg(why, sizeof(why), name, size, align, flags)) {
		printk("%s: kmem_cache_create(%s, %zu, %zu, 0x%x): bad argument: %s\n",
		       SLAB_ALLOC_NAME, name ? name : "(null)", size, align, flags, why);
		return NULL;
	}
	ASSERT(slab_state == SLAB_UP);
	cachep = slab_merge_find(size, align, flags, ctor);
	if (cachep)
		return cachep;
	cachep = __kmem_cache_create(name, size, align, flags, ctor);
	if (cachep) {
		cachep->refcount = 1;
		slab_caches_add(cachep);
	}
	return cachep;
}

/* kmem_cache_size: see slab.h. */
size_t kmem_cache_size(struct kmem_cache *cachep)
{
	return cachep->object_size;
}

/* kmem_cache_name: see slab.h. */
const char *kmem_cache_name(struct kmem_cache *cachep)
{
	return cachep->name;
}
