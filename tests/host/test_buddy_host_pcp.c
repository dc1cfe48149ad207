/*
 * test_buddy_host_pcp.c - host-only tests of the per-CPU page lists
 * (mm/page_alloc/buddy_pcp.c), with threads as CPUs or one thread acting as several:
 *  - the marks: an empty list refills one batch, a list above its high
 *    mark drains a batch, twice as much at each drain until a refill; an
 *    order-3 block has its own list (a refill of several blocks; a listed
 *    block refused when freed again, with the wrong order, or through a
 *    page inside it); a page on another CPU's list is
 *    refused as a double free, drain_all_pages() empties every list;
 *  - free pages' flags: a stray flag on a free page (listed or in the zone,
 *    head or not) fails buddy_check; a free of a block whose head has a bit
 *    no PG_ flag has is refused;
 *  - drains: blocks of each order freed in address order, in reverse, odd
 *    then even and shuffled leave lists and zone consistent and merge back
 *    into the zone's starting blocks;
 *  - memory short: a request the zone cannot serve drains this CPU's list
 *    and succeeds; pages on another CPU's list need drain_all_pages();
 *  - four threads allocating pages and passing a share of them through
 *    rings to the next thread, which checks the owner's tag and frees them
 *    onto its own list; at the end every page is back, in the same layout.
 * Each checks that the pages of the PG_pcp blocks in mem_map are exactly
 * the pages the lists count.
 */
#include "host_shim.h"
#include "kernel/errno.h"
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include "mm/page_alloc/buddy_internal.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define RING_SLOTS	256
#define PCP_THREADS	4
#define PCP_OPS		(6000UL * SELFTEST_SCALE)

/* The pages of every PG_pcp block in mem_map against the sum of the lists' counts. */
static int pcp_pages_match(const char *when)
{
	unsigned long flagged = 0, counted = 0;

	for (unsigned long pfn = 0; pfn < max_pfn; pfn++)
		if (pfn_to_page(pfn)->flags & PG_pcp)
			flagged += 1UL << pfn_to_page(pfn)->order;
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		counted += buddy_pcp_count(cpu);
	ST_EXPECT(flagged == counted, "%s: %lu PG_pcp pages, lists count %lu", when, flagged,
		  counted);
	return 0;
}

static struct buddy_stats drained_stats(void)
{
	struct buddy_stats st;

	drain_all_pages();
	buddy_read_stats(&st);
	return st;
}

/* Pages a refill or drain of order moves (mm/page_alloc/buddy_pcp.c: Batches). */
static unsigned long batch_pages(unsigned int order)
{
	return 1UL << node_zones[0].pcp_refill_shift[order];
}

