/*
 * test_slub_min.c - SLUB's min-order slabs (mm/slub/slub_def.h), in the kernel
 * and on the host: every cache whose slabs are above the smallest order
 * that holds an object has a twin describing that order's slabs; in
 * fragmented memory a cache makes such slabs (never as CPU slabs), their
 * objects come and go through the slow paths, which check a pointer
 * against the slab's own geometry (a pointer into an object and one past
 * the last object are refused with their reports, a double free too),
 * sheaves holding objects of several min-order slabs in one slab-sized
 * block go back to the right slabs, the accounting (slabinfo, live
 * objects) counts them, and shrink gives them back. The allocator-neutral test is
 * tests/common/test_cache_frag.c; this is how SLUB does it.
 */
#include "test_slub.h"
#include <asm/irqflags.h>

#define MIN_FRAG_ORDER	(PAGE_SHIFT == 12 ? 2U : 0U)	/* as test_cache_frag.c */
/* A size whose slabs are above the order holding one, at 4K, 16K and 64K pages. */
#define MIN_SIZE	(PAGE_SHIFT == 12 ? 3000U : PAGE_SHIFT == 14 ? 6000U : 20000U)
#define MIN_OBJS	64

/* Every cache: a twin exactly when a smaller order holds an object, and what it says. */
SELFTEST(slub_min_order_twins)
{
	struct kmem_cache *s;
	unsigned long flags;
	int bad = 0;
	char what[160] = "";

	slab_test_init();
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(s, &slab_caches, list) {
		struct kmem_cache *t = s->min_cache;
		unsigned int want = get_order(s->size);

		if (!bad && (want < s->order) != (t != NULL)) {
			snprintf(what, sizeof(what), "%s: order %u, one object fits order %u, twin %p",
				 s->name, s->order, want, (void *)t);
			bad = 1;
		} else if (!bad && t &&
			   (t->min_of != s || t->order != want || t->obj_bound != 0 ||
			    t->num != (PAGE_SIZE << want) / s->size || t->size != s->size ||
			    t->min_cache || strcmp(t->name, s->name))) {
			snprintf(what, sizeof(what), "%s: twin of order %u with %u objects, "
				 "obj_bound %lu", s->name, t->order, t->num,
				 (unsigned long)t->obj_bound);
			bad = 1;
		}
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	ST_EXPECT(!bad, "%s", what);
	if (!CONFIG_SLAB_DEBUG && PAGE_SHIFT == 12) {
		ST_EXPECT(kmalloc_slab(2048)->min_cache->order == 0 &&
				  kmalloc_slab(4096)->min_cache->order == 0 &&
				  kmalloc_slab(4096)->min_cache->num == 1 &&
				  kmalloc_slab(8192)->min_cache->order == 1,
			  "kmalloc-2048/4096/8192 min orders %u/%u/%u",
			  kmalloc_slab(2048)->min_cache->order, kmalloc_slab(4096)->min_cache->order,
			  kmalloc_slab(8192)->min_cache->order);
		ST_EXPECT(!kmalloc_slab(64)->min_cache, "kmalloc-64 (order 0) has a twin");
	}
	return 0;
}

/* Objects of c allocated in fragmented memory: how many in min-order slabs. */
static unsigned int min_objects_of(struct kmem_cache *c, void **objs, unsigned int n,
				   void **one)
{
	unsigned int min = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct page *head = slub_test_page(objs[i]);

		if (head->slab_cache == c->min_cache) {
			min++;
			*one = objs[i];
		}
	}
	return min;
}

/*
 * Bad frees into a min-order slab, with x one of its objects (freed
 * here): into the object, past its last object, and x twice.
 */
static int min_bad_frees(struct kmem_cache *c, void *x)
{
	struct page *head = slub_test_page(x);
	const struct kmem_cache *g = slub_geom(head);
	char *past = (char *)page_address(head) + g->obj_offset + (size_t)g->num * g->size;
	char what[96];
	unsigned long bad;

	ST_EXPECT(g == c->min_cache && slub_is_min(head), "%p is not in a min-order slab", x);
	ST_EXPECT(past < (char *)page_address(head) + (PAGE_SIZE << g->order),
		  "no room past the last object");
	snprintf(what, sizeof(what), "slub: %s: kmem_cache_free(%p): not at an object boundary "
		 "(8 bytes into the %u-byte object at %p)", c->name, (char *)x + 8,
		 c->object_size, x);
	slab_test_console_clear();
	bad = slab_bad_frees;
	kmem_cache_free(c, (char *)x + 8);
	SLAB_EXPECT_REFUSED(c, bad, what);
	snprintf(what, sizeof(what), "slub: %s: kfree(%p): not at an object boundary (8 bytes "
		 "into the %u-byte object at %p)", c->name, (char *)x + 8, c->object_size, x);
	bad = slab_bad_frees;
	kfree((char *)x + 8);
	SLAB_EXPECT_REFUSED(c, bad, what);
	snprintf(what, sizeof(what), "slub: %s: kfree(%p): not at an object boundary (outside "
		 "the slab's objects)", c->name, past);
	bad = slab_bad_frees;
	kfree(past);
	SLAB_EXPECT_REFUSED(c, bad, what);
	kmem_cache_free(c, x);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed after a min-order object's free");
	snprintf(what, sizeof(what), "slub: %s: kmem_cache_free(%p): double free", c->name, x);
	bad = slab_bad_frees;
	kmem_cache_free(c, x);
	SLAB_EXPECT_REFUSED(c, bad, what);
	return 0;
}

