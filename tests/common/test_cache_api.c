/*
 * test_cache_api.c - the kmem_cache API through the public interface
 * alone, for every allocator, in the kernel and on the
 * host: caches of many geometries created, filled, shrunk and destroyed
 * with every page back; frees of pointers outside RAM, into free or
 * reserved pages, off an object boundary, into the wrong cache, into a
 * large allocation (each reported, counted and refused, the cache still
 * consistent and working); a destroy with live objects (loud, cache kept,
 * later frees safe); memory exhausted and recovered.
 */
#include "test_alloc.h"

static unsigned int api_ctor_calls;

static void api_ctor(void *p)
{
	*(uint64_t *)p = 0xc0ffee0ddba11ULL;
	api_ctor_calls++;
}

/* One cache: objects distinct, aligned, usable, intact; shrink and destroy give every page back. */
static int api_cycle(size_t size, size_t align, unsigned int flags, bool ctor, unsigned int count)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	size_t usable;
	void **objs;

	slab_test_begin(&pages);
	c = kmem_cache_create("test-api", size, align, flags, ctor ? api_ctor : NULL);
	ST_EXPECT(c, "create(%zu, %zu, 0x%x) failed", size, align, flags);
	usable = kmem_cache_size(c);
	ST_EXPECT(usable >= size && strcmp(kmem_cache_name(c), "test-api") == 0,
		  "size %zu for %zu, name %s", usable, size, kmem_cache_name(c));
	objs = kmalloc_array(count, sizeof(void *));
	ST_EXPECT(objs, "no memory for the object table");
	for (unsigned int i = 0; i < count; i++) {
		unsigned char *p = kmem_cache_alloc(c);

		ST_EXPECT(p, "alloc %u of size %zu failed", i, size);
		ST_EXPECT(((uintptr_t)p & 7) == 0 && (!align || ((uintptr_t)p & (align - 1)) == 0),
			  "%p not aligned to %zu", (void *)p, align ? align : 8);
		ST_EXPECT(!ctor || *(uint64_t *)p == 0xc0ffee0ddba11ULL,
			  "object %u not constructed", i);
		memset(p, (int)(i & 0xff), size);
		objs[i] = p;
	}
	for (unsigned int i = 0; i < count; i++) {
		const unsigned char *p = objs[i];

		ST_EXPECT(p[0] == (i & 0xff) && p[size - 1] == (i & 0xff),
			  "object %u overwritten: handed out twice?", i);
	}
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed with all allocated");
	ST_EXPECT(kmem_cache_shrink(c) == 1, "shrink says no slab is left with %u objects held",
		  count);
	for (unsigned int i = 0; i < count; i++) {
		if (ctor)	/* objects go back constructed */
			*(uint64_t *)objs[(i * 7) % count] = 0xc0ffee0ddba11ULL;
		kmem_cache_free(c, objs[(i * 7) % count]);
	}
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed after freeing");
	ST_EXPECT(kmem_cache_shrink(c) == 0 || mm_test_others() != pages.others,
		  "slabs left after freeing everything and shrinking");
	kfree(objs);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(cache_api_create_fill_shrink_destroy)
{
	static const struct {
		size_t size, align;
		unsigned int flags;
		bool ctor;
	} cases[] = {
		{ 1, 0, 0, false },	      { 8, 0, 0, false },	 { 24, 0, 0, true },
		{ 33, 0, SLAB_HWCACHE_ALIGN, false }, { 64, 64, 0, false }, { 100, 32, 0, true },
		{ 500, 0, SLAB_NO_DEBUG, false }, { 1000, 128, 0, false }, { 3000, 0, 0, true },
		{ PAGE_SIZE, PAGE_SIZE, 0, false }, { 2 * PAGE_SIZE + 8, 0, 0, false },
	};

	slab_test_init();
	for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned int count =
		    40 * SELFTEST_SCALE + (unsigned int)(PAGE_SIZE / 16 / cases[i].size);
		unsigned long fit = nr_free_pages() * PAGE_SIZE / 8 / (2 * cases[i].size + 64);

		count = (unsigned int)MIN((unsigned long)count, fit);
		count += count % 7 == 0;	/* the frees visit objs in steps of 7 */
		if (api_cycle(cases[i].size, cases[i].align, cases[i].flags, cases[i].ctor, count))
			return -1;
	}
	/* Bad arguments are refused with a report. */
	ST_EXPECT(!kmem_cache_create(NULL, 8, 0, 0, NULL) &&
			  !kmem_cache_create("test-bad-arg", 0, 0, 0, NULL) &&
			  !kmem_cache_create("test-bad-arg", 64, 3, 0, NULL) &&
			  !kmem_cache_create("test-bad-arg", 64, 0, 0x8000, NULL),
		  "a bad argument was accepted");
	ST_EXPECT(kmem_cache_destroy(NULL) == 0, "destroy(NULL)");
	ST_EXPECT(kmem_cache_destroy(kmalloc_caches[5]) == -EINVAL, "a boot cache was destroyed");
	return 0;
}

