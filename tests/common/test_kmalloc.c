/*
 * test_kmalloc.c - kmalloc and friends, in the kernel and on the host:
 * every size-class boundary (size - 1, size, size + 1) against ksize, the
 * 96 and 192 classes, alignment, kmalloc(0) and ZERO_SIZE_PTR, large
 * allocations from the buddy allocator, kzalloc/kcalloc clearing,
 * kmalloc_array/kcalloc overflow, krealloc keeping contents. Every test
 * checks that all pages come back.
 */
#include "test_alloc.h"

static const size_t classes[] = { 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192,
				  16384, 32768 };

/* The size class the test expects for a request: the smallest that fits, else pages. */
static size_t expect_ksize(size_t n)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(classes); i++)
		if (classes[i] <= KMALLOC_MAX_CACHE_SIZE && n <= classes[i])
			return classes[i];
	for (unsigned int order = 0;; order++)
		if ((PAGE_SIZE << order) >= n)
			return PAGE_SIZE << order;
}

static int try_size(size_t n)
{
	unsigned char *p = kmalloc(n);
	size_t want = expect_ksize(n), got;

	ST_EXPECT(p, "kmalloc(%zu) failed", n);
	got = ksize(p);
	ST_EXPECT(got == want, "ksize(kmalloc(%zu)) = %zu, expected %zu", n, got, want);
	if (n > KMALLOC_MAX_CACHE_SIZE)
		ST_EXPECT(((uintptr_t)p & (PAGE_SIZE - 1)) == 0, "large %zu not page aligned", n);
	else if ((want & (want - 1)) == 0 && want <= PAGE_SIZE)	/* debug builds too */
		ST_EXPECT(((uintptr_t)p & (want - 1)) == 0, "kmalloc(%zu) = %p not aligned", n, p);
	else
		ST_EXPECT(((uintptr_t)p & 7) == 0, "kmalloc(%zu) = %p not 8-aligned", n, p);
	memset(p, 0xa7, got);	/* all of ksize is usable */
	kfree(p);
	return 0;
}

