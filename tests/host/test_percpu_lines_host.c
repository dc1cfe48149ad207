/*
 * test_percpu_lines_host.c - no CPU's per-CPU data shares a cache line with
 * another CPU's, for every allocator (host only).
 *
 * A line written by one CPU and read or written by another moves between
 * their caches on every such access: per-CPU structures exist so that the
 * fast paths never do that. The test first makes one thread act as each CPU
 * in turn and use every kmalloc size and a cache of its own (so every CPU
 * has its arrays, nodes, sheaves, per-CPU lists), then walks what each CPU
 * writes on its own paths and checks that no two CPUs' objects meet in a
 * SLAB_CACHE_LINE-byte line:
 *  - the page allocator's per-CPU lists (pcp_lists);
 *  - SLAB: every cache's per-CPU array (cpu_array[cpu]) and node (node[cpu],
 *    node 0 inside the cache), and the per-CPU words slab_cpu_index;
 *  - SLUB: every cache's per-CPU slow-path state (cpu[cpu]), the (freelist,
 *    tid) pair and main sheaf pointer in the per-CPU slots, the main and
 *    spare sheaves themselves, and the per-CPU event counter;
 *  - SLOB and SLOB-seg: the per-CPU event counter (the heap is one lock's), and
 *    the heap lock alone on its line (slob_heap_lock_line).
 * Data that every CPU writes by design (a node's shared array, SLUB's node
 * and barn, the zone) and words written once at set-up and only read on the
 * fast paths (a cache's cpu_array[] and node[] pointers) are not per-CPU
 * objects and are left out.
 */
#include "host_shim.h"
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include "mm/page_alloc/buddy_internal.h"
#if !defined(CONFIG_ALLOC_NONE)
#include "mm/slab.h"
#endif
#if defined(CONFIG_ALLOC_SLAB)
#include "mm/slab/slab_def.h"
#elif defined(CONFIG_ALLOC_SLUB)
#include "mm/slub/slub_def.h"
#elif defined(CONFIG_ALLOC_SLOB) || defined(CONFIG_ALLOC_SLOB_SEG)
#include "mm/slob/slob_def.h"
#endif
#include <stdlib.h>

#define PCL_LINE	64
#define PCL_MAX		(NR_CPUS * 256)

/* One CPU's object: [start, end) of the host's address space. */
struct pcl_obj {
	uintptr_t start, end;
	unsigned int cpu;
	const char *what;
	const char *cache;
};

static struct pcl_obj pcl_objs[PCL_MAX];
static unsigned int pcl_n;
static bool pcl_overflow;

static void pcl_add(unsigned int cpu, const void *p, size_t bytes, const char *what,
		    const char *cache)
{
	if (!p || !bytes)
		return;
	if (pcl_n == PCL_MAX) {
		pcl_overflow = true;
		return;
	}
	pcl_objs[pcl_n++] = (struct pcl_obj){ (uintptr_t)p, (uintptr_t)p + bytes, cpu, what,
					      cache ? cache : "-" };
}

static int pcl_cmp(const void *a, const void *b)
{
	const struct pcl_obj *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * pcl_check - sort the objects by address and sweep: an object whose first
 * line is at or below the last line of another CPU's object seen before it
 * shares that line. Returns the sharing pairs found (each printed).
 */
static unsigned int pcl_check(void)
{
	uintptr_t last_line[NR_CPUS];
	unsigned int last_obj[NR_CPUS], bad = 0;

	for (unsigned int c = 0; c < NR_CPUS; c++) {
		last_line[c] = 0;
		last_obj[c] = PCL_MAX;
	}
	qsort(pcl_objs, pcl_n, sizeof(pcl_objs[0]), pcl_cmp);
	for (unsigned int i = 0; i < pcl_n; i++) {
		const struct pcl_obj *o = &pcl_objs[i];
		uintptr_t first = o->start / PCL_LINE, last = (o->end - 1) / PCL_LINE;

		for (unsigned int c = 0; c < NR_CPUS; c++) {
			const struct pcl_obj *q;

			if (c == o->cpu || last_obj[c] == PCL_MAX || last_line[c] < first)
				continue;
			q = &pcl_objs[last_obj[c]];
			if (bad++ < 8)
				printk("percpu lines: CPU %u's %s (cache %s) at 0x%lx+%lu and CPU %u's "
				       "%s (cache %s) at 0x%lx+%lu share the line at 0x%lx\n",
				       q->cpu, q->what, q->cache, (unsigned long)q->start,
				       (unsigned long)(q->end - q->start), o->cpu, o->what, o->cache,
				       (unsigned long)o->start, (unsigned long)(o->end - o->start),
				       (unsigned long)(first * PCL_LINE));
		}
		if (last > last_line[o->cpu] || last_obj[o->cpu] == PCL_MAX) {
			last_line[o->cpu] = last;
			last_obj[o->cpu] = i;
		}
	}
	return bad;
}

#if !defined(CONFIG_ALLOC_NONE)
/* Act as each CPU in turn and use every kmalloc size and cachep, so each has its per-CPU parts. */
static void pcl_use_every_cache(struct kmem_cache *cachep)
{
	unsigned int self = host_cpu_id;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		host_set_cpu(cpu);
		for (size_t size = KMALLOC_MIN_SIZE; size <= KMALLOC_MAX_CACHE_SIZE; size *= 2) {
			void *p[3] = { kmalloc(size), kmalloc(size * 3 / 4 + 1), kmalloc(size - 1) };

			for (unsigned int k = 0; k < 3; k++)
				kfree(p[k]);
		}
		kmem_cache_free(cachep, kmem_cache_alloc(cachep));
	}
	host_set_cpu(self);
}
#endif

