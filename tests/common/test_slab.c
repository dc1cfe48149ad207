/*
 * test_slab.c - SLAB self-tests run in the kernel after boot and on the
 * host: slab layout against formulas the tests work out themselves, the
 * seed posts' objperslab figures, object life cycles with every page back
 * in the buddy allocator, the per-CPU array, off-slab and in-object
 * freelists, and the slabinfo format. Each test gives back all it takes
 * (checked by page counts). Built with ALLOC=slab only; the tests of the
 * public API that every allocator passes (destroy with live objects,
 * out-of-memory, bad pointers) are in test_cache_api.c.
 */
#include "test_cache_slabinfo.h"
#include "test_slab.h"

/* Objects per slab by the test's own arithmetic (see mm/slab/slab.c's header). */
static unsigned int expect_num(const struct kmem_cache *c, enum slab_layout layout,
			       unsigned int order)
{
	unsigned long slab = (PAGE_SIZE << order) - c->tail, idx = sizeof(freelist_idx_t);

	if (layout == SLAB_LAYOUT_ON_SLAB)
		return (unsigned int)(slab / (c->size + idx));
	return (unsigned int)(slab / c->size);
}

/* Bytes of an order-'order' slab holding neither objects nor on-slab indexes. */
static unsigned long expect_leftover(const struct kmem_cache *c, enum slab_layout layout,
				     unsigned int order, unsigned int num)
{
	unsigned long used = (unsigned long)num * c->size;

	if (layout == SLAB_LAYOUT_ON_SLAB)
		used += (unsigned long)num * sizeof(freelist_idx_t);
	return (PAGE_SIZE << order) - used;
}

/* Can the whole freelist of this cache live in one of its objects? */
static bool in_obj_fits(const struct kmem_cache *c, unsigned int order)
{
	unsigned long num = (PAGE_SIZE << order) / c->size;

	return !c->ctor && !(c->flags & SLAB_POISON) &&
	       num * sizeof(freelist_idx_t) <= c->object_size;
}

SELFTEST(slab_kmalloc_layouts_match_formula)
{
	slab_test_init();
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++) {
		struct kmem_cache *c = kmalloc_caches[i];
		unsigned long slab, left;
		unsigned int order, num;
		enum slab_layout want;

		if (!c)
			continue;
		/* Whatever the layout, num is what its formula gives at the cache's order. */
		slab = PAGE_SIZE << c->order;
		num = expect_num(c, c->layout, c->order);
		left = expect_leftover(c, c->layout, c->order, num);
		ST_EXPECT(c->num == num, "%s: %s order %u holds %u, formula says %u", c->name,
			  slab_layout_name(c), c->order, c->num, num);
		ST_EXPECT(c->layout != SLAB_LAYOUT_IN_OBJ || in_obj_fits(c, c->order),
			  "%s: freelist does not fit in an object", c->name);
		ST_EXPECT(c->num <= SLAB_OBJ_MAX_NUM, "%s: %u objects overflow the index", c->name,
			  c->num);
		/* Debug: a red zone before a size-aligned object takes a whole unit. */
		ST_EXPECT(left * (CONFIG_SLAB_DEBUG ? 2 : 8) <= slab ||
				  c->order >= slab_max_order_soft,
			  "%s: leftover %lu of %lu at order %u", c->name, left, slab, c->order);
		ST_EXPECT(kmem_cache_check(c) == 0, "%s inconsistent", c->name);
		if (CONFIG_SLAB_DEBUG)
			continue;	/* red zones: off-slab and larger orders come into play */
		/* No debugging: in-object if it fits, else on-slab; first order <= 1/8 leftover. */
		for (order = 0;; order++) {
			slab = PAGE_SIZE << order;
			want = in_obj_fits(c, order) ? SLAB_LAYOUT_IN_OBJ : SLAB_LAYOUT_ON_SLAB;
			num = expect_num(c, want, order);
			/* at most 32 MB of memory: order 0 if an object fits, whatever it leaves */
			if (num && (expect_leftover(c, want, order, num) * 8 <= slab ||
				    slab_max_order_soft == 0))
				break;
			ST_EXPECT(order < 4, "%s: no order found", c->name);
		}
		/*
		 * Then larger soft orders while a slab holds fewer than
		 * SLAB_MIN_OBJS, each taken if its bytes per object (slab
		 * bytes / num) are within 1/32 of the order before.
		 */
		for (unsigned int o = order + 1; num < SLAB_MIN_OBJS && o <= slab_max_order_soft;
		     o++) {
			enum slab_layout w = in_obj_fits(c, o) ? SLAB_LAYOUT_IN_OBJ :
								 SLAB_LAYOUT_ON_SLAB;
			unsigned int n = expect_num(c, w, o);

			if (n && (PAGE_SIZE << o) * num * 32 <= (PAGE_SIZE << order) * n * 33) {
				order = o;
				want = w;
				num = n;
			}
		}
		ST_EXPECT(c->layout == want && c->num == num && c->order == order,
			  "%s: %s num %u order %u, expected %s num %u order %u", c->name,
			  slab_layout_name(c), c->num, c->order,
			  want == SLAB_LAYOUT_IN_OBJ ? "in-object" : "on-slab", num, order);
	}
	return 0;
}

