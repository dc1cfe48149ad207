/*
 * test_slub_host.c - heavy SLUB tests for the host only (ASan/UBSan):
 *  - a random run (fixed seed) of create/alloc/free/shrink/drain/reap/
 *    destroy over caches of random geometry (red zones, poison, ctors,
 *    alignments) and kmalloc sizes, the thread hopping between CPUs (one
 *    per step, host_set_cpu) so that objects are freed on other CPUs than
 *    the one that took them and every CPU keeps its own slab and partial
 *    slabs. Each object is checked when handed out (aligned, in a slab of
 *    its cache, not live already) and when freed (its pattern intact: no
 *    two live objects overlap); every few thousand steps every cache
 *    passes kmem_cache_check and holds exactly the live objects;
 *  - reap and drain: idle CPUs give their slabs back on the second reap
 *    (one that only freed in between is not idle),
 *    slab_drain_all leaves only slabs with live objects;
 *  - the reap and sheaves: idle CPUs give their sheaves back on the second
 *    reap (busy ones keep them), an untouched barn is emptied, drain_all
 *    leaves no sheaf.
 * All end with every page back.
 * The random run is tests/host/stress.c's; this file gives it SLUB's checks.
 */
#include "tests/common/test_slub.h"
#include "host_stress.h"
#include "host_shim.h"

#define RANDOM_OPS	150000
#define HOP_CPUS	4

/*
 * A topology that NUMA tests before these left behind without splitting
 * the arena's zones (no page is another node's) goes back to one node, and
 * SLUB reads it again. An arena split into nodes (a host run on several
 * nodes) keeps its topology: these tests hold there too.
 */
static void slub_host_one_node(void)
{
	static uint64_t hwid[NR_CPUS];

	if (numa_num_nodes() == 1)
		return;
	for (unsigned int nid = 1; nid < MAX_NUMNODES; nid++)
		if (nr_free_pages_node(nid))
			return;
	for (unsigned int c = 0; c < NR_CPUS; c++)
		hwid[c] = c;
	numa_init(NULL, host_arena.avail, host_arena.n_avail, hwid, NR_CPUS);
	slub_nodes_refresh();
}

/* An object of a slab of its cache (kmalloc's large ones come from pages). */
static int slub_check_object(struct kmem_cache *c, const void *p, size_t size)
{
	struct page *head;
	struct kmem_cache *owner;
	uintptr_t off;

	if (!c && size > KMALLOC_MAX_CACHE_SIZE)
		return 0;
	head = slub_test_page(p);
	owner = head->slab_cache;
	off = (uintptr_t)p - (uintptr_t)page_address(head) - owner->obj_offset;
	ST_EXPECT((!c || owner == c) && off % owner->size == 0 && off / owner->size < owner->num &&
			  size <= owner->object_size,
		  "%p is not an object of a slab of its cache", p);
	return 0;
}

/* Callers hold exactly the live objects. */
static int slub_check_cache(struct kmem_cache *c, unsigned long live)
{
	ST_EXPECT(slub_test_held(c) == live, "%s: %lu objects held, %lu live", c->name,
		  slub_test_held(c), live);
	return 0;
}

/* The standard limits and caches, the thread hopping between CPUs, one per step. */
static const struct stress_config slub_stress = {
	.ops = RANDOM_OPS, .hop_cpus = HOP_CPUS, .check_every = 3000,
	.create_below = 12, .shrink_below = 20, .reap_below = 24, .alloc_below = 530,
	.tag_span = 192, .cache_flags = SLAB_NO_DEBUG,
	.check_object = slub_check_object, .check_cache = slub_check_cache,
};

/* host_random_run: see host_stress.h. */
int host_random_run(unsigned long ops, struct stress_counts *counts)
{
	struct stress_config cfg = slub_stress;

	cfg.ops = ops;
	return stress_run(&cfg, counts);
}