/* Every allocator's per-CPU objects, and the page allocator's, into pcl_objs. */
static void pcl_collect(void)
{
	pcl_n = 0;
	pcl_overflow = false;
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		pcl_add(cpu, per_cpu_ptr(pcp_lists, cpu), sizeof(struct per_cpu_pages),
			"per-CPU page lists", NULL);
#if defined(CONFIG_ALLOC_SLAB)
	struct kmem_cache *c;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		pcl_add(cpu, per_cpu_ptr(slab_cpu_index, cpu), sizeof(unsigned long),
			"slab_cpu_index", NULL);
	list_for_each_entry(c, &slab_caches, list) {
		for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
			struct array_cache *ac = c->cpu_array[cpu];

			if (ac != &slab_no_array)
				pcl_add(cpu, ac, sizeof(*ac) + (ac->limit + 1) * sizeof(void *),
					"array", c->name);
			pcl_add(cpu, c->node[cpu], sizeof(struct kmem_cache_node), "node", c->name);
		}
	}
#elif defined(CONFIG_ALLOC_SLUB)
	struct kmem_cache *c;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		pcl_add(cpu, per_cpu_ptr(slub_events, cpu), sizeof(unsigned long), "slub_events",
			NULL);
	list_for_each_entry(c, &slab_caches, list) {
		for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
			struct slub_sheaf *main = per_cpu_ptr(slub_sheaf, cpu)->main[c->slot];

			pcl_add(cpu, &c->cpu[cpu], sizeof(c->cpu[cpu]), "cpu slow-path state",
				c->name);
			pcl_add(cpu, slub_cpu_of(c, cpu), sizeof(struct kmem_cache_cpu),
				"(freelist, tid) pair", c->name);
			pcl_add(cpu, &per_cpu_ptr(slub_sheaf, cpu)->main[c->slot],
				sizeof(struct slub_sheaf *), "main sheaf pointer", c->name);
			if (main && main != &slub_sheaf_none)
				pcl_add(cpu, main, SLUB_SHEAF_BYTES, "main sheaf", c->name);
			if (c->cpu[cpu].spare)
				pcl_add(cpu, c->cpu[cpu].spare, SLUB_SHEAF_BYTES, "spare sheaf",
					c->name);
		}
	}
#elif defined(CONFIG_ALLOC_SLOB) || defined(CONFIG_ALLOC_SLOB_SEG)
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		pcl_add(cpu, per_cpu_ptr(slob_events, cpu), sizeof(unsigned long), "slob_events",
			NULL);
#endif
}

/*
 * Every CPU's per-CPU objects, of every cache, on lines of
 * their own.
 */
SELFTEST(percpu_lines_apart)
{
	unsigned int bad;
#if !defined(CONFIG_ALLOC_NONE)
	struct kmem_cache *cachep = kmem_cache_create("percpu-lines", 72, 0, 0, NULL);

	ST_EXPECT(cachep != NULL, "kmem_cache_create failed");
	pcl_use_every_cache(cachep);
#endif
	pcl_collect();
	ST_EXPECT(!pcl_overflow, "more than %u per-CPU objects: raise PCL_MAX", PCL_MAX);
	ST_EXPECT(pcl_n >= NR_CPUS, "only %u per-CPU objects found", pcl_n);
	bad = pcl_check();
#if !defined(CONFIG_ALLOC_NONE)
	kmem_cache_destroy(cachep);
#endif
	ST_EXPECT(bad == 0, "%u pairs of different CPUs' per-CPU objects share a %d-byte line "
		  "(first ones above)", bad, PCL_LINE);
	return 0;
}

#if defined(CONFIG_ALLOC_SLOB) || defined(CONFIG_ALLOC_SLOB_SEG)
/*
 * SLOB's heap lock alone on its cache line. CPUs waiting for
 * the lock read it over and over; the heap data the holder writes (lists,
 * map, counters) and every other variable stay off that line.
 */
SELFTEST(slob_heap_lock_line)
{
	uintptr_t lock = (uintptr_t)&slob_heap.locked, line = lock / PCL_LINE;

	ST_EXPECT(lock % PCL_LINE == 0, "the heap lock at 0x%lx, not at a line's start",
		  (unsigned long)lock);
	ST_EXPECT((uintptr_t)&slob_heap.nr_pages / PCL_LINE != line &&
		  (uintptr_t)&slob_heap.spare / PCL_LINE != line,
		  "the heap's data shares the lock's line at 0x%lx (nr_pages at 0x%lx)",
		  (unsigned long)(line * PCL_LINE), (unsigned long)(uintptr_t)&slob_heap.nr_pages);
	return 0;
}
#endif

/* The check itself: two CPUs' objects planted in one line are found, apart ones are not. */
SELFTEST(percpu_lines_check_finds_sharing)
{
	static char buf[4 * PCL_LINE] __aligned(PCL_LINE);
	unsigned int bad;

	pcl_n = 0;
	pcl_add(0, buf, 40, "planted", "a");
	pcl_add(1, buf + PCL_LINE, PCL_LINE, "planted", "b");
	pcl_add(0, buf + 2 * PCL_LINE, 8, "planted", "c");
	ST_EXPECT(pcl_check() == 0, "objects on separate lines reported as sharing one");
	pcl_add(1 % NR_CPUS, buf + 2 * PCL_LINE + 56, 16, "planted", "d");
	bad = pcl_check();
	ST_EXPECT(bad == (NR_CPUS > 1), "a line shared by CPUs 0 and 1: %u pairs reported", bad);
	pcl_n = 0;
	return 0;
}
