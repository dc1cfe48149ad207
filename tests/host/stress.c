/*
 * stress.c - the random run the object allocators' host tests share (see
 * host_stress.h): the seed and its generator, the live objects and their
 * tags, the caches the run made, and the steps. The allocator's own checks
 * come through the config's hooks.
 */
#include "tests/common/test_alloc.h"
#include "host_stress.h"
#include <asm/processor.h>

#define STRESS_SEED	0x2545f4914f6cdd1dULL
#define CTOR_MAGIC	0x5eedc0ffee15600dULL

static uint64_t rng;

static uint64_t rnd(void)
{
	return host_xorshift64(&rng);
}

static unsigned long rnd_below(unsigned long n)
{
	return (unsigned long)(rnd() % n);
}

/* Live pointers: open addressing with tombstones, rebuilt when they pile up. */
#define SET_SLOTS	16384
#define TOMB		((void *)1)
static void *set_slot[SET_SLOTS];
static unsigned int set_tombs;

static unsigned int set_hash(const void *p)
{
	return (unsigned int)(((uintptr_t)p >> 3) * 0x9e3779b97f4a7c15ULL >> 50) & (SET_SLOTS - 1);
}

static bool set_has(const void *p)
{
	for (unsigned int i = set_hash(p);; i = (i + 1) & (SET_SLOTS - 1)) {
		if (set_slot[i] == p)
			return true;
		if (!set_slot[i])
			return false;
	}
}

static void set_add(void *p)
{
	unsigned int i = set_hash(p);

	while (set_slot[i] && set_slot[i] != TOMB)
		i = (i + 1) & (SET_SLOTS - 1);
	if (set_slot[i] == TOMB)
		set_tombs--;
	set_slot[i] = p;
}

