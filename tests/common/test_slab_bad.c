/*
 * test_slab_bad.c - SLAB's misuse checks are reported, refused and
 * harmless, in the kernel and on the host: double frees caught by the
 * stack tops (no debugging), and the debug checks of a SLAB_DEBUG cache
 * (its layout here; double free, overruns, writes after free and poison
 * through test_cache_debug.c, which SLUB's tests share). Each case
 * checks the report (host: its text), the counter, kmem_cache_check(), and
 * that the cache still hands out distinct objects. Built with ALLOC=slab
 * only; bad pointers of every kind are test_cache_api.c's (any allocator).
 */
#include "test_cache_debug.h"
#include "test_slab.h"

SELFTEST(slab_double_frees_seen_by_the_stacks)
{
	struct kmem_cache *c;
	struct slab_test_mark pages;
	unsigned long bad;
	void *p, *a;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-dfree", 64, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c, "create failed");

	/* Still in this CPU's array. */
	p = kmem_cache_alloc(c);
	kmem_cache_free(c, p);
	slab_test_console_clear();
	bad = slab_bad_frees;
	kmem_cache_free(c, p);
	SLAB_EXPECT_REFUSED(c, bad, "test-dfree: kmem_cache_free(");
	ST_EXPECT(slab_test_console_has("double free (already in the CPU's array)"), "no report");

	/* Back on its slab's freelist: the free mark sends it to the search at once. */
	a = kmem_cache_alloc(c);
	p = kmem_cache_alloc(c);
	ST_EXPECT(slab_head_page(a) == slab_head_page(p), "objects on different slabs");
	kmem_cache_free(c, p);
	kmem_cache_drain_local(c);
	bad = slab_bad_frees;
	kmem_cache_free(c, p);
	SLAB_EXPECT_REFUSED(c, bad, "double free (already on its slab's freelist)");

	/* Its slab empty: still on the freelist. */
	kmem_cache_free(c, a);
	kmem_cache_drain_local(c);
	ST_EXPECT(slab_test_node(c)->total_slabs == 1 && slab_test_node(c)->free_slabs == 1,
		  "empty slab not kept");
	bad = slab_bad_frees;
	kmem_cache_free(c, a);
	SLAB_EXPECT_REFUSED(c, bad, "double free (already on its slab's freelist)");

	if (slab_test_still_works(c))
		return -1;
	ST_EXPECT(slab_test_active(c) == slab_test_in_arrays(c), "active count went wrong");
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/*
 * Issue 12 item 3: without debugging, a double free that is not on top of
 * the CPU's array or the slab's stack was accepted and the object handed
 * out twice. The free mark catches it wherever the object waits: deep in
 * the CPU's array, on its slab under others, in kmalloc-512 (whose objects
 * hold array_caches); a ctor cache keeps its objects constructed. Each
 * refused free leaves the object free once: the next allocations hand out
 * distinct objects, and the cache is consistent.
 */
static void ctor_magic(void *p)
{
	((uint64_t *)p)[0] = 0x600dc0de600dc0deULL;
	((uint64_t *)p)[1] = 0x5eed5eed5eed5eedULL;
}

static int distinct_allocs(struct kmem_cache *c, unsigned int n)
{
	void *objs[64];

	ST_EXPECT(n <= ARRAY_SIZE(objs), "too many");
	for (unsigned int i = 0; i < n; i++) {
		objs[i] = kmem_cache_alloc(c);
		ST_EXPECT(objs[i], "alloc failed");
		for (unsigned int k = 0; k < i; k++)
			ST_EXPECT(objs[k] != objs[i], "%s handed out %p twice", c->name, objs[i]);
	}
	for (unsigned int i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(kmem_cache_check(c) == 0, "cache %s inconsistent", c->name);
	return 0;
}

SELFTEST(slab_double_free_anywhere_refused_without_debug)
{
	struct kmem_cache *c, *k512 = kmalloc_slab(512), *cc;
	struct slab_test_mark pages;
	unsigned long bad;
	void *p, *q, *r;
	uint64_t *o;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-dfree-deep", 64, 0, SLAB_NO_DEBUG, NULL);
	cc = kmem_cache_create("test-dfree-ctor", 48, 0, SLAB_NO_DEBUG, ctor_magic);
	ST_EXPECT(c && cc, "create failed");

	/* Under another object in this CPU's array. */
	p = kmem_cache_alloc(c);
	q = kmem_cache_alloc(c);
	kmem_cache_free(c, p);
	kmem_cache_free(c, q);
	slab_test_console_clear();
	bad = slab_bad_frees;
	kmem_cache_free(c, p);
	SLAB_EXPECT_REFUSED(c, bad, "double free (already in the CPU's array)");
	ST_EXPECT(slab_test_console_has("test-dfree-deep: kmem_cache_free("), "no cache named");
	if (distinct_allocs(c, 40))
		return -1;

	/* On its slab under other free objects. */
	p = kmem_cache_alloc(c);
	q = kmem_cache_alloc(c);
	r = kmem_cache_alloc(c);
	kmem_cache_free(c, p);
	kmem_cache_free(c, q);
	kmem_cache_free(c, r);
	kmem_cache_drain_local(c);
	bad = slab_bad_frees;
	kmem_cache_free(c, q);
	SLAB_EXPECT_REFUSED(c, bad, "double free (already on its slab's freelist)");
	if (distinct_allocs(c, 40))
		return -1;

	/* kmalloc-512 through kfree: the class that holds the arrays themselves. */
	p = kmalloc(500);
	q = kmalloc(500);
	ST_EXPECT(p && q && ksize(p) == 512, "kmalloc(500)");
	kfree(p);
	kfree(q);
	bad = slab_bad_frees;
	kfree(p);
	SLAB_EXPECT_REFUSED(k512, bad, "kmalloc-512: kfree(");
	if (distinct_allocs(k512, 40))
		return -1;

	/* A ctor cache: the mark lies past the object, which stays constructed. */
	o = kmem_cache_alloc(cc);
	p = kmem_cache_alloc(cc);
	ST_EXPECT(o && p && o[0] == 0x600dc0de600dc0deULL, "not constructed");
	kmem_cache_free(cc, o);
	kmem_cache_free(cc, p);
	ST_EXPECT(o[0] == 0x600dc0de600dc0deULL && o[1] == 0x5eed5eed5eed5eedULL,
		  "free changed the constructed state");
	bad = slab_bad_frees;
	kmem_cache_free(cc, o);
	SLAB_EXPECT_REFUSED(cc, bad, "double free (already in the CPU's array)");
	o = kmem_cache_alloc(cc);
	ST_EXPECT(o && o[0] == 0x600dc0de600dc0deULL && o[1] == 0x5eed5eed5eed5eedULL,
		  "object not constructed after a free");
	kmem_cache_free(cc, o);
	if (distinct_allocs(cc, 40))
		return -1;

	/* The caller's own data may equal the mark: then the free is good. */
	p = kmem_cache_alloc(c);
	*(uintptr_t *)p = SLAB_FREE_MARK(c);
	bad = slab_bad_frees;
	kmem_cache_free(c, p);
	ST_EXPECT(slab_bad_frees == bad, "a good free refused for the caller's data");
	if (distinct_allocs(c, 40))
		return -1;

	ST_EXPECT(kmem_cache_destroy(c) == 0 && kmem_cache_destroy(cc) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(slab_debug_cache_catches_misuse)
{
	struct kmem_cache *c;
	struct slab_test_mark pages;
	unsigned char *p;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-debug", 40, 0, SLAB_DEBUG, NULL);
	ST_EXPECT(c && c->object_size == 40 && c->size == 56 && c->obj_offset == 8,
		  "debug layout: size %u object %u offset %u", c->size, c->object_size,
		  c->obj_offset);
	ST_EXPECT(c->layout != SLAB_LAYOUT_IN_OBJ, "poisoned cache keeps its freelist in objects");
	/* The checks SLUB's debug caches share; the overrun breaks the red zone's first byte. */
	if (slab_test_debug_alloc(c, &p) || slab_test_debug_misuse(c, p, 40))
		return -1;
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/*
 * A debug cache's freelist index overwritten (an out-of-range index, then
 * one naming an allocated object): the next allocation reports it with the
 * cache, the slab and the freelist position, rebuilds the slab's free stack
 * from the red zones, and hands out only free objects; nothing is lost.
 */
SELFTEST(slab_debug_freelist_corruption_is_repaired)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	unsigned long corrupt;
	void *objs[8], *p;
	struct page *head;
	freelist_idx_t *fl;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-flcorrupt", 64, 0, SLAB_DEBUG | SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c && c->layout != SLAB_LAYOUT_IN_OBJ && c->num > 8, "create failed");
	for (unsigned int i = 0; i < 4; i++)
		objs[i] = kmem_cache_alloc(c);
	head = slab_head_page(objs[0]);
	fl = slab_freelist(head);
	for (int round = 0; round < 2; round++) {
		slab_test_console_clear();
		corrupt = slab_corruptions;
		/* Round 0: an index past the slab; round 1: the index of objs[0], allocated. */
		fl[head->active] = round == 0 ? (freelist_idx_t)(c->num + 3) :
						(freelist_idx_t)slab_obj_index(c, head, objs[0]);
		p = kmem_cache_alloc(c);
		ST_EXPECT(p && slab_corruptions == corrupt + 1, "round %d: corruption not seen",
			  round);
		ST_EXPECT(slab_test_console_has("test-flcorrupt: alloc(") &&
				  slab_test_console_has("freelist corrupt: freelist[") &&
				  slab_test_console_has(round ? "is allocated" : "is no object") &&
				  slab_test_console_has("free stack rebuilt from the red zones"),
			  "round %d: report lacks cache, slab, position or repair", round);
		for (unsigned int i = 0; i < 4 + (unsigned int)round; i++)
			ST_EXPECT(p != objs[i], "round %d: an allocated object handed out", round);
		objs[4 + round] = p;
		ST_EXPECT(kmem_cache_check(c) == 0, "round %d: inconsistent after repair", round);
	}
	for (unsigned int i = 0; i < 6; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused: objects lost in the repair");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(slab_debug_poison_only_and_red_zone_only)
{
	struct kmem_cache *pc, *rc;
	struct slab_test_mark pages;

	slab_test_init();
	slab_test_begin(&pages);
	/* SLAB_NO_DEBUG: exactly these checks, even with CONFIG_SLAB_DEBUG. */
	pc = kmem_cache_create("test-poison", 32, 0, SLAB_POISON | SLAB_NO_DEBUG,
			       slab_test_ctor_mark);
	rc = kmem_cache_create("test-redzone", PAGE_SIZE / 64, 0, SLAB_RED_ZONE | SLAB_NO_DEBUG,
			       NULL);
	ST_EXPECT(pc && rc, "create failed");
	/* Red zones alone keep the in-object freelist where it fits. */
	ST_EXPECT(rc->layout == SLAB_LAYOUT_IN_OBJ ||
			  (PAGE_SIZE / rc->size) * sizeof(freelist_idx_t) > rc->object_size,
		  "test-redzone layout %s", slab_layout_name(rc));
	/* As SLUB's, but the red zone cache's checks see its objects on their slabs. */
	if (slab_test_poison_and_red_zone_alone(pc, rc, kmem_cache_drain_local))
		return -1;
	ST_EXPECT(kmem_cache_destroy(pc) == 0 && kmem_cache_destroy(rc) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}
