/*
 * test_slub_debug.c - SLUB's debug caches, in the kernel and on the host:
 * their layout (red zones, the free pointer past the object, no CPU slab);
 * through test_cache_debug.c, as SLAB's, the marks of allocated and free
 * objects, the reports of double free, overrun and underrun (with the
 * offset of the broken byte), write after free (offset of the broken
 * poison) and a free off an object boundary, and poison only and red zone
 * only; then a free pointer outside its slab or off an object boundary
 * (freelist corruption, with object and offset), one to an allocated
 * object (handed out twice). Each report is counted (slab_bad_frees or
 * slab_corruptions), named on the console (host), and leaves the cache
 * consistent (kmem_cache_check) and working, with every page back.
 */
#include "test_cache_debug.h"
#include "test_slub.h"

SELFTEST(slub_debug_cache_catches_misuse)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	unsigned char *p;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-debug", 40, 0, SLAB_DEBUG, NULL);
	/* [red zone 8][object 40][red zone 8][free pointer 8] */
	ST_EXPECT(c && c->object_size == 40 && c->obj_offset == 8 && c->offset == 48 &&
			  c->size == 64 && c->cpu_partial == 0,
		  "debug layout: size %u object %u offset %u fp %u", c->size, c->object_size,
		  c->obj_offset, c->offset);
	/* The checks SLAB's debug caches share; the overrun breaks the red zone's second byte. */
	if (slab_test_debug_alloc(c, &p))
		return -1;
	ST_EXPECT(slub_this_cpu(c)->freelist == SLUB_NO_SLAB, "a debug cache has a CPU slab");
	if (slab_test_debug_misuse(c, p, 41))
		return -1;
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(slub_debug_poison_only_and_red_zone_only)
{
	struct kmem_cache *pc, *rc;
	struct slab_test_mark pages;

	slab_test_init();
	slab_test_begin(&pages);
	/* SLAB_NO_DEBUG: exactly these checks, even with CONFIG_SLAB_DEBUG. */
	pc = kmem_cache_create("test-poison", 32, 0, SLAB_POISON | SLAB_NO_DEBUG,
			       slab_test_ctor_mark);
	rc = kmem_cache_create("test-redzone", 64, 0, SLAB_RED_ZONE | SLAB_NO_DEBUG, NULL);
	ST_EXPECT(pc && rc, "create failed");
	/* The free pointer: past the object with poison alone, inside it with red zones alone. */
	ST_EXPECT(pc->offset == 32 && pc->obj_offset == 0 && rc->offset == 0 && rc->obj_offset == 8,
		  "free pointers: poison at %u, red zone at %u", pc->offset, rc->offset);
	if (slab_test_poison_and_red_zone_alone(pc, rc, NULL))
		return -1;
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
