/*
 * test_slub_sheaf.c - SLUB's per-CPU sheaves (mm/slub/slub_sheaf.c), in the
 * kernel and on the host: the first allocation refilling the main sheaf
 * from the slabs, frees filling it, the swap with the spare, the full main
 * going to the barn for an empty one and coming back as a full one,
 * the barn growing while the cache swings (its flushes scattered objects,
 * not runs freed in the order handed out), main flushed to the slabs when
 * the barn is full, the barns giving back when a slab finds no pages
 * (slub_barns_trim); kmem_cache_check accounting for
 * sheaved objects; drain, shrink and destroy giving every object back
 * (destroy counting no sheaved object as live); double frees (on top of
 * the sheaf and under it) and bad pointers reported on the sheaf path, and
 * an object put twice in a sheaf caught by kmem_cache_check. Sequences run with
 * interrupts off, so that no tick's reap releases this CPU's sheaves;
 * those that count a barn's sheaves pause every CPU's reap too.
 * Built with SLUB_SHEAVES=0 too: the tests then check there are none.
 */
#include "test_slub.h"
#include <asm/irqflags.h>

/* Objects in this CPU's main and spare sheaves of c. Interrupts off. */
static unsigned int main_size(struct kmem_cache *c)
{
	return slub_this_main(c)->size;
}

static unsigned int s_spare_size(struct kmem_cache *c)
{
	struct slub_sheaf *spare = c->cpu[smp_processor_id()].spare;

	return spare ? spare->size : 0;
}

