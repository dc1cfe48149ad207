/*
 * test_slob.c - SLOB's structure (both forms), in the kernel and on the
 * host: block headers and their tags; caches sharing the heap's pages;
 * pages coming and going (the spare kept, given back by shrink, drain and
 * CPU 0's reap); big objects straight from the buddy allocator; bad
 * pointers and double frees reported and refused; the largest objects a
 * heap page takes, and the big ones just above; random sequences with
 * the heap's invariants checked; the slabinfo rows and the heap table.
 *
 * Figures that other CPUs could change (heap pages, the spare) are
 * compared only when mm_test_others() shows no one else moved pages
 * (tests/common/test_mm.h): other CPUs' timers may reap meanwhile.
 */
#include "test_slob.h"

SELFTEST(slob_block_headers_and_tags)
{
	struct kmem_cache *c;
	void *a, *b;

	slab_test_init();
	c = slob_test_cache("test-hdr", 40);
	ST_EXPECT(c && !c->big && c->object_size == 40 && c->units == 6 && c->align == 8,
		  "geometry: object %u units %u align %u", c ? c->object_size : 0,
		  c ? c->units : 0, c ? c->align : 0);
	a = kmem_cache_alloc(c);
	b = kmem_cache_alloc(c);
	ST_EXPECT(a && b, "alloc failed");
	for (int i = 0; i < 2; i++) {
		struct slob_hdr *h = slob_test_hdr(i ? b : a);
		struct page *page = virt_to_page(h);

		ST_EXPECT(h->tag == slob_tag(h) && h->info == c->id && slob_test_owner(i ? b : a) == c,
			  "header %p: tag 0x%x (want 0x%x) info %u (id %u)", (void *)h, h->tag,
			  slob_tag(h), h->info, c->id);
		ST_EXPECT(h->units >= c->units && h->units < c->units + 3,
			  "block of %u units for %u", h->units, c->units);
		ST_EXPECT((page->flags & PG_slab) && !page->slab_cache, "not on a heap page");
		ST_EXPECT(slob_page_end(slob_next(h)) || slob_next(h)->prev == h->units,
			  "the next block's prev %u, this block %u units", slob_next(h)->prev,
			  h->units);
		/* The first block of a page has no block before it: its prev is 0. */
		ST_EXPECT(h->prev == 0 ? slob_off(h) == 0
				       : h->prev <= slob_off(h) && slob_prev(h)->units == h->prev,
			  "prev %u disagrees with the block before (at unit %u of its page)", h->prev,
			  (unsigned int)slob_off(h));
	}
	ST_EXPECT(kmem_cache_size(c) == 40 && ksize(a) == 40, "ksize %zu", ksize(a));
	kmem_cache_free(c, a);
	ST_EXPECT(slob_is_free(slob_test_hdr(a)) || slob_test_hdr(a)->info == SLOB_DEAD,
		  "a freed block's header is neither free nor swallowed (0x%x)",
		  slob_test_hdr(a)->info);
	kmem_cache_free(c, b);
	ST_EXPECT(kmem_cache_check(c) == 0 && kmem_cache_destroy(c) == 0, "check or destroy");
	return 0;
}

