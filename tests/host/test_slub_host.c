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
 */
#include "tests/common/test_slub.h"

#define RANDOM_OPS	150000
#define MAX_TCACHES	12
#define MAX_LIVE	4096
#define LIVE_BYTES_MAX	(12UL << 20)
#define HOP_CPUS	4
#define CTOR_MAGIC	0x5eedc0ffee15600dULL

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned long rnd_below(unsigned long n)
{
	return (unsigned long)(rnd() % n);
}

struct tcache {
	struct kmem_cache *c;
	size_t size, align;
	unsigned long live;
};

struct tobj {
	unsigned char *p;
	int cache;		/* index in tcaches, or -1 for kmalloc */
	size_t size;
	unsigned char tag;
};

static struct tcache tcaches[MAX_TCACHES];
static struct tobj live[MAX_LIVE];
static unsigned int nlive;
static unsigned long live_bytes;

static void ctor_magic(void *p)
{
	*(uint64_t *)p = CTOR_MAGIC;
}

static bool is_live(const void *p)
{
	for (unsigned int i = 0; i < nlive; i++)
		if (live[i].p == p)
			return true;
	return false;
}

/* Fill (or check) the bytes of an object the test owns with its tag (ctor word excepted). */
static bool pattern(struct tobj *o, bool check)
{
	size_t start = o->cache >= 0 && tcaches[o->cache].c->ctor ? 8 : 0;
	size_t span = MIN(o->size, (size_t)192);

	for (size_t k = start; k < span; k++) {
		size_t a = k, b = o->size - 1 - (k - start);

		if (check && (o->p[a] != o->tag || o->p[b] != o->tag))
			return false;
		if (!check)
			o->p[a] = o->p[b] = o->tag;
	}
	return true;
}

static int new_object(int ci, size_t size)
{
	struct kmem_cache *c = ci >= 0 ? tcaches[ci].c : NULL;
	struct tobj *o = &live[nlive];

	o->p = c ? kmem_cache_alloc(c) : kmalloc(size);
	ST_EXPECT(o->p, "allocation of %zu failed with %lu bytes live", size, live_bytes);
	ST_EXPECT(!is_live(o->p), "%p handed out while live", (void *)o->p);
	ST_EXPECT(((uintptr_t)o->p & 7) == 0, "%p not 8-aligned", (void *)o->p);
	if (c) {
		size_t align = MAX((size_t)c->align, tcaches[ci].align);

		ST_EXPECT(((uintptr_t)o->p & (align - 1)) == 0, "%p not aligned for %s",
			  (void *)o->p, c->name);
		ST_EXPECT(!c->ctor || *(uint64_t *)o->p == CTOR_MAGIC, "%s: not constructed",
			  c->name);
	}
	if (c || size <= KMALLOC_MAX_CACHE_SIZE) {
		struct page *head = slub_test_page(o->p);
		struct kmem_cache *owner = head->slab_cache;
		uintptr_t off = (uintptr_t)o->p - (uintptr_t)page_address(head) - owner->obj_offset;

		ST_EXPECT((!c || owner == c) && off % owner->size == 0 &&
				  off / owner->size < owner->num && size <= owner->object_size,
			  "%p is not an object of a slab of its cache", (void *)o->p);
	}
	o->cache = ci;
	o->size = size;
	o->tag = (unsigned char)rnd();
	pattern(o, false);
	nlive++;
	live_bytes += size;
	if (ci >= 0)
		tcaches[ci].live++;
	return 0;
}

static int free_object(unsigned int i)
{
	struct tobj *o = &live[i];

	ST_EXPECT(pattern(o, true), "object %p (%zu bytes) overwritten: overlap?", (void *)o->p,
		  o->size);
	if (o->cache >= 0) {
		if (tcaches[o->cache].c->ctor)
			*(uint64_t *)o->p = CTOR_MAGIC;	/* back in its constructed state */
		kmem_cache_free(tcaches[o->cache].c, o->p);
		tcaches[o->cache].live--;
	} else {
		kfree(o->p);
	}
	live_bytes -= o->size;
	live[i] = live[--nlive];
	return 0;
}

static int create_cache(unsigned int slot)
{
	static const size_t aligns[] = { 0, 0, 8, 16, 64, 256 };
	size_t size = rnd_below(4) ? 1 + rnd_below(rnd_below(2) ? 128 : 1100)
				   : 1 + rnd_below(2 * PAGE_SIZE);
	unsigned int flags = SLAB_NO_DEBUG;
	char name[24];

	if (rnd_below(5) == 0)
		flags |= SLAB_HWCACHE_ALIGN;
	if (rnd_below(8) == 0)
		flags |= SLAB_RED_ZONE;
	if (rnd_below(8) == 0)
		flags |= SLAB_POISON;
	snprintf(name, sizeof(name), "rnd-%u-%zu", slot, size);
	tcaches[slot].size = size;
	tcaches[slot].align = aligns[rnd_below(ARRAY_SIZE(aligns))];
	tcaches[slot].live = 0;
	tcaches[slot].c = kmem_cache_create(name, size, tcaches[slot].align, flags,
					    size >= 8 && rnd_below(6) == 0 ? ctor_magic : NULL);
	ST_EXPECT(tcaches[slot].c, "create %s failed", name);
	return 0;
}