static int marks_body(void)
{
	unsigned long batch = node_zones[0].pcp_batch, high = node_zones[0].pcp_high;
	unsigned long cap = high + 2 * batch_pages(PCP_MAX_ORDER), n = 0;
	struct page **held = calloc(cap, sizeof(*held)), *p;

	ST_EXPECT(held, "calloc failed");
	ST_EXPECT(batch == 1UL << node_zones[0].pcp_batch_shift && batch >= 16 && high >= 6 * batch,
		  "marks batch %lu (shift %u) high %lu", batch, node_zones[0].pcp_batch_shift, high);
	for (unsigned int o = 0; o <= PCP_MAX_ORDER; o++)
		ST_EXPECT(batch_pages(o) >= batch && batch_pages(o) >= 1UL << o &&
				  batch_pages(o) <= MAX(batch, high / 2),
			  "order-%u refills of %lu pages, batch %lu high %lu", o, batch_pages(o),
			  batch, high);
	buddy_drain_local();
	p = alloc_pages(0);
	ST_EXPECT(p && buddy_pcp_count(0) == batch_pages(0) - 1,
		  "refill left %lu on the list, batch %lu", buddy_pcp_count(0), batch_pages(0));
	held[n++] = p;
	while (n < cap)
		held[n++] = alloc_pages(0);
	buddy_drain_local();
	for (unsigned long i = 0, drains = 0; i < n; i++) {
		unsigned long before = buddy_pcp_count(0);
		/* pcp_free_drain's size: doubled per drain since a refill, keeping a batch */
		unsigned long want = MAX(batch_pages(0), 1UL << PCP_DRAIN_BLOCKS_SHIFT)
				     << MIN(drains, (unsigned long)PCP_DRAIN_FACTOR_MAX);

		want = MAX(MIN(want, high + 1 - batch), 1UL);
		ST_EXPECT(held[i] && free_pages(held[i], 0) == 0, "free %lu failed", i);
		if (before == high) {
			ST_EXPECT(buddy_pcp_count(0) == high + 1 - want,
				  "drain %lu over the high mark: %lu left, expected %lu", drains,
				  buddy_pcp_count(0), high + 1 - want);
			drains++;
		} else {
			ST_EXPECT(buddy_pcp_count(0) == before + 1, "free %lu not on the list", i);
		}
	}
	free(held);
	if (pcp_pages_match("after the frees"))
		return -1;

	/* Order 3 has its own list: a refill brings several blocks, a free keeps one. */
	buddy_drain_local();
	p = alloc_pages(PCP_MAX_ORDER);
	ST_EXPECT(p && (p->flags & (PG_head | PG_pcp)) == PG_head && p->order == PCP_MAX_ORDER,
		  "order-%u block from the list: flags 0x%lx order %u", PCP_MAX_ORDER,
		  p ? p->flags : 0, p ? p->order : 0);
	ST_EXPECT(buddy_pcp_count(0) == batch_pages(PCP_MAX_ORDER) - (1UL << PCP_MAX_ORDER),
		  "order-%u refill left %lu pages, expected %lu", PCP_MAX_ORDER,
		  buddy_pcp_count(0), batch_pages(PCP_MAX_ORDER) - (1UL << PCP_MAX_ORDER));
	ST_EXPECT(free_pages(p, PCP_MAX_ORDER) == 0 && (p->flags & PG_pcp) &&
			  buddy_pcp_count(0) == batch_pages(PCP_MAX_ORDER),
		  "order-%u free not on the list: flags 0x%lx, %lu pages listed", PCP_MAX_ORDER,
		  p->flags, buddy_pcp_count(0));
	host_console_clear();
	ST_EXPECT(free_pages(p, PCP_MAX_ORDER) == -EINVAL &&
			  host_console_contains("on a CPU's page list"),
		  "double free of a listed order-%u block not refused", PCP_MAX_ORDER);
	host_console_clear();
	ST_EXPECT(free_pages(p + 1, 0) == -EINVAL && host_console_contains("not allocated"),
		  "free of a page inside a listed order-%u block not refused", PCP_MAX_ORDER);
	host_console_clear();
	ST_EXPECT(free_pages(p, 1) == -EINVAL && host_console_contains("on a CPU's page list"),
		  "free with a wrong order of a listed block not refused");
	ST_EXPECT(buddy_check() == 0, "buddy_check failed with an order-%u block listed",
		  PCP_MAX_ORDER);
	if (pcp_pages_match("with an order-3 block listed"))
		return -1;

	/* A page waiting on CPU 5's list, freed again from CPU 0. */
	host_set_cpu(5);
	p = alloc_pages(0);
	ST_EXPECT(p && free_pages(p, 0) == 0 && buddy_pcp_count(5) >= 1, "CPU 5 list empty");
	host_set_cpu(0);
	host_console_clear();
	ST_EXPECT(free_pages(p, 0) == -EINVAL, "double free from another CPU accepted");
	ST_EXPECT(host_console_contains("double free (page is already free, on a CPU's page list)"),
		  "no report of the double free");
	ST_EXPECT(buddy_check() == 0, "buddy_check failed with pages on two lists");
	drained_stats();
	ST_EXPECT(buddy_pcp_count(0) == 0 && buddy_pcp_count(5) == 0, "drain_all_pages missed one");
	return pcp_pages_match("after drain_all_pages");
}