static void set_del(const void *p)
{
	for (unsigned int i = set_hash(p);; i = (i + 1) & (SET_SLOTS - 1)) {
		if (set_slot[i] == p) {
			set_slot[i] = TOMB;
			set_tombs++;
			return;
		}
	}
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

static struct stress_config cfg;	/* the run's, the standard filled in */
static struct tcache tcaches[STRESS_MAX_CACHES];
static struct tobj live[STRESS_MAX_LIVE];
static unsigned int nlive;
static unsigned long live_bytes;

static void ctor_magic(void *p)
{
	*(uint64_t *)p = CTOR_MAGIC;
}

static void rebuild_set(void)
{
	memset(set_slot, 0, sizeof(set_slot));
	set_tombs = 0;
	for (unsigned int i = 0; i < nlive; i++)
		set_add(live[i].p);
}

/* Fill (or check) the bytes of an object the test owns with its tag (ctor word excepted). */
static bool pattern(struct tobj *o, bool check)
{
	size_t start = o->cache >= 0 && tcaches[o->cache].c->ctor ? 8 : 0;
	size_t span = MIN(o->size, cfg.tag_span);

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
	ST_EXPECT(!set_has(o->p), "%p handed out while live", (void *)o->p);
	ST_EXPECT(((uintptr_t)o->p & 7) == 0, "%p not 8-aligned", (void *)o->p);
	if (c) {
		size_t align = MAX((size_t)c->align, tcaches[ci].align);

		ST_EXPECT(((uintptr_t)o->p & (align - 1)) == 0, "%p not aligned for %s",
			  (void *)o->p, c->name);
		ST_EXPECT(!c->ctor || *(uint64_t *)o->p == CTOR_MAGIC, "%s: not constructed",
			  c->name);
	}
	if (cfg.check_object(c, o->p, size))
		return -1;
	o->cache = ci;
	o->size = size;
	o->tag = (unsigned char)rnd();
	pattern(o, false);
	set_add(o->p);
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
	set_del(o->p);
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
	if (set_tombs > SET_SLOTS / 4)
		rebuild_set();
	return 0;
}

static int create_cache(unsigned int slot)
{
	size_t size = rnd_below(4) ? 1 + rnd_below(rnd_below(2) ? 128 : 1100)
				   : 1 + rnd_below(2 * PAGE_SIZE);
	unsigned int flags = cfg.cache_flags;
	char name[24];

	if (rnd_below(5) == 0)
		flags |= SLAB_HWCACHE_ALIGN;
	if (rnd_below(cfg.red_zone_one_in) == 0)
		flags |= SLAB_RED_ZONE;
	if (rnd_below(cfg.poison_one_in) == 0)
		flags |= SLAB_POISON;
	snprintf(name, sizeof(name), "rnd-%u-%zu", slot, size);
	tcaches[slot].size = size;
	tcaches[slot].align = cfg.aligns[rnd_below(cfg.nr_aligns)];
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

/* The standard check_heap: every kmalloc cache. */
static int check_kmalloc_caches(void)
{
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
		if (kmalloc_caches[i])
			ST_EXPECT(kmem_cache_check(kmalloc_caches[i]) == 0, "%s inconsistent",
				  kmalloc_caches[i]->name);
	return 0;
}

static int check_all(void)
{
	for (unsigned int s = 0; s < cfg.nr_caches; s++) {
		struct kmem_cache *c = tcaches[s].c;

		if (!c)
			continue;
		ST_EXPECT(kmem_cache_check(c) == 0, "%s inconsistent", c->name);
		if (cfg.check_cache(c, tcaches[s].live))
			return -1;
	}
	return cfg.check_heap();
}

/* One step of the run, on the CPU the caller picked. */
static int random_step(struct stress_counts *counts)
{
	unsigned long r = rnd_below(1000);
	unsigned int slot = (unsigned int)rnd_below(cfg.nr_caches);

	if (r < cfg.create_below) {
		counts->create_destroy++;
		return !tcaches[slot].c ? create_cache(slot) : destroy_cache(slot);
	}
	if (r < cfg.shrink_below) {
		counts->shrink++;
		kmem_cache_shrink(tcaches[slot].c ? tcaches[slot].c
						  : kmalloc_slab(1 + rnd_below(512)));
	} else if (r < cfg.reap_below) {
		counts->shrink++;
		if (rnd_below(2))
			slab_drain_local_all();
		else
			slab_reap();
	} else if (r < cfg.alloc_below && nlive < cfg.max_live && live_bytes < cfg.max_live_bytes) {
		size_t size;
		int ci = -1;

		counts->alloc++;
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
		counts->free++;
		return free_object((unsigned int)rnd_below(nlive));
	}
	return 0;
}

/* cfg takes the caller's config, with the standard run's for what it left 0. */
static void take_config(const struct stress_config *run)
{
	static const size_t aligns[] = { 0, 0, 8, 16, 64, 256 };

	cfg = *run;
	if (!cfg.nr_caches)
		cfg.nr_caches = STRESS_MAX_CACHES;
	if (!cfg.max_live)
		cfg.max_live = STRESS_MAX_LIVE;
	if (!cfg.max_live_bytes)
		cfg.max_live_bytes = 12UL << 20;
	if (!cfg.red_zone_one_in)
		cfg.red_zone_one_in = 8;
	if (!cfg.poison_one_in)
		cfg.poison_one_in = 8;
	if (!cfg.aligns) {
		cfg.aligns = aligns;
		cfg.nr_aligns = ARRAY_SIZE(aligns);
	}
	if (!cfg.check_heap)
		cfg.check_heap = check_kmalloc_caches;
}

/* stress_run: see host_stress.h. */
int stress_run(const struct stress_config *run, struct stress_counts *counts)
{
	take_config(run);
	*counts = (struct stress_counts){ 0 };
	ST_EXPECT(cfg.ops && cfg.check_every && cfg.nr_caches <= STRESS_MAX_CACHES &&
			  cfg.max_live <= STRESS_MAX_LIVE && cfg.nr_aligns && cfg.check_object &&
			  cfg.check_cache,
		  "random: bad config (ops %lu, check_every %lu, %u caches of at most %u, "
		  "%u live of at most %u, %u alignments, hooks %s)",
		  cfg.ops, cfg.check_every, cfg.nr_caches, STRESS_MAX_CACHES, cfg.max_live,
		  STRESS_MAX_LIVE, cfg.nr_aligns,
		  cfg.check_object && cfg.check_cache ? "given" : "missing");
	rng = STRESS_SEED;
	nlive = 0;
	live_bytes = 0;
	rebuild_set();
	for (unsigned long op = 0; op < cfg.ops; op++) {
		if (cfg.hop_cpus)
			host_set_cpu((unsigned int)rnd_below(cfg.hop_cpus));
		if (random_step(counts))
			return -1;
		if (cfg.after_step)
			cfg.after_step();
		if (op % cfg.check_every == 0 && check_all()) {
			printk("random: the check failed after op %lu\n", op);
			return -1;
		}
	}
	if (cfg.hop_cpus)
		host_set_cpu(0);
	if (check_all())
		return -1;
	while (nlive)
		if (free_object(nlive - 1))
			return -1;
	for (unsigned int s = 0; s < cfg.nr_caches; s++)
		if (tcaches[s].c && destroy_cache(s))
			return -1;
	return 0;
}