/*
 * A cache of MIN_SIZE objects (classic: without sheaves) in fragmented
 * memory: MIN_OBJS objects come, some from min-order slabs, with the books
 * right; bad frees into those slabs are refused; after a drain (a sheaf's
 * objects from several min-order slabs) and the frees, all is back.
 */
static int min_run(bool classic)
{
	static void *objs[MIN_OBJS];
	struct slab_test_frag frag;
	struct slab_test_mark pages;
	struct kmem_cache *c;
	unsigned int got = 0, min = 0;
	unsigned long held = 0, listed = 0, made = 0;
	void *one = NULL;
	int checked = -1, top, bad = 0;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create(classic ? "min-classic" : "min-cache", MIN_SIZE, 0, 0, NULL);
	ST_EXPECT(c && c->min_cache && c->min_cache->order <= MIN_FRAG_ORDER,
		  "no cache with min-order slabs of order %u at most", MIN_FRAG_ORDER);
	if (classic)
		slub_test_classic(c);
	slab_test_fragment(&frag, MIN_FRAG_ORDER);
	top = slab_test_largest_free_order();
	for (got = 0; got < MIN_OBJS && top < (int)c->order; got++) {
		objs[got] = kmem_cache_alloc(c);
		if (!objs[got])
			break;
		memset(objs[got], 0x77, MIN_SIZE);
	}
	if (got == MIN_OBJS) {
		min = min_objects_of(c, objs, got, &one);
		checked = kmem_cache_check(c);
		held = slub_test_held(c);
		listed = (unsigned long)slub_nr_slabs(c, true);
#if CONFIG_SLAB_STATS
		made = c->stats.new_min;
#else
		made = listed;
#endif
	}
	slab_test_unfragment(&frag);
	if (min)
		bad = min_bad_frees(c, one);
	for (unsigned int i = 0; i < got; i++)
		if (objs[i] != one || !min)
			kmem_cache_free(c, objs[i]);
	if (bad)
		return -1;
	ST_EXPECT(!frag.bad, "freeing the fragmenting pages failed");
	ST_EXPECT(top < (int)c->order || mm_test_others() != pages.others,
		  "a free block of order %d remained after fragmenting", top);
	if (top < (int)c->order) {
		ST_EXPECT(got == MIN_OBJS, "object %u of %s: NULL with %lu pages free", got + 1,
			  c->name, nr_free_pages());
		ST_EXPECT(min > 0 && listed > 0, "no object from a min-order slab (%u, nr_min %lu)",
			  min, listed);
		ST_EXPECT(checked == 0, "kmem_cache_check failed with min-order slabs");
		ST_EXPECT(held == MIN_OBJS, "%lu objects held by the books, %u allocated", held,
			  got);
		ST_EXPECT(made == listed, "stats: %lu min-order slabs made, %lu live", made,
			  listed);
		kmem_cache_drain_local(c);	/* a sheaf's min-order objects to their slabs */
		ST_EXPECT(kmem_cache_check(c) == 0, "check failed after the frees and a drain");
		ST_EXPECT(slub_test_held(c) == 0, "%lu objects held after every free",
			  slub_test_held(c));
		kmem_cache_shrink(c);
		ST_EXPECT(slub_nr_slabs(c, false) == 0 &&
				  slub_nr_slabs(c, true) == 0,
			  "shrink left %ld slabs, %ld of the min order",
			  slub_nr_slabs(c, false), slub_nr_slabs(c, true));
	}
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy failed");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(slub_min_order_slabs)
{
	return min_run(false);
}

SELFTEST(slub_min_order_slabs_classic)
{
	return min_run(true);
}

/*
 * Two min-order slabs in one block of the cache's slab size: objects of
 * both freed together (a sheaf's flush, slub_free_bulk) go each to its own
 * slab, though the runs a flush frees as one chain are found by slab_mask.
 * Free blocks of order 0 only (every other page free), and all but
 * BULK_FREE of those held too, make a few min-order slabs; at 4K pages two
 * may share an order-3 block already. If none do, the kept pages in the
 * blocks of those slabs are freed, the only free memory: the next
 * min-order slab is made in one of them.
 */
/* 2 per min-order slab at 4K and 16K pages, 3 at 64K */
#define BULK_SIZE	(PAGE_SHIFT == 12 ? 1500U : PAGE_SHIFT == 14 ? 6000U : 20000U)
#define BULK_FREE	16
#define BULK_MAX	256

/* Allocate until x (in a min-order slab with another object in use) and y share a block. */
static bool bulk_pair(struct kmem_cache *c, void **objs, unsigned int *n, void **x, void **y)
{
	while (*n < BULK_MAX && (objs[*n] = kmem_cache_alloc(c)) != NULL) {
		struct page *b = slub_test_page(objs[*n]);

		(*n)++;
		if (!slub_is_min(b))
			continue;
		for (unsigned int i = 0; i + 1 < *n; i++) {
			struct page *a = slub_test_page(objs[i]);

			if (a != b && slub_is_min(a) && slub_inuse(a->counters) >= 2 &&
			    ((uintptr_t)objs[i] & ~c->slab_mask) ==
				    ((uintptr_t)objs[*n - 1] & ~c->slab_mask)) {
				*x = objs[i];
				*y = objs[*n - 1];
				return true;
			}
		}
	}
	return false;
}

/* Free the kept pages of frag that lie in a c->order block with a min-order slab of c. */
static void free_kept_beside_min_slabs(struct kmem_cache *c, struct slab_test_frag *frag)
{
	unsigned long block = 1UL << c->order;

	for (struct slab_test_frag_page **pp = &frag->keep; *pp;) {
		unsigned long first = page_to_pfn(virt_to_page(*pp)) & ~(block - 1);
		bool beside = false;

		for (unsigned long i = 0; i < block; i++) {
			struct page *q = pfn_to_page(first + i);

			beside |= (q->flags & PG_slab) && q->slab_cache == c->min_cache;
		}
		if (beside) {
			struct slab_test_frag_page *p = *pp;

			*pp = p->next;
			frag->bad |= free_pages_addr(p, 0) != 0;
		} else {
			pp = &(*pp)->next;
		}
	}
}

SELFTEST(slub_min_order_slabs_sharing_a_block)
{
	static void *objs[BULK_MAX];
	struct slab_test_frag frag, held = { .bad = 0 };
	struct slab_test_frag_page *p;
	struct slab_test_mark pages;
	struct kmem_cache *c;
	void *x = NULL, *y = NULL, *two[2];
	unsigned int n = 0;
	unsigned long flags;
	bool found;
	int checked = -1;

	slab_test_init();
	slab_test_begin(&pages);
	c = slub_test_classic(kmem_cache_create("min-bulk", BULK_SIZE, 0, SLAB_NO_DEBUG, NULL));
	ST_EXPECT(c && c->min_cache && c->min_cache->order == 0 && c->min_cache->num >= 2,
		  "no cache with min-order slabs of order 0 holding 2 objects");
	slab_test_fragment(&frag, 0);
	while ((p = get_free_pages(0)) != NULL) {	/* hold the free pages too ... */
		p->next = held.keep;
		held.keep = p;
	}
	for (unsigned int i = 0; i < BULK_FREE && held.keep; i++) {	/* ... but a few */
		p = held.keep;
		held.keep = p->next;
		held.bad |= free_pages_addr(p, 0) != 0;
	}
	found = bulk_pair(c, objs, &n, &x, &y);
	if (!found) {
		free_kept_beside_min_slabs(c, &frag);
		found = bulk_pair(c, objs, &n, &x, &y);
	}
	if (found) {
		two[0] = x;
		two[1] = y;
		flags = arch_irq_save();
		slub_free_bulk(c, two, 2, "kmem_cache_free");
		arch_irq_restore(flags);
		checked = kmem_cache_check(c);
	}
	slab_test_unfragment(&held);
	slab_test_unfragment(&frag);
	for (unsigned int i = 0; i < n; i++)
		if (!found || (objs[i] != x && objs[i] != y))
			kmem_cache_free(c, objs[i]);
	ST_EXPECT(!frag.bad && !held.bad, "freeing the fragmenting pages failed");
	ST_EXPECT(found || mm_test_others() != pages.others,
		  "no two min-order slabs in one block in %u objects", n);
	ST_EXPECT(!found || checked == 0, "objects of two min-order slabs at %p and %p, freed "
		  "together, did not go back each to its slab", x, y);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed after the frees");
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy failed");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}
