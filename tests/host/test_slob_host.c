/*
 * test_slob_host.c - heavy SLOB tests for the host only (ASan/UBSan), both
 * forms:
 *  - a random run (fixed seed) of create/alloc/free/shrink/reap/destroy
 *    over caches of random geometry (alignments up to a page, red zones,
 *    poison, ctors, big objects) and kmalloc sizes up to large ones, the
 *    thread hopping between CPUs. Each object is checked when handed out
 *    (aligned, a live block of its cache by its header, not live already)
 *    and when freed (its pattern intact: no two live blocks overlap); every
 *    few hundred steps the whole heap passes kmem_cache_check (which also
 *    counts each cache's blocks against its counter); at the end every page
 *    is back;
 *  - a heap drained to nothing and filled again: pages come and go, the
 *    spare is kept and given back, Slab: follows the heap.
 */
#include "tests/common/test_slob.h"

#define RANDOM_OPS	120000
#define CHECK_EVERY	100
#define MAX_TCACHES	10
#define MAX_LIVE	3000
#define LIVE_BYTES_MAX	(10UL << 20)
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

/* Fill (or check) every byte the test owns with its tag (the ctor word excepted). */
static bool pattern(struct tobj *o, bool check)
{
	size_t start = o->cache >= 0 && tcaches[o->cache].c->ctor ? 8 : 0;

	for (size_t k = start; k < o->size; k++) {
		if (check && o->p[k] != o->tag)
			return false;
		if (!check)
			o->p[k] = o->tag;
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
		ST_EXPECT(c->big ? virt_to_page(o->p)->slab_cache == c : slob_test_owner(o->p) == c,
			  "%p is not a block of %s", (void *)o->p, c->name);
	} else if (size <= KMALLOC_MAX_SLAB) {
		struct kmem_cache *k = kmalloc_slab(size);

		ST_EXPECT(k->big ? virt_to_page(o->p)->slab_cache == k : slob_test_owner(o->p) == k,
			  "kmalloc(%zu) = %p: block of another cache", size, (void *)o->p);
		ST_EXPECT((size & (size - 1)) || ((uintptr_t)o->p & (size - 1)) == 0,
			  "kmalloc(%zu) = %p not aligned", size, (void *)o->p);
	}
	if (!(c ? c->big : size > KMALLOC_MAX_SLAB || kmalloc_slab(size)->big)) {
		struct slob_hdr *h = slob_test_hdr(o->p);

		ST_EXPECT((uintptr_t)o->p + size <= (uintptr_t)slob_next(h) &&
				  slob_in_page(h, virt_to_page(o->p)),
			  "%p (%zu bytes) is not inside its block of %u units", (void *)o->p, size,
			  h->units);
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
			*(uint64_t *)o->p = CTOR_MAGIC;
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
	static const size_t aligns[] = { 0, 0, 8, 16, 64, 256, 1024, PAGE_SIZE / 2, PAGE_SIZE };
	size_t size = rnd_below(4) ? 1 + rnd_below(rnd_below(2) ? 128 : 1100)
				   : 1 + rnd_below(2 * PAGE_SIZE);
	unsigned int flags = SLAB_NO_DEBUG;
	char name[24];

	if (rnd_below(5) == 0)
		flags |= SLAB_HWCACHE_ALIGN;
	if (rnd_below(6) == 0)
		flags |= SLAB_RED_ZONE;
	if (rnd_below(6) == 0)
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
		ST_EXPECT(c->inuse == tcaches[s].live, "%s: inuse %lu, %lu live", c->name,
			  c->inuse, tcaches[s].live);
	}
	ST_EXPECT(slob_test_check() == 0, "heap inconsistent");
	return 0;
}