SELFTEST(slob_caches_share_pages)
{
	unsigned int nfill = 0, ny = 0, fillmax = (unsigned int)(PAGE_SIZE / 16);
	void **fill, *ys[64], *x;
	struct kmem_cache *cx, *cy;
	bool shared = false;

	slab_test_init();
	cx = slob_test_cache("test-share-x", 24);
	/* slob: a page serves one list's sizes, so y is small too; slob-seg: any size */
	cy = slob_test_cache("test-share-y", SLOB_SEG ? PAGE_SIZE / 4 : 100);
	fill = kmalloc_array(fillmax, sizeof(void *));
	ST_EXPECT(cx && cy && fill, "create failed");
	slab_drain_all();
	/* x alone in a page; then objects of another cache, until one joins it. */
	x = slob_test_fresh(cx, fill, fillmax, &nfill);
	ST_EXPECT(x, "no page of its own");
	while (!shared && ny < ARRAY_SIZE(ys)) {
		ys[ny] = kmem_cache_alloc(cy);
		ST_EXPECT(ys[ny], "alloc failed");
		shared = virt_to_page(ys[ny++]) == virt_to_page(x);
	}
	ST_EXPECT(shared, "a page with room never took another cache's object");
	ST_EXPECT(slob_test_page_objects(x) == 2, "%u objects in the shared page",
		  slob_test_page_objects(x));
	ST_EXPECT(cx->inuse == nfill + 1 && cy->inuse == ny, "inuse %lu and %lu", cx->inuse,
		  cy->inuse);
	ST_EXPECT(kmem_cache_check(cx) == 0 && kmem_cache_check(cy) == 0, "check failed");
	ST_EXPECT(kmem_cache_destroy(cx) == -EBUSY, "destroy with objects accepted");
	kmem_cache_free(cx, x);
	while (nfill)
		kmem_cache_free(cx, fill[--nfill]);
	while (ny)
		kmem_cache_free(cy, ys[--ny]);
	kfree(fill);
	ST_EXPECT(kmem_cache_destroy(cx) == 0 && kmem_cache_destroy(cy) == 0, "destroy refused");
	return 0;
}

SELFTEST(slob_pages_come_back_and_the_spare)
{
	struct slab_test_mark mark;
	unsigned long others, heap0, most;
	struct kmem_cache *c;
	unsigned int n;
	void **objs;

	slab_test_init();
	slab_test_begin(&mark);
	heap0 = slob_test_pages();
	c = slob_test_cache("test-pages", 200);
	n = (unsigned int)(8 * PAGE_SIZE / 200);
	objs = kmalloc_array(n, sizeof(void *));
	ST_EXPECT(c && objs, "no cache or table");
	others = mm_test_others();
	for (unsigned int i = 0; i < n; i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)), "alloc %u failed", i);
	most = slob_test_pages();
	ST_EXPECT(most >= heap0 + 6 || mm_test_others() != others, "%lu heap pages for %u "
		  "objects of 200 bytes, %lu before", most, n, heap0);
	ST_EXPECT(slab_total_pages() >= most, "Slab: %lu pages, the heap %lu", slab_total_pages(),
		  most);
	for (unsigned int i = 0; i < n; i++)
		kmem_cache_free(c, objs[(i * 13) % n]);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed after the frees");
	/* Every page back but the spare, the table's and the cache's; shrink gives the spare back. */
	ST_EXPECT(slob_test_pages() <= heap0 + 3 || mm_test_others() != others,
		  "%lu heap pages after freeing all, %lu before", slob_test_pages(), heap0);
	ST_EXPECT(kmem_cache_shrink(c) == 0, "shrink says objects remain");
	ST_EXPECT(slob_heap.spare == NULL || mm_test_others() != others, "spare kept by shrink");
	kfree(objs);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&mark);
	printk("slob: %u objects took the heap from %lu to %lu pages and back\n", n, heap0, most);
	return 0;
}

SELFTEST(slob_reap_drain_and_shrink_give_the_spare_back)
{
	unsigned int n = (unsigned int)(4 * PAGE_SIZE / 64);
	unsigned long others, reaps, flags;
	void **objs;

	slab_test_init();
	objs = kmalloc_array(n, sizeof(void *));
	ST_EXPECT(objs, "no table");
	slab_drain_all();
	others = mm_test_others();
	ST_EXPECT(slob_heap.spare == NULL, "slab_drain_all kept the spare");
	/* Pages made and emptied: one becomes the spare. */
	for (unsigned int i = 0; i < n; i++)
		ST_EXPECT((objs[i] = kmalloc(64)), "kmalloc %u failed", i);
	for (unsigned int i = 0; i < n; i++)
		kfree(objs[i]);
	kfree(objs);
	if (mm_test_others() != others)
		return 0;	/* someone else moved pages: nothing below is ours to compare */
	ST_EXPECT(slob_heap.spare != NULL, "no spare after pages emptied");
	/* Nothing per CPU: draining this CPU changes nothing. */
	kmem_cache_drain_local(kmalloc_slab(64));
	slab_drain_local_all();
	ST_EXPECT(slob_heap.spare != NULL, "a local drain gave the spare back");
	/* CPU 0's second reap in a row gives it back. */
	if (smp_processor_id() == 0) {
		reaps = slab_reap_events();
		flags = arch_irq_save();
		slab_reap();
		slab_reap();
		arch_irq_restore(flags);
		ST_EXPECT(slob_heap.spare == NULL && slab_reap_events() == reaps + 1,
			  "two reaps kept the spare (%lu reap events)", slab_reap_events() - reaps);
	}
	return 0;
}