/*
 * Run body on a fresh 16384-page arena (batch 16, high 125 at either page
 * size), then restore. One node whatever host_nodes is: the marks are sized
 * from one zone's pages.
 */
static int on_small_zone(int (*body)(void))
{
	struct host_mm_saved saved;
	int ret;

	host_mm_save(&saved);
	host_mm_setup_nodes(16384 * PAGE_SIZE, 1);
	ret = body();
	host_mm_restore(&saved);
	return ret;
}

SELFTEST_HOST(buddy_host_pcp_marks)
{
	return on_small_zone(marks_body);
}

/* A bit no PG_ flag has. */
#define STRAY_BIT	(PG_pcp << 1)

/*
 * stray_bit_caught - set bit on page (free), expect buddy_check to fail
 * with a report containing msg, clear it, expect buddy_check to pass.
 */
static int stray_bit_caught(struct page *page, unsigned long bit, const char *msg,
			    const char *where)
{
	int ret;

	host_console_clear();
	page->flags |= bit;
	ret = buddy_check();
	page->flags &= ~bit;
	ST_EXPECT(ret == -1 && host_console_contains(msg),
		  "flag 0x%lx on %s (pfn 0x%lx): buddy_check returned %d, no \"%s\"", bit, where,
		  page_to_pfn(page), ret, msg);
	ST_EXPECT(buddy_check() == 0, "buddy_check failed after clearing %s's flag", where);
	return 0;
}

/*
 * A free page's flags word holds the allocator's bit alone (mm/page_alloc/buddy.c: the
 * fast paths store whole words): buddy_check names a stray flag on a listed
 * block's head, inside a listed block, inside a zone block and on a zone
 * block's head; a free of a block whose head holds a bit no PG_ flag has is
 * refused with the flags named, counted, and changes nothing.
 */
SELFTEST_HOST(buddy_host_free_page_flags)
{
	struct buddy_stats before, after;
	struct page *p, *head = NULL;

	buddy_drain_local();
	p = alloc_pages(1);
	ST_EXPECT(p && free_pages(p, 1) == 0 && p->flags == PG_pcp,
		  "order-1 free not listed with PG_pcp alone: flags 0x%lx", p ? p->flags : 0);
	if (stray_bit_caught(p, PG_slab, "block's head has flags", "a listed head") ||
	    stray_bit_caught(p + 1, PG_large, "a free page holds none", "a listed block's page"))
		return -1;
	buddy_drain_local();
	ST_EXPECT(p[1].flags == 0, "drained page keeps flags 0x%lx", p[1].flags);
	if (stray_bit_caught(p + 1, STRAY_BIT, "a free page holds none", "a zone block's page"))
		return -1;
	for (unsigned long pfn = PFN_OFFSET; pfn < max_pfn && !head; pfn++)
		if (pfn_to_page(pfn)->flags & PG_buddy)
			head = pfn_to_page(pfn);
	ST_EXPECT(head && head->flags == PG_buddy, "no zone block head with PG_buddy alone");
	if (stray_bit_caught(head, PG_slab, "block's head has flags", "a zone block's head"))
		return -1;

	p = alloc_pages(0);
	ST_EXPECT(p, "alloc_pages(0) failed");
	buddy_read_stats(&before);
	host_console_clear();
	p->flags |= STRAY_BIT;
	ST_EXPECT(free_pages(p, 0) == -EINVAL && host_console_contains("unknown bits") &&
			  host_console_contains("unknown 0x40"),
		  "free of a page with flags 0x%lx not refused as corrupt", p->flags);
	buddy_read_stats(&after);
	ST_EXPECT(p->flags == (PG_head | STRAY_BIT) && after.bad_frees == before.bad_frees + 1 &&
			  after.free_pages == before.free_pages,
		  "refused free changed something: flags 0x%lx, bad_frees %lu -> %lu", p->flags,
		  before.bad_frees, after.bad_frees);
	p->flags &= ~STRAY_BIT;
	ST_EXPECT(free_pages(p, 0) == 0 && buddy_check() == 0, "free after the refusal failed");
	return 0;
}