SELFTEST(slab_seed_objperslab_figures)
{
	slab_test_init();
	if (CONFIG_SLAB_DEBUG)
		return 0;	/* red zones change every figure */
	if (sizeof(freelist_idx_t) == 4) {
		/* Seed 000's "before": four-byte indexes, order-0 slabs, on-slab or in-object. */
		static const unsigned int sizes[] = { 16, 32, 64, 128 };

		for (unsigned int i = 0; i < ARRAY_SIZE(sizes); i++) {
			struct kmem_cache *c = kmalloc_slab(sizes[i]);
			unsigned int want = (unsigned int)(PAGE_SIZE / (sizes[i] + 4));

			if ((PAGE_SIZE / sizes[i]) * 4 <= sizes[i])	/* the freelist fits in one */
				want = (unsigned int)(PAGE_SIZE / sizes[i]);

			ST_EXPECT(c->num == want && c->order == 0, "%s: %u per order-%u slab, want %u",
				  c->name, c->num, c->order, want);
		}
		ST_EXPECT(PAGE_SHIFT != 12 || kmalloc_slab(32)->num == 113,
			  "kmalloc-32: %u, seed 000 says 113", kmalloc_slab(32)->num);
		return 0;
	}
#if PAGE_SHIFT == 12
	ST_EXPECT(kmalloc_slab(16)->num == 240, "kmalloc-16: %u per slab", kmalloc_slab(16)->num);
	ST_EXPECT(kmalloc_slab(32)->num >= 124, "kmalloc-32: %u per slab", kmalloc_slab(32)->num);
	ST_EXPECT(kmalloc_slab(64)->num == 64, "kmalloc-64: %u per slab", kmalloc_slab(64)->num);
	ST_EXPECT(kmalloc_slab(128)->num == 32, "kmalloc-128: %u", kmalloc_slab(128)->num);
#elif PAGE_SHIFT == 16
	ST_EXPECT(kmalloc_slab(16)->num == 3640, "kmalloc-16: %u", kmalloc_slab(16)->num);
	ST_EXPECT(kmalloc_slab(32)->num >= 1927, "kmalloc-32: %u", kmalloc_slab(32)->num);
	ST_EXPECT(kmalloc_slab(64)->num >= 992, "kmalloc-64: %u", kmalloc_slab(64)->num);
	ST_EXPECT(kmalloc_slab(512)->num == 128 && kmalloc_slab(512)->layout == SLAB_LAYOUT_IN_OBJ,
		  "kmalloc-512: %u %s", kmalloc_slab(512)->num,
		  slab_layout_name(kmalloc_slab(512)));
#endif
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++) {
		struct kmem_cache *c = kmalloc_caches[i];

		if (c && c->layout == SLAB_LAYOUT_IN_OBJ)
			ST_EXPECT((PAGE_SIZE << c->order) / c->size == c->num,
				  "%s keeps the freelist in an object but loses objects", c->name);
	}
	return 0;
}

