/*
 * test_slab_shared.c - SLAB's shared arrays (mm/slab/slab_cpu.c), in the
 * kernel and on the host: a node's shared array doubles when its cache
 * swings (a flush found it full and sent objects scattered over slabs to
 * them, then a CPU array was refilled from the slabs, then a flush finds it
 * full again) and not before, nor when the frees come in runs; it keeps what
 * it held; kmem_cache_shrink gives it back; slab_shared_trim empties every
 * other cache's shared arrays, alone and when a cache runs out of memory.
 * Sequences run with interrupts off and every CPU's reap paused, so that
 * no reap drains the arrays meanwhile. A cache without a shared array (one CPU) has nothing
 * to test.
 */
#include "test_slab.h"
#include <asm/irqflags.h>

/*
 * Allocate n objects of c into objs[], then free them all (interrupts off):
 * scattered over slabs when tmp (room for n pointers) is given, else in the
 * order they came.
 */
static int swing(struct kmem_cache *c, void **objs, void **tmp, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)), "allocation %u of %u failed", i, n);
	if (tmp)
		slab_test_interleave(objs, tmp, n, c->num);
	for (unsigned int i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
	return 0;
}

SELFTEST_NO_REAP(slab_shared_array_grows_while_the_cache_swings)
{
	struct slab_test_mark pages;
	struct kmem_cache *c, *big;
	struct kmem_cache_node *node;
	unsigned int base, n;
	unsigned long flags, nbig = 0;
	void **objs, **tmp;
	struct slab_test_out out;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-shared", 256, 0, SLAB_NO_DEBUG, NULL);
	big = kmem_cache_create("test-shared-big", PAGE_SIZE, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c && big, "create failed");
	if (!c->shared) {
		ST_EXPECT(kmem_cache_destroy(c) == 0 && kmem_cache_destroy(big) == 0, "destroy refused");
		return 0;
	}
	base = c->shared * c->batchcount;
	ST_EXPECT(cache_shared_max(c) >= 2 * base, "shared array grows to %u, from %u",
		  cache_shared_max(c), base);
	n = c->limit + base + 4 * c->batchcount;
	ST_EXPECT(n >= 2 * c->num, "%u objects fill fewer than 2 slabs of %u: frees cannot scatter", n,
		  c->num);
	objs = kmalloc_array(n, sizeof(void *));
	tmp = kmalloc_array(n, sizeof(void *));
	ST_EXPECT(objs && tmp, "no table");
	flags = arch_irq_save();
	node = slab_test_node(c);

	/* Freed in the order handed out: the rest goes to the slabs in runs, which does not count. */
	if (swing(c, objs, NULL, n))
		return -1;
	ST_EXPECT(node->shared && node->shared->limit == base && node->shared_swing == SHARED_IN_RUNS,
		  "freed in order: shared array of %lu (%u at first), swing %u",
		  node->shared ? node->shared->limit : 0UL, base, node->shared_swing);
	/* Freed at random, as it were: the shared array fills, the rest goes to the slabs; no growth yet. */
	if (swing(c, objs, tmp, n))
		return -1;
	ST_EXPECT(node->shared && node->shared->limit == base && node->shared->avail == base &&
			  node->shared_swing == SHARED_FLUSHED,
		  "after a swing: shared array %lu of %lu (%u at first), swing %u",
		  node->shared ? node->shared->avail : 0UL, node->shared ? node->shared->limit : 0UL, base,
		  node->shared_swing);
	/* The objects come back, the last from the slabs: the cache swings; then it doubles. */
	for (unsigned int i = 0; i < n; i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)), "allocation %u failed", i);
	ST_EXPECT(node->shared_swing == SHARED_SWINGS, "swing %u after refills from the slabs",
		  node->shared_swing);
	slab_test_interleave(objs, tmp, n, c->num);
	for (unsigned int i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(node->shared->limit == 2 * base && node->shared->avail > base &&
			  node->shared_swing == SHARED_CALM,
		  "after a second swing: shared array %lu of %lu (%u at first), swing %u",
		  node->shared->avail, node->shared->limit, base, node->shared_swing);
	if (CONFIG_SLAB_STATS)
		ST_EXPECT(c->stats.shared_grown == 1, "grown %lu times", c->stats.shared_grown);
	ST_EXPECT(kmem_cache_check(c) == 0, "check with a grown shared array");
	ST_EXPECT(slab_test_active(c) == slab_test_in_arrays(c), "%lu active, %lu in arrays",
		  slab_test_active(c), slab_test_in_arrays(c));

	/* The trim: another cache's asking empties it; the asking cache's own is left. */
	slab_shared_trim(c);
	ST_EXPECT(node->shared->avail > base, "the asking cache's shared array was trimmed");
	ST_EXPECT(slab_shared_trim(NULL), "a full shared array gave nothing back");
	ST_EXPECT(node->shared->avail == 0 && node->shared_swing == SHARED_CALM,
		  "after the trim: %lu in the shared array, swing %u", node->shared->avail,
		  node->shared_swing);
	ST_EXPECT(kmem_cache_check(c) == 0, "check after the trim");
	ST_EXPECT(!slab_shared_trim(NULL), "empty shared arrays gave something back");

	/* kmem_cache_shrink gives the array back; the next overflow makes one at the first size. */
	kmem_cache_shrink(c);
	ST_EXPECT(!node->shared, "shared array kept by the shrink");
	if (swing(c, objs, tmp, n))
		return -1;
	ST_EXPECT(node->shared && node->shared->limit == base, "new shared array of %lu, %u at first",
		  node->shared ? node->shared->limit : 0UL, base);
	arch_irq_restore(flags);

	/* Memory runs out for another cache: this shared array gives back before that cache's last slab. */
	ST_EXPECT(node->shared->avail > 0, "nothing in the shared array");
	nbig = slab_test_run_out(big, &out);
	ST_EXPECT(node->shared->avail == 0, "%lu objects of test-shared-big, then %lu in the shared array",
		  nbig, node->shared->avail);
	ST_EXPECT(kmem_cache_check(c) == 0 && kmem_cache_check(big) == 0, "check when memory ran out");
	ST_EXPECT(slab_test_run_out_undo(big, &out) == 0, "freeing a held block failed");
	kfree(objs);
	kfree(tmp);
	ST_EXPECT(kmem_cache_destroy(c) == 0 && kmem_cache_destroy(big) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}