/*
 * Drains gather blocks into runs (mm/page_alloc/buddy_pcp.c, drain_list): blocks freed
 * in address order, in reverse, odd ones then even ones, and shuffled must
 * all leave the lists and the zone consistent (buddy_check, the PG_pcp
 * pages against the counts) while the frees go over the high mark, and
 * merge back into exactly the zone's starting blocks once drained.
 */
static int drain_orders_body(void)
{
	static const char *const pattern_names[] = { "ascending", "descending", "odd then even",
						     "shuffled" };
	struct buddy_stats before = drained_stats(), after;

	for (unsigned int o = 0; o <= PCP_MAX_ORDER; o++) {
		unsigned long n = 3 * node_zones[0].pcp_high / (1UL << o) + 5;
		struct page **held = calloc(n, sizeof(*held));

		ST_EXPECT(held, "calloc failed");
		for (unsigned int pat = 0; pat < 4; pat++) {
			unsigned long seed = 12345 + o * 7 + pat, got = 0;

			while (got < n && (held[got] = alloc_pages(o)) != NULL)
				got++;
			ST_EXPECT(got == n, "order %u: %lu of %lu blocks", o, got, n);
			if (pat == 1) {
				for (unsigned long i = 0; i < got / 2; i++) {
					struct page *t = held[i];

					held[i] = held[got - 1 - i];
					held[got - 1 - i] = t;
				}
			} else if (pat == 2) {
				struct page **tmp = calloc(got, sizeof(*tmp));
				unsigned long k = 0;

				ST_EXPECT(tmp, "calloc failed");
				for (unsigned long i = 1; i < got; i += 2)
					tmp[k++] = held[i];
				for (unsigned long i = 0; i < got; i += 2)
					tmp[k++] = held[i];
				memcpy(held, tmp, got * sizeof(*tmp));
				free(tmp);
			} else if (pat == 3) {
				for (unsigned long i = got - 1; i > 0; i--) {
					unsigned long j;
					struct page *t;

					seed = seed * 6364136223846793005UL + 1442695040888963407UL;
					j = (seed >> 33) % (i + 1);
					t = held[i];
					held[i] = held[j];
					held[j] = t;
				}
			}
			for (unsigned long i = 0; i < got; i++)
				ST_EXPECT(free_pages(held[i], o) == 0, "order %u %s: free %lu failed", o,
					  pattern_names[pat], i);
			ST_EXPECT(buddy_check() == 0, "order %u %s: buddy_check failed", o,
				  pattern_names[pat]);
			if (pcp_pages_match(pattern_names[pat]))
				return -1;
			after = drained_stats();
			for (unsigned int k = 0; k <= MAX_ORDER; k++)
				ST_EXPECT(after.nr_free[k] == before.nr_free[k],
					  "order %u %s: %lu free order-%u blocks after the drain, %lu "
					  "before", o, pattern_names[pat], after.nr_free[k], k,
					  before.nr_free[k]);
		}
		free(held);
	}
	return 0;
}

SELFTEST_HOST(buddy_host_pcp_drain_orders)
{
	return on_small_zone(drain_orders_body);
}

#define MAX_HEADS	4

/*
 * fill_and_free - as CPU cpu, hold every free page, then free them all, the
 * first pages of the blocks at heads[] last: those stay on cpu's list and
 * keep their blocks from merging back in the zone.
 */
static int fill_and_free(unsigned int cpu, const unsigned long *heads, unsigned int nheads)
{
	unsigned long cap = nr_free_pages(), n = 0;
	void **held = calloc(cap + 1, sizeof(*held));
	void *last[MAX_HEADS];
	unsigned int nlast = 0;

	ST_EXPECT(held, "calloc failed");
	host_set_cpu(cpu);
	while (n < cap + 1 && (held[n] = get_free_pages(0)) != NULL)
		n++;
	for (unsigned long i = 0; i < n; i++) {
		unsigned long pfn = VIRT_TO_PHYS(held[i]) >> PAGE_SHIFT;
		bool head = false;

		for (unsigned int k = 0; k < nheads; k++)
			head |= heads[k] == pfn;
		if (head)
			last[nlast++] = held[i];
		else
			free_pages_addr(held[i], 0);
	}
	for (unsigned int k = 0; k < nlast; k++)
		free_pages_addr(last[k], 0);
	host_set_cpu(0);
	free(held);
	ST_EXPECT(n == cap && nlast == nheads, "held %lu of %lu pages, %u of %u heads", n, cap,
		  nlast, nheads);
	return 0;
}

