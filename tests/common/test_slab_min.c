/*
 * test_slab_min.c - SLAB's min-order slabs (mm/slab/slab_def.h), in the kernel
 * and on the host: a cache whose order is above the smallest one holding
 * an object with its layout has a twin of that order; in fragmented
 * memory its objects come from the twin's slabs, which kfree and
 * kmem_cache_free take back (a pointer into an object is refused with its
 * report), kmem_cache_check, slabinfo and the usage count them, the
 * statistics count the fallback, and empty ones go back at once. The
 * allocator-neutral test is tests/common/test_cache_frag.c; this is how SLAB does it.
 */
#include "test_slab.h"

#define MIN_FRAG_ORDER	(PAGE_SHIFT == 12 ? 2U : 0U)	/* as test_cache_frag.c */
/* A size whose slabs are above the order holding one, at 4K, 16K and 64K pages. */
#define MIN_SIZE	(PAGE_SHIFT == 12 ? 3000U : PAGE_SHIFT == 14 ? 12000U : 20000U)
#define MIN_OBJS	32

/* Every cache: a twin only below its order, describing that order's slabs. */
SELFTEST(slab_min_order_twins)
{
	struct kmem_cache *s;
	unsigned long flags;
	char what[200] = "";

	slab_test_init();
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(s, &slab_caches, list) {
		struct kmem_cache *t = s->min_cache;

		if (what[0] || !t)
			continue;
		if (t->min_of != s || t->min_cache || t->order >= s->order || t->size != s->size ||
		    t->layout != s->layout || t->num == 0 ||
		    t->span + t->tail > (PAGE_SIZE << t->order) || t->span != t->num * t->size ||
		    t->slab_mask != (PAGE_SIZE << t->order) - 1 || t->mark_off != s->mark_off ||
		    t->cpu_array[0] != &slab_no_array || t->node0.free_limit != 0 ||
		    strcmp(t->name, s->name))
			snprintf(what, sizeof(what), "%s (order %u, %u objects): twin of order %u "
				 "with %u objects, layout %d", s->name, s->order, s->num, t->order,
				 t->num, (int)t->layout);
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	ST_EXPECT(!what[0], "%s", what);
	ST_EXPECT(kmalloc_slab(64)->order > 0 || !kmalloc_slab(64)->min_cache,
		  "kmalloc-64 (order 0) has a twin");
	/* Without red zones one object fits order 0 (with them it may not: 64K kmalloc-32768). */
	if (!CONFIG_SLAB_DEBUG && slab_max_order_soft > 0 && kmalloc_slab(MIN_SIZE) &&
	    kmalloc_slab(MIN_SIZE)->order > 0)
		ST_EXPECT(kmalloc_slab(MIN_SIZE)->min_cache &&
				  kmalloc_slab(MIN_SIZE)->min_cache->order <
					  kmalloc_slab(MIN_SIZE)->order,
			  "%s (order %u) has no min-order twin", kmalloc_slab(MIN_SIZE)->name,
			  kmalloc_slab(MIN_SIZE)->order);
	return 0;
}

/*
 * A cache of MIN_SIZE objects in fragmented memory: objects in min-order
 * slabs, counted, checked, one freed wrongly (refused with its report),
 * all freed back; the min-order slabs go back as they empty.
 */
SELFTEST(slab_min_order_fragmented)
{
	static void *objs[MIN_OBJS];
	struct slab_test_frag frag = { .bad = 0 };
	struct slab_test_mark pages;
	struct kmem_cache *c, *t;
	unsigned long bad, grown_min = 0, alloc_min = 0;
	unsigned int in_min = 0, got = 0;
	struct slab_usage use = { 0 };
	char line[200] = "", want[96] = "", what[160];
	void *x = NULL;
	int top;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("slab-min-test", MIN_SIZE, 0, 0, NULL);
	ST_EXPECT(c != NULL, "kmem_cache_create failed");
	t = c->min_cache;
	if (!t) {	/* memory of at most SLAB_SMALL_MEMORY: every slab is order 0 already */
		ST_EXPECT(c->order == 0 || slab_max_order_soft > 0, "order %u, no twin", c->order);
		ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy failed");
		return 0;
	}
	slab_test_fragment(&frag, MIN_FRAG_ORDER);
	top = slab_test_largest_free_order();
	for (unsigned int i = 0; i < MIN_OBJS; i++) {
		objs[i] = kmem_cache_alloc(c);
		if (!objs[i])
			break;
		got++;
		memset(objs[i], 0x6d, MIN_SIZE);
		if (slab_head_page(objs[i])->slab_cache == t) {
			in_min++;
			x = objs[i];
		}
	}
	if (x) {
		ST_EXPECT(virt_to_cache(x) == t && ksize(x) == c->object_size,
			  "a min-order object's cache %p, ksize %zu", (void *)virt_to_cache(x),
			  ksize(x));
		ST_EXPECT(kmem_cache_check(c) == 0, "check failed with min-order slabs");
		kmem_cache_usage(c, &use);
		slabinfo_line(c, line, sizeof(line));
		snprintf(want, sizeof(want), "%-17s %6lu", "slab-min-test", use.objs);
#if CONFIG_SLAB_STATS
		grown_min = c->stats.grown_min;
		alloc_min = c->stats.alloc_min;
#endif
		/* Into the object: refused, named by the cache. */
		snprintf(what, sizeof(what), "slab-min-test: kmem_cache_free(%p): not at an object "
			 "boundary (8 bytes into the %u-byte object at %p)", (char *)x + 8,
			 c->object_size, x);
		slab_test_console_clear();
		bad = slab_bad_frees;
		kmem_cache_free(c, (char *)x + 8);
		SLAB_EXPECT_REFUSED(c, bad, what);
	}
	for (unsigned int i = 0; i < got; i++)
		if (i & 1)
			kfree(objs[i]);
		else
			kmem_cache_free(c, objs[i]);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed after the frees");
	ST_EXPECT(t->node0.total_slabs == 0, "%lu empty min-order slabs kept",
		  t->node0.total_slabs);
	slab_test_unfragment(&frag);
	ST_EXPECT(!frag.bad, "freeing the fragmenting pages failed");
	ST_EXPECT(top <= (int)MIN_FRAG_ORDER || mm_test_others() != pages.others,
		  "a free block of order %d remained after fragmenting", top);
	if (top <= (int)MIN_FRAG_ORDER) {
		ST_EXPECT(got == MIN_OBJS, "kmem_cache_alloc number %u returned NULL", got + 1);
		ST_EXPECT(in_min > 0, "no object in a min-order slab (%u allocated)", got);
		ST_EXPECT(use.objs >= got &&
				  use.pages >= ((in_min + t->num - 1) / t->num) << t->order,
			  "usage: %lu objects, %lu pages; %u allocated, %u in min-order slabs",
			  use.objs, use.pages, got, in_min);
		ST_EXPECT(strncmp(line, want, strlen(want)) == 0, "slabinfo \"%s\", want \"%s\"",
			  line, want);
		ST_EXPECT(!CONFIG_SLAB_STATS || (grown_min > 0 && alloc_min >= in_min),
			  "stats: grown_min %lu, alloc_min %lu; %u objects in min-order slabs",
			  grown_min, alloc_min, in_min);
	}
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy failed");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}
