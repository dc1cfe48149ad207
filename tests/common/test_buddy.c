/*
 * test_buddy.c - buddy allocator self-tests that run in the kernel, on the
 * live allocator after boot, and on the host. Each test gives back all it
 * takes, so the allocator ends as it was found: the same free blocks per
 * order (coalescing makes a set of free pages have one layout only), once
 * this CPU's page list is drained back into the zone. Global figures are
 * compared only when no other CPU used the allocator meanwhile
 * (tests/common/test_mm.h); what the test owns is always checked. Refused
 * frees are checked to change nothing but the refusal count; on the host
 * the console message is checked too.
 */
#include "kernel/errno.h"
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include "mm/buddy.h"
#include "test_mm.h"
#ifdef QUARRY_HOST
#include "host_shim.h"
#endif

/* The allocator's state at a point, this CPU's page list drained into the zone. */
struct mark {
	struct buddy_stats st;
	unsigned long others;	/* mm_test_others() when taken */
};

static void mark_now(struct mark *m)
{
	buddy_drain_local();
	m->others = mm_test_others();
	buddy_read_stats(&m->st);
}

/* Did another CPU (or a reap) touch the allocators since m? */
static bool disturbed_since(const struct mark *m)
{
	return mm_test_others() != m->others;
}

static bool same_layout(const struct buddy_stats *a, const struct buddy_stats *b)
{
	if (a->free_pages != b->free_pages || a->managed_pages != b->managed_pages)
		return false;
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		if (a->nr_free[o] != b->nr_free[o])
			return false;
	return true;
}

/* back_to - fail unless buddy_check() passes and, if undisturbed, the layout is as at start. */
static int back_to(const struct mark *start, const char *when)
{
	struct mark now;

	mark_now(&now);
	if (buddy_check())
		return selftest_fail("buddy_check failed %s", when);
	if (disturbed_since(start))
		return 0;	/* other CPUs moved pages too: the layout proves nothing */
	if (!same_layout(&start->st, &now.st))
		return selftest_fail("free layout %s differs from the start: %lu free pages,"
				     " was %lu", when, now.st.free_pages, start->st.free_pages);
	return 0;
}

static void console_clear(void)
{
#ifdef QUARRY_HOST
	host_console_clear();
#endif
}

/*
 * check_refused - after one bad free: it returned want, this CPU's calls
 * went up by one (the refusal), and if undisturbed the global counters show
 * one more refusal and nothing else moved; the allocator is consistent, and
 * (on the host) the console named the fault (what) and the address (where).
 */