static unsigned int big_ctor_runs;

static void big_ctor(void *p)
{
	*(uint32_t *)p = 0xb16b16;
	big_ctor_runs++;
}

SELFTEST(slob_big_objects_are_pages)
{
	struct slab_test_mark mark;
	struct kmem_cache *c, *d;
	unsigned long before;
	char line[160];
	void *a, *b;

	slab_test_init();
	slab_test_begin(&mark);
	c = kmem_cache_create("test-big", 2 * PAGE_SIZE + 8, 0, SLAB_NO_DEBUG, big_ctor);
	d = kmem_cache_create("test-pagealign", 64, PAGE_SIZE, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c && d && c->big && c->order == 2 && d->big && d->order == 0,
		  "big caches: order %u, %u", c ? c->order : 99, d ? d->order : 99);
	before = slab_total_pages();
	a = kmem_cache_alloc(c);
	b = kmem_cache_alloc(d);
	ST_EXPECT(a && b && ((uintptr_t)a & (PAGE_SIZE - 1)) == 0 &&
			  ((uintptr_t)b & (PAGE_SIZE - 1)) == 0, "big objects %p %p", a, b);
	ST_EXPECT(*(uint32_t *)a == 0xb16b16 && big_ctor_runs >= 1, "ctor not run");
	ST_EXPECT(virt_to_page(a)->slab_cache == c && (virt_to_page(a)->flags & PG_slab),
		  "head page does not name the cache");
	ST_EXPECT(slab_total_pages() >= before + 5 || mm_test_others() != mark.others,
		  "Slab: %lu pages, %lu before", slab_total_pages(), before);
	ST_EXPECT(ksize(a) == c->object_size && ksize(b) == 64, "ksize %zu %zu", ksize(a),
		  ksize(b));
	slabinfo_line(c, line, sizeof(line));
	ST_EXPECT(strncmp(line, "test-big ", 9) == 0 && strlen(line) > 48 &&
			  strncmp(line + 48, " : tunables    0    0    0", 26) == 0,
		  "slabinfo line '%s'", line);
	ST_EXPECT(kmem_cache_check(c) == 0 && kmem_cache_check(d) == 0, "check failed");
	kfree(a);		/* kfree takes any object */
	kmem_cache_free(d, b);
	ST_EXPECT(kmem_cache_check(c) == 0 && c->inuse == 0, "inuse %lu", c->inuse);
	ST_EXPECT(kmem_cache_destroy(c) == 0 && kmem_cache_destroy(d) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&mark);
	return 0;
}

/*
 * The largest objects a heap page takes (SLOB-seg's fresh
 * page loses its page header block's units, which the "fits in a page" test
 * did not count, and the first allocation of a 4073-4088-byte cache hit the
 * BUG in slob_heap_alloc). Every size around the limit, plain and with a red
 * zone, aligned to 8, 16 and 64: up to the limit a heap block, above it a
 * big object (whole pages); either way the object's whole size is
 * writable, frees cleanly and the heap stays consistent. In a SLAB_DEBUG
 * build the plain caches are debug caches (a red zone too).
 */