static int destroy_cache(unsigned int slot)
{
	struct kmem_cache *c = tcaches[slot].c;

	/* Now and then first try with objects live: refused loudly, nothing freed. */
	if (tcaches[slot].live && rnd_below(10) == 0) {
		ST_EXPECT(kmem_cache_destroy(c) == -EBUSY, "%s destroyed with objects", c->name);
		ST_EXPECT(kmem_cache_check(c) == 0, "%s inconsistent after a refused destroy",
			  c->name);
	}
	for (unsigned int i = 0; i < nlive;) {
		if (live[i].cache != (int)slot)
			i++;
		else if (free_object(i))
			return -1;
	}
	ST_EXPECT(kmem_cache_check(c) == 0, "%s inconsistent before destroy", c->name);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy of empty %s refused", c->name);
	tcaches[slot].c = NULL;
	return 0;
}

static int check_all(void)
{
	for (unsigned int s = 0; s < MAX_TCACHES; s++) {
		struct kmem_cache *c = tcaches[s].c;

		if (!c)
			continue;
		ST_EXPECT(kmem_cache_check(c) == 0, "%s inconsistent", c->name);
		ST_EXPECT(slub_test_held(c) == tcaches[s].live, "%s: %lu objects held, %lu live",
			  c->name, slub_test_held(c), tcaches[s].live);
	}
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
		if (kmalloc_caches[i])
			ST_EXPECT(kmem_cache_check(kmalloc_caches[i]) == 0, "%s inconsistent",
				  kmalloc_caches[i]->name);
	return 0;
}

/* One step of the random run, as CPU 'cpu'. */
static int random_step(unsigned long *counts)
{
	unsigned long r = rnd_below(1000);
	unsigned int slot = (unsigned int)rnd_below(MAX_TCACHES);

	if (r < 12) {
		counts[0]++;
		return !tcaches[slot].c ? create_cache(slot) : destroy_cache(slot);
	}
	if (r < 20) {
		counts[1]++;
		kmem_cache_shrink(tcaches[slot].c ? tcaches[slot].c
						  : kmalloc_slab(1 + rnd_below(512)));
	} else if (r < 24) {
		counts[1]++;
		if (rnd_below(2))
			slab_drain_local_all();
		else
			slab_reap();
	} else if (r < 530 && nlive < MAX_LIVE && live_bytes < LIVE_BYTES_MAX) {
		size_t size;
		int ci = -1;

		counts[2]++;
		if (tcaches[slot].c && rnd_below(2)) {
			ci = (int)slot;
			size = tcaches[slot].size;
		} else if (rnd_below(100) == 0) {
			size = KMALLOC_MAX_CACHE_SIZE + 1 + rnd_below(3 * PAGE_SIZE);
		} else {
			size = 1 + rnd_below(rnd_below(4) ? 300 : KMALLOC_MAX_CACHE_SIZE);
		}
		return new_object(ci, size);
	} else if (nlive) {
		counts[3]++;
		return free_object((unsigned int)rnd_below(nlive));
	}
	return 0;
}

SELFTEST_HOST(slub_host_random_operations)
{
	unsigned long pages, bad = slab_bad_frees, corrupt = slab_corruptions;
	unsigned long counts[4] = { 0 }, frozen_before = 0, frozen_after = 0;

	slab_drain_all();
	pages = slab_test_settle();
	rng = 0x2545f4914f6cdd1dULL;
	nlive = 0;
	live_bytes = 0;
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
		if (kmalloc_caches[i])
			frozen_before += kmalloc_caches[i]->stats.free_frozen;
	for (unsigned long op = 0; op < RANDOM_OPS; op++) {
		host_set_cpu((unsigned int)rnd_below(HOP_CPUS));
		if (random_step(counts))
			return -1;
		if (op % 3000 == 0 && check_all())
			return -1;
	}
	host_set_cpu(0);
	if (check_all())
		return -1;
	while (nlive)
		if (free_object(nlive - 1))
			return -1;
	for (unsigned int s = 0; s < MAX_TCACHES; s++)
		if (tcaches[s].c && destroy_cache(s))
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
	       " %lu free, %lu frees into frozen slabs\n", RANDOM_OPS, HOP_CPUS, counts[0],
	       counts[1], counts[2], counts[3], frozen_after - frozen_before);
	return 0;
}

SELFTEST_HOST(slub_host_reap_and_drain_all)
{
	struct kmem_cache *c;
	unsigned long pages, reaps;
	void *keep[HOP_CPUS], *p, *extra = NULL;

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
	/* Each CPU took a slab of its own; each keeps one live object, on the node's list. */
	ST_EXPECT(atomic_long_read(&c->node.nr_slabs) == HOP_CPUS && c->node.nr_partial == HOP_CPUS,
		  "%ld slabs (%lu partial) after the drain, want %d",
		  atomic_long_read(&c->node.nr_slabs), c->node.nr_partial, HOP_CPUS);
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
	ST_EXPECT(c->node.barn.nr_full > 0, "no full sheaf in the barn");
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
	ST_EXPECT(c->node.barn.nr_full == 0 && c->node.barn.nr_empty == 0,
		  "barn after two idle passes: %u full, %u empty", c->node.barn.nr_full,
		  c->node.barn.nr_empty);
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