SELFTEST_HOST(slub_host_random_operations)
{
	unsigned long pages, bad = slab_bad_frees, corrupt = slab_corruptions;
	unsigned long frozen_before = 0, frozen_after = 0;
	struct stress_counts n;

	slub_host_one_node();
	slab_drain_all();
	pages = slab_test_settle();
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
		if (kmalloc_caches[i])
			frozen_before += kmalloc_caches[i]->stats.free_frozen;
	if (stress_run(&slub_stress, &n))
		return -1;
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
		if (kmalloc_caches[i])
			frozen_after += kmalloc_caches[i]->stats.free_frozen;
	ST_EXPECT(slab_bad_frees == bad && slab_corruptions == corrupt,
		  "good frees reported as bad");
	/* (With CONFIG_SLAB_DEBUG the kmalloc caches are debug caches: nothing is frozen.) */
	ST_EXPECT(frozen_after > frozen_before || CONFIG_SLAB_DEBUG,
		  "no free went to another CPU's frozen slab");
	slab_drain_all();
	ST_EXPECT(slab_test_settle() == pages, "pages not back: %lu free, %lu before",
		  nr_free_pages(), pages);
	printk("random: %d ops on %d CPUs: %lu create/destroy, %lu shrink/drain/reap, %lu alloc,"
	       " %lu free, %lu frees into frozen slabs\n", RANDOM_OPS, HOP_CPUS, n.create_destroy,
	       n.shrink, n.alloc, n.free, frozen_after - frozen_before);
	return 0;
}

SELFTEST_HOST(slub_host_reap_and_drain_all)
{
	struct kmem_cache *c;
	unsigned long pages, reaps, partial;
	void *keep[HOP_CPUS], *p, *extra = NULL;

	slub_host_one_node();
	slab_drain_all();
	pages = slab_test_settle();
	/* The classic pair's idle test; slub_host_sheaves_reap has the sheaves'. */
	c = slub_test_classic(kmem_cache_create("test-reap", 100, 0, SLAB_NO_DEBUG, NULL));
	ST_EXPECT(c, "create failed");
	/* Every CPU gets a CPU slab and keeps one object. */
	for (unsigned int cpu = 0; cpu < HOP_CPUS; cpu++) {
		host_set_cpu(cpu);
		keep[cpu] = kmem_cache_alloc(c);
		p = kmem_cache_alloc(c);
		kmem_cache_free(c, p);
		ST_EXPECT(keep[cpu] && slub_test_cpu_slab(c), "CPU %u has no slab", cpu);
		if (cpu == 2)
			extra = kmem_cache_alloc(c);
	}
	ST_EXPECT(extra, "no extra object");
	/*
	 * The first reap only notes the pairs; the second finds them unchanged
	 * and flushes. CPU 1 allocates and frees between the two, CPU 2 only
	 * frees (its tid stays, its freelist moves): both stay busy.
	 */
	reaps = slab_reap_events();
	for (unsigned int pass = 0; pass < 2; pass++) {
		for (unsigned int cpu = 0; cpu < HOP_CPUS; cpu++) {
			host_set_cpu(cpu);
			if (cpu == 1 && pass == 1)
				kmem_cache_free(c, kmem_cache_alloc(c));
			if (cpu == 2 && pass == 1) {
				unsigned long tid = slub_this_cpu(c)->tid;

				kmem_cache_free(c, extra);
				ST_EXPECT(slub_this_cpu(c)->tid == tid &&
						  slub_this_cpu(c)->freelist == extra,
					  "CPU 2's free: tid %lu (was %lu), freelist %p",
					  slub_this_cpu(c)->tid, tid, slub_this_cpu(c)->freelist);
			}
			slab_reap();
		}
	}
	for (unsigned int cpu = 0; cpu < HOP_CPUS; cpu++)
		ST_EXPECT((slub_cpu_of(c, cpu)->freelist == SLUB_NO_SLAB) == (cpu != 1 && cpu != 2),
			  "CPU %u after two reaps: freelist %p", cpu,
			  slub_cpu_of(c, cpu)->freelist);
	ST_EXPECT(slab_reap_events() > reaps, "no reap counted");
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed after the reaps");
	host_set_cpu(0);
	slab_drain_all();
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		ST_EXPECT(slub_cpu_of(c, cpu)->freelist == SLUB_NO_SLAB &&
			      c->cpu[cpu].nr_partial == 0,
			  "CPU %u kept a slab through slab_drain_all", cpu);
	/* Each CPU took a slab of its own; each keeps one live object, on its node's list. */
	partial = 0;
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++)
		partial += c->node[nid].nr_partial;
	ST_EXPECT(slub_nr_slabs(c, false) == HOP_CPUS && partial == HOP_CPUS,
		  "%ld slabs (%lu partial) after the drain, want %d",
		  slub_nr_slabs(c, false), partial, HOP_CPUS);
	for (unsigned int cpu = 0; cpu < HOP_CPUS; cpu++)
		kmem_cache_free(c, keep[cpu]);
	ST_EXPECT(kmem_cache_check(c) == 0 && kmem_cache_destroy(c) == 0, "check or destroy");
	slab_drain_all();
	ST_EXPECT(slab_test_settle() == pages, "pages not back: %lu free, %lu before",
		  nr_free_pages(), pages);
	return 0;
}

