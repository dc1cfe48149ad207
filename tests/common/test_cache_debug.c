/*
 * test_cache_debug.c - the debug checks SLAB's and SLUB's own self-tests
 * share (see test_cache_debug.h), in the kernel and on the host. Built
 * with every allocator (tests/common/test_cache*.c) but empty except for
 * SLAB and SLUB, whose debug caches lay out the objects these checks
 * expect: a red zone on either side, the poison ending in 0xa5.
 */
#include "test_cache_debug.h"

#if defined(CONFIG_ALLOC_SLAB) || defined(CONFIG_ALLOC_SLUB)

#define CTOR_MARK	0x1234567887654321ULL

/* slab_test_debug_alloc: see test_cache_debug.h. */
int slab_test_debug_alloc(struct kmem_cache *c, unsigned char **pp)
{
	unsigned int n = c->object_size;
	unsigned char *p = kmem_cache_alloc(c);

	*pp = p;
	ST_EXPECT(p && p[0] == 0x5a && p[n - 1] == 0x5a && p[-1] == 0xcc && p[n] == 0xcc,
		  "allocated object not marked");
	return 0;
}

/* slab_test_debug_misuse: see test_cache_debug.h. */
int slab_test_debug_misuse(struct kmem_cache *c, unsigned char *p, unsigned int overrun_at)
{
	unsigned int n = c->object_size;
	unsigned long bad, corrupt;
	char call[64], want[96];
	unsigned char *q;

	kmem_cache_free(c, p);
	ST_EXPECT(p[0] == 0x6b && p[n - 2] == 0x6b && p[n - 1] == 0xa5 && p[-1] == 0xbb &&
			  p[n] == 0xbb,
		  "freed object not poisoned");

	slab_test_console_clear();
	bad = slab_bad_frees;
	kmem_cache_free(c, p);
	snprintf(call, sizeof(call), "%s: kmem_cache_free(", c->name);
	SLAB_EXPECT_REFUSED(c, bad, call);
	ST_EXPECT(slab_test_console_has("): double free\n"), "no double free report");

	/* Overrun and underrun: reported with the offset, repaired, the free goes on. */
	corrupt = slab_corruptions;
	bad = slab_bad_frees;
	p = kmem_cache_alloc(c);
	p[overrun_at] = 0;
	kfree(p);
	ST_EXPECT(slab_corruptions == corrupt + 1 && slab_bad_frees == bad, "overrun not caught");
	snprintf(call, sizeof(call), "%s: kfree(", c->name);
	snprintf(want, sizeof(want),
		 "red zone after the object overwritten at offset %u (buffer overrun)", overrun_at);
	ST_EXPECT(slab_test_console_has(call) && slab_test_console_has(want),
		  "no overrun report naming cache, object and offset");
	p = kmem_cache_alloc(c);
	p[-3] = 0;
	kfree(p);
	ST_EXPECT(slab_corruptions == corrupt + 2, "underrun not caught");
	ST_EXPECT(slab_test_console_has("red zone before the object overwritten at offset -3 "
					"(buffer underrun)"),
		  "no underrun report with its offset");
	ST_EXPECT(kmem_cache_check(c) == 0, "inconsistent after overruns");

	/* Write after free: the next allocation of the object sees the poison broken. */
	p = kmem_cache_alloc(c);
	kmem_cache_free(c, p);
	p[3] = 0x11;
	q = kmem_cache_alloc(c);
	ST_EXPECT(q == p && slab_corruptions == corrupt + 3, "write after free not caught");
	snprintf(call, sizeof(call), "%s: alloc(", c->name);
	ST_EXPECT(slab_test_console_has(call) &&
			  slab_test_console_has("write after free: poison broken at offset 3"),
		  "no poison report");
	kmem_cache_free(c, q);

	bad = slab_bad_frees;
	kmem_cache_free(c, q + 8);
	snprintf(want, sizeof(want), "not at an object boundary (8 bytes into the %u-byte object",
		 n);
	SLAB_EXPECT_REFUSED(c, bad, want);
	return slab_test_still_works(c);
}

/* slab_test_ctor_mark: see test_cache_debug.h. */
void slab_test_ctor_mark(void *p)
{
	*(uint64_t *)p = CTOR_MARK;
}

/* slab_test_poison_and_red_zone_alone: see test_cache_debug.h. */
int slab_test_poison_and_red_zone_alone(struct kmem_cache *pc, struct kmem_cache *rc,
					void (*before_check)(struct kmem_cache *))
{
	unsigned long bad;
	void *objs[100];
	uint64_t *p;

	/* Poisoned with a ctor: the ctor runs again on every allocation. */
	p = kmem_cache_alloc(pc);
	ST_EXPECT(p && *p == CTOR_MARK, "ctor not run after the poison check");
	kmem_cache_free(pc, p);
	slab_test_console_clear();
	bad = slab_bad_frees;
	kmem_cache_free(pc, p);
	SLAB_EXPECT_REFUSED(pc, bad, "double free (object still poisoned)");

	for (int round = 0; round < 2 * SELFTEST_SCALE; round++) {
		for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++) {
			objs[i] = kmem_cache_alloc(rc);
			ST_EXPECT(objs[i], "alloc failed");
			memset(objs[i], 0xee, rc->object_size);
		}
		if (before_check)
			before_check(rc);
		ST_EXPECT(kmem_cache_check(rc) == 0, "check failed with objects held");
		for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
			kmem_cache_free(rc, objs[(i * 13) % ARRAY_SIZE(objs)]);
		if (before_check)
			before_check(rc);
		ST_EXPECT(kmem_cache_check(rc) == 0, "check failed after frees");
	}
	return 0;
}

#endif
