/*
 * test_buddy.c - buddy allocator self-tests that run in the kernel, on the
 * live allocator after boot, and on the host. Each test gives back all it
 * takes, so the allocator ends as it was found: the same free blocks per
 * order (coalescing makes a set of free pages have one layout only).
 * Refused frees are checked to change nothing but bad_frees; on the host the
 * console message is checked too.
 */
#include "kernel/errno.h"
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include "mm/buddy.h"
#ifdef QUARRY_HOST
#include "host_shim.h"
#endif

/* The head of each block held by a test, threaded through the blocks themselves. */
struct held {
	struct held *next;
	unsigned int order;
};

static bool same_layout(const struct buddy_stats *a, const struct buddy_stats *b)
{
	if (a->free_pages != b->free_pages || a->managed_pages != b->managed_pages)
		return false;
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		if (a->nr_free[o] != b->nr_free[o])
			return false;
	return true;
}

/* back_to - fail unless the free layout is as in start and buddy_check() passes. */
static int back_to(const struct buddy_stats *start, const char *when)
{
	if (buddy_check())
		return selftest_fail("buddy_check failed %s", when);
	if (!same_layout(start, &buddy_stats))
		return selftest_fail("free layout %s differs from the start: %lu free pages,"
				     " was %lu", when, buddy_stats.free_pages, start->free_pages);
	return 0;
}

static void console_clear(void)
{
#ifdef QUARRY_HOST
	host_console_clear();
#endif
}

/*
 * check_refused - after one bad free: it returned want, bad_frees went up by
 * one and nothing else moved, the allocator is consistent, and (on the host)
 * the console named the fault (what) and the address (where).
 */
static int check_refused(const struct buddy_stats *before, int ret, int want, const char *what,
			 const char *where, const char *call)
{
	const struct buddy_stats *now = &buddy_stats;

	if (ret != want)
		return selftest_fail("%s returned %d, expected %d", call, ret, want);
	if (now->bad_frees != before->bad_frees + 1)
		return selftest_fail("%s: bad_frees %lu, expected %lu", call, now->bad_frees,
				     before->bad_frees + 1);
	if (!same_layout(before, now) || now->allocs != before->allocs ||
	    now->frees != before->frees || now->failed_allocs != before->failed_allocs)
		return selftest_fail("%s changed the allocator's counters", call);
	if (buddy_check())
		return selftest_fail("buddy_check failed after %s", call);
#ifdef QUARRY_HOST
	if (!host_console_contains(what) || !host_console_contains(where))
		return selftest_fail("%s: console lacks \"%s\" or \"%s\"", call, what, where);
#else
	(void)what;
	(void)where;
#endif
	return 0;
}