static int short_body(void)
{
	struct buddy_stats st = drained_stats();
	unsigned long heads[MAX_HEADS];
	unsigned int top = MAX_ORDER, nheads = 0;
	struct page *p;

	while (top > 0 && !st.nr_free[top])
		top--;
	for (unsigned long pfn = 0; pfn < max_pfn && nheads < MAX_HEADS; pfn++)
		if ((pfn_to_page(pfn)->flags & PG_buddy) && pfn_to_page(pfn)->order == top)
			heads[nheads++] = pfn;
	ST_EXPECT(nheads == st.nr_free[top] && nheads + node_zones[0].pcp_batch <=
						       node_zones[0].pcp_high + 1,
		  "%u order-%u blocks: too many to pin", nheads, top);
	/* Pages on this CPU's list split every top block: the request drains them. */
	if (fill_and_free(0, heads, nheads))
		return -1;
	buddy_read_stats(&st);
	ST_EXPECT(buddy_pcp_count(0) >= nheads && st.nr_free[top] == 0,
		  "setup: %lu on the list, %lu order-%u blocks", buddy_pcp_count(0),
		  st.nr_free[top], top);
	p = alloc_pages(top);
	ST_EXPECT(p != NULL && buddy_pcp_count(0) == 0, "order %u not served after draining", top);
	ST_EXPECT(free_pages(p, top) == 0, "free failed");

	/* The same on CPU 3's list: out of this CPU's reach until drained there. */
	if (fill_and_free(3, heads, nheads))
		return -1;
	ST_EXPECT(buddy_pcp_count(3) >= nheads, "not on CPU 3's list");
	ST_EXPECT(alloc_pages(top) == NULL, "order %u served with CPU 3 holding pages", top);
	drain_all_pages();
	p = alloc_pages(top);
	ST_EXPECT(p != NULL && free_pages(p, top) == 0, "order %u failed after drain_all_pages",
		  top);
	return buddy_check() ? selftest_fail("buddy_check failed") : pcp_pages_match("end");
}

SELFTEST_HOST(buddy_host_pcp_memory_short)
{
	struct host_mm_saved saved;
	int ret;

	host_mm_save(&saved);
	host_mm_setup_nodes(8UL << 20, 1);	/* one zone: its top blocks against its marks */
	ret = short_body();
	host_mm_restore(&saved);
	return ret;
}

/* A one-producer, one-consumer ring of pages between two threads. */
struct ring {
	struct page *slot[RING_SLOTS];
	unsigned long head;	/* written by the producer (release) */
	unsigned long tail;	/* written by the consumer (release) */
};

struct pcp_worker {
	unsigned int cpu;
	struct ring *out, *in;
	pthread_barrier_t *done;
	unsigned long allocs, frees, passed, bad;
};

static bool ring_put(struct ring *r, struct page *p)
{
	unsigned long head = r->head;

	if (head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) == RING_SLOTS)
		return false;
	r->slot[head % RING_SLOTS] = p;
	__atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
	return true;
}

static struct page *ring_get(struct ring *r)
{
	unsigned long tail = r->tail;
	struct page *p;

	if (tail == __atomic_load_n(&r->head, __ATOMIC_ACQUIRE))
		return NULL;
	p = r->slot[tail % RING_SLOTS];
	__atomic_store_n(&r->tail, tail + 1, __ATOMIC_RELEASE);
	return p;
}