/* A cache's objects: distinct, aligned, inside their slab, writable; then all back. */
static int cycle_cache(size_t size, size_t align, unsigned int flags, unsigned int count)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	void **objs;

	slab_test_begin(&pages);
	c = kmem_cache_create("test-cycle", size, align, flags, NULL);
	ST_EXPECT(c, "create(%zu, %zu) failed", size, align);
	objs = kmalloc_array(count, sizeof(void *));
	ST_EXPECT(objs, "no memory for the object table");
	for (unsigned int i = 0; i < count; i++) {
		struct page *head;

		objs[i] = kmem_cache_alloc(c);
		ST_EXPECT(objs[i], "alloc %u of size %zu failed", i, size);
		ST_EXPECT(((uintptr_t)objs[i] & (c->align - 1)) == 0, "%p not aligned to %u",
			  objs[i], c->align);
		ST_EXPECT(!align || ((uintptr_t)objs[i] & (align - 1)) == 0, "%p not aligned",
			  objs[i]);
		head = slab_head_page(objs[i]);
		ST_EXPECT(head->slab_cache == c && (char *)objs[i] >= (char *)head->s_mem &&
				  (char *)objs[i] + size <=
					  (char *)head->s_mem + (size_t)c->num * c->size,
			  "%p outside its slab", objs[i]);
		memset(objs[i], (int)(i & 0xff), size);
	}
	for (unsigned int i = 0; i < count; i++) {
		const unsigned char *p = objs[i];

		ST_EXPECT(p[0] == (i & 0xff) && p[size - 1] == (i & 0xff),
			  "object %u overwritten: handed out twice?", i);
	}
	ST_EXPECT(slab_test_active(c) == count + slab_test_in_arrays(c),
		  "active %lu != %u allocated + %lu in arrays", slab_test_active(c), count,
		  slab_test_in_arrays(c));
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed with all allocated");
	for (unsigned int i = 0; i < count; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed after freeing");
	ST_EXPECT(slab_test_active(c) == slab_test_in_arrays(c), "objects lost");
	kfree(objs);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(slab_cache_cycles_give_every_page_back)
{
	static const struct {
		size_t size, align;
		unsigned int flags;
	} cases[] = {
		{ 1, 0, 0 },	 { 16, 0, 0 },	 { 24, 0, 0 },	  { 33, 0, SLAB_HWCACHE_ALIGN },
		{ 64, 64, 0 },	 { 100, 32, 0 }, { 500, 0, 0 },	  { 200, 0, SLAB_HWCACHE_ALIGN },
		{ 1000, 128, 0 }, { 3000, 0, 0 }, { 5000, 0, 0 }, { PAGE_SIZE, PAGE_SIZE, 0 },
		{ 3 * PAGE_SIZE, 0, 0 },
	};

	slab_test_init();
	for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned int count = 50 * SELFTEST_SCALE;
		/* Big objects at 64K pages: stay within an eighth of free memory. */
		unsigned long fit = nr_free_pages() * PAGE_SIZE / 8 / (2 * cases[i].size);

		count += (unsigned int)(PAGE_SIZE / 16 / cases[i].size);
		count = (unsigned int)MIN((unsigned long)count, fit);

		if (cycle_cache(cases[i].size, cases[i].align, cases[i].flags, count))
			return -1;
	}
	return 0;
}

/*
 * Make a cache, note its order, take objects from three slabs and give
 * them back, destroy it. -1 when any step fails.
 */
static int small_memory_case(size_t size, size_t align, unsigned int *order)
{
	struct kmem_cache *c = kmem_cache_create("test-small-mem", size, align, SLAB_NO_DEBUG, NULL);
	void *objs[96];
	unsigned int count;

	ST_EXPECT(c, "create(%zu, align %zu) failed", size, align);
	*order = c->order;
	count = MIN(3 * c->num, (unsigned int)ARRAY_SIZE(objs));
	for (unsigned int i = 0; i < count; i++) {
		objs[i] = kmem_cache_alloc(c);
		ST_EXPECT(objs[i], "%s: alloc %u of %u failed", c->name, i, count);
	}
	for (unsigned int i = 0; i < count; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "%s: destroy refused", c->name);
	return 0;
}

/*
 * The soft order bound follows the memory the buddy allocator manages
 * (SLAB_MAX_ORDER_SOFT above SLAB_SMALL_MEMORY, else 0); under bound 0
 * caches whose slabs are otherwise of higher order (a page-sized object,
 * a small one aligned to a quarter page) get order-0 slabs and work.
 */
