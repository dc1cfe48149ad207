/*
 * test_cache_max.c - the largest object, KMEM_CACHE_MAX_SIZE, with every
 * kmem_cache_create flag, a ctor or none, and the alignments that cost
 * room, for every allocator, in the kernel and on the host: each cache is
 * made (guards that do not fit are left out and said so), its object is
 * writable end to end, a ctor's state is there at every allocation, and
 * every page comes back.
 */
#include "test_alloc.h"

#define MAX_CTOR_WORD	0x5eedc0de5eedc0deULL

/* Marks the first and last words of an object (all a 4 MiB ctor should touch). */
static void max_ctor(void *objp)
{
	uint64_t *w = objp;

	w[0] = MAX_CTOR_WORD;
	w[KMEM_CACHE_MAX_SIZE / sizeof(uint64_t) - 1] = MAX_CTOR_WORD;
}

static bool max_constructed(const void *objp)
{
	const uint64_t *w = objp;

	return w[0] == MAX_CTOR_WORD && w[KMEM_CACHE_MAX_SIZE / sizeof(uint64_t) - 1] == MAX_CTOR_WORD;
}

/* One allocation from c: the whole object writable, a ctor's state in place. */
static int max_use(struct kmem_cache *c, bool ctor, const char *what)
{
	char *p = kmem_cache_alloc(c);

	if (!p) {
#ifdef QUARRY_HOST
		ST_EXPECT(false, "%s: no object (the host arena has room for one)", what);
#endif
		return 0;	/* the kernel's memory may have no free 4 MiB block */
	}
	ST_EXPECT(kmem_cache_size(c) >= KMEM_CACHE_MAX_SIZE, "%s: size %zu", what,
		  kmem_cache_size(c));
	ST_EXPECT(!ctor || max_constructed(p), "%s: ctor's state missing at allocation", what);
	p[8] = 1;
	p[KMEM_CACHE_MAX_SIZE / 2] = 2;
	p[KMEM_CACHE_MAX_SIZE - 9] = 3;
	kmem_cache_free(c, p);
	return 0;
}

/* A 4 MiB cache with every flag and a ctor is made and works. */
SELFTEST(misuse_largest_object_with_every_flag)
{
	static const unsigned int flag_sets[] = {
		0, SLAB_HWCACHE_ALIGN, SLAB_RED_ZONE, SLAB_POISON, SLAB_RED_ZONE | SLAB_POISON,
		SLAB_RED_ZONE | SLAB_POISON | SLAB_HWCACHE_ALIGN, SLAB_NO_DEBUG,
	};
	static const size_t aligns[] = { 0, 64, PAGE_SIZE };
	struct slab_test_mark pages;
	unsigned long bad = slab_bad_frees;
	char what[96];

	slab_test_init();
	slab_test_begin(&pages);
	for (unsigned int f = 0; f < ARRAY_SIZE(flag_sets); f++) {
		for (unsigned int a = 0; a < ARRAY_SIZE(aligns); a++) {
			for (int ctor = 0; ctor < 2; ctor++) {
				struct kmem_cache *c;

				snprintf(what, sizeof(what), "flags 0x%x align %zu%s", flag_sets[f],
					 aligns[a], ctor ? " ctor" : "");
				slab_test_console_clear();
				c = kmem_cache_create("test-max-flags", KMEM_CACHE_MAX_SIZE,
						      aligns[a], flag_sets[f],
						      ctor ? max_ctor : NULL);
				ST_EXPECT(c, "%s: a cache of %lu-byte objects was refused", what,
					  KMEM_CACHE_MAX_SIZE);
#if defined(CONFIG_ALLOC_SLAB) || defined(CONFIG_ALLOC_SLUB)
				ST_EXPECT(!(flag_sets[f] & SLAB_RED_ZONE) ||
						  slab_test_console_has("leave no room"),
					  "%s: red zones left out without a word", what);
#endif
				if (max_use(c, ctor, what) || max_use(c, ctor, what))
					return -1;
				ST_EXPECT(kmem_cache_check(c) == 0, "%s: cache inconsistent", what);
				ST_EXPECT(kmem_cache_destroy(c) == 0, "%s: destroy refused", what);
			}
		}
	}
	ST_EXPECT(slab_bad_frees == bad, "a free was refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}