SELFTEST(slob_largest_heap_objects)
{
	static const size_t aligns[] = { SLOB_UNIT, 16, 64 };
	struct slab_test_mark mark;

	slab_test_init();
	slab_test_begin(&mark);
	for (unsigned int a = 0; a < ARRAY_SIZE(aligns); a++) {
		for (unsigned int rz = 0; rz < 2; rz++) {
			unsigned int flags = rz ? SLAB_RED_ZONE : 0;
			bool zone = rz || CONFIG_SLAB_DEBUG;
			/* the object's pointer: the first aligned place after the page header and its own */
			size_t first = ALIGN_UP((size_t)(SLOB_HDR_UNITS + 1) * SLOB_UNIT, aligns[a]);
			size_t max = PAGE_SIZE - first - (zone ? SLOB_UNIT : 0);

			for (size_t size = max - 4 * SLOB_UNIT + 1; size <= max + 2 * SLOB_UNIT; size++) {
				struct kmem_cache *c = kmem_cache_create("test-top", size, aligns[a],
									 flags, NULL);
				unsigned char *p[2];

				ST_EXPECT(c && c->big == (size > max),
					  "%zu bytes, align %zu%s: big %d (the heap's largest: %zu)",
					  size, aligns[a], rz ? ", red zone" : "", c ? c->big : -1, max);
				for (int i = 0; i < 2; i++) {
					p[i] = kmem_cache_alloc(c);
					ST_EXPECT(p[i] && ((uintptr_t)p[i] & (aligns[a] - 1)) == 0 &&
							  ksize(p[i]) >= size,
						  "%zu bytes, align %zu%s: object %p, ksize %zu", size,
						  aligns[a], rz ? ", red zone" : "", (void *)p[i],
						  p[i] ? ksize(p[i]) : 0);
					ST_EXPECT(c->big || ((uintptr_t)p[i] & (PAGE_SIZE - 1)) +
								    c->size <= PAGE_SIZE,
						  "%zu bytes: object %p runs past its page", size,
						  (void *)p[i]);
					memset(p[i], 0xa5, ksize(p[i]));
				}
				ST_EXPECT(kmem_cache_check(c) == 0, "%zu bytes: check failed", size);
				kmem_cache_free(c, p[0]);
				kfree(p[1]);
				ST_EXPECT(kmem_cache_check(c) == 0 && c->inuse == 0,
					  "%zu bytes: check failed after the frees", size);
				ST_EXPECT(kmem_cache_destroy(c) == 0, "%zu bytes: destroy refused", size);
			}
		}
	}
	SLAB_EXPECT_PAGES_BACK(&mark);
	return 0;
}

SELFTEST(slob_bad_and_double_frees_are_refused)
{
	struct kmem_cache *c, *other;
	struct slab_test_mark mark;
	void *a, *b, *q, *big;
	unsigned long bad;

	slab_test_init();
	slab_test_begin(&mark);
	c = slob_test_cache("test-dfree", 48);
	other = kmem_cache_create("test-dfree-big", PAGE_SIZE, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c && other, "create failed");
	a = kmem_cache_alloc(c);
	b = kmem_cache_alloc(c);
	q = kmalloc(100);
	big = kmem_cache_alloc(other);
	ST_EXPECT(a && b && q && big, "alloc failed");
	kmem_cache_free(c, a);
	slab_test_console_clear();
	bad = slab_bad_frees;
	kmem_cache_free(c, a);
	SLAB_EXPECT_REFUSED(c, bad, "test-dfree: kmem_cache_free(");
	ST_EXPECT(slab_test_console_has("double free"), "no double-free report");
	bad = slab_bad_frees;
	kfree(a);
	SLAB_EXPECT_REFUSED(c, bad, "double free");
	/* Inside a block, and a block of another cache. */
	bad = slab_bad_frees;
	kfree((char *)b + 16);
	SLAB_EXPECT_REFUSED(c, bad, "test-dfree: kfree(");
	ST_EXPECT(slab_test_console_has("not at an object boundary"), "no boundary report");
	bad = slab_bad_frees;
	kmem_cache_free(c, q);
	SLAB_EXPECT_REFUSED(c, bad, "object of cache kmalloc-128");
	if (SLOB_SEG) {		/* a page header block's "payload": no object there */
		bad = slab_bad_frees;
		kfree((char *)((uintptr_t)b & PAGE_MASK) + 8);
		SLAB_EXPECT_REFUSED(c, bad, "not at an object boundary");
	}
	bad = slab_bad_frees;
	kmem_cache_free(c, big);
	SLAB_EXPECT_REFUSED(c, bad, "object of cache test-dfree-big");
	bad = slab_bad_frees;
	kfree((char *)big + 64);
	SLAB_EXPECT_REFUSED(c, bad, "not at an object boundary");
	ST_EXPECT(slob_test_check() == 0, "heap inconsistent after the refusals");
	kmem_cache_free(c, b);
	kfree(q);
	kmem_cache_free(other, big);
	bad = slab_bad_frees;
	kmem_cache_free(other, big);
	SLAB_EXPECT_REFUSED(NULL, bad, "not a slab object or large allocation");
	ST_EXPECT(kmem_cache_destroy(c) == 0 && kmem_cache_destroy(other) == 0, "destroy");
	SLAB_EXPECT_PAGES_BACK(&mark);
	return 0;
}

