/*
 * test_slub_double_free.c - double frees in SLUB (ALLOC=slub), in the
 * kernel and on the host, in every build: sheaves or SLUB_SHEAVES=0,
 * SLAB_FREELIST_HARDENED, SLAB_DEBUG. The reliability issue's item "SLUB
 * double frees": without sheaves kmem_cache_free(c, p), (c, q), (c, p)
 * was silent and kmem_cache_destroy then hit "BUG at mm/slub/slub_partial.c:
 * ++cnt > s->num" (p, q, p made a cycle on the CPU freelist); a, b, a;
 * a, b, c, a; a double free after 600 other frees and one through kfree
 * ended the same, some after handing the object out twice. With sheaves
 * the same sequence was silent and destroy returned -EBUSY ("1 objects
 * still allocated") forever. Besides those, a double free of an object
 * that a drain gave back to its slab's freelist. Each pattern runs at 64
 * bytes and at 4 KiB, on a cache without debugging (the free words'
 * check, mm/slub/slub_dfree.c) and on one that takes SLAB_DEBUG's guards where
 * the build has them: the second free is reported ("<cache>:
 * <call>(<object>): double free"), counted once in slab_bad_frees and
 * refused; the cache stays consistent (kmem_cache_check) with the right
 * count of held objects; allocations afterwards hand out no object twice;
 * destroy returns 0 and every page comes back. Double frees onto another CPU's sheaf or into the barn are
 * tests/host/test_slub_host_dfree.c's (host threads act as CPUs).
 */
#include "test_slub.h"

#define DF_OBJS		602	/* the 600 frees' pattern: 600, the object and one kept */
#define DF_DISTINCT	160	/* allocations that must all differ: more than two sheaves */

static void *df_objs[DF_OBJS];
static void *df_new[DF_DISTINCT];

static const size_t df_sizes[] = { 64, 4096 };

/* Both kinds of cache: without debugging, and with SLAB_DEBUG's guards where built. */
static const unsigned int df_flags[] = { SLAB_NO_DEBUG, 0 };

enum df_pattern { DF_PQP_DESTROY, DF_ABA, DF_ABCA, DF_AFTER_600, DF_KFREE, DF_AFTER_DRAIN };

/*
 * The free of x through fn (on cache c) just refused: counted once,
 * reported naming the cache, the call and x, and c consistent.
 */
static int df_refused(struct kmem_cache *c, unsigned long bad, const char *fn, void *x)
{
	char want[96];

	snprintf(want, sizeof(want), "slub: %s: %s(%p): double free", c->name, fn, x);
	SLAB_EXPECT_REFUSED(c, bad, want);
	return 0;
}

/*
 * DF_DISTINCT allocations from c (kmalloc(size) if by_kmalloc) are distinct
 * and none is one of live[0..nlive); then freed.
 */
static int df_distinct(struct kmem_cache *c, bool by_kmalloc, size_t size, void **live,
		       unsigned int nlive)
{
	for (unsigned int i = 0; i < DF_DISTINCT; i++) {
		df_new[i] = by_kmalloc ? kmalloc(size) : kmem_cache_alloc(c);
		ST_EXPECT(df_new[i], "%s: allocation %u failed", c->name, i);
		for (unsigned int k = 0; k < i; k++)
			ST_EXPECT(df_new[k] != df_new[i], "%s handed out %p twice", c->name,
				  df_new[i]);
		for (unsigned int k = 0; k < nlive; k++)
			ST_EXPECT(live[k] != df_new[i], "%s handed out %p, which is held", c->name,
				  df_new[i]);
	}
	for (unsigned int i = 0; i < DF_DISTINCT; i++) {
		if (by_kmalloc)
			kfree(df_new[i]);
		else
			kmem_cache_free(c, df_new[i]);
	}
	ST_EXPECT(kmem_cache_check(c) == 0, "%s inconsistent after the allocations", c->name);
	return 0;
}

/* Free x of c the way the pattern does (kmem_cache_free, or kfree for DF_KFREE). */
static void df_free(struct kmem_cache *c, enum df_pattern pat, void *x)
{
	if (pat == DF_KFREE)
		kfree(x);
	else
		kmem_cache_free(c, x);
}