SELFTEST(slab_small_memory_order_zero)
{
	static const struct {
		size_t size, align;
	} cases[] = { { 4096, 0 }, { 130, PAGE_SIZE / 4 }, { PAGE_SIZE / 3, 0 } };
	unsigned int saved = slab_max_order_soft, order = 0, big[ARRAY_SIZE(cases)] = { 0 };
	struct slab_test_mark pages;
	struct buddy_stats st;
	int ret = 0;

	slab_test_init();
	slab_test_begin(&pages);
	buddy_read_stats(&st);
	slab_set_max_order_soft();
	ST_EXPECT(slab_max_order_soft == (st.managed_pages > (SLAB_SMALL_MEMORY >> PAGE_SHIFT) ?
						  SLAB_MAX_ORDER_SOFT : 0),
		  "bound %u with %lu pages managed", slab_max_order_soft, st.managed_pages);
	for (unsigned int i = 0; i < ARRAY_SIZE(cases) && !ret; i++) {
		slab_max_order_soft = SLAB_MAX_ORDER_SOFT;
		ret = small_memory_case(cases[i].size, cases[i].align, &big[i]);
		slab_max_order_soft = 0;
		if (!ret)
			ret = small_memory_case(cases[i].size, cases[i].align, &order);
		slab_max_order_soft = saved;
		ST_EXPECT(!ret && order == 0, "%zu bytes align %zu: order %u under bound 0",
			  cases[i].size, cases[i].align, order);
	}
	/* the 4096-byte objects, one or 16 to a page, are raised above order 0 normally */
	ST_EXPECT(big[0] > 0, "4096-byte objects at order %u under bound %u", big[0],
		  SLAB_MAX_ORDER_SOFT);
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

static unsigned int ctor_calls;

/* With the free mark's word after it (a ctor cache), the object takes 1/16 of a page. */
#define CTOR_OBJ_SIZE (PAGE_SIZE / 16 - sizeof(uintptr_t))

static void ctor_fill(void *p)
{
	memset(p, 0x3c, CTOR_OBJ_SIZE);
	ctor_calls++;
}

SELFTEST(slab_off_slab_freelist_with_ctor)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	unsigned int count;
	void **objs;

	slab_test_init();
	slab_test_begin(&pages);
	ctor_calls = 0;
	/*
	 * 1/16 of a page with a ctor: on-slab fits 15 a page, off-slab 16 for
	 * a few index bytes (at the order SLAB_MIN_OBJS asks for).
	 */
	c = kmem_cache_create("test-offslab", CTOR_OBJ_SIZE, 0, SLAB_NO_DEBUG, ctor_fill);
	ST_EXPECT(c, "create failed");
	ST_EXPECT(c->layout == SLAB_LAYOUT_OFF_SLAB && c->num == (16U << c->order) &&
			  c->order <= slab_max_order_soft &&
			  c->freelist_cache == kmalloc_slab(c->num * sizeof(freelist_idx_t)),
		  "layout %s num %u order %u", slab_layout_name(c), c->num, c->order);
	count = 3 * c->num * SELFTEST_SCALE + 5;
	objs = kmalloc_array(count, sizeof(void *));
	ST_EXPECT(objs, "no memory for the table");
	for (unsigned int i = 0; i < count; i++) {
		unsigned char *p = kmem_cache_alloc(c);

		ST_EXPECT(p, "alloc %u failed", i);
		ST_EXPECT(p[0] == 0x3c && p[CTOR_OBJ_SIZE - 1] == 0x3c,
			  "object %u not constructed", i);
		objs[i] = p;
	}
	ST_EXPECT(ctor_calls == slab_test_active(c) + slab_test_node(c)->free_objects,
		  "ctor ran %u times for %lu objects", ctor_calls,
		  slab_test_active(c) + slab_test_node(c)->free_objects);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed");
	for (unsigned int i = 0; i < count; i++)
		kmem_cache_free(c, objs[i]);
	kfree(objs);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed after frees");
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/* The in-object freelist through full and refilled slabs, one slab at a time. */
SELFTEST(slab_in_object_freelist_full_and_back)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	void *objs[2 * 64];
	unsigned int n;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-inobj", PAGE_SIZE / 32, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c && c->layout == SLAB_LAYOUT_IN_OBJ && c->num == 32, "layout %s num %u",
		  c ? slab_layout_name(c) : "-", c ? c->num : 0);
	n = 2 * c->num;
	for (int round = 0; round < 3 * SELFTEST_SCALE; round++) {
		for (unsigned int i = 0; i < n; i++) {
			objs[i] = kmem_cache_alloc(c);
			ST_EXPECT(objs[i], "alloc failed");
			memset(objs[i], 0x77, c->object_size);	/* clobbers any array copy */
		}
		kmem_cache_drain_local(c);
		ST_EXPECT(kmem_cache_check(c) == 0, "check failed with slabs full");
		/* Free in an order that moves the array's home around (7 is prime to n). */
		for (unsigned int i = 0; i < n; i++) {
			unsigned int j = (i * 7 + (unsigned int)round) % n;

			kmem_cache_free(c, objs[j]);
			if (i == n / 2 || i == n / 4) {
				kmem_cache_drain_local(c);
				ST_EXPECT(kmem_cache_check(c) == 0, "check failed half way");
			}
		}
		kmem_cache_shrink(c);	/* the array, and the shared one its overflow went to */
		ST_EXPECT(kmem_cache_check(c) == 0, "check failed after frees");
		ST_EXPECT(slab_test_active(c) == 0, "%lu objects still active",
			  slab_test_active(c));
	}
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(slab_per_cpu_array_limits_and_batches)
{
	struct kmem_cache *c;
	struct array_cache *ac;
	void *objs[512];
	struct slab_test_mark pages;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-array", 48, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c && c->limit == 120 && c->batchcount == 60, "tunables %u/%u", c->limit,
		  c->batchcount);
	/* A CPU's array is made on its first use of the cache. */
	ST_EXPECT(c->cpu_array[smp_processor_id()] == &slab_no_array, "array made before use");
	objs[0] = kmem_cache_alloc(c);
	ac = c->cpu_array[smp_processor_id()];
	ST_EXPECT(ac != &slab_no_array && ac->limit == c->limit && atomic_read(&c->nr_arrays) == 1,
		  "no array after the first alloc");
	/* An untouched array refills at most BATCHREFILL_LIMIT from a new slab. */
	ST_EXPECT(ac->avail == MIN(BATCHREFILL_LIMIT, c->num) - 1 && ac->touched,
		  "after the first alloc avail %lu", ac->avail);
	for (unsigned int i = 1; i < ARRAY_SIZE(objs); i++)
		objs[i] = kmem_cache_alloc(c);
	for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++) {
		ST_EXPECT(objs[i], "alloc failed");
		kmem_cache_free(c, objs[i]);
		ST_EXPECT(ac->avail <= ac->limit, "avail %lu > limit", ac->avail);
	}
	ST_EXPECT(ac->avail > ac->limit - ac->batchcount, "array drained too far: %lu", ac->avail);
	ST_EXPECT(slab_test_node(c)->free_slabs * c->num <= slab_test_node(c)->free_limit,
		  "%lu empty slabs kept, free_limit %lu objects", slab_test_node(c)->free_slabs,
		  slab_test_node(c)->free_limit);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed");
	ST_EXPECT(kmem_cache_shrink(c) == 0, "shrink left slabs");
	ST_EXPECT(ac->avail == 0 && slab_test_node(c)->total_slabs == 0,
		  "shrink did not empty the cache");