SELFTEST(kmalloc_every_size_boundary)
{
	struct slab_test_mark pages;
	unsigned long bad;

	slab_test_init();
	slab_test_begin(&pages);
	bad = slab_bad_frees;
	for (size_t n = 1; n <= 200; n++)
		if (try_size(n))
			return -1;
	for (unsigned int i = 0; i < ARRAY_SIZE(classes); i++) {
		for (size_t n = classes[i] - 1; n <= classes[i] + 1; n++)
			if (try_size(n))
				return -1;
		if (classes[i] == KMALLOC_MAX_CACHE_SIZE)
			break;
	}
	for (unsigned int order = 0; order <= 3; order++) {
		size_t n = PAGE_SIZE << order;

		if (try_size(n - 1) || try_size(n) || try_size(n + 1))
			return -1;
	}
	ST_EXPECT(slab_bad_frees == bad, "a good free was refused");
	ST_EXPECT(kmalloc_slab(96)->object_size == 96 && kmalloc_slab(192)->object_size == 192,
		  "96/192 classes missing");
	ST_EXPECT(kmalloc_slab(65) == kmalloc_slab(96) && kmalloc_slab(129) == kmalloc_slab(192),
		  "65 and 129 bytes do not go to the 96 and 192 classes");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/*
 * failslab reaches kmalloc at every size a cache serves, and only while it
 * is on: SLAB folds its test into the array lookup, SLUB and SLOB find
 * kmalloc's size table emptied (mm/slab_impl.h, KMALLOC_TABLE_FAILSLAB).
 * On: every kmalloc asks should_fail once, and at 100% every one fails; off
 * again, every size is served from its class and asks nothing.
 */
static const size_t failslab_sizes[] = { 1, 16, 17, 64, 65, 96, 97, 128, 129, 192, 193, 256,
					 1000, 1024, 2048, 4096, 8192, 8193, 16384 };

SELFTEST(kmalloc_failslab_every_size)
{
	struct slab_test_mark pages;
	unsigned long calls;
	unsigned int n = 0;
	void *p;

	if (fault_attr_on(&failslab))
		return 0;	/* failslab from the command line: not ours to switch */
	slab_test_init();
	slab_test_begin(&pages);
	fault_attr_set(&failslab, 1, 0, -1, 5);		/* on, never failing */
	calls = failslab.calls;
	for (unsigned int i = 0; i < ARRAY_SIZE(failslab_sizes); i++) {
		size_t size = failslab_sizes[i];

		if (size > KMALLOC_MAX_SLAB)
			break;
		p = kmalloc(size);
		ST_EXPECT(p && ksize(p) == expect_ksize(size), "kmalloc(%zu) at probability 0: %p",
			  size, p);
		kfree(p);
		n++;
	}
	ST_EXPECT(failslab.calls == calls + n, "%lu should_fail calls for %u kmallocs",
		  failslab.calls - calls, n);
	fault_attr_set(&failslab, 1, 100, -1, 5);	/* every one fails */
	for (unsigned int i = 0; i < n; i++)
		ST_EXPECT(kmalloc(failslab_sizes[i]) == NULL, "kmalloc(%zu) did not fail",
			  failslab_sizes[i]);
	ST_EXPECT(failslab.injected == n, "%lu failures injected for %u kmallocs",
		  failslab.injected, n);
	fault_attr_disable(&failslab);
	calls = failslab.calls;
	for (unsigned int i = 0; i < n; i++) {
		p = kmalloc(failslab_sizes[i]);
		ST_EXPECT(p && ksize(p) == expect_ksize(failslab_sizes[i]),
			  "kmalloc(%zu) with failslab off again: %p", failslab_sizes[i], p);
		kfree(p);
	}
	ST_EXPECT(failslab.calls == calls, "should_fail asked with failslab off");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(kmalloc_zero_null_and_large)
{
	struct slab_test_mark pages;
	unsigned long bad;
	struct page *page;
	char *p;

	slab_test_init();
	slab_test_begin(&pages);
	bad = slab_bad_frees;
	ST_EXPECT(kmalloc(0) == ZERO_SIZE_PTR && kzalloc(0) == ZERO_SIZE_PTR, "kmalloc(0)");
	ST_EXPECT(ksize(ZERO_SIZE_PTR) == 0 && ksize(NULL) == 0, "ksize of nothing");
	kfree(ZERO_SIZE_PTR);
	kfree(NULL);
	ST_EXPECT(slab_bad_frees == bad, "kfree(NULL / ZERO_SIZE_PTR) complained");

	p = kmalloc(3 * PAGE_SIZE);
	ST_EXPECT(p, "large kmalloc failed");
	page = virt_to_page(p);
	ST_EXPECT((page->flags & PG_large) && !(page->flags & PG_slab) && page->order == 2,
		  "large allocation flags 0x%lx order %u", page->flags, page->order);
	ST_EXPECT(nr_free_pages() <= pages.pages - 4 || mm_test_others() != pages.others,
		  "pages not taken");
	p[3 * PAGE_SIZE - 1] = 1;
	kfree(p);
	ST_EXPECT(!(page->flags & PG_large), "PG_large left behind");
	ST_EXPECT(!kmalloc(PAGE_SIZE << (MAX_ORDER + 1)), "huge kmalloc succeeded");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(kmalloc_zeroing_overflow_and_realloc)
{
	struct slab_test_mark pages;
	unsigned char *p, *q;

	slab_test_init();
	slab_test_begin(&pages);
	p = kmalloc(100);
	memset(p, 0xff, ksize(p));
	kfree(p);
	p = kzalloc(100);
	for (int i = 0; i < 100; i++)
		ST_EXPECT(p[i] == 0, "kzalloc byte %d is 0x%x", i, p[i]);
	kfree(p);
	p = kcalloc(10, 30);
	ST_EXPECT(p && ksize(p) == 512, "kcalloc(10, 30)");
	for (int i = 0; i < 300; i++)
		ST_EXPECT(p[i] == 0, "kcalloc byte %d", i);
	kfree(p);
	ST_EXPECT(!kmalloc_array(SIZE_MAX / 2, 3) && !kcalloc(3, SIZE_MAX / 2) &&
			  !kmalloc_array((size_t)1 << 33, (size_t)1 << 33),
		  "overflowing products allocated");
	p = kmalloc_array(4, 8);
	ST_EXPECT(p && ksize(p) == 32, "kmalloc_array(4, 8)");

	for (int i = 0; i < 32; i++)
		p[i] = (unsigned char)i;
	q = krealloc(p, 20);
	ST_EXPECT(q == p, "shrinking krealloc moved the object");
	q = krealloc(p, 1000);
	ST_EXPECT(q && ksize(q) == 1024, "growing krealloc");
	for (int i = 0; i < 32; i++)
		ST_EXPECT(q[i] == i, "krealloc lost byte %d", i);
	p = krealloc(q, 3 * PAGE_SIZE);
	ST_EXPECT(p && ksize(p) == 4 * PAGE_SIZE && p[31] == 31, "krealloc to large");
	ST_EXPECT(krealloc(p, 0) == ZERO_SIZE_PTR, "krealloc(p, 0)");
	p = krealloc(NULL, 64);
	ST_EXPECT(p && ksize(p) == 64, "krealloc(NULL, 64)");
	kfree(p);
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/* Many objects of every class at once: distinct, intact, all back. */
SELFTEST(kmalloc_many_objects_every_class)
{
	unsigned int per = 40 * SELFTEST_SCALE, n = 0;
	struct slab_test_mark pages;
	void **objs;

	slab_test_init();
	slab_test_begin(&pages);
	objs = kmalloc_array(ARRAY_SIZE(classes) * per, sizeof(void *));
	ST_EXPECT(objs, "no table");
	for (unsigned int i = 0; i < ARRAY_SIZE(classes) && classes[i] <= KMALLOC_MAX_CACHE_SIZE;
	     i++) {
		/*
		 * Debug builds: red zones around a size-aligned object of a quarter
		 * page or more take up to three times its size (64K pages: the
		 * 32K class takes 128K), so fewer of those fit the host's arena.
		 */
		unsigned int want =
		    CONFIG_SLAB_DEBUG && classes[i] >= PAGE_SIZE / 4 ? per / 4 : per;

		for (unsigned int k = 0; k < want; k++) {
			unsigned char *p = kmalloc(classes[i]);

			ST_EXPECT(p, "kmalloc(%zu) #%u failed", classes[i], k);
			p[0] = (unsigned char)n;
			p[classes[i] - 1] = (unsigned char)n;
			objs[n++] = p;
		}
	}
	for (unsigned int i = 0; i < n; i++) {
		unsigned char *p = objs[i];

		ST_EXPECT(p[0] == (unsigned char)i && p[ksize(p) - 1] == (unsigned char)i,
			  "object %u overwritten", i);
	}
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
		if (kmalloc_caches[i])
			ST_EXPECT(kmem_cache_check(kmalloc_caches[i]) == 0, "%s inconsistent",
				  kmalloc_caches[i]->name);
	for (unsigned int i = 0; i < n; i++)
		kfree(objs[(i * 7919) % n]);
	kfree(objs);
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}
