/*
 * test_cache_frag.c - allocation in fragmented memory, in the kernel and on
 * the host: with most pages free but no free block above
 * FRAG_ORDER, kmalloc of a few KiB and kmem_cache_alloc of such objects
 * (every layout: plain, aligned, red zones, poison, constructor) must
 * succeed, as one object fits in a free block: NULL means memory is out,
 * not that the allocator's preferred slab size is not free. SLUB's
 * 2-8 KiB caches have order-3 slabs at 4K pages (order 1 at 64K for the
 * sizes below), and it fell back on no smaller slab: kmalloc(2000) and
 * kmalloc(3510) returned NULL with 14084 of 16384 pages free. The sizes
 * are ones whose object (debug guards included) fits in a FRAG_ORDER block.
 *
 * Built for every allocator. SLAB had the same fault on machines above
 * SLAB_SMALL_MEMORY (its 2-8 KiB caches' slabs are order 3 there too, with
 * no smaller fallback: kmalloc(2000) NULL with 14017 of 16384 pages free on
 * the host); it now falls back on min-order slabs (tests/common/test_slab_min.c).
 */
#include "test_alloc.h"

/* Free blocks of orders 0..FRAG_ORDER: 7 in 8 pages free at 4K pages, half at 64K. */
#define FRAG_ORDER	(PAGE_SHIFT == 12 ? 2U : 0U)
#define FRAG_OBJS	24	/* per size: more than the slabs there were could have free */
/*
 * Kept pages may outnumber freed ones by a few: a free range that starts
 * on a group boundary and ends before the group does (the end of RAM, a
 * page another CPU holds) keeps its first page and frees fewer than the
 * group's others.
 */
#define FRAG_SLACK	16

/* kmalloc sizes: SLUB's classes of 2, 4 and 8 KiB at 4K pages, 8 and 16 KiB at 64K. */
static const size_t frag_kmalloc_sizes[] = {
#if PAGE_SHIFT == 12
	2000, 3510, 4096, 5000, 7168, 8192,
#else
	5000, 8192, 12000, 16384,
#endif
};

/* A NULL and where: one line in what. */
static void frag_null(char *what, size_t len, const char *call, unsigned int nth)
{
	snprintf(what, len, "%s number %u returned NULL with %lu pages free, the largest free "
		 "block order %d", call, nth, nr_free_pages(), slab_test_largest_free_order());
}

/*
 * FRAG_OBJS kmallocs of each size, each written over its ksize; what gets
 * the first failure. Frees everything it allocated.
 */
static void frag_kmalloc_all(char *what, size_t len)
{
	static void *objs[ARRAY_SIZE(frag_kmalloc_sizes)][FRAG_OBJS];
	char call[32];

	memset(objs, 0, sizeof(objs));
	for (unsigned int i = 0; i < ARRAY_SIZE(frag_kmalloc_sizes) && !*what; i++) {
		for (unsigned int k = 0; k < FRAG_OBJS; k++) {
			objs[i][k] = kmalloc(frag_kmalloc_sizes[i]);
			if (!objs[i][k]) {
				snprintf(call, sizeof(call), "kmalloc(%zu)", frag_kmalloc_sizes[i]);
				frag_null(what, len, call, k + 1);
				break;
			}
			memset(objs[i][k], 0x5c, ksize(objs[i][k]));
		}
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(frag_kmalloc_sizes); i++)
		for (unsigned int k = 0; k < FRAG_OBJS; k++)
			kfree(objs[i][k]);
}