static int random_step(unsigned long *counts)
{
	unsigned long r = rnd_below(1000);
	unsigned int slot = (unsigned int)rnd_below(MAX_TCACHES);

	if (r < 10) {
		counts[0]++;
		return !tcaches[slot].c ? create_cache(slot) : destroy_cache(slot);
	}
	if (r < 16) {
		counts[1]++;
		kmem_cache_shrink(tcaches[slot].c ? tcaches[slot].c
						  : kmalloc_slab(1 + rnd_below(512)));
	} else if (r < 20) {
		counts[1]++;
		if (rnd_below(2))
			slab_drain_local_all();
		else
			slab_reap();
	} else if (r < 520 && nlive < MAX_LIVE && live_bytes < LIVE_BYTES_MAX) {
		size_t size;
		int ci = -1;

		counts[2]++;
		if (tcaches[slot].c && rnd_below(2)) {
			ci = (int)slot;
			size = tcaches[slot].size;
		} else if (rnd_below(100) == 0) {
			size = KMALLOC_MAX_SLAB + 1 + rnd_below(3 * PAGE_SIZE);
		} else {
			size = 1 + rnd_below(rnd_below(4) ? 300 : KMALLOC_MAX_SLAB);
		}
		return new_object(ci, size);
	} else if (nlive) {
		counts[3]++;
		return free_object((unsigned int)rnd_below(nlive));
	}
	return 0;
}

SELFTEST_HOST(slob_host_random_operations)
{
	unsigned long pages, bad = slab_bad_frees, corrupt = slab_corruptions;
	unsigned long counts[4] = { 0 }, most = 0;

	slab_drain_all();
	pages = slab_test_settle();
	rng = 0x2545f4914f6cdd1dULL;
	nlive = 0;
	live_bytes = 0;
	for (unsigned long op = 0; op < RANDOM_OPS; op++) {
		host_set_cpu((unsigned int)rnd_below(HOP_CPUS));
		if (random_step(counts))
			return -1;
		most = MAX(most, slob_test_pages());
		if (op % CHECK_EVERY == 0 && check_all()) {
			printk("slob random: the check failed after op %lu\n", op);
			return -1;
		}
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
	ST_EXPECT(slab_bad_frees == bad && slab_corruptions == corrupt,
		  "good frees reported as bad");
	ST_EXPECT(slob_test_check() == 0, "heap inconsistent at the end");
	slab_drain_all();
	ST_EXPECT(slab_test_settle() == pages, "pages not back: %lu free, %lu before",
		  nr_free_pages(), pages);
	printk("random: %d ops on %d CPUs: %lu create/destroy, %lu shrink/drain/reap, %lu alloc,"
	       " %lu free; at most %lu heap pages\n", RANDOM_OPS, HOP_CPUS, counts[0], counts[1],
	       counts[2], counts[3], most);
	return 0;
}

SELFTEST_HOST(slob_host_pages_come_and_go)
{
	unsigned long pages, heap0, n = 0;
	void **objs;

	slab_drain_all();
	pages = slab_test_settle();
	heap0 = slob_test_pages();
	objs = kmalloc_array(20000, sizeof(void *));
	ST_EXPECT(objs, "no table");
	for (int round = 0; round < 3; round++) {
		for (n = 0; n < 20000; n++)
			ST_EXPECT((objs[n] = kmalloc(24 + (n * 37) % 500)), "kmalloc %lu failed", n);
		ST_EXPECT(slob_test_pages() > heap0 + 20000 * 24 / PAGE_SIZE,
			  "%lu heap pages for 20000 objects", slob_test_pages());
		ST_EXPECT(slab_total_pages() >= slob_test_pages(), "Slab: below the heap");
		ST_EXPECT(slob_test_check() == 0, "heap inconsistent when full");
		for (n = 0; n < 20000; n++)
			kfree(objs[(n * 7919) % 20000]);
		ST_EXPECT(slob_test_check() == 0, "heap inconsistent after the frees");
		ST_EXPECT(slob_test_pages() <= heap0 + 1, "%lu heap pages after every free, %lu "
			  "before (one spare allowed)", slob_test_pages(), heap0);
	}
	kfree(objs);
	ST_EXPECT(slab_test_settle() == pages && slob_test_pages() <= heap0,
		  "pages not back: %lu free, %lu before", nr_free_pages(), pages);
	return 0;
}
