/*
 * test_cache_misuse.c - misuse of the object allocator and of the page
 * allocator under it, for every allocator (SLAB, SLUB, SLOB, SLOB-seg), in
 * the kernel and on the host (issue 12): a live slab page or a live large
 * kmalloc given to free_pages / free_pages_addr; kmem_cache_free with a
 * NULL cache; a cache destroyed twice; the largest cache in every build;
 * bad kmem_cache_create arguments named one by one; the destroy of a cache
 * with live objects; krealloc of a bad pointer; a large allocation freed
 * twice; free_pages_addr below the direct map. Each case checks the report
 * (host: its text, naming what and where), the counters, and that the
 * state after is intact: the object still usable and freed normally after,
 * the caches consistent, every page back.
 */
#include "test_alloc.h"

/* The head of the buddy block that holds page (allocated or not), or NULL. */
static struct page *block_head(struct page *page)
{
	unsigned long pfn = page_to_pfn(page);

	for (unsigned int o = 0; o <= MAX_ORDER; o++) {
		struct page *h = pfn_to_page(pfn & ~((1UL << o) - 1));

		if ((h->flags & PG_head) && h->order >= o)
			return h;
	}
	return NULL;
}

/* The page allocator before a call: its counters, this CPU's calls, others' activity. */
struct free_mark {
	struct buddy_stats st;
	unsigned long mine, others;
};

/*
 * free_refused - call returned -EINVAL, was this CPU's one page allocator
 * call, and (if no other CPU used the allocators meanwhile: tests/common/
 * test_mm.h) was counted once in bad_frees and freed nothing; the console
 * names the fault (what) and the page (where, may be NULL).
 */
static int free_refused(int ret, const struct free_mark *before, const char *what,
			const char *where, const char *call)
{
	struct buddy_stats now;

	buddy_read_stats(&now);
	ST_EXPECT(ret == -EINVAL, "%s returned %d, not -EINVAL", call, ret);
	ST_EXPECT(buddy_cpu_events(smp_processor_id()) == before->mine + 1,
		  "%s: not one call on this CPU", call);
	ST_EXPECT(mm_test_others() != before->others ||
			  (now.bad_frees == before->st.bad_frees + 1 &&
			   now.frees == before->st.frees),
		  "%s: bad_frees %lu (was %lu), frees %lu (was %lu)", call, now.bad_frees,
		  before->st.bad_frees, now.frees, before->st.frees);
	ST_EXPECT(buddy_check() == 0, "buddy_check failed after %s", call);
	ST_EXPECT(slab_test_console_has(what), "%s: console lacks \"%s\"", call, what);
	ST_EXPECT(!where || slab_test_console_has(where), "%s: console lacks \"%s\"", call, where);
	return 0;
}