#if CONFIG_SLAB_STATS
	{
		const struct kmem_cache_stats *s = &c->stats;

		/* Into the array (refill, new slab, free) equals out (alloc, flush). */
		ST_EXPECT(s->shared.allocs == ARRAY_SIZE(objs) && s->shared.frees == ARRAY_SIZE(objs) &&
				  s->alloc_hits + s->alloc_misses == s->shared.allocs &&
				  s->free_hits + s->free_misses == s->shared.frees &&
				  s->refilled + s->grown_batch == s->flushed &&
				  s->shared.slabs_made == s->reaped && s->shared.slabs_made > 0 &&
				  s->free_misses > 0,
			  "stats: allocs %lu frees %lu refilled %lu grown_batch %lu flushed %lu"
			  " slabs made %lu reaped %lu", s->shared.allocs, s->shared.frees, s->refilled, s->grown_batch,
			  s->flushed, s->shared.slabs_made, s->reaped);
	}
#endif
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/* The word of slab_cache_map for the page of p. */
static struct kmem_cache *map_word(const void *p)
{
	return slab_cache_map.cache[page_to_pfn(virt_to_page(p)) - PFN_OFFSET];
}

/*
 * The frees find the cache in slab_cache_map (a word per page): every page
 * of a slab names its cache there while the slab exists and nothing once
 * it went back to the buddy allocator; virt_to_cache takes only object
 * boundaries; and an object on a page past the map (a machine too large
 * for it) is still freed, by the slow paths.
 */
