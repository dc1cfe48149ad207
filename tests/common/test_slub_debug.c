/*
 * test_slub_debug.c - SLUB's debug caches, in the kernel and on the host:
 * their layout (red zones, the free pointer past the object), the marks
 * of allocated and free objects, and every report: double free, overrun
 * and underrun (with the offset of the broken byte), write after free
 * (offset of the broken poison), a free pointer outside its slab or off an
 * object boundary (freelist corruption, with object and offset), one to an
 * allocated object (handed out twice), poison
 * only and red zone only. Each report is counted (slab_bad_frees or
 * slab_corruptions), named on the console (host), and leaves the cache
 * consistent (kmem_cache_check) and working, with every page back.
 */
#include "test_slub.h"

SELFTEST(slub_debug_cache_catches_misuse)
{
	struct slab_test_mark pages;
	unsigned long bad, corrupt;
	struct kmem_cache *c;
	unsigned char *p, *q;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-debug", 40, 0, SLAB_DEBUG, NULL);
	/* [red zone 8][object 40][red zone 8][free pointer 8] */
	ST_EXPECT(c && c->object_size == 40 && c->obj_offset == 8 && c->offset == 48 &&
			  c->size == 64 && c->cpu_partial == 0,
		  "debug layout: size %u object %u offset %u fp %u", c->size, c->object_size,
		  c->obj_offset, c->offset);
	p = kmem_cache_alloc(c);
	ST_EXPECT(p && p[0] == 0x5a && p[39] == 0x5a && p[-1] == 0xcc && p[40] == 0xcc,
		  "allocated object not marked");
	ST_EXPECT(slub_this_cpu(c)->freelist == SLUB_NO_SLAB, "a debug cache has a CPU slab");
	kmem_cache_free(c, p);
	ST_EXPECT(p[0] == 0x6b && p[38] == 0x6b && p[39] == 0xa5 && p[-1] == 0xbb && p[40] == 0xbb,
		  "freed object not poisoned");

	slab_test_console_clear();
	bad = slab_bad_frees;
	kmem_cache_free(c, p);
	SLAB_EXPECT_REFUSED(c, bad, "test-debug: kmem_cache_free(");
	ST_EXPECT(slab_test_console_has("): double free\n"), "no double free report");

	/* Overrun and underrun: reported with the offset, repaired, the free goes on. */
	corrupt = slab_corruptions;
	bad = slab_bad_frees;
	p = kmem_cache_alloc(c);
	p[41] = 0;
	kfree(p);
	ST_EXPECT(slab_corruptions == corrupt + 1 && slab_bad_frees == bad, "overrun not caught");
	ST_EXPECT(slab_test_console_has("red zone after the object overwritten at offset 41 "
					"(buffer overrun)"),
		  "no overrun report");
	p = kmem_cache_alloc(c);
	p[-3] = 0;
	kfree(p);
	ST_EXPECT(slab_corruptions == corrupt + 2, "underrun not caught");
	ST_EXPECT(slab_test_console_has("red zone before the object overwritten at offset -3 "
					"(buffer underrun)"),
		  "no underrun report");
	ST_EXPECT(kmem_cache_check(c) == 0, "inconsistent after overruns");

	/* Write after free: the next allocation of the object sees the poison broken. */
	p = kmem_cache_alloc(c);
	kmem_cache_free(c, p);
	p[3] = 0x11;
	q = kmem_cache_alloc(c);
	ST_EXPECT(q == p && slab_corruptions == corrupt + 3, "write after free not caught");
	ST_EXPECT(slab_test_console_has("test-debug: alloc(") &&
			  slab_test_console_has("write after free: poison broken at offset 3"),
		  "no poison report");
	kmem_cache_free(c, q);

	bad = slab_bad_frees;
	kmem_cache_free(c, q + 8);
	SLAB_EXPECT_REFUSED(c, bad, "not at an object boundary");
	if (slab_test_still_works(c))
		return -1;
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

static void ctor_mark(void *p)
{
	*(uint64_t *)p = 0x1234567887654321ULL;
}

SELFTEST(slub_debug_poison_only_and_red_zone_only)
{
	struct kmem_cache *pc, *rc;
	struct slab_test_mark pages;
	unsigned long bad;
	void *objs[100];
	uint64_t *p;

	slab_test_init();
	slab_test_begin(&pages);
	/* SLAB_NO_DEBUG: exactly these checks, even with CONFIG_SLAB_DEBUG. */
	pc = kmem_cache_create("test-poison", 32, 0, SLAB_POISON | SLAB_NO_DEBUG, ctor_mark);
	rc = kmem_cache_create("test-redzone", 64, 0, SLAB_RED_ZONE | SLAB_NO_DEBUG, NULL);
	ST_EXPECT(pc && rc, "create failed");
	ST_EXPECT(pc->offset == 32 && pc->obj_offset == 0 && rc->offset == 0 && rc->obj_offset == 8,
		  "free pointers: poison at %u, red zone at %u", pc->offset, rc->offset);
	/* Poisoned with a ctor: the ctor runs again on every allocation. */
	p = kmem_cache_alloc(pc);
	ST_EXPECT(p && *p == 0x1234567887654321ULL, "ctor not run after the poison check");
	kmem_cache_free(pc, p);
	slab_test_console_clear();
	bad = slab_bad_frees;
	kmem_cache_free(pc, p);
	SLAB_EXPECT_REFUSED(pc, bad, "double free (object still poisoned)");
	/* Red zones alone: the free pointer stays inside the free object. */
	for (int round = 0; round < 2 * SELFTEST_SCALE; round++) {
		for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++) {
			objs[i] = kmem_cache_alloc(rc);
			ST_EXPECT(objs[i], "alloc failed");
			memset(objs[i], 0xee, rc->object_size);
		}
		ST_EXPECT(kmem_cache_check(rc) == 0, "check failed with objects held");
		for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
			kmem_cache_free(rc, objs[(i * 13) % ARRAY_SIZE(objs)]);
		ST_EXPECT(kmem_cache_check(rc) == 0, "check failed after frees");
	}
	ST_EXPECT(kmem_cache_destroy(pc) == 0 && kmem_cache_destroy(rc) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/*
 * One corrupt free pointer: a slab wholly allocated but for x, whose free
 * pointer (inside it: red zone only) is overwritten with bad. The next
 * allocation hands out x, reports the pointer, and cuts the freelist there:
 * nothing else was on it, so nothing is lost.
 */
static int one_corruption(struct kmem_cache *c, void **objs, unsigned int n, void *bad,
			  const char *what)
{
	unsigned long corrupt = slab_corruptions;
	void *x;
	char want[96];

	for (unsigned int i = 0; i < n; i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)), "alloc %u failed", i);
	x = objs[n / 2];
	ST_EXPECT(slub_test_page(objs[0]) == slub_test_page(objs[n - 1]) &&
			  slub_is_end(slub_test_page(x)->slub_freelist),
		  "the objects do not fill one slab");
	kmem_cache_free(c, x);
	ST_EXPECT(slub_test_page(x)->slub_freelist == x, "x is not alone on its slab's freelist");
	/* a write after free into the free pointer, stored as it would be read back as
	 * 'bad' (with SLAB_FREELIST_HARDENED, encoded: a raw write decodes to noise) */
	slub_set_fp(c, x, bad);
	slab_test_console_clear();
	ST_EXPECT(kmem_cache_alloc(c) == x, "x not handed out");
	ST_EXPECT(slab_corruptions == corrupt + 1, "corruption not counted");
	snprintf(want, sizeof(want), "freelist corrupt: free pointer %p at offset 0 %s", bad, what);
	ST_EXPECT(slab_test_console_has(want), "no report \"%s\"", want);
	ST_EXPECT(slab_test_console_has("test-fp: alloc("), "the report names no cache and object");
	ST_EXPECT(kmem_cache_check(c) == 0, "inconsistent after a cut freelist");
	for (unsigned int i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(kmem_cache_check(c) == 0, "inconsistent after the frees");
	return 0;
}

/*
 * A free pointer to an allocated object: x, alone on its full slab's
 * freelist, is made to point at a, which the test holds, and a's own word
 * at a bad pointer. The first allocation hands out x, the second a: the
 * bad pointer in a is reported and the freelist cut, and a's red zones
 * (both active) name the fault: the object is handed out twice, not a free
 * object whose red zone was overwritten. The slab's count stays true, so
 * the frees of every object give the slab back.
 */
static int handed_out_twice(struct kmem_cache *c, void **objs, unsigned int n)
{
	unsigned long corrupt = slab_corruptions;
	void *x, *a;
	char want[96];

	for (unsigned int i = 0; i < n; i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)), "alloc %u failed", i);
	x = objs[n / 2];
	a = objs[0];
	ST_EXPECT(slub_test_page(a) == slub_test_page(objs[n - 1]) &&
			  slub_is_end(slub_test_page(x)->slub_freelist),
		  "the objects do not fill one slab");
	kmem_cache_free(c, x);
	slub_set_fp(c, x, a);
	slub_set_fp(c, a, (void *)0x1234);
	slab_test_console_clear();
	ST_EXPECT(kmem_cache_alloc(c) == x, "x not handed out");
	ST_EXPECT(kmem_cache_alloc(c) == a, "a not handed out through the corrupt pointer");
	ST_EXPECT(slab_corruptions == corrupt + 2, "%lu corruptions counted, not 2",
		  slab_corruptions - corrupt);
	snprintf(want, sizeof(want), "freelist corrupt: free pointer %p at offset 0 outside its "
		 "slab", (void *)0x1234);
	ST_EXPECT(slab_test_console_has(want), "no report \"%s\"", want);
	ST_EXPECT(slab_test_console_has("test-fp: alloc(") &&
			  slab_test_console_has("): freelist corrupt: the object is allocated "
						"already (handed out twice)\n"),
		  "no report of a handed out twice");
	ST_EXPECT(slab_test_console_lacks("red zone of a free object"),
		  "a reported as a free object with a broken red zone");
	for (unsigned int i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(kmem_cache_check(c) == 0, "inconsistent after the frees");
	return 0;
}

SELFTEST(slub_debug_freelist_corruption_is_caught)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	void **objs;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-fp", 64, 0, SLAB_RED_ZONE | SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c && c->offset == 0, "create failed");
	objs = kmalloc_array(c->num, sizeof(void *));
	ST_EXPECT(objs, "no table");
	ST_EXPECT(kmem_cache_shrink(c) == 0, "a new cache holds slabs");
	if (one_corruption(c, objs, c->num, (void *)0x1234, "outside its slab"))
		return -1;
	ST_EXPECT(kmem_cache_shrink(c) == 0, "slabs left");
	if (one_corruption(c, objs, c->num, (char *)objs + 0, "outside its slab"))
		return -1;
	ST_EXPECT(kmem_cache_shrink(c) == 0, "slabs left");
	/* Inside the slab, off every boundary. */
	{
		void *probe = kmem_cache_alloc(c);

		kmem_cache_free(c, probe);
		if (one_corruption(c, objs, c->num, (char *)probe + 3, "not on an object boundary"))
			return -1;
	}
	ST_EXPECT(kmem_cache_shrink(c) == 0, "slabs left");
	if (handed_out_twice(c, objs, c->num))
		return -1;
	if (slab_test_still_works(c))
		return -1;
	kfree(objs);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}