/* Free a page from another thread after checking the tag its owner wrote. */
static void free_remote(struct pcp_worker *w, struct page *p)
{
	unsigned long tag = *(unsigned long *)page_address(p);

	w->bad += (tag >> 32) >= PCP_THREADS + 1 || (uint32_t)tag != page_to_pfn(p);
	w->bad += free_pages(p, p->order) != 0;
	w->frees++;
}

static void *pcp_worker_fn(void *arg)
{
	struct pcp_worker *w = arg;
	uint64_t seed = 0x9e3779b97f4a7c15ULL * w->cpu;
	struct page *held[32];
	unsigned int n = 0;
	struct page *p;

	host_set_cpu(w->cpu);
	for (unsigned long i = 0; i < PCP_OPS; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		if (n < ARRAY_SIZE(held) && (n == 0 || seed % 3)) {
			unsigned int o = seed % 8 == 0 ? 1 + (seed >> 8) % 2 : 0;

			p = alloc_pages(o);
			if (!p)
				continue;
			*(unsigned long *)page_address(p) = (unsigned long)w->cpu << 32 |
							    page_to_pfn(p);
			held[n++] = p;
			w->allocs++;
		} else if (seed % 4 == 0 && ring_put(w->out, held[n - 1])) {
			n--;
			w->passed++;
		} else {
			free_remote(w, held[--n]);
		}
		while ((p = ring_get(w->in)) != NULL)
			free_remote(w, p);
		if (i % 1024 == 0)
			w->bad += buddy_check() != 0;
	}
	while (n)
		free_remote(w, held[--n]);
	pthread_barrier_wait(w->done);	/* no more pages enter the rings */
	while ((p = ring_get(w->in)) != NULL)
		free_remote(w, p);
	buddy_drain_local();
	return NULL;
}

/* Threads as CPUs pass pages through rings: freed on another CPU's list than they came from. */
SELFTEST_HOST(buddy_host_pcp_cross_cpu_frees)
{
	static struct ring rings[PCP_THREADS];
	struct pcp_worker w[PCP_THREADS];
	struct buddy_stats start = drained_stats(), end;
	unsigned long allocs = 0, frees = 0, passed = 0;
	pthread_barrier_t done;
	pthread_t t[PCP_THREADS];

	pthread_barrier_init(&done, NULL, PCP_THREADS);
	for (unsigned int i = 0; i < PCP_THREADS; i++) {
		rings[i] = (struct ring){ .head = 0 };
		w[i] = (struct pcp_worker){ .cpu = i + 1, .out = &rings[i],
					    .in = &rings[(i + PCP_THREADS - 1) % PCP_THREADS],
					    .done = &done };
	}
	for (unsigned int i = 0; i < PCP_THREADS; i++)
		ST_EXPECT(pthread_create(&t[i], NULL, pcp_worker_fn, &w[i]) == 0, "pthread_create");
	for (unsigned int i = 0; i < PCP_THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&done);
	for (unsigned int i = 0; i < PCP_THREADS; i++) {
		ST_EXPECT(w[i].bad == 0, "CPU %u saw %lu bad pages, frees or checks", w[i].cpu,
			  w[i].bad);
		allocs += w[i].allocs;
		frees += w[i].frees;
		passed += w[i].passed;
	}
	ST_EXPECT(allocs == frees && passed > PCP_OPS / 100, "%lu allocs, %lu frees, %lu passed",
		  allocs, frees, passed);
	end = drained_stats();
	ST_EXPECT(end.allocs - start.allocs == allocs && end.frees - start.frees == frees,
		  "event counters lost updates");
	ST_EXPECT(end.free_pages == start.free_pages && nr_free_pages() == start.free_pages,
		  "%lu pages free, %lu before", end.free_pages, start.free_pages);
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		ST_EXPECT(end.nr_free[o] == start.nr_free[o], "order %u not back", o);
	printk("pcp threads: %lu pages allocated and freed, %lu freed by another CPU\n", allocs,
	       passed);
	return buddy_check() ? selftest_fail("buddy_check failed") : pcp_pages_match("end");
}