/* EXPECT_REFUSED - make one bad free call and check it was refused and changed nothing. */
#define EXPECT_REFUSED(call, want, what, where)                                          \
	do {                                                                             \
		struct buddy_stats before_ = buddy_stats;                                \
		int ret_;                                                                \
		console_clear();                                                         \
		ret_ = (call);                                                           \
		if (check_refused(&before_, ret_, want, what, where, #call))             \
			return -1;                                                       \
	} while (0)

static void pfn_text(char *buf, size_t size, const struct page *page)
{
	snprintf(buf, size, "pfn 0x%lx phys 0x%lx", page_to_pfn(page),
		 page_to_pfn(page) << PAGE_SHIFT);
}

SELFTEST(buddy_order0_roundtrip)
{
	struct buddy_stats start = buddy_stats;
	struct page *p = alloc_pages(0);
	unsigned char *mem;

	ST_EXPECT(p != NULL, "alloc_pages(0) returned NULL");
	ST_EXPECT(page_to_pfn(p) < max_pfn, "pfn 0x%lx past max_pfn", page_to_pfn(p));
	ST_EXPECT((p->flags & (PG_head | PG_buddy | PG_reserved)) == PG_head && p->order == 0,
		  "head flags 0x%lx order %u", p->flags, p->order);
	ST_EXPECT(buddy_stats.free_pages == start.free_pages - 1, "free_pages not down by one");
	ST_EXPECT(buddy_stats.allocs == start.allocs + 1, "allocs not counted");
	mem = page_address(p);
	mem[0] = 0xa5;
	mem[PAGE_SIZE - 1] = 0x5a;
	ST_EXPECT(virt_to_page(mem + PAGE_SIZE - 1) == p, "virt_to_page(page_address(p)) != p");
	ST_EXPECT(free_pages(p, 0) == 0, "free_pages failed");
	ST_EXPECT(buddy_stats.frees == start.frees + 1, "frees not counted");
	return back_to(&start, "after the free");
}

SELFTEST(buddy_every_order)
{
	struct buddy_stats start = buddy_stats;

	for (unsigned int o = 0; o <= MAX_ORDER; o++) {
		bool any = false;
		struct page *p;
		char *mem;

		for (unsigned int k = o; k <= MAX_ORDER; k++)
			any |= buddy_stats.nr_free[k] != 0;
		p = alloc_pages(o);
		ST_EXPECT(!p == !any, "alloc_pages(%u) = %p with%s a block that large free", o,
			  (void *)p, any ? "" : "out");
		if (!p)
			continue;
		ST_EXPECT(IS_ALIGNED(page_to_pfn(p), 1UL << o), "order %u block at pfn 0x%lx", o,
			  page_to_pfn(p));
		ST_EXPECT(page_to_pfn(p) + (1UL << o) <= max_pfn, "order %u block past max_pfn", o);
		ST_EXPECT(p->order == o && (p->flags & PG_head), "order %u head not marked", o);
		mem = page_address(p);
		ST_EXPECT(IS_ALIGNED((uintptr_t)mem, PAGE_SIZE << o), "address %p misaligned",
			  (void *)mem);
		mem[0] = 1;
		mem[(PAGE_SIZE << o) - 1] = 2;
		ST_EXPECT(free_pages(p, o) == 0, "free_pages(order %u) failed", o);
		if (back_to(&start, "after an alloc/free"))
			return -1;
	}
	return 0;
}

SELFTEST(buddy_order_too_big)
{
	struct buddy_stats start = buddy_stats;

	ST_EXPECT(alloc_pages(MAX_ORDER + 1) == NULL, "order MAX_ORDER + 1 allocated");
	ST_EXPECT(get_free_pages(MAX_ORDER + 5) == NULL, "order MAX_ORDER + 5 allocated");
	ST_EXPECT(buddy_stats.failed_allocs == start.failed_allocs + 2,
		  "failed_allocs not counted");
	ST_EXPECT(buddy_stats.allocs == start.allocs, "allocs counted a failure");
	return back_to(&start, "after refused allocations");
}

SELFTEST(buddy_addr_roundtrip)
{
	struct buddy_stats start = buddy_stats;
	char *mem = get_free_pages(1);
	struct page *p;

	ST_EXPECT(mem != NULL, "get_free_pages(1) returned NULL");
	ST_EXPECT(virt_addr_valid(mem) && virt_addr_valid(mem + 2 * PAGE_SIZE - 1),
		  "block at %p not in the direct map", (void *)mem);
	p = virt_to_page(mem);
	ST_EXPECT((p->flags & PG_head) && p->order == 1, "virt_to_page: flags 0x%lx order %u",
		  p->flags, p->order);
	mem[2 * PAGE_SIZE - 1] = 7;
	ST_EXPECT(free_pages_addr(mem, 1) == 0, "free_pages_addr failed");
	return back_to(&start, "after free_pages_addr");
}

/* hold - allocate blocks of order 'order' until NULL, threading them onto *list. */
static unsigned long hold(struct held **list, unsigned int order)
{
	unsigned long n = 0;
	struct held *h;

	while ((h = get_free_pages(order)) != NULL) {
		h->next = *list;
		h->order = order;
		*list = h;
		n++;
	}
	return n;
}

static int release(struct held *list)
{
	while (list) {
		struct held *next = list->next;

		if (free_pages_addr(list, list->order))
			return -1;
		list = next;
	}
	return 0;
}

SELFTEST(buddy_exhaustion)
{
	struct buddy_stats start = buddy_stats;
	struct held *list = NULL;
	unsigned long blocks = 0, failed;
	struct page *p;

	for (int o = MAX_ORDER; o >= 0; o--)
		blocks += hold(&list, (unsigned int)o);
	failed = buddy_stats.failed_allocs;
	ST_EXPECT(nr_free_pages() == 0, "%lu pages still free after exhaustion", nr_free_pages());
	ST_EXPECT(alloc_pages(0) == NULL, "alloc_pages(0) worked with nothing free");
	ST_EXPECT(buddy_stats.failed_allocs == failed + 1, "failed_allocs not counted");
	ST_EXPECT(buddy_check() == 0, "buddy_check failed when exhausted");
	ST_EXPECT(release(list) == 0, "freeing a held block failed");
	ST_EXPECT(buddy_stats.frees == start.frees + blocks, "frees not counted");
	if (back_to(&start, "after freeing everything"))
		return -1;
	p = alloc_pages(0);
	ST_EXPECT(p != NULL, "alloc_pages(0) failed after recovery");
	ST_EXPECT(free_pages(p, 0) == 0, "free after recovery failed");
	return back_to(&start, "at the end");
}

/* A small generator with a fixed seed, so a failure repeats. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#define LIVE_SLOTS	128
/* Blocks of up to 128 KiB, so at most 16 MiB is held at once. */
#define LIVE_MAX_ORDER	(17 - PAGE_SHIFT)
_Static_assert(LIVE_MAX_ORDER >= 1 && LIVE_MAX_ORDER <= MAX_ORDER,
	       "LIVE_MAX_ORDER fits the page size");

/*
 * Random allocs and frees on the live allocator with cheap checks per step
 * (placement, overlap with the other blocks held, a tag in each block) and
 * buddy_check() every 1024 steps; everything freed at the end.
 */
SELFTEST(buddy_random_live)
{
	static struct page *slot[LIVE_SLOTS];
	static unsigned int slot_order[LIVE_SLOTS];
	struct buddy_stats start = buddy_stats;
	unsigned long ops = 15000UL * SELFTEST_SCALE, tag;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	unsigned int live = 0;

	for (unsigned long i = 0; i < ops; i++) {
		uint64_t r = rng_next(&seed);

		if (live < LIVE_SLOTS && (live == 0 || (r & 0xff) < 140)) {
			unsigned int o = (unsigned int)__builtin_ctzll(r >> 8 | 1ULL << 40);
			unsigned long pfn, end;
			struct page *p;

			o = MIN(o, (unsigned int)LIVE_MAX_ORDER);
			p = alloc_pages(o);
			if (!p)
				continue;	/* tight memory in the kernel is allowed */
			pfn = page_to_pfn(p);
			end = pfn + (1UL << o);
			ST_EXPECT(IS_ALIGNED(pfn, 1UL << o) && end <= max_pfn && p->order == o,
				  "step %lu: bad order-%u block at pfn 0x%lx", i, o, pfn);
			ST_EXPECT((p->flags & (PG_head | PG_buddy | PG_reserved)) == PG_head,
				  "step %lu: block flags 0x%lx", i, p->flags);
			for (unsigned int k = 0; k < live; k++) {
				unsigned long s = page_to_pfn(slot[k]);

				ST_EXPECT(end <= s || pfn >= s + (1UL << slot_order[k]),
					  "step %lu: pfn 0x%lx order %u overlaps held pfn 0x%lx", i,
					  pfn, o, s);
			}
			*(unsigned long *)page_address(p) = pfn;
			slot[live] = p;
			slot_order[live++] = o;
		} else {
			unsigned int k = (unsigned int)((r >> 8) % live);

			tag = *(unsigned long *)page_address(slot[k]);
			ST_EXPECT(tag == page_to_pfn(slot[k]),
				  "step %lu: tag of pfn 0x%lx overwritten", i,
				  page_to_pfn(slot[k]));
			ST_EXPECT(free_pages(slot[k], slot_order[k]) == 0,
				  "step %lu: free failed", i);
			slot[k] = slot[--live];
			slot_order[k] = slot_order[live];
		}
		if ((i & 1023) == 0 && buddy_check())
			return selftest_fail("buddy_check failed at step %lu", i);
	}
	while (live) {
		live--;
		ST_EXPECT(free_pages(slot[live], slot_order[live]) == 0, "final free failed");
	}
	return back_to(&start, "after the random run");
}

SELFTEST(buddy_bad_free_not_allocated)
{
	struct buddy_stats start = buddy_stats;
	struct page *resv = virt_to_page(mem_map);	/* mem_map's own pages are reserved */
	struct page *p;
	char where[64];

	pfn_text(where, sizeof(where), resv);
	EXPECT_REFUSED(free_pages(resv, 0), -EINVAL, "not allocated (page is reserved", where);
	EXPECT_REFUSED(free_pages_addr(page_address(resv), 0), -EINVAL, "not allocated", "phys");

	p = alloc_pages(1);
	ST_EXPECT(p != NULL, "alloc_pages(1) returned NULL");
	ST_EXPECT(free_pages(p, 1) == 0, "free_pages failed");
	/* p + 1 is now inside a free block, and was never allocated on its own. */
	pfn_text(where, sizeof(where), p + 1);
	EXPECT_REFUSED(free_pages(p + 1, 0), -EINVAL,
		       "not allocated (page lies inside the free order-", where);
	return back_to(&start, "at the end");
}

SELFTEST(buddy_bad_free_double)
{
	struct buddy_stats start = buddy_stats;
	struct page *p[64], *victim = NULL;
	unsigned int n = 0, v = 0;
	char where[64];

	/* Hold order-0 pages until one's buddy is also held: freed, it cannot merge. */
	while (n < ARRAY_SIZE(p) && !victim && (p[n] = alloc_pages(0)) != NULL) {
		for (unsigned int k = 0; k < n; k++) {
			if ((page_to_pfn(p[k]) ^ 1) == page_to_pfn(p[n])) {
				victim = p[k];
				v = k;
			}
		}
		n++;
	}
	ST_EXPECT(victim != NULL, "no two buddies among %u order-0 pages", n);
	ST_EXPECT(free_pages(victim, 0) == 0, "first free failed");
	pfn_text(where, sizeof(where), victim);
	EXPECT_REFUSED(free_pages(victim, 0), -EINVAL, "double free (block is already free)",
		       where);
	EXPECT_REFUSED(free_pages_addr(page_address(victim), 0), -EINVAL, "double free", where);
	for (unsigned int k = 0; k < n; k++)
		if (k != v)
			ST_EXPECT(free_pages(p[k], 0) == 0, "free of page %u failed", k);

	/* A block that merged after its first free is still refused. */
	p[0] = alloc_pages(2);
	ST_EXPECT(p[0] != NULL, "alloc_pages(2) returned NULL");
	ST_EXPECT(free_pages(p[0], 2) == 0, "free_pages failed");
	EXPECT_REFUSED(free_pages(p[0], 2), -EINVAL, "double free", "order 2");
	return back_to(&start, "at the end");
}

SELFTEST(buddy_bad_free_wrong_order)
{
	struct buddy_stats start = buddy_stats;
	struct page *p = alloc_pages(2);
	char where[64];

	ST_EXPECT(p != NULL, "alloc_pages(2) returned NULL");
	pfn_text(where, sizeof(where), p);
	EXPECT_REFUSED(free_pages(p, 1), -EINVAL, "wrong order", where);
	EXPECT_REFUSED(free_pages(p, 3), -EINVAL, "wrong order", where);
	EXPECT_REFUSED(free_pages(p, 0), -EINVAL, "wrong order", where);
	EXPECT_REFUSED(free_pages(p, MAX_ORDER + 1), -EINVAL, "order is above MAX_ORDER", where);
	EXPECT_REFUSED(free_pages_addr(page_address(p), 1), -EINVAL, "wrong order", "phys");
	ST_EXPECT((p->flags & PG_head) && p->order == 2, "the block was touched");
	ST_EXPECT(free_pages(p, 2) == 0, "the right free failed");
	return back_to(&start, "at the end");
}

SELFTEST(buddy_bad_free_tail)
{
	struct buddy_stats start = buddy_stats;
	struct page *p = alloc_pages(2);
	char where[64];

	ST_EXPECT(p != NULL, "alloc_pages(2) returned NULL");
	pfn_text(where, sizeof(where), p + 1);
	EXPECT_REFUSED(free_pages(p + 1, 0), -EINVAL, "not the head of an allocation", where);
	pfn_text(where, sizeof(where), p + 2);
	EXPECT_REFUSED(free_pages(p + 2, 1), -EINVAL, "not the head of an allocation", where);
	EXPECT_REFUSED(free_pages_addr(page_address(p + 3), 0), -EINVAL,
		       "(tail page of the order-2 block", "phys");
	ST_EXPECT(free_pages(p, 2) == 0, "the right free failed");
	return back_to(&start, "at the end");
}

SELFTEST(buddy_bad_free_outside)
{
	struct buddy_stats start = buddy_stats;
	struct page *past = (struct page *)((uintptr_t)mem_map + max_pfn * sizeof(struct page));
	struct page *before = (struct page *)((uintptr_t)mem_map - sizeof(struct page));
	struct page *p = alloc_pages(0);
	uintptr_t top = (uintptr_t)max_pfn << PAGE_SHIFT;
	const char *bad_ptr = "not an entry of mem_map";
	void *below = (void *)((uintptr_t)PHYS_TO_VIRT(0) - PAGE_SIZE);

	ST_EXPECT(p != NULL, "alloc_pages(0) returned NULL");
	EXPECT_REFUSED(free_pages(past, 0), -EFAULT, bad_ptr, "free_pages(page");
	EXPECT_REFUSED(free_pages(before, 0), -EFAULT, bad_ptr, "free_pages(page");
	EXPECT_REFUSED(free_pages(NULL, 0), -EFAULT, bad_ptr, "free_pages(page");
	EXPECT_REFUSED(free_pages((struct page *)((uintptr_t)p + 8), 0), -EFAULT, bad_ptr,
		       "order 0");
	EXPECT_REFUSED(free_pages_addr(PHYS_TO_VIRT(top), 0), -EFAULT, "outside RAM", "phys");
	EXPECT_REFUSED(free_pages_addr(PHYS_TO_VIRT(top + (1UL << 30)), 0), -EFAULT,
		       "outside RAM", "phys");
	EXPECT_REFUSED(free_pages_addr(below, 0), -EFAULT, "outside RAM", "free_pages_addr(");
	ST_EXPECT(free_pages(p, 0) == 0, "the right free failed");
	return back_to(&start, "at the end");
}

SELFTEST(buddy_bad_free_misaligned)
{
	struct buddy_stats start = buddy_stats;
	char *mem = get_free_pages(1);
	const char *what = "not page-aligned";

	ST_EXPECT(mem != NULL, "get_free_pages(1) returned NULL");
	EXPECT_REFUSED(free_pages_addr(mem + 1, 1), -EFAULT, what, "phys");
	EXPECT_REFUSED(free_pages_addr(mem + PAGE_SIZE / 2, 1), -EFAULT, what, "phys");
	EXPECT_REFUSED(free_pages_addr(mem + PAGE_SIZE + 64, 0), -EFAULT, what, "phys");
	ST_EXPECT(free_pages_addr(mem, 1) == 0, "the right free failed");
	return back_to(&start, "at the end");
}
