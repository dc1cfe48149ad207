/*
 * test_cache_debug.h - the debug checks SLAB's and SLUB's own self-tests
 * share (tests/common/test_cache_debug.c): the marks of an allocated and a
 * freed object of a SLAB_DEBUG cache and every report it makes (double
 * free, overrun, underrun, write after free, a free off an object
 * boundary); a cache with poison alone and a constructor, and one with red
 * zones alone. The allocator's own test (test_slab_bad.c,
 * test_slub_debug.c) makes the caches and checks their layout, adds its
 * own checks between these, and destroys the caches with every page back.
 * Each report is counted (slab_bad_frees or slab_corruptions) and, on the
 * host, named on the console with the cache and the call.
 */
#ifndef TESTS_COMMON_TEST_CACHE_DEBUG_H
#define TESTS_COMMON_TEST_CACHE_DEBUG_H

#include "test_alloc.h"

/*
 * slab_test_debug_alloc - allocate one object of c, a SLAB_DEBUG cache
 * (red zones before and after each object), and check its marks: its
 * first and last byte 0x5a, the byte on either side of it 0xcc (red zones
 * active). *pp is the object, the caller's until it passes it to
 * slab_test_debug_misuse. Returns 0, or -1 (selftest_fail) when the
 * allocation failed (*pp NULL) or a mark is wrong.
 */
int slab_test_debug_alloc(struct kmem_cache *c, unsigned char **pp);

/*
 * slab_test_debug_misuse - free p (from slab_test_debug_alloc) and check
 * its poison (0x6b at its first and next to last byte, 0xa5 at its last)
 * and the byte on either side of it (0xbb: red zones inactive); then
 * misuse c and check each report: p freed again (a double free, refused);
 * an overrun at overrun_at (the offset of the broken byte from the
 * object's start: object_size or past it, inside the red zone after the
 * object) and an underrun at -3, each counted, reported with its offset,
 * repaired, and the kfree going on; a write after free, found when the
 * next allocation hands the object out again; a free 8 bytes into an
 * object, refused. Then two fresh objects are distinct and c is
 * consistent. p is freed first, whatever follows; every object it
 * allocates after is freed again unless a check fails. Returns 0, or -1
 * (selftest_fail) at the first check that fails.
 */
int slab_test_debug_misuse(struct kmem_cache *c, unsigned char *p, unsigned int overrun_at);

/*
 * slab_test_ctor_mark - a constructor: writes the mark that
 * slab_test_poison_and_red_zone_alone looks for into the object's first
 * 8 bytes. Never fails.
 */
void slab_test_ctor_mark(void *p);

/*
 * slab_test_poison_and_red_zone_alone - pc (SLAB_POISON alone, constructor
 * slab_test_ctor_mark): an allocated object is constructed (the ctor runs
 * after the poison check) and its second free is refused ("object still
 * poisoned"). rc (SLAB_RED_ZONE alone): 2 * SELFTEST_SCALE rounds of 100
 * objects allocated and filled with 0xee, then freed in another order,
 * kmem_cache_check passing with them held and after the frees;
 * before_check(rc), where not NULL, runs before each check (SLAB's
 * kmem_cache_drain_local, so that the check sees the objects on their
 * slabs). Unless a check fails, nothing of either cache is left
 * allocated; the caller destroys both. Returns 0, or -1 (selftest_fail)
 * at the first check that fails.
 */
int slab_test_poison_and_red_zone_alone(struct kmem_cache *pc, struct kmem_cache *rc,
					void (*before_check)(struct kmem_cache *));

#endif
