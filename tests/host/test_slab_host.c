/*
 * test_slab_host.c - heavy SLAB tests for the host only (ASan/UBSan):
 *  - a random run of create/alloc/free/shrink/destroy over many caches and
 *    kmalloc sizes (fixed seed, SLAB_RANDOM_OPS operations), checking every
 *    object as it is handed out (aligned, inside a slab of its cache, not
 *    live already), its contents when freed (no two live objects overlap),
 *    and every few thousand operations each cache's invariants and that the
 *    slabs' active count equals live objects plus those in CPU arrays,
 *    ending with nr_free_pages() as it was before it started.
 * The random run is tests/host/stress.c's; this file gives it SLAB's checks.
 */
#include "tests/common/test_slab.h"
#include "host_stress.h"

#define SLAB_RANDOM_OPS		120000

/* Inside a slab of its cache, unless kmalloc took it from the pages. */
static int slab_check_object(struct kmem_cache *c, const void *p, size_t size)
{
	const unsigned char *o = p;
	struct page *head;

	if (size > KMALLOC_MAX_CACHE_SIZE && !c)
		return 0;
	head = slab_head_page(o);
	ST_EXPECT((virt_to_page(o)->flags & PG_slab) && (!c || head->slab_cache == c) &&
			  o >= (unsigned char *)head->s_mem &&
			  o + size <= (unsigned char *)head->s_mem +
					      (size_t)head->slab_cache->num * head->slab_cache->size,
		  "%p not inside a slab of its cache", p);
	return 0;
}

/* The slabs' active objects are the live ones and those in CPU arrays. */
static int slab_check_cache(struct kmem_cache *c, unsigned long live)
{
	ST_EXPECT(slab_test_active(c) == live + slab_test_in_arrays(c),
		  "%s: active %lu != %lu live + %lu in arrays", c->name, slab_test_active(c), live,
		  slab_test_in_arrays(c));
	return 0;
}

/* The standard limits and caches; no drain or reap step (its band is empty). */
static const struct stress_config slab_stress = {
	.ops = SLAB_RANDOM_OPS, .check_every = 4000,
	.create_below = 15, .shrink_below = 25, .reap_below = 25, .alloc_below = 530,
	.tag_span = 256,
	.check_object = slab_check_object, .check_cache = slab_check_cache,
};

/* host_random_run: see host_stress.h. */
int host_random_run(unsigned long ops, struct stress_counts *counts)
{
	struct stress_config cfg = slab_stress;

	cfg.ops = ops;
	return stress_run(&cfg, counts);
}

SELFTEST_HOST(slab_host_random_operations)
{
	unsigned long pages, bad = slab_bad_frees, corrupt = slab_corruptions;
	struct stress_counts n;

	pages = slab_test_settle();
	if (stress_run(&slab_stress, &n))
		return -1;
	ST_EXPECT(slab_bad_frees == bad && slab_corruptions == corrupt,
		  "good frees reported as bad");
	ST_EXPECT(slab_test_settle() == pages, "pages not back: %lu free, %lu before",
		  nr_free_pages(), pages);
	printk("random: %d ops: %lu create/destroy, %lu shrink, %lu alloc, %lu free\n",
	       SLAB_RANDOM_OPS, n.create_destroy, n.shrink, n.alloc, n.free);
	return 0;
}