SELFTEST(slab_bad_pointer_frees_are_refused)
{
	struct kmem_cache *c, *other;
	struct slab_test_mark pages;
	unsigned long bad;
	struct page *pg;
	char *p, *q, *big;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-bad", 64, 0, SLAB_NO_DEBUG, NULL);
	other = kmem_cache_create("test-other", 64, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c && other, "create failed");
	p = kmem_cache_alloc(c);
	q = kmem_cache_alloc(other);
	ST_EXPECT(p && q, "alloc failed");

	slab_test_console_clear();
	bad = slab_bad_frees;
	kfree((void *)0x1000);
	SLAB_EXPECT_REFUSED(c, bad, "kfree(0x0000000000001000): not a slab object or large "
				    "allocation (outside RAM)");

	bad = slab_bad_frees;
	kfree(p + 8);
	SLAB_EXPECT_REFUSED(c, bad, "test-bad: kfree(");
	ST_EXPECT(slab_test_console_has("): not at an object boundary (8 bytes into the 64-byte "
					"object at"),
		  "no boundary report naming the offset and the object");
	bad = slab_bad_frees;
	kmem_cache_free(c, p + 1);
	SLAB_EXPECT_REFUSED(c, bad, "not at an object boundary");

	bad = slab_bad_frees;
	kmem_cache_free(c, q);
	SLAB_EXPECT_REFUSED(c, bad, "test-bad: kmem_cache_free(");
	ST_EXPECT(slab_test_console_has("object of cache test-other"), "no wrong-cache report");

	/* A page the buddy allocator holds free. */
	pg = alloc_pages(0);
	ST_EXPECT(pg, "no page");
	free_pages(pg, 0);
	bad = slab_bad_frees;
	kfree(page_address(pg));
	SLAB_EXPECT_REFUSED(c, bad, "not a slab object or large allocation");

	/* A reserved page (the first PFNs are never handed out). */
	for (unsigned long pfn = PFN_OFFSET; pfn < max_pfn; pfn++) {
		if (pfn_to_page(pfn)->flags & PG_reserved) {
			bad = slab_bad_frees;
			kfree((char *)page_address(pfn_to_page(pfn)) + 64);
			SLAB_EXPECT_REFUSED(c, bad, "(reserved page)");
			break;
		}
	}

	/* Inside a large allocation, and a large allocation freed twice. */
	big = kmalloc(KMALLOC_MAX_CACHE_SIZE + 1);
	ST_EXPECT(big, "large kmalloc failed");
	bad = slab_bad_frees;
	kfree(big + 8);
	SLAB_EXPECT_REFUSED(c, bad, "not the start of a large allocation");
	kfree(big);
	bad = slab_bad_frees;
	kfree(big);
	SLAB_EXPECT_REFUSED(c, bad, "not a slab object or large allocation");

	if (slab_test_still_works(c) || slab_test_still_works(other))
		return -1;
	kmem_cache_free(c, p);
	kfree(q);
	ST_EXPECT(kmem_cache_destroy(c) == 0 && kmem_cache_destroy(other) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(slab_destroy_with_live_objects_is_loud_and_safe)
{
	struct kmem_cache *c;
	struct slab_test_mark pages;
	void *a, *b;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-live", 128, 0, 0, NULL);
	ST_EXPECT(c, "create failed");
	a = kmem_cache_alloc(c);
	b = kmem_cache_alloc(c);
	ST_EXPECT(a && b, "alloc failed");
	kmem_cache_free(c, b);
	slab_test_console_clear();
	ST_EXPECT(kmem_cache_destroy(c) == -EBUSY, "destroy with a live object accepted");
	ST_EXPECT(slab_test_console_has("test-live") &&
			  slab_test_console_has("1 objects still allocated"),
		  "destroy did not name the cache and count");
	ST_EXPECT(kmem_cache_check(c) == 0, "cache inconsistent after refused destroy");
	kmem_cache_free(c, a);	/* still a valid free */
	ST_EXPECT(kmem_cache_destroy(c) == 0, "second destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/* Fill memory with objects until allocation fails, then give it all back. */
SELFTEST(slab_out_of_memory_and_back)
{
	struct kmem_cache *c;
	struct slab_test_mark pages;
	unsigned long n = 0, small = 0;
	void *head = NULL, *shead = NULL, *p;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-oom", PAGE_SIZE, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c, "create failed");
	while ((p = kmem_cache_alloc(c))) {
		*(void **)p = head;
		head = p;
		n++;
	}
	ST_EXPECT(n > 0, "nothing allocated");
	/* Then the crumbs: small kmallocs until they fail too. */
	while ((p = kmalloc(64))) {
		*(void **)p = shead;
		shead = p;
		small++;
	}
	ST_EXPECT(!kmem_cache_alloc(c) && !kmalloc(64) && !kmalloc(KMALLOC_MAX_CACHE_SIZE + 1),
		  "allocation succeeded after exhaustion");
	ST_EXPECT(kmem_cache_check(c) == 0 && kmem_cache_check(kmalloc_slab(64)) == 0,
		  "inconsistent when exhausted");
	while (head) {
		p = *(void **)head;
		kmem_cache_free(c, head);
		head = p;
	}
	while (shead) {
		p = *(void **)shead;
		kfree(shead);
		shead = p;
	}
	p = kmem_cache_alloc(c);
	ST_EXPECT(p, "allocation fails after memory came back");
	kmem_cache_free(c, p);
	ST_EXPECT(kmem_cache_check(c) == 0, "inconsistent after recovery");
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}
