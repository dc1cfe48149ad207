/*
 * test_scale.c - what the allocator's per-CPU state costs as CPUs grow
 * (issue 14, "Scale"). SLAB makes a node and an array for a CPU the first
 * time that CPU uses a cache, SLUB keeps a per-CPU slot in every cache and
 * gives a CPU its own slab when it first allocates, SLOB keeps nothing per
 * CPU: this test makes every online CPU use every kmalloc cache once and
 * prints the "Slab:" figure before, after, and after every CPU's caching is
 * drained, so a boot at 1, 8 or 64 CPUs shows what grows with the CPUs.
 * What must hold: every allocation succeeds, and draining gives back all but
 * the per-CPU bookkeeping (SLAB's nodes), which stays within a bound per CPU
 * and cache. Kernel only: the host has no CPUs to bring up.
 */
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "mm/buddy.h"
#ifndef CONFIG_ALLOC_NONE
#include "mm/slab.h"
#endif

#ifndef CONFIG_ALLOC_NONE
/* Every kmalloc size class: the powers of two from KMALLOC_MIN_SIZE, and 96 and 192. */
static unsigned int kmalloc_class_sizes(size_t *sizes)
{
	unsigned int n = 0;

	for (size_t s = KMALLOC_MIN_SIZE; s <= KMALLOC_MAX_CACHE_SIZE; s <<= 1)
		sizes[n++] = s;
	sizes[n++] = 96;
	sizes[n++] = 192;
	return n;
}

/* On each CPU: one kmalloc and kfree of each size class; counts the NULLs. */
static void use_every_kmalloc_cache(void *arg)
{
	unsigned int *nulls = arg;
	size_t sizes[KMALLOC_SHIFT_HIGH + 3];
	unsigned int n = kmalloc_class_sizes(sizes);

	for (unsigned int i = 0; i < n; i++) {
		void *p = kmalloc(sizes[i]);

		if (!p)
			__atomic_fetch_add(nulls, 1, __ATOMIC_RELAXED);
		kfree(p);
	}
}

/*
 * What a CPU may leave behind per kmalloc cache once drained: SLAB's node
 * (a kmem_cache_node object, 128 bytes); SLUB and SLOB leave nothing. A
 * CPU allocates its nodes itself, so they sit on slabs of its own node of
 * the node cache: at least one page per CPU, however few nodes it has.
 */
#define SCALE_KEPT_PER_CPU_CACHE 256

SELFTEST(scale_every_cpu_uses_every_kmalloc_cache)
{
	size_t sizes[KMALLOC_SHIFT_HIGH + 3];
	unsigned int n = kmalloc_class_sizes(sizes), cpus = num_online_cpus(), nulls = 0;
	unsigned long before, used, drained, allowed;

	slab_drain_all();
	before = slab_total_pages();
	on_each_cpu_wait(use_every_kmalloc_cache, &nulls);
	used = slab_total_pages();
	slab_drain_all();
	drained = slab_total_pages();
	printk("  Slab: %lu kB before, %lu kB once each of %u CPUs used all %u kmalloc caches, "
	       "%lu kB after draining\n",
	       before * (PAGE_SIZE / 1024), used * (PAGE_SIZE / 1024), cpus, n,
	       drained * (PAGE_SIZE / 1024));
	ST_EXPECT(nulls == 0, "%u kmallocs returned NULL", nulls);
	/* Each CPU's bookkeeping in whole pages, plus one partly used page per cache. */
	allowed = cpus * ((n * SCALE_KEPT_PER_CPU_CACHE + PAGE_SIZE - 1) / PAGE_SIZE) + n;
	ST_EXPECT(drained <= before + allowed,
		  "draining left %lu pages in slabs, %lu more than before (allowed: %lu for "
		  "%u CPUs x %u caches)",
		  drained, drained - before, allowed, cpus, n);
	return 0;
}
#endif