SELFTEST_NO_REAP(slub_sheaves_fill_swap_barn_and_give_back)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	unsigned long flags;
	unsigned int cap, n, base;
	void **objs, **tmp;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-sheaf", 1024, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c, "create failed");
	cap = c->sheaf_capacity;
	if (!CONFIG_SLUB_SHEAVES) {
		ST_EXPECT(cap == 0 && slub_this_main(c) == &slub_sheaf_none, "sheaves without them");
		ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
		return 0;
	}
	ST_EXPECT(cap >= 8 && cap <= SLUB_SHEAF_MAX, "capacity %u", cap);
	base = slub_local_node(c)->barn.max_full;
	ST_EXPECT(base >= 2 && base <= SLUB_BARN_MAX, "barn of %u at rest", base);
	n = 2 * cap + (base + 2) * cap;
	ST_EXPECT(n >= 4 * c->num, "%u objects fill fewer than 4 slabs of %u: frees cannot scatter", n,
		  c->num);
	objs = kmalloc_array(n + cap, sizeof(void *));
	tmp = kmalloc_array(n + cap, sizeof(void *));
	ST_EXPECT(objs && tmp, "no table");
	flags = arch_irq_save();
	ST_EXPECT(slub_this_main(c) == &slub_sheaf_none, "a sheaf before the first use");
	/* The first allocation makes the main sheaf and fills a quarter of it from the slabs. */
	objs[0] = kmem_cache_alloc(c);
	ST_EXPECT(objs[0] && slub_this_main(c) != &slub_sheaf_none && main_size(c) == (c->num <= cap ? c->num : cap / 4) - 1,
		  "after the first allocation: main sheaf holds %u of %u", main_size(c), cap);
	ST_EXPECT(kmem_cache_check(c) == 0, "check with a refilled sheaf");
	ST_EXPECT(slub_test_held(c) == 1, "%lu held, 1 allocated", slub_test_held(c));
	/* A new slab's objects go in by address (no free pointers): the next ones of its slab. */
	for (unsigned int i = 0; i < main_size(c); i++) {
		char *o = slub_this_main(c)->objects[i];

		ST_EXPECT(o == (char *)objs[0] + (size_t)(i + 1) * c->size,
			  "sheaf object %u at %p, slab's first %p, size %u", i, (void *)o, objs[0],
			  c->size);
	}
	for (unsigned int i = 1; i < n; i++) {
		objs[i] = kmem_cache_alloc(c);
		ST_EXPECT(objs[i], "allocation %u failed", i);
	}
	while (main_size(c) > 0)	/* main empty: the frees below start it from 0 */
		ST_EXPECT((objs[n++] = kmem_cache_alloc(c)), "allocation %u failed", n);
	ST_EXPECT(slub_test_held(c) == n, "%lu held, %u allocated", slub_test_held(c), n);
	/* Freed at random, as it were: each object's neighbours of other slabs. */
	slab_test_interleave(objs, tmp, n, c->num);
	/* Frees fill main; full, it becomes the spare; both full: main goes to the barn. */
	for (unsigned int i = 0; i < 2 * cap; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(main_size(c) == cap && s_spare_size(c) == cap && slub_local_node(c)->barn.nr_full == 0,
		  "2 x capacity freed: main %u, spare %u, barn %u", main_size(c), s_spare_size(c),
		  slub_local_node(c)->barn.nr_full);
	kmem_cache_free(c, objs[2 * cap]);
	ST_EXPECT(main_size(c) == 1 && slub_local_node(c)->barn.nr_full == 1,
		  "one more: main %u, barn %u full", main_size(c), slub_local_node(c)->barn.nr_full);
	ST_EXPECT(kmem_cache_check(c) == 0, "check with a full barn sheaf");
	/*
	 * The barn takes max_full full sheaves, then a full main goes to the
	 * slabs, its objects scattered: no flush came before, so the barn does
	 * not grow, but the next refill from the slabs will count.
	 */
	for (unsigned int i = 2 * cap + 1; i < n; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(slub_local_node(c)->barn.nr_full == base && slub_local_node(c)->barn.max_full == base &&
			  slub_local_node(c)->barn.swing == BARN_FLUSHED,
		  "barn %u full (at most %u; %u at rest; swing %u): it should not have grown",
		  slub_local_node(c)->barn.nr_full, slub_local_node(c)->barn.max_full, base,
		  slub_local_node(c)->barn.swing);
	ST_EXPECT(kmem_cache_check(c) == 0, "check with the barn full");
	ST_EXPECT(slub_test_held(c) == 0, "%lu held, none allocated", slub_test_held(c));
	/* Allocations empty main, swap in the spare, then take full sheaves from the barn. */
	for (unsigned int i = 0; i < n; i++) {
		objs[i] = kmem_cache_alloc(c);
		ST_EXPECT(objs[i], "allocation %u failed", i);
	}
	ST_EXPECT(slub_local_node(c)->barn.nr_full == 0 && slub_local_node(c)->barn.nr_empty > 0,
		  "barn after the allocations: %u full, %u empty", slub_local_node(c)->barn.nr_full,
		  slub_local_node(c)->barn.nr_empty);
	ST_EXPECT(kmem_cache_check(c) == 0, "check with empty sheaves in the barn");
	for (unsigned int i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
	/* Drain gives this CPU's sheaves back; shrink the barn's too. */
	kmem_cache_drain_local(c);
	ST_EXPECT(slub_this_main(c) == &slub_sheaf_none && c->cpu[smp_processor_id()].spare == NULL,
		  "sheaves left after the drain");
	ST_EXPECT(kmem_cache_check(c) == 0, "check after the drain");
	/* A flush, then a refill from the slabs (above), then a full barn: it doubled. */
	ST_EXPECT(slub_local_node(c)->barn.max_full == 2 * base && slub_local_node(c)->barn.nr_full > base,
		  "barn %u full of %u after a swing (%u at rest): it should have doubled",
		  slub_local_node(c)->barn.nr_full, slub_local_node(c)->barn.max_full, base);
	if (CONFIG_SLAB_STATS)
		ST_EXPECT(c->stats.barn_grown == 1, "barn grown %lu times", c->stats.barn_grown);
	kmem_cache_shrink(c);
	ST_EXPECT(slub_local_node(c)->barn.nr_full == 0 && slub_local_node(c)->barn.nr_empty == 0 &&
			  slub_sheaved(c, NUMA_NO_NODE, NULL) == 0 && slub_local_node(c)->barn.max_full == base,
		  "barn after shrink: %u full, %u empty, at most %u (%u at rest)",
		  slub_local_node(c)->barn.nr_full, slub_local_node(c)->barn.nr_empty,
		  slub_local_node(c)->barn.max_full, base);
	/* Freed in the order handed out (runs of one slab each): the flush is cheap and does not count. */
	for (unsigned int i = 0; i < n; i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)), "allocation %u failed", i);
	for (unsigned int i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(slub_local_node(c)->barn.nr_full == base && slub_local_node(c)->barn.swing == BARN_CALM,
		  "freed in order: barn %u full (%u at rest), swing %u (a flush of runs should not count)",
		  slub_local_node(c)->barn.nr_full, base, slub_local_node(c)->barn.swing);
	kmem_cache_shrink(c);
	ST_EXPECT(kmem_cache_check(c) == 0, "check after the shrink");
	/* Destroy with objects in sheaves and one live: only the live one is reported. */
	objs[0] = kmem_cache_alloc(c);
	objs[1] = kmem_cache_alloc(c);
	kmem_cache_free(c, objs[1]);
	arch_irq_restore(flags);
	ST_EXPECT(slub_sheaved(c, NUMA_NO_NODE, NULL) > 0, "nothing in sheaves");
	slab_test_console_clear();
	ST_EXPECT(kmem_cache_destroy(c) != 0, "destroy of a cache with a live object accepted");
	ST_EXPECT(slab_test_console_has("1 objects still allocated"),
		  "destroy did not report exactly 1 live object");
	kmem_cache_free(c, objs[0]);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused once empty");
	kfree(objs);
	kfree(tmp);
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(slub_sheaves_double_free_and_bad_pointers)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	unsigned long bad, flags;
	void *a, *b, *other;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-sheaf-df", 128, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c, "create failed");
	other = kmalloc(128);
	ST_EXPECT(other, "no kmalloc object");
	flags = arch_irq_save();
	a = kmem_cache_alloc(c);
	b = kmem_cache_alloc(c);
	slab_test_console_clear();
	/* On top of the main sheaf (or, without sheaves, the CPU freelist). */
	kmem_cache_free(c, a);
	bad = slab_bad_frees;
	kmem_cache_free(c, a);
	SLAB_EXPECT_REFUSED(c, bad, CONFIG_SLUB_SHEAVES ? "double free (already on top of the CPU's sheaf)"
							 : "double free (already on the CPU's freelist)");
	bad = slab_bad_frees;
	kfree(a);
	SLAB_EXPECT_REFUSED(c, bad, CONFIG_SLUB_SHEAVES ? "double free (already on top of the CPU's sheaf)"
							 : "double free (already on the CPU's freelist)");
	/* Not on a boundary; another cache's object: refused before any sheaf. */
	bad = slab_bad_frees;
	kmem_cache_free(c, (char *)b + 8);
	SLAB_EXPECT_REFUSED(c, bad, "not at an object boundary");
	bad = slab_bad_frees;
	kmem_cache_free(c, other);
	SLAB_EXPECT_REFUSED(c, bad, "object of cache kmalloc-128");
	ST_EXPECT(kmem_cache_check(c) == 0, "check after refused frees");
	if (CONFIG_SLUB_SHEAVES) {
		/* Under the top: a's free word shows it in the sheaf. */
		kmem_cache_free(c, b);
		bad = slab_bad_frees;
		kmem_cache_free(c, a);
		SLAB_EXPECT_REFUSED(c, bad, "double free (already in the CPU's sheaf)");
		/* An object twice in a sheaf, put there by hand: kmem_cache_check sees it. */
		slub_this_main(c)->objects[slub_this_main(c)->size++] = a;
		slab_test_console_clear();
		ST_EXPECT(kmem_cache_check(c) != 0, "an object twice in a sheaf passed the check");
		ST_EXPECT(slab_test_console_has("is in sheaves twice"), "check's message");
		slub_this_main(c)->size--;	/* undo it */
	} else {
		kmem_cache_free(c, b);
	}
	ST_EXPECT(kmem_cache_check(c) == 0, "check after the repair");
	arch_irq_restore(flags);
	kfree(other);
	ST_EXPECT(slub_test_held(c) == 0, "%lu objects held", slub_test_held(c));
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/*
 * A barn gives back what it holds when a slab of another cache finds no
 * pages (slub_barns_trim): called alone, then by a cache that runs out of
 * memory.
 */
SELFTEST_NO_REAP(slub_barns_trimmed_when_a_slab_finds_no_pages)
{
	struct slab_test_mark pages;
	struct kmem_cache *c, *big;
	unsigned int cap, n, base;
	unsigned long flags, nbig = 0, trimmed;
	void **objs, **tmp;
	struct slab_test_out out;
	struct slub_barn *b;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-trim", 1024, 0, SLAB_NO_DEBUG, NULL);
	big = kmem_cache_create("test-trim-big", PAGE_SIZE, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c && big, "create failed");
	cap = c->sheaf_capacity;
	if (!CONFIG_SLUB_SHEAVES) {
		ST_EXPECT(!slub_barns_trim(NULL), "barns trimmed without sheaves");
		ST_EXPECT(kmem_cache_destroy(c) == 0 && kmem_cache_destroy(big) == 0, "destroy refused");
		return 0;
	}
	b = &slub_local_node(c)->barn;
	base = b->max_full;
	n = (2 * base + 4) * cap;
	ST_EXPECT(n >= 4 * c->num, "%u objects fill fewer than 4 slabs of %u: frees cannot scatter", n,
		  c->num);
	objs = kmalloc_array(n, sizeof(void *));
	tmp = kmalloc_array(n, sizeof(void *));
	ST_EXPECT(objs && tmp, "no table");
	/* Fill the barn, grown once (a flush of scattered objects, then refills, then a full barn). */
	flags = arch_irq_save();
	for (unsigned int round = 0; round < 2; round++) {
		for (unsigned int i = 0; i < n; i++)
			ST_EXPECT((objs[i] = kmem_cache_alloc(c)), "allocation %u failed", i);
		slab_test_interleave(objs, tmp, n, c->num);
		for (unsigned int i = 0; i < n; i++)
			kmem_cache_free(c, objs[i]);
	}
	ST_EXPECT(b->nr_full > base && b->max_full == 2 * base, "barn %u full of %u (%u at rest)",
		  b->nr_full, b->max_full, base);
	/* Alone: the barn empties, back at rest, its objects in their slabs; then nothing to give. */
	trimmed = c->stats.barn_trimmed;
	ST_EXPECT(slub_barns_trim(NULL), "a full barn gave nothing back");
	ST_EXPECT(b->nr_full == 0 && b->max_full == base, "barn after the trim: %u full, at most %u (%u at rest)",
		  b->nr_full, b->max_full, base);
	if (CONFIG_SLAB_STATS)
		ST_EXPECT(c->stats.barn_trimmed == trimmed + 1, "trims counted %lu, 1 expected",
			  c->stats.barn_trimmed - trimmed);
	ST_EXPECT(kmem_cache_check(c) == 0, "check after the trim");
	ST_EXPECT(slub_test_held(c) == 0, "%lu held after the trim, none allocated", slub_test_held(c));
	ST_EXPECT(!slub_barns_trim(NULL), "empty barns gave something back");
	/* The cache being refilled is skipped. */
	for (unsigned int i = 0; i < n; i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)), "allocation %u failed", i);
	for (unsigned int i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(b->nr_full > 0, "barn empty after the frees");
	slub_barns_trim(c);
	ST_EXPECT(b->nr_full > 0, "the barn of the cache that asked was trimmed");
	arch_irq_restore(flags);
	/* Memory runs out for another cache: this barn gives back before that cache's last slab. */
	nbig = slab_test_run_out(big, &out);
	ST_EXPECT(b->nr_full == 0 && b->max_full == base,
		  "%lu objects of test-trim-big, then barn %u full, at most %u (%u at rest)", nbig,
		  b->nr_full, b->max_full, base);
	ST_EXPECT(kmem_cache_check(c) == 0 && kmem_cache_check(big) == 0, "check when memory ran out");
	ST_EXPECT(slab_test_run_out_undo(big, &out) == 0, "freeing a held block failed");
	kfree(objs);
	kfree(tmp);
	ST_EXPECT(kmem_cache_destroy(c) == 0 && kmem_cache_destroy(big) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}