/* Kmalloc of 2-8 KiB (64K pages: 5-16 KiB) works in fragmented memory. */
SELFTEST(kmalloc_fragmented_memory)
{
	struct slab_test_mark pages;
	struct slab_test_frag frag;
	unsigned long bad_frees;
	char what[160] = "";
	int top;

	slab_test_init();
	slab_test_begin(&pages);
	bad_frees = slab_bad_frees;
	slab_test_fragment(&frag, FRAG_ORDER);
	top = slab_test_largest_free_order();
	if (!frag.bad && top <= (int)FRAG_ORDER)
		frag_kmalloc_all(what, sizeof(what));
	slab_test_unfragment(&frag);
	ST_EXPECT(!frag.bad, "freeing the fragmenting pages failed");
	/* At least as many freed as kept, give or take the pages of blocks cut short. */
	ST_EXPECT(frag.kept && frag.freed + FRAG_SLACK >= frag.kept,
		  "fragmenting kept %lu pages, freed %lu", frag.kept, frag.freed);
	ST_EXPECT(top <= (int)FRAG_ORDER || mm_test_others() != pages.others,
		  "a free block of order %d remained after fragmenting", top);
	ST_EXPECT(!what[0], "%s", what);
	ST_EXPECT(slab_bad_frees == bad_frees, "a good free was refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/* Cache object sizes (not near the end of a page), each with every flag and a ctor. */
static const size_t frag_cache_sizes[] = {
#if PAGE_SHIFT == 12
	1500, 3000, 3968, 5000, 7000,
#elif PAGE_SHIFT == 14
	5000, 9000, 12000,	/* one fits a free page, guards included */
#else
	5000, 9000, 12000, 20000,
#endif
};
static const unsigned int frag_cache_flags[] = { 0, SLAB_HWCACHE_ALIGN, SLAB_RED_ZONE,
						 SLAB_POISON, SLAB_NO_DEBUG };
#define FRAG_FLAG_SETS	(ARRAY_SIZE(frag_cache_flags) + 1)	/* the last: a ctor */
#define FRAG_CACHES	(ARRAY_SIZE(frag_cache_sizes) * FRAG_FLAG_SETS)
#define FRAG_CTOR_WORD	0xc0ffee5eU

static void frag_ctor(void *p)
{
	*(uint32_t *)p = FRAG_CTOR_WORD;
}

static size_t frag_size(unsigned int i)
{
	return frag_cache_sizes[i % ARRAY_SIZE(frag_cache_sizes)];
}

/* Flag set of cache i; FRAG_FLAG_SETS - 1: flags 0 and a ctor. */
static unsigned int frag_set(unsigned int i)
{
	return (unsigned int)(i / ARRAY_SIZE(frag_cache_sizes));
}

/*
 * FRAG_OBJS objects of every cache, each checked for its ctor's word and
 * written over; each cache checked. what as frag_kmalloc_all's.
 */
static void frag_caches_fill(struct kmem_cache **caches, void *(*objs)[FRAG_OBJS], char *what,
			     size_t len)
{
	char call[80];

	for (unsigned int i = 0; i < FRAG_CACHES && !*what; i++) {
		struct kmem_cache *c = caches[i];
		bool ctor = frag_set(i) == FRAG_FLAG_SETS - 1;

		for (unsigned int k = 0; k < FRAG_OBJS; k++) {
			objs[i][k] = kmem_cache_alloc(c);
			if (!objs[i][k]) {
				snprintf(call, sizeof(call), "kmem_cache_alloc(%s, flags 0x%x%s)",
					 kmem_cache_name(c), ctor ? 0 : frag_cache_flags[frag_set(i)],
					 ctor ? ", ctor" : "");
				frag_null(what, len, call, k + 1);
				return;
			}
			if (ctor && *(uint32_t *)objs[i][k] != FRAG_CTOR_WORD) {
				snprintf(what, len, "%s: object %p not constructed",
					 kmem_cache_name(c), objs[i][k]);
				return;
			}
			memset(objs[i][k], 0x3a, frag_size(i));
			if (ctor)
				frag_ctor(objs[i][k]);
		}
		if (kmem_cache_check(c) != 0)
			snprintf(what, len, "kmem_cache_check(%s) failed in fragmented memory",
				 kmem_cache_name(c));
	}
}

/* Caches of 1.5-7 KiB (64K pages: 5-20 KiB) objects, every flag. */
SELFTEST(cache_alloc_fragmented_memory)
{
	static struct kmem_cache *caches[FRAG_CACHES];
	static void *objs[FRAG_CACHES][FRAG_OBJS];
	struct slab_test_frag frag = { .bad = 0 };
	struct slab_test_mark pages;
	unsigned long bad_frees;
	char what[200] = "";
	int bad = 0, top = 0, made = 0;

	slab_test_init();
	memset(objs, 0, sizeof(objs));
	slab_test_begin(&pages);
	bad_frees = slab_bad_frees;
	for (unsigned int i = 0; i < FRAG_CACHES; i++) {
		bool ctor = frag_set(i) == FRAG_FLAG_SETS - 1;
		char name[24];

		snprintf(name, sizeof(name), "frag-%zu-%u", frag_size(i), frag_set(i));
		caches[i] = kmem_cache_create(name, frag_size(i), 0,
					      ctor ? 0 : frag_cache_flags[frag_set(i)],
					      ctor ? frag_ctor : NULL);
		made += caches[i] != NULL;
	}
	if (made == (int)FRAG_CACHES) {
		slab_test_fragment(&frag, FRAG_ORDER);
		top = slab_test_largest_free_order();
		if (!frag.bad && top <= (int)FRAG_ORDER)
			frag_caches_fill(caches, objs, what, sizeof(what));
		for (unsigned int i = 0; i < FRAG_CACHES; i++)
			for (unsigned int k = 0; k < FRAG_OBJS; k++)
				if (objs[i][k])
					kmem_cache_free(caches[i], objs[i][k]);
		slab_test_unfragment(&frag);
	}
	for (unsigned int i = 0; i < FRAG_CACHES; i++)
		if (caches[i])
			bad |= kmem_cache_destroy(caches[i]);
	ST_EXPECT(made == (int)FRAG_CACHES, "only %d of %zu caches made", made, FRAG_CACHES);
	ST_EXPECT(!frag.bad && !bad, "freeing the fragmenting pages or destroying a cache failed");
	/* At least as many freed as kept, give or take the pages of blocks cut short. */
	ST_EXPECT(frag.kept && frag.freed + FRAG_SLACK >= frag.kept,
		  "fragmenting kept %lu pages, freed %lu", frag.kept, frag.freed);
	ST_EXPECT(top <= (int)FRAG_ORDER || mm_test_others() != pages.others,
		  "a free block of order %d remained after fragmenting", top);
	ST_EXPECT(!what[0], "%s", what);
	ST_EXPECT(slab_bad_frees == bad_frees, "a good free was refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}