#define EXPECT_FREE_REFUSED(call, what, where)                                           \
	do {                                                                             \
		struct free_mark before_;                                                \
		int ret_;                                                                \
		before_.others = mm_test_others();                                       \
		buddy_read_stats(&before_.st);                                           \
		before_.mine = buddy_cpu_events(smp_processor_id());                     \
		slab_test_console_clear();                                               \
		ret_ = (call);                                                           \
		if (free_refused(ret_, &before_, what, where, #call))                   \
			return -1;                                                       \
	} while (0)

/* free_pages of each page of the object's slab, and of its block's head at its order. */
static int refuse_slab_pages(void *obj, const char *cache)
{
	struct page *page = virt_to_page(obj), *head = block_head(page);
	char where[64];

	ST_EXPECT(page->flags & PG_slab, "object %p not on a slab page", obj);
	ST_EXPECT(head, "no buddy block holds %p", obj);
	snprintf(where, sizeof(where), "pfn 0x%lx", page_to_pfn(page));
	EXPECT_FREE_REFUSED(free_pages(page, 0), "in use by a slab", where);
	if (cache)
		ST_EXPECT(slab_test_console_has(cache), "free_pages report lacks cache %s", cache);
	EXPECT_FREE_REFUSED(free_pages_addr(page_address(page), 0), "in use by a slab", where);
	snprintf(where, sizeof(where), "order %u", head->order);
	EXPECT_FREE_REFUSED(free_pages(head, head->order), "in use by a slab", where);
	EXPECT_FREE_REFUSED(free_pages_addr(page_address(head), head->order), "in use by a slab",
			    where);
	ST_EXPECT((page->flags & PG_slab) && (head->flags & PG_head), "slab pages touched");
	return 0;
}

/* Issue 12 item 1: a slab page or large kmalloc still in use cannot be freed as pages. */
SELFTEST(misuse_free_pages_of_live_slab_or_large_refused)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	char *small, *obj, *big, *big0 = NULL;
	struct page *bp;
	char where[64];

	slab_test_init();
	slab_test_begin(&pages);
	small = kmalloc(16);
	c = kmem_cache_create("test-pages", 2 * PAGE_SIZE + 8, 0, 0, NULL);
	ST_EXPECT(small && c, "setup failed");
	obj = kmem_cache_alloc(c);
	ST_EXPECT(obj, "alloc failed");
	memset(small, 0x11, 16);
	memset(obj, 0x22, 2 * PAGE_SIZE + 8);
	/* SLOB's small blocks share heap pages: no one cache owns them. */
	if (refuse_slab_pages(small, virt_to_page(small)->slab_cache ? "kmalloc-16" : NULL) ||
	    refuse_slab_pages(obj, "test-pages"))
		return -1;

	/* Large kmallocs: order 2, and order 0 where kmalloc(PAGE_SIZE) goes to pages (SLOB). */
	big = kmalloc(3 * PAGE_SIZE);
	ST_EXPECT(big, "large kmalloc failed");
	bp = virt_to_page(big);
	snprintf(where, sizeof(where), "pfn 0x%lx", page_to_pfn(bp));
	EXPECT_FREE_REFUSED(free_pages(bp, 2), "in use by a large kmalloc of order 2", where);
	EXPECT_FREE_REFUSED(free_pages_addr(big, 2), "in use by a large kmalloc", where);
	EXPECT_FREE_REFUSED(free_pages_addr(big, 0), "in use by a large kmalloc", "order 0");
	if (KMALLOC_MAX_SLAB < PAGE_SIZE) {
		big0 = kmalloc(PAGE_SIZE);
		ST_EXPECT(big0 && (virt_to_page(big0)->flags & PG_large), "order-0 large kmalloc");
		EXPECT_FREE_REFUSED(free_pages(virt_to_page(big0), 0), "in use by a large kmalloc",
				    "order 0");
		EXPECT_FREE_REFUSED(free_pages_addr(big0, 0), "in use by a large kmalloc", NULL);
	}

	/* State intact: contents, the caches, and the right frees still work. */
	ST_EXPECT(small[15] == 0x11 && obj[2 * PAGE_SIZE + 7] == 0x22, "objects overwritten");
	ST_EXPECT(ksize(big) == 4 * PAGE_SIZE, "large allocation lost: ksize %zu", ksize(big));
	ST_EXPECT(kmem_cache_check(c) == 0 && kmem_cache_check(kmalloc_slab(16)) == 0,
		  "caches inconsistent");
	{
		unsigned long bad = slab_bad_frees;

		kfree(small);
		kfree(big);
		kfree(big0);
		kmem_cache_free(c, obj);
		ST_EXPECT(slab_bad_frees == bad, "a right free was refused after the misuse");
	}
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused: objects leaked");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/*
 * kmem_cache_free(NULL, p) is reported and refused; p stays allocated
 * (CONFIG_SLAB_DEBUG builds: freed to its cache after the report).
 */
SELFTEST(misuse_kmem_cache_free_without_cache)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	unsigned long bad;
	char *p, *q;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-nullfree", 64, 0, 0, NULL);
	ST_EXPECT(c, "create failed");
	p = kmem_cache_alloc(c);
	ST_EXPECT(p, "alloc failed");
	memset(p, 0x5c, 64);
	slab_test_console_clear();
	bad = slab_bad_frees;
	kmem_cache_free(NULL, p);
	ST_EXPECT(slab_bad_frees == bad + 1, "kmem_cache_free(NULL, p) not counted");
	ST_EXPECT(slab_test_console_has("kmem_cache_free(") &&
			  slab_test_console_has("no cache given") &&
			  slab_test_console_has("test-nullfree"),
		  "report does not name the call, the fault and the object's cache");
	if (CONFIG_SLAB_DEBUG) {	/* freed to its cache (tests/host/test_cache_host_misuse.c) */
		ST_EXPECT(slab_test_console_has("; freed to it"), "the report does not say freed");
		kmem_cache_free(NULL, NULL);
		ST_EXPECT(slab_bad_frees == bad + 1, "kmem_cache_free(NULL, NULL) complained");
		ST_EXPECT(kmem_cache_check(c) == 0, "inconsistent after the free to its cache");
		ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused: the object was not freed");
		SLAB_EXPECT_PAGES_BACK(&pages);
		return 0;
	}
	/* Still allocated: not handed out again, freed normally after. */
	q = kmem_cache_alloc(c);
	ST_EXPECT(q && q != p && p[63] == 0x5c, "object freed by kmem_cache_free(NULL, p)");
	kmem_cache_free(c, q);
	kmem_cache_free(NULL, NULL);	/* nothing to free: silent */
	ST_EXPECT(slab_bad_frees == bad + 1, "kmem_cache_free(NULL, NULL) complained");
	kmem_cache_free(c, p);
	ST_EXPECT(slab_bad_frees == bad + 1 && kmem_cache_check(c) == 0, "right free refused");
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused: the object leaked");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/* Issue 12 item 6: destroying a destroyed cache is refused without touching it. */
SELFTEST(misuse_destroy_twice_refused)
{
	struct slab_test_mark pages;
	struct kmem_cache *c, *other;
	void *p;

	slab_test_init();
	slab_test_begin(&pages);
	other = kmem_cache_create("test-other-live", 48, 0, 0, NULL);
	c = kmem_cache_create("test-destroyed", 48, 0, 0, NULL);
	ST_EXPECT(c && other, "create failed");
	p = kmem_cache_alloc(c);
	kmem_cache_free(c, p);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "first destroy refused");
	slab_test_console_clear();
	ST_EXPECT(kmem_cache_destroy(c) == -EINVAL, "second destroy accepted");
	ST_EXPECT(slab_test_console_has("kmem_cache_destroy(") &&
			  slab_test_console_has("not a live cache"),
		  "second destroy not reported");
	/* A pointer that was never a cache is refused the same way. */
	slab_test_console_clear();
	ST_EXPECT(kmem_cache_destroy((struct kmem_cache *)&pages) == -EINVAL,
		  "destroy of a non-cache accepted");
	ST_EXPECT(slab_test_console_has("not a live cache"), "non-cache not reported");
	p = kmem_cache_alloc(other);
	ST_EXPECT(p, "other cache broken");
	kmem_cache_free(other, p);
	ST_EXPECT(kmem_cache_check(other) == 0, "other cache inconsistent");
	ST_EXPECT(kmem_cache_destroy(other) == 0, "destroy of the other cache refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/* Issue 12 item 5: the largest object is the same in every build; one above it is refused. */
SELFTEST(misuse_largest_cache_in_every_build)
{
	const size_t max = PAGE_SIZE << MAX_ORDER;
	struct slab_test_mark pages;
	struct kmem_cache *c;
	char *p;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-max", max, 0, 0, NULL);
	ST_EXPECT(c, "a cache of %zu-byte objects was refused", max);
	ST_EXPECT(kmem_cache_size(c) >= max, "size %zu", kmem_cache_size(c));
	p = kmem_cache_alloc(c);
	if (p) {	/* a free 4 MiB block is likely but not certain in the kernel */
		p[0] = 1;
		p[max - 1] = 2;
		kmem_cache_free(c, p);
	}
	ST_EXPECT(kmem_cache_check(c) == 0 && kmem_cache_destroy(c) == 0, "test-max broken");
	slab_test_console_clear();
	ST_EXPECT(!kmem_cache_create("test-max1", max + 1, 0, 0, NULL), "size max + 1 accepted");
	ST_EXPECT(slab_test_console_has("bad argument: size 4194305 is above the largest object"),
		  "size max + 1 refused without saying why");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/* Issue 12 item 9: each bad argument of kmem_cache_create is named with why. */
SELFTEST(misuse_create_names_the_bad_argument)
{
	static const struct {
		const char *name;
		size_t size, align;
		unsigned int flags;
		const char *why;
	} cases[] = {
		{ NULL, 8, 0, 0, "bad argument: name is NULL" },
		{ "test-arg", 0, 0, 0, "bad argument: size is 0" },
		{ "test-arg", 64, 3, 0, "bad argument: align 3 is not a power of two" },
		{ "test-arg", 64, 2 * PAGE_SIZE, 0, "is above the page size" },
		{ "test-arg", 64, 0, 0x8000, "bad argument: unknown flags 0x8000" },
	};

	slab_test_init();
	for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++) {
		slab_test_console_clear();
		ST_EXPECT(!kmem_cache_create(cases[i].name, cases[i].size, cases[i].align,
					     cases[i].flags, NULL),
			  "case %u accepted", i);
		ST_EXPECT(slab_test_console_has(cases[i].why) &&
				  slab_test_console_has("kmem_cache_create("),
			  "case %u: console lacks \"%s\"", i, cases[i].why);
	}
	return 0;
}

/*
 * Issue 12 item 9: destroy with live objects says the cache is kept (not
 * "leaking"); krealloc of a bad pointer is reported as krealloc; a large
 * allocation freed twice is called a double free; free_pages_addr below
 * the direct map prints no physical address.
 */
SELFTEST(misuse_messages_say_what_happened)
{
	void *below = (void *)((uintptr_t)PHYS_TO_VIRT(ARCH_PHYS_OFFSET) - 64 * PAGE_SIZE);
	struct slab_test_mark pages;
	struct kmem_cache *c;
	unsigned long bad;
	char *p, *big;

	slab_test_init();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-kept", 96, 0, 0, NULL);
	ST_EXPECT(c, "create failed");
	p = kmem_cache_alloc(c);
	ST_EXPECT(p, "alloc failed");
	slab_test_console_clear();
	ST_EXPECT(kmem_cache_destroy(c) == -EBUSY, "destroy with a live object accepted");
	ST_EXPECT(slab_test_console_has("test-kept") && slab_test_console_has("cache kept") &&
			  slab_test_console_lacks("leaking"),
		  "destroy with live objects: wrong report");
	kmem_cache_free(c, p);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "second destroy refused");

	p = kmalloc(64);
	ST_EXPECT(p, "kmalloc failed");
	slab_test_console_clear();
	bad = slab_bad_frees;
	ST_EXPECT(!krealloc(p + 8, 200), "krealloc of a bad pointer succeeded");
	ST_EXPECT(slab_test_console_has("krealloc(") && slab_test_console_lacks("ksize("),
		  "krealloc's bad pointer reported under another name");
	ST_EXPECT(slab_bad_frees == bad + 1, "krealloc's refused free not counted once");
	kfree(p);
	ST_EXPECT(slab_bad_frees == bad + 1, "the right free was refused");

	big = kmalloc(2 * PAGE_SIZE);
	ST_EXPECT(big, "large kmalloc failed");
	kfree(big);
	slab_test_console_clear();
	bad = slab_bad_frees;
	kfree(big);
	ST_EXPECT(slab_bad_frees == bad + 1, "second kfree of a large allocation not refused");
	ST_EXPECT(slab_test_console_has("double free"), "second kfree not called a double free");

	slab_test_console_clear();
	ST_EXPECT(free_pages_addr(below, 0) == -EFAULT, "address below the direct map accepted");
	ST_EXPECT(slab_test_console_has("outside RAM") && slab_test_console_lacks("pfn") &&
			  slab_test_console_lacks("phys"),
		  "an address below the direct map got a pfn or physical address");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}
