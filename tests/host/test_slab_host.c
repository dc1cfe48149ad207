/*
 * test_slab_host.c - heavy SLAB tests for the host only (ASan/UBSan):
 *  - a random run of create/alloc/free/shrink/destroy over many caches and
 *    kmalloc sizes (fixed seed, SLAB_RANDOM_OPS operations), checking every
 *    object as it is handed out (aligned, inside a slab of its cache, not
 *    live already), its contents when freed (no two live objects overlap),
 *    and every few thousand operations each cache's invariants and that the
 *    slabs' active count equals live objects plus those in CPU arrays;
 *  - threads acting as CPUs (host_cpu_id 1..4) allocating and freeing into
 *    each other's hands, then the invariants and every page back.
 * Both end with nr_free_pages() as it was before they started.
 */
#include "tests/common/test_slab.h"
#include <pthread.h>

#define SLAB_RANDOM_OPS		120000
#define MAX_TCACHES		12
#define MAX_LIVE		4096
#define LIVE_BYTES_MAX		(12UL << 20)
#define CTOR_MAGIC		0x5eedc0ffee15600dULL

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
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

static struct tcache tcaches[MAX_TCACHES];
static struct tobj live[MAX_LIVE];
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

/* Fill (or check) the parts of an object the test owns with its tag. */
static bool pattern(struct tobj *o, bool check)
{
	size_t start = o->cache >= 0 && tcaches[o->cache].c->ctor ? 8 : 0;
	size_t span = MIN(o->size, (size_t)256);

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
	struct tobj *o = &live[nlive];
	struct kmem_cache *c = ci >= 0 ? tcaches[ci].c : NULL;
	struct page *head;

	o->p = c ? kmem_cache_alloc(c) : kmalloc(size);
	ST_EXPECT(o->p, "allocation of %zu failed with %lu bytes live", size, live_bytes);
	ST_EXPECT(!set_has(o->p), "%p handed out while live", (void *)o->p);
	ST_EXPECT(((uintptr_t)o->p & 7) == 0, "%p not 8-aligned", (void *)o->p);
	if (c) {
		size_t align = MAX((size_t)c->align, tcaches[ci].align);

		ST_EXPECT(((uintptr_t)o->p & (align - 1)) == 0, "%p not aligned for %s",
			  (void *)o->p, c->name);
		if (c->ctor)
			ST_EXPECT(*(uint64_t *)o->p == CTOR_MAGIC, "%s: object not constructed",
				  c->name);
	}
	if (size <= KMALLOC_MAX_CACHE_SIZE || c) {
		head = slab_head_page(o->p);
		ST_EXPECT((virt_to_page(o->p)->flags & PG_slab) && (!c || head->slab_cache == c) &&
				  o->p >= (unsigned char *)head->s_mem &&
				  o->p + size <= (unsigned char *)head->s_mem +
							 (size_t)head->slab_cache->num *
								 head->slab_cache->size,
			  "%p not inside a slab of its cache", (void *)o->p);
	}
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
	static const size_t aligns[] = { 0, 0, 8, 16, 64, 256 };
	size_t size = rnd_below(4) ? 1 + rnd_below(rnd_below(2) ? 128 : 1100)
				   : 1 + rnd_below(2 * PAGE_SIZE);
	unsigned int flags = 0;
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
	if (tcaches[slot].live && rnd_below(10) == 0)
		ST_EXPECT(kmem_cache_destroy(c) == -EBUSY, "%s destroyed with objects", c->name);
	for (unsigned int i = 0; i < nlive;)
		if (live[i].cache == (int)slot) {
			if (free_object(i))
				return -1;
		} else {
			i++;
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
		ST_EXPECT(slab_test_active(c) == tcaches[s].live + slab_test_in_arrays(c),
			  "%s: active %lu != %lu live + %lu in arrays", c->name,
			  slab_test_active(c), tcaches[s].live, slab_test_in_arrays(c));
	}
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
		if (kmalloc_caches[i])
			ST_EXPECT(kmem_cache_check(kmalloc_caches[i]) == 0, "%s inconsistent",
				  kmalloc_caches[i]->name);
	return 0;
}

SELFTEST_HOST(slab_host_random_operations)
{
	unsigned long pages, bad = slab_bad_frees, corrupt = slab_corruptions;
	unsigned long counts[6] = { 0 };

	pages = slab_test_settle();
	rng_state = 0x2545f4914f6cdd1dULL;
	nlive = 0;
	live_bytes = 0;
	rebuild_set();
	for (unsigned long op = 0; op < SLAB_RANDOM_OPS; op++) {
		unsigned long r = rnd_below(1000);
		unsigned int slot = (unsigned int)rnd_below(MAX_TCACHES);

		if (r < 15) {
			counts[0]++;
			if (!tcaches[slot].c ? create_cache(slot) : destroy_cache(slot))
				return -1;
		} else if (r < 25) {
			counts[1]++;
			kmem_cache_shrink(tcaches[slot].c ? tcaches[slot].c
							  : kmalloc_slab(1 + rnd_below(512)));
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
			if (new_object(ci, size))
				return -1;
		} else if (nlive) {
			counts[3]++;
			if (free_object((unsigned int)rnd_below(nlive)))
				return -1;
		}
		if (op % 4000 == 0 && check_all())
			return -1;
	}
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
	ST_EXPECT(slab_test_settle() == pages, "pages not back: %lu free, %lu before",
		  nr_free_pages(), pages);
	printk("random: %d ops: %lu create/destroy, %lu shrink, %lu alloc, %lu free\n",
	       SLAB_RANDOM_OPS, counts[0], counts[1], counts[2], counts[3]);
	return 0;
}