/* One pattern on a new cache of 'size' bytes and 'flags' (or kmalloc's cache for DF_KFREE). */
static int df_run(enum df_pattern pat, size_t size, unsigned int flags)
{
	const char *fn = pat == DF_KFREE ? "kfree" : "kmem_cache_free";
	struct slab_test_mark pages;
	struct kmem_cache *c;
	unsigned long bad;
	void *p, *keep = NULL;
	unsigned int n = 0;

	slab_test_init();
	slab_test_begin(&pages);
	if (pat == DF_KFREE) {
		c = kmalloc_slab(size);
	} else {
		char name[32];

		snprintf(name, sizeof(name), "test-df-%zu%s", size, flags ? "" : "-g");
		c = kmem_cache_create(name, size, 0, flags, NULL);
	}
	ST_EXPECT(c, "no cache of %zu bytes", size);
	slab_test_console_clear();
	switch (pat) {
	case DF_PQP_DESTROY:	/* p, q, p, then destroy at once */
	case DF_ABA:
	case DF_KFREE:
		n = 2;
		break;
	case DF_ABCA:
	case DF_AFTER_DRAIN:
		n = 3;
		break;
	case DF_AFTER_600:
		n = DF_OBJS;
		break;
	}
	for (unsigned int i = 0; i < n; i++) {
		df_objs[i] = pat == DF_KFREE ? kmalloc(size) : kmem_cache_alloc(c);
		ST_EXPECT(df_objs[i], "%s: allocation %u failed", c->name, i);
	}
	p = df_objs[0];
	if (pat == DF_AFTER_600) {
		/* One object of p's slab stays held, so that the slab stays a slab of c. */
		for (unsigned int i = 1; i < n && !keep; i++)
			if (slub_test_page(df_objs[i]) == slub_test_page(p))
				keep = df_objs[i];
		ST_EXPECT(keep, "%s: p's slab holds one object", c->name);
		df_free(c, pat, p);
		for (unsigned int i = 1; i < n; i++)
			if (df_objs[i] != keep)
				df_free(c, pat, df_objs[i]);
	} else {
		for (unsigned int i = 0; i < n; i++)
			df_free(c, pat, df_objs[i]);
	}
	if (pat == DF_AFTER_DRAIN)	/* p on a freelist now, not in a sheaf */
		kmem_cache_drain_local(c);
	bad = slab_bad_frees;
	df_free(c, pat, p);
	if (df_refused(c, bad, fn, p))
		return -1;
	if (pat != DF_KFREE)
		ST_EXPECT(slub_test_held(c) == (keep ? 1U : 0U), "%s: %lu objects held, %u expected",
			  c->name, slub_test_held(c), keep ? 1U : 0U);
	if (pat != DF_PQP_DESTROY && df_distinct(c, pat == DF_KFREE, size, &keep, keep ? 1 : 0))
		return -1;
	if (keep)
		kmem_cache_free(c, keep);
	if (pat != DF_KFREE)
		ST_EXPECT(kmem_cache_destroy(c) == 0, "%s: destroy refused", c->name);
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/* Every size and kind of cache. */
static int df_all(enum df_pattern pat)
{
	for (unsigned int s = 0; s < ARRAY_SIZE(df_sizes); s++)
		for (unsigned int f = 0; f < ARRAY_SIZE(df_flags); f++)
			if (df_run(pat, df_sizes[s], df_flags[f]))
				return -1;
	return 0;
}

SELFTEST(slub_double_free_p_q_p_then_destroy)
{
	return df_all(DF_PQP_DESTROY);
}

SELFTEST(slub_double_free_a_b_a)
{
	return df_all(DF_ABA);
}

SELFTEST(slub_double_free_a_b_c_a)
{
	return df_all(DF_ABCA);
}

SELFTEST(slub_double_free_after_600_frees)
{
	return df_all(DF_AFTER_600);
}

/* kfree: the kmalloc caches (debug caches with SLAB_DEBUG: both flags give the same). */
SELFTEST(slub_double_free_through_kfree)
{
	for (unsigned int s = 0; s < ARRAY_SIZE(df_sizes); s++)
		if (df_run(DF_KFREE, df_sizes[s], 0))
			return -1;
	return 0;
}

/* a, b, c freed, this CPU's sheaves and slabs given back (drain), then a again. */
SELFTEST(slub_double_free_after_drain)
{
	return df_all(DF_AFTER_DRAIN);
}