SELFTEST(slab_cache_map_follows_slabs)
{
	struct kmem_cache *c;
	struct slab_test_mark pages;
	unsigned long nr = slab_cache_map.nr;
	unsigned int order;
	void *objs[3];
	char *p, *slab;

	slab_test_init();
	slab_test_begin(&pages);
	/* 16 to a page: a slab of 2 pages or more (SLAB_MIN_OBJS), unless memory is small. */
	c = kmem_cache_create("test-map", PAGE_SIZE / 16, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c, "cache not made");
	order = c->order;
	for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = kmem_cache_alloc(c);
		ST_EXPECT(objs[i], "alloc %u failed", i);
	}
	p = objs[0];
	slab = (char *)((uintptr_t)p & ~((PAGE_SIZE << order) - 1));
	for (unsigned long i = 0; i < (1UL << order); i++)
		ST_EXPECT(map_word(slab + i * PAGE_SIZE) == c, "page %lu of slab %p: map names %p",
			  i, (void *)slab, (void *)map_word(slab + i * PAGE_SIZE));
	ST_EXPECT(virt_to_cache(p) == c && virt_to_cache(p + 1) == NULL &&
			  virt_to_cache(p + c->size / 2) == NULL && virt_to_cache(p - 8) != c,
		  "virt_to_cache took a pointer inside an object, or refused %p", (void *)p);
	ST_EXPECT(virt_to_cache(slab + ((uintptr_t)c->num * c->size) + c->obj_start) == NULL,
		  "virt_to_cache took the slot past the last object");
	ST_EXPECT(virt_to_cache(NULL) == NULL && virt_to_cache(ZERO_SIZE_PTR) == NULL,
		  "virt_to_cache took NULL");

	/* Past the map: the slow paths free (kmem_cache_free and kfree alike). */
	slab_cache_map.nr = 0;
	kmem_cache_free(c, objs[1]);
	kfree(objs[2]);
	slab_cache_map.nr = nr;
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed after frees past the map");
	ST_EXPECT(c->cpu_array[smp_processor_id()]->avail >= 2, "the frees past the map were lost");
	kmem_cache_free(c, objs[0]);

	/* Gone with the slab. */
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	for (unsigned long i = 0; i < (1UL << order); i++)
		ST_EXPECT(map_word(slab + i * PAGE_SIZE) == &slab_cache_none,
			  "page %lu of freed slab %p still in the map", i, (void *)slab);
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/*
 * failslab costs SLAB's fast path nothing: while it is on, every CPU's
 * slab_cpu_index names the always-empty cpu_array[SLAB_CPU_FAILSLAB], so
 * each allocation reaches cache_alloc_slow, which asks should_fail once and
 * then serves it from the CPU's real array. Off again, the index is the
 * CPU's. Also: a cache with a ctor (free mark past the object) is never
 * the free hint's, whose fast path writes the mark at offset 0.
 */
static void ctor_ones(void *p)
{
	memset(p, 0xff, 24);
}