static uint64_t srng;

static uint64_t srnd(void)
{
	srng ^= srng << 13;
	srng ^= srng >> 7;
	srng ^= srng << 17;
	return srng;
}

/* Random kmallocs and frees of many sizes; the heap checked as it goes. */
SELFTEST(slob_random_sequence_keeps_the_invariants)
{
	unsigned int n = 256, ops = 4000 * SELFTEST_SCALE;
	struct slab_test_mark mark;
	unsigned char *objs[256] = { 0 };
	size_t sizes[256];

	slab_test_init();
	slab_test_begin(&mark);
	srng = 0x9e3779b97f4a7c15ULL;
	for (unsigned int op = 0; op < ops; op++) {
		unsigned int i = (unsigned int)(srnd() % n);

		if (objs[i]) {
			ST_EXPECT(objs[i][0] == (unsigned char)i &&
					  objs[i][sizes[i] - 1] == (unsigned char)i,
				  "object %u (%zu bytes) overwritten", i, sizes[i]);
			kfree(objs[i]);
			objs[i] = NULL;
		} else {
			sizes[i] = 1 + srnd() % (srnd() % 4 ? 200 : KMALLOC_MAX_SLAB);
			objs[i] = kmalloc(sizes[i]);
			ST_EXPECT(objs[i], "kmalloc(%zu) failed", sizes[i]);
			objs[i][0] = objs[i][sizes[i] - 1] = (unsigned char)i;
		}
		if (op % 500 == 0)
			ST_EXPECT(slob_test_check() == 0, "heap inconsistent after op %u", op);
	}
	for (unsigned int i = 0; i < n; i++)
		kfree(objs[i]);
	ST_EXPECT(slob_test_check() == 0, "heap inconsistent at the end");
	SLAB_EXPECT_PAGES_BACK(&mark);
	return 0;
}

SELFTEST(slob_slabinfo_rows_and_heap_table)
{
	char line[160], want[160];
	struct kmem_cache *c;
	void *objs[10];

	slab_test_init();
	c = slob_test_cache("test-info", 200);
	ST_EXPECT(c, "create failed");
	for (int i = 0; i < 10; i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)), "alloc failed");
	slabinfo_line(c, line, sizeof(line));
	{
		unsigned long per = PAGE_SIZE / (c->units * SLOB_UNIT);

		snprintf(want, sizeof(want),
			 "%-17s %6u %6u %6u %4lu %4d : tunables %4u %4u %4u : slabdata %6lu %6lu %6u",
			 "test-info", 10U, 10U, 200U, per, 1, 0U, 0U, 0U, DIV_ROUND_UP(10, per),
			 DIV_ROUND_UP(10, per), 0U);
	}
	ST_EXPECT(strcmp(line, want) == 0, "slabinfo line\n  '%s'\nexpected\n  '%s'", line, want);
	slab_test_console_clear();
	slabinfo_show();
	ST_EXPECT(slab_test_console_has("slabinfo - version: 2.1\n# name            <active_objs>"),
		  "no slabinfo header");
	ST_EXPECT(slab_test_console_has("\ntest-info  "), "no row for the cache");
	ST_EXPECT(slab_test_console_has(SLOB_SEG ? "free blocks by size class:" :
						   "pages with free space by request size:"),
		  "no heap table");
	slab_meminfo_show();
	ST_EXPECT(slab_test_console_has("Slab:           "), "no Slab: line");
	for (int i = 0; i < 10; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	return 0;
}
