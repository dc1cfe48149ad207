/*
 * test_slab_random.c - SLAB's freelist order (ALLOC=slab). Without
 * SLAB_FREELIST_RANDOM a new slab's free-index stack is 0, 1, ..., num-1;
 * with it each new slab's stack is a permutation of those indexes (every
 * object exactly once; in-object layouts keep num-1 last, where the array
 * lives), and slabs get different permutations, so the next object's
 * address cannot be told from the last one's. Slabs are made with
 * cache_grow_begin/cache_grow_end, as a refill makes them.
 */
#include "test_slab.h"
#include <asm/irqflags.h>

#define RANDOM_SLABS	4

/* The stack of a new slab of c is a permutation of 0..num-1; *identity: it is 0..num-1. */
static int check_stack(struct kmem_cache *c, struct page *page, bool *identity)
{
	const freelist_idx_t *fl = slab_freelist(page);
	static uint8_t seen[4096];

	ST_EXPECT(c->num <= sizeof(seen), "%s: %u objects, more than the test handles", c->name,
		  c->num);
	memset(seen, 0, c->num);
	*identity = true;
	for (unsigned int i = 0; i < c->num; i++) {
		ST_EXPECT(fl[i] < c->num && !seen[fl[i]], "%s: freelist[%u] = %u repeated or out "
			  "of range (num %u)", c->name, i, (unsigned int)fl[i], c->num);
		seen[fl[i]] = 1;
		*identity &= fl[i] == i;
	}
	if (c->layout == SLAB_LAYOUT_IN_OBJ)
		ST_EXPECT(fl[c->num - 1] == c->num - 1, "%s: in-object freelist's home %u is not "
			  "last", c->name, (unsigned int)fl[c->num - 1]);
	return 0;
}

static int order_of(size_t size)
{
	struct kmem_cache *c = kmem_cache_create("test-order", size, 0, 0, NULL);
	struct page *pages[RANDOM_SLABS];
	unsigned long flags;
	unsigned int identical = 0, same_as_first = 0;
	int rc = 0;

	ST_EXPECT(c != NULL, "kmem_cache_create(test-order, %zu) failed", size);
	for (unsigned int k = 0; k < RANDOM_SLABS; k++) {
		bool identity = false;

		pages[k] = cache_grow_begin(c, 0);
		ST_EXPECT(pages[k] != NULL, "cache_grow_begin failed");
		if (!rc)
			rc = check_stack(c, pages[k], &identity);
		identical += identity;
		if (k && !memcmp(slab_freelist(pages[k]), slab_freelist(pages[0]),
				 c->num * sizeof(freelist_idx_t)))
			same_as_first++;
		flags = arch_irq_save();
		cache_grow_end(c, pages[k]);
		arch_irq_restore(flags);
	}
	ST_EXPECT(kmem_cache_destroy(c) == 0, "kmem_cache_destroy(test-order) failed");
	if (rc)
		return rc;
	if (CONFIG_SLAB_FREELIST_RANDOM) {
		/* num >= 15 here: a shuffle repeats an order with odds below 1 in 10^11 */
		ST_EXPECT(identical == 0, "%zu-byte objects: %u of %d new slabs in index order",
			  size, identical, RANDOM_SLABS);
		ST_EXPECT(same_as_first == 0, "%zu-byte objects: %u slabs in the first one's order",
			  size, same_as_first);
	} else {
		ST_EXPECT(identical == RANDOM_SLABS, "%zu-byte objects: %u of %d new slabs not in "
			  "index order without SLAB_FREELIST_RANDOM", size,
			  RANDOM_SLABS - identical, RANDOM_SLABS);
	}
	return 0;
}

SELFTEST(slab_freelist_order_random_when_configured)
{
	/* 64 B and 256 B objects: their layouts differ at each page size */
	for (size_t size = 64; size <= 256; size *= 4) {
		int rc = order_of(size);

		if (rc)
			return rc;
	}
	return 0;
}