/*
 * The reap and sheaves: a CPU whose main sheaf did not change between two
 * passes gives its sheaves back (their objects to the slabs); a CPU that
 * allocated or freed meanwhile keeps them. A barn no sheaf entered or left
 * for two passes is emptied. slab_drain_all gives everything back.
 */
SELFTEST_HOST(slub_host_sheaves_reap)
{
	struct kmem_cache *c;
	unsigned long pages;
	void *objs[HOP_CPUS][4];

	slub_host_one_node();
	if (!CONFIG_SLUB_SHEAVES)
		return 0;
	slab_drain_all();
	pages = slab_test_settle();
	c = kmem_cache_create("test-sheaf-reap", 100, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c && c->sheaf_capacity, "create failed, or no sheaves");
	for (unsigned int cpu = 0; cpu < HOP_CPUS; cpu++) {
		host_set_cpu(cpu);
		for (unsigned int i = 0; i < 4; i++)
			objs[cpu][i] = kmem_cache_alloc(c);
		kmem_cache_free(c, objs[cpu][3]);
		ST_EXPECT(slub_this_main(c) != &slub_sheaf_none, "CPU %u has no sheaf", cpu);
	}
	/* A full sheaf in the barn, from CPU 3's frees. */
	host_set_cpu(3);
	{
		unsigned int n = c->sheaf_capacity * 3;
		void **more = kmalloc_array(n, sizeof(void *));

		ST_EXPECT(more, "no table");
		for (unsigned int i = 0; i < n; i++)
			more[i] = kmem_cache_alloc(c);
		for (unsigned int i = 0; i < n; i++)
			kmem_cache_free(c, more[i]);
		kfree(more);
	}
	ST_EXPECT(slub_local_node(c)->barn.nr_full > 0, "no full sheaf in the barn");
	/* Pass 1 notes every main sheaf; in pass 2 CPU 1 frees, CPU 2 allocates. */
	for (unsigned int pass = 0; pass < 3; pass++) {
		for (unsigned int cpu = 0; cpu < HOP_CPUS; cpu++) {
			host_set_cpu(cpu);
			if (pass == 1 && cpu == 1)
				kmem_cache_free(c, objs[1][2]);
			if (pass == 1 && cpu == 2)
				objs[2][3] = kmem_cache_alloc(c);
			if (pass < 2)
				slab_reap();
		}
	}
	for (unsigned int cpu = 0; cpu < HOP_CPUS; cpu++) {
		bool busy = cpu == 1 || cpu == 2;
		struct slub_sheaf *m = per_cpu_ptr(slub_sheaf, cpu)->main[c->slot];

		ST_EXPECT((m != &slub_sheaf_none) == busy,
			  "CPU %u after two reaps: %s its sheaves", cpu, busy ? "lost" : "kept");
	}
	ST_EXPECT(slub_local_node(c)->barn.nr_full == 0 && slub_local_node(c)->barn.nr_empty == 0,
		  "barn after two idle passes: %u full, %u empty", slub_local_node(c)->barn.nr_full,
		  slub_local_node(c)->barn.nr_empty);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed after the reaps");
	host_set_cpu(0);
	slab_drain_all();
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		ST_EXPECT(per_cpu_ptr(slub_sheaf, cpu)->main[c->slot] == &slub_sheaf_none &&
				  c->cpu[cpu].spare == NULL,
			  "CPU %u kept sheaves through slab_drain_all", cpu);
	for (unsigned int cpu = 0; cpu < HOP_CPUS; cpu++)
		for (unsigned int i = 0; i < 3; i++)
			if (!(cpu == 1 && i == 2))
				kmem_cache_free(c, objs[cpu][i]);
	kmem_cache_free(c, objs[2][3]);
	ST_EXPECT(slub_test_held(c) == 0, "%lu objects held", slub_test_held(c));
	ST_EXPECT(kmem_cache_check(c) == 0 && kmem_cache_destroy(c) == 0, "check or destroy");
	slab_drain_all();
	ST_EXPECT(slab_test_settle() == pages, "pages not back: %lu free, %lu before",
		  nr_free_pages(), pages);
	return 0;
}