static int check_refused(const struct mark *before, unsigned long mine, int ret, int want,
			 const char *what, const char *where, const char *call)
{
	struct buddy_stats now;

	buddy_read_stats(&now);
	if (ret != want)
		return selftest_fail("%s returned %d, expected %d", call, ret, want);
	if (buddy_cpu_events(smp_processor_id()) != mine + 1)
		return selftest_fail("%s: not counted once on this CPU", call);
	if (!disturbed_since(before)) {
		const struct buddy_stats *b = &before->st;

		if (now.bad_frees != b->bad_frees + 1)
			return selftest_fail("%s: bad_frees %lu, expected %lu", call,
					     now.bad_frees, b->bad_frees + 1);
		if (!same_layout(b, &now) || now.allocs != b->allocs || now.frees != b->frees ||
		    now.failed_allocs != b->failed_allocs || now.pcp_pages != b->pcp_pages)
			return selftest_fail("%s changed the allocator's counters", call);
	}
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
		struct mark before_;                                                     \
		unsigned long mine_;                                                     \
		int ret_;                                                                \
		before_.others = mm_test_others();                                       \
		buddy_read_stats(&before_.st);                                           \
		mine_ = buddy_cpu_events(smp_processor_id());                            \
		console_clear();                                                         \
		ret_ = (call);                                                           \
		if (check_refused(&before_, mine_, ret_, want, what, where, #call))      \
			return -1;                                                       \
	} while (0)

static void pfn_text(char *buf, size_t size, const struct page *page)
{
	snprintf(buf, size, "pfn 0x%lx phys 0x%lx", page_to_pfn(page),
		 page_to_pfn(page) << PAGE_SHIFT);
}

SELFTEST(buddy_order0_roundtrip)
{
	struct buddy_stats st;
	struct mark start;
	struct page *p;
	unsigned char *mem;

	mark_now(&start);
	p = alloc_pages(0);
	ST_EXPECT(p != NULL, "alloc_pages(0) returned NULL");
	ST_EXPECT(page_to_pfn(p) < max_pfn, "pfn 0x%lx past max_pfn", page_to_pfn(p));
	ST_EXPECT((p->flags & (PG_head | PG_buddy | PG_reserved | PG_pcp)) == PG_head &&
			  p->order == 0, "head flags 0x%lx order %u", p->flags, p->order);
	buddy_read_stats(&st);
	ST_EXPECT(disturbed_since(&start) || (st.free_pages == start.st.free_pages - 1 &&
					      st.allocs == start.st.allocs + 1),
		  "free_pages not down by one or allocs not counted");
	mem = page_address(p);
	mem[0] = 0xa5;
	mem[PAGE_SIZE - 1] = 0x5a;
	ST_EXPECT(virt_to_page(mem + PAGE_SIZE - 1) == p, "virt_to_page(page_address(p)) != p");
	ST_EXPECT(free_pages(p, 0) == 0, "free_pages failed");
	ST_EXPECT(p->flags & PG_pcp, "a freed page is not on this CPU's list: flags 0x%lx",
		  p->flags);
	buddy_read_stats(&st);
	ST_EXPECT(disturbed_since(&start) || st.frees == start.st.frees + 1, "frees not counted");
	return back_to(&start, "after the free");
}

SELFTEST(buddy_every_order)
{
	struct mark start, now;

	mark_now(&start);
	for (unsigned int o = 0; o <= MAX_ORDER; o++) {
		bool any = false;
		struct page *p;
		char *mem;

		mark_now(&now);	/* this CPU's list empty: the zone alone decides */
		for (unsigned int k = o; k <= MAX_ORDER; k++)
			any |= now.st.nr_free[k] != 0;
		p = alloc_pages(o);
		ST_EXPECT(!p == !any || disturbed_since(&now),
			  "alloc_pages(%u) = %p with%s a block that large free", o, (void *)p,
			  any ? "" : "out");
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
	struct buddy_stats st;
	struct mark start;

	mark_now(&start);
	ST_EXPECT(alloc_pages(MAX_ORDER + 1) == NULL, "order MAX_ORDER + 1 allocated");
	ST_EXPECT(get_free_pages(MAX_ORDER + 5) == NULL, "order MAX_ORDER + 5 allocated");
	buddy_read_stats(&st);
	ST_EXPECT(disturbed_since(&start) || (st.failed_allocs == start.st.failed_allocs + 2 &&
					      st.allocs == start.st.allocs),
		  "failed_allocs %lu (was %lu), allocs %lu (was %lu)", st.failed_allocs,
		  start.st.failed_allocs, st.allocs, start.st.allocs);
	return back_to(&start, "after refused allocations");
}

SELFTEST(buddy_addr_roundtrip)
{
	struct mark start;
	struct page *p;
	char *mem;

	mark_now(&start);
	mem = get_free_pages(1);
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

/* Pages free on other CPUs' lists: this CPU cannot take them. */
static unsigned long pages_elsewhere(void)
{
	unsigned long n = 0;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		if (cpu != smp_processor_id())
			n += buddy_pcp_count(cpu);
	return n;
}

SELFTEST(buddy_exhaustion)
{
	struct mm_test_held *list = NULL;
	unsigned long blocks = 0, mine, elsewhere;
	struct buddy_stats st;
	struct mark start;
	struct page *p;

	mark_now(&start);
	for (int o = MAX_ORDER; o >= 0; o--)
		blocks += mm_test_hold(&list, (unsigned int)o);
	mine = buddy_cpu_events(smp_processor_id());
	elsewhere = pages_elsewhere();
	ST_EXPECT(nr_free_pages() == elsewhere || disturbed_since(&start),
		  "%lu pages still free after exhaustion, %lu on other CPUs' lists",
		  nr_free_pages(), elsewhere);
	ST_EXPECT(alloc_pages(0) == NULL, "alloc_pages(0) worked with nothing free");
	ST_EXPECT(buddy_cpu_events(smp_processor_id()) == mine + 1, "failed alloc not counted");
	ST_EXPECT(buddy_check() == 0, "buddy_check failed when exhausted");
	ST_EXPECT(mm_test_release(list) == 0, "freeing a held block failed");
	buddy_read_stats(&st);
	ST_EXPECT(disturbed_since(&start) || st.frees == start.st.frees + blocks,
		  "frees not counted");
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
	unsigned long ops = 15000UL * SELFTEST_SCALE, tag;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	unsigned int live = 0;
	struct mark start;

	mark_now(&start);
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
	struct page *resv = virt_to_page(mem_map);	/* mem_map's own pages are reserved */
	struct mark start;
	struct page *p;
	char where[64];

	mark_now(&start);
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
	struct page *p[64], *victim = NULL;
	unsigned int n = 0, v = 0;
	struct mark start;
	char where[64];

	mark_now(&start);
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
	/* Free on this CPU's page list... */
	EXPECT_REFUSED(free_pages(victim, 0), -EINVAL,
		       "double free (page is already free, on a CPU's page list)", where);
	EXPECT_REFUSED(free_pages_addr(page_address(victim), 0), -EINVAL, "double free", where);
	/* ...and back in the zone, where its held buddy keeps it from merging. */
	buddy_drain_local();
	ST_EXPECT(victim->flags & PG_buddy, "drained page not in the zone: flags 0x%lx",
		  victim->flags);
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
	struct mark start;
	struct page *p;
	char where[64];

	mark_now(&start);
	p = alloc_pages(2);
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
	struct mark start;
	struct page *p;
	char where[64];

	mark_now(&start);
	p = alloc_pages(2);
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
	struct page *past = (struct page *)((uintptr_t)mem_map + mem_map_entries() * sizeof(struct page));
	struct page *before = (struct page *)((uintptr_t)mem_map - sizeof(struct page));
	uintptr_t top = (uintptr_t)max_pfn << PAGE_SHIFT;
	const char *bad_ptr = "not an entry of mem_map";
	void *below = (void *)((uintptr_t)PHYS_TO_VIRT(0) - PAGE_SIZE);
	struct mark start;
	struct page *p;

	mark_now(&start);
	p = alloc_pages(0);
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
	const char *what = "not page-aligned";
	struct mark start;
	char *mem;

	mark_now(&start);
	mem = get_free_pages(1);
	ST_EXPECT(mem != NULL, "get_free_pages(1) returned NULL");
	EXPECT_REFUSED(free_pages_addr(mem + 1, 1), -EFAULT, what, "phys");
	EXPECT_REFUSED(free_pages_addr(mem + PAGE_SIZE / 2, 1), -EFAULT, what, "phys");
	EXPECT_REFUSED(free_pages_addr(mem + PAGE_SIZE + 64, 0), -EFAULT, what, "phys");
	ST_EXPECT(free_pages_addr(mem, 1) == 0, "the right free failed");
	return back_to(&start, "at the end");
}

/*
 * This CPU's page list: a freed page waits there (still free, so a second
 * free is refused), an empty list refills a batch from the zone, the list
 * never stays above its high mark, and draining it leaves it empty. Only
 * this CPU's list is looked at, so other CPUs may do as they like; on
 * several nodes only pages of its node, the only ones it takes.
 */
SELFTEST(buddy_cpu_page_list)
{
	static struct page *p[512];
	unsigned int me = smp_processor_id(), n = 0, high = 0;
	struct mark start;
	char where[64];

	mark_now(&start);
	ST_EXPECT(buddy_pcp_count(me) == 0, "list not empty after a drain");
	p[n] = alloc_pages(0);
	ST_EXPECT(p[n] != NULL, "alloc_pages(0) failed");
	n++;
	/*
	 * Hold pages of the list's node (the first page's), then free them all:
	 * the list is capped by its high mark. A page of another node (this
	 * node's memory ran out) never goes on this list: freed at once.
	 */
	while (n < ARRAY_SIZE(p) && (p[n] = alloc_pages(0)) != NULL) {
		if (page_to_nid(p[n]) != page_to_nid(p[0])) {
			ST_EXPECT(free_pages(p[n], 0) == 0, "free of node %u's page failed",
				  page_to_nid(p[n]));
			break;
		}
		n++;
	}
	for (unsigned int i = 0; i < n; i++) {
		ST_EXPECT(free_pages(p[i], 0) == 0, "free %u failed", i);
		ST_EXPECT(p[i]->flags & (PG_pcp | PG_buddy), "freed page %u has flags 0x%lx", i,
			  p[i]->flags);
		high = MAX(high, (unsigned int)buddy_pcp_count(me));
	}
	ST_EXPECT(high < n, "the list kept all %u pages freed (never drained)", n);
	ST_EXPECT(p[n - 1]->flags & PG_pcp, "the page freed last is not on this CPU's list");
	pfn_text(where, sizeof(where), p[n - 1]);
	EXPECT_REFUSED(free_pages(p[n - 1], 0), -EINVAL, "on a CPU's page list", where);
	ST_EXPECT(buddy_check() == 0, "buddy_check failed with pages on this CPU's list");
	buddy_drain_local();
	ST_EXPECT(buddy_pcp_count(me) == 0 && !(p[n - 1]->flags & PG_pcp),
		  "drain left %lu pages", buddy_pcp_count(me));
	return back_to(&start, "after the drain");
}