SELFTEST(slab_failslab_folded_into_array_lookup)
{
	unsigned int cpu = smp_processor_id();
	struct slab_test_mark pages;
	struct kmem_cache *c, *k;
	void *objs[8], *p;
	unsigned long calls;

	if (fault_attr_on(&failslab))
		return 0;	/* failslab from the command line: not ours to switch */
	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-failslab", 64, 0, SLAB_NO_DEBUG, NULL);
	k = kmem_cache_create("test-ctor-hint", 24, 0, SLAB_NO_DEBUG, ctor_ones);
	ST_EXPECT(c && k, "create failed");
	kmem_cache_free(c, kmem_cache_alloc(c));	/* a warm array */
	ST_EXPECT(c->cpu_array[cpu]->avail > 0, "array not warm");

	fault_attr_set(&failslab, 1, 0, -1, 3);		/* on, never failing */
	ST_EXPECT(this_cpu_read(slab_cpu_index) == SLAB_CPU_FAILSLAB, "index %lu with failslab on",
		  this_cpu_read(slab_cpu_index));
	calls = failslab.calls;
	for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = kmem_cache_alloc(c);
		ST_EXPECT(objs[i] != NULL, "alloc %u failed at probability 0", i);
	}
	p = kmalloc(100);
	ST_EXPECT(p != NULL, "kmalloc failed at probability 0");
	kfree(p);
	ST_EXPECT(failslab.calls == calls + ARRAY_SIZE(objs) + 1,
		  "%lu should_fail calls for %zu allocations", failslab.calls - calls,
		  ARRAY_SIZE(objs) + 1);

	fault_attr_set(&failslab, 1, 100, 2, 3);	/* the next two fail */
	ST_EXPECT(kmem_cache_alloc(c) == NULL && kmalloc(32) == NULL, "failslab did not fail");
	p = kmem_cache_alloc(c);
	ST_EXPECT(p != NULL && failslab.injected == 2, "after its 2 failures: %p, %lu injected", p,
		  failslab.injected);
	kmem_cache_free(c, p);
	fault_attr_disable(&failslab);
	ST_EXPECT(this_cpu_read(slab_cpu_index) == cpu, "index %lu with failslab off",
		  this_cpu_read(slab_cpu_index));
	for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
		kmem_cache_free(c, objs[i]);

	/* The ctor cache (free mark past the object): its object keeps its state. */
	p = kmem_cache_alloc(k);
	ST_EXPECT(p && k->mark_off != 0, "ctor cache: %p, mark_off %u", p, k->mark_off);
	kmem_cache_free(k, p);
	p = kmem_cache_alloc(k);
	ST_EXPECT(p && ((unsigned char *)p)[0] == 0xff && ((unsigned char *)p)[23] == 0xff,
		  "constructed state lost");
	kmem_cache_free(k, p);
	ST_EXPECT(kmem_cache_check(c) == 0 && kmem_cache_check(k) == 0, "check failed");
	ST_EXPECT(kmem_cache_destroy(c) == 0 && kmem_cache_destroy(k) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(slab_slabinfo_format)
{
	struct kmem_cache *c;
	char line[160], want[160];
	unsigned long active;
	void *objs[10];

	slab_test_init();
	c = kmem_cache_create("test-info", 200, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c, "create failed");
	for (int i = 0; i < 10; i++)
		objs[i] = kmem_cache_alloc(c);
	active = slab_test_active(c);
	slabinfo_line(c, line, sizeof(line));
	snprintf(want, sizeof(want),
		 "%-17s %6lu %6lu %6u %4u %4d : tunables %4u %4u %4u : slabdata %6lu %6lu %6lu",
		 "test-info", active, slab_test_node(c)->total_slabs * c->num, c->size, c->num,
		 1 << c->order, 120U, 60U, 8U,
		 slab_test_node(c)->total_slabs - slab_test_node(c)->free_slabs,
		 slab_test_node(c)->total_slabs, 0UL);
	ST_EXPECT(strcmp(line, want) == 0, "slabinfo line\n  '%s'\nexpected\n  '%s'", line, want);
	ST_EXPECT(active >= 10 && c->size == 200 && line[17] == ' ' && line[16] == ' ',
		  "bad numbers or name column: '%s'", line);
	/* For the log: kmalloc-32's row with 1000 of its objects allocated. */
	if (slab_test_kmalloc32_row(line, sizeof(line)))
		return -1;
	for (int i = 0; i < 10; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	if (slab_test_slabinfo_shown())
		return -1;
	slab_meminfo_show();
	ST_EXPECT(slab_test_console_has("Slab:           "), "no Slab: line");
	return 0;
}
