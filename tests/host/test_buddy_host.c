/*
 * test_buddy_host.c - host-only buddy and mem_map tests: they re-initialise
 * mm/ on private arenas (saving and restoring the default one around
 * themselves), check mm_init() against an independent model of the layout,
 * run a long random alloc/free sequence with a full check after every step,
 * exhaust memory page by page, and hammer the lock from two threads.
 */
#include "host_shim.h"
#include "kernel/errno.h"
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include "mm/buddy.h"
#include "mm/mm.h"
#include "mm/page_alloc/buddy_internal.h"
#include <asm/processor.h>
#include <pthread.h>
#include <stdlib.h>

#define SMALL_ARENA_PAGES	1024UL	/* 4 MiB at 4K, 64 MiB at 64K: cheap to scan */

/* snap - this CPU's page list drained into the zone, then the counters. */
static struct buddy_stats snap(void)
{
	struct buddy_stats st;

	buddy_drain_local();
	buddy_read_stats(&st);
	return st;
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* on_private_arena - run body on a fresh default-layout arena, then restore the old state. */
static int on_private_arena(size_t bytes, int (*body)(void))
{
	struct host_mm_saved saved;
	int ret;

	host_mm_save(&saved);
	host_mm_setup(bytes);
	ret = body();
	host_mm_restore(&saved);
	if (!ret && buddy_check())
		ret = selftest_fail("buddy_check failed after restoring the default arena");
	return ret;
}

static bool covered(const struct mem_range *r, unsigned int n, uint64_t start, uint64_t end)
{
	bool moved = true;

	while (start < end && moved) {
		moved = false;
		for (unsigned int i = 0; i < n; i++) {
			if (r[i].start <= start && start < r[i].end) {
				start = r[i].end;
				moved = true;
			}
		}
	}
	return start >= end;
}

static bool touched(const struct mem_range *r, unsigned int n, uint64_t start, uint64_t end)
{
	for (unsigned int i = 0; i < n; i++)
		if (r[i].start < end && r[i].end > start && r[i].end > r[i].start)
			return true;
	return false;
}

/* Greedy largest aligned blocks of [s, e): how a fully coalesced allocator holds a run. */
static void decompose(unsigned long s, unsigned long e, unsigned long *nr)
{
	while (s < e) {
		unsigned int o = MAX_ORDER;

		while (o && (!IS_ALIGNED(s, 1UL << o) || s + (1UL << o) > e))
			o--;
		nr[o]++;
		s += 1UL << o;
	}
}

/*
 * verify_layout - check what mm_init() built for host_arena against a model:
 * a page is managed iff wholly inside RAM and touching no reserved range and
 * not mem_map; the free lists hold the greedy decomposition of each run (a
 * run ends where the node changes, host_nodes > 1).
 */
static int verify_layout(const char *name)
{
	const struct host_arena *a = &host_arena;
	struct mem_range map = { VIRT_TO_PHYS(mem_map), 0 };
	unsigned long nr[NR_ORDERS] = { 0 }, managed = 0, run = 0;
	struct buddy_stats st = snap();
	uint64_t top = 0;

	map.end = map.start + ALIGN_UP(max_pfn * sizeof(struct page), PAGE_SIZE);
	for (unsigned int i = 0; i < a->n_avail; i++)
		top = MAX(top, a->avail[i].end);
	ST_EXPECT(max_pfn == DIV_ROUND_UP(top, PAGE_SIZE), "%s: max_pfn 0x%lx for RAM top 0x%lx",
		  name, max_pfn, (unsigned long)top);
	ST_EXPECT(IS_ALIGNED(map.start, PAGE_SIZE) &&
			  covered(a->avail, a->n_avail, map.start, map.end) &&
			  !touched(a->reserved, a->n_reserved, map.start, map.end),
		  "%s: mem_map at phys 0x%lx is not in free RAM", name, (unsigned long)map.start);
	for (unsigned long pfn = 0; pfn <= max_pfn; pfn++) {
		uint64_t s = (uint64_t)pfn << PAGE_SHIFT, e = s + PAGE_SIZE;
		bool m = pfn < max_pfn && covered(a->avail, a->n_avail, s, e) &&
			 !touched(a->reserved, a->n_reserved, s, e) && !touched(&map, 1, s, e);

		if (pfn < max_pfn)
			ST_EXPECT(m == !(pfn_to_page(pfn)->flags & PG_reserved),
				  "%s: pfn 0x%lx should be %s", name, pfn,
				  m ? "managed" : "reserved");
		if (m && run && pfn_to_page(pfn)->nid != pfn_to_page(run - 1)->nid) {
			decompose(run - 1, pfn, nr);	/* a node boundary ends a run */
			run = 0;
		}
		if (m && !run)
			run = pfn + 1;	/* run start + 1, so 0 means "not in a run" */
		if (!m && run) {
			decompose(run - 1, pfn, nr);
			run = 0;
		}
		managed += m;
	}
	ST_EXPECT(managed == st.managed_pages && managed == st.free_pages,
		  "%s: %lu pages managed by the model, stats say %lu managed %lu free", name,
		  managed, st.managed_pages, st.free_pages);
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		ST_EXPECT(nr[o] == st.nr_free[o], "%s: order %u has %lu blocks, model %lu",
			  name, o, st.nr_free[o], nr[o]);
	ST_EXPECT(buddy_check() == 0, "%s: buddy_check failed", name);
	return 0;
}

static int layouts_body(void)
{
	const uint64_t b = HOST_PHYS_BASE, mb = 1UL << 20;
	const struct mem_range r_tiny[] = { { b + mb, b + mb + 3 * PAGE_SIZE + 1 } };
	const struct mem_range a_tiny[] = {
		{ b + 10, b + PAGE_SIZE + 10 },	/* no whole page: no room for mem_map */
		{ b + mb, b + 8 * mb },
	};
	const struct mem_range a_odd[] = {	/* unaligned, touching, out of order */
		{ b + 3 * mb + 5, b + 6 * mb - 7 },
		{ b + 100, b + 3 * mb + 5 },
	};
	const struct mem_range r_odd[] = { { b + 2 * mb - 1, b + 2 * mb + 1 }, { 0, b } };
	const struct mem_range a_zero[] = { { 0, 8 * mb } };

	if (verify_layout("default 8 MiB"))	/* on_private_arena set it up */
		return -1;
	host_mm_setup_layout(8 * mb, b, a_tiny, 2, r_tiny, 1);
	ST_EXPECT(VIRT_TO_PHYS(mem_map) == ALIGN_UP(r_tiny[0].end, PAGE_SIZE),
		  "mem_map at 0x%lx did not skip the tiny range and the reserved one",
		  (unsigned long)VIRT_TO_PHYS(mem_map));
	if (verify_layout("tiny first range"))
		return -1;
	host_mm_setup_layout(8 * mb, b, a_odd, 2, r_odd, 2);
	if (verify_layout("unaligned touching ranges"))
		return -1;
	host_mm_setup_layout(8 * mb, 0, a_zero, 1, NULL, 0);
	ST_EXPECT(VIRT_TO_PHYS(mem_map) == 0, "mem_map not at phys 0 with nothing reserved");
	return verify_layout("RAM from phys 0, nothing reserved");
}

SELFTEST_HOST(buddy_host_memmap_layouts)
{
	return on_private_arena(8UL << 20, layouts_body);
}

static int reinit_body(void)
{
	struct buddy_stats first = snap(), st;
	struct page *p = alloc_pages(3), *q = alloc_pages(0);

	ST_EXPECT(p && q && free_pages(p, 2) == -EINVAL, "alloc or bad free misbehaved");
	ST_EXPECT(free_pages(q, 0) == 0 && buddy_pcp_count(0) > 0, "no page on CPU 0's list");
	mm_init(host_arena.avail, host_arena.n_avail, host_arena.reserved, host_arena.n_reserved);
	host_numa_setup(host_arena.nodes);	/* one zone again: the arena's nodes, as at boot */
	st = snap();
	ST_EXPECT(st.allocs == 0 && st.frees == 0 && st.bad_frees == 0 && st.failed_allocs == 0 &&
			  st.pcp_pages == 0, "re-init kept event counters or CPU lists");
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		ST_EXPECT(st.nr_free[o] == first.nr_free[o], "re-init: order %u differs", o);
	ST_EXPECT(st.free_pages == first.free_pages && st.managed_pages == first.managed_pages,
		  "re-init: counts differ");
	return verify_layout("re-initialised");
}

SELFTEST_HOST(buddy_host_reinit)
{
	return on_private_arena(4UL << 20, reinit_body);
}

SELFTEST_HOST(buddy_host_save_restore)
{
	struct buddy_stats start = snap(), held, now;
	struct page *p0 = alloc_pages(0), *p3 = alloc_pages(3);

	ST_EXPECT(p0 && p3, "allocations on the default arena failed");
	held = snap();
	ST_EXPECT(on_private_arena(4UL << 20, reinit_body) == 0, "private arena run failed");
	now = snap();
	ST_EXPECT(now.free_pages == held.free_pages && now.allocs == held.allocs &&
			  now.nr_free[0] == held.nr_free[0], "restore lost the counters");
	ST_EXPECT((p0->flags & PG_head) && (p3->flags & PG_head) && p3->order == 3,
		  "blocks held across the save are no longer allocated");
	ST_EXPECT(free_pages(p0, 0) == 0 && free_pages(p3, 3) == 0, "frees after restore failed");
	now = snap();
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		ST_EXPECT(now.nr_free[o] == start.nr_free[o], "order %u not back", o);
	return buddy_check() ? selftest_fail("buddy_check failed") : 0;
}

/* The memory line, then one buddyinfo line per node (zones drained: exact). */
SELFTEST_HOST(buddy_host_report_format)
{
	char want[256 * MAX_NUMNODES];
	size_t n;

	drain_all_pages();
	n = (size_t)snprintf(want, sizeof(want), "Memory: %lu kB available\n",
			     nr_free_pages() * (PAGE_SIZE / 1024));
	for (unsigned int nid = 0; nid < numa_num_nodes(); nid++) {
		n += (size_t)snprintf(want + n, sizeof(want) - n, "Node %u, zone   Normal", nid);
		for (unsigned int o = 0; o <= MAX_ORDER; o++)
			n += (size_t)snprintf(want + n, sizeof(want) - n, " %6lu",
					      node_zones[nid].nr_free[o]);
		n += (size_t)snprintf(want + n, sizeof(want) - n, "\n");
	}
	host_console_clear();
	mm_report();
	ST_EXPECT(host_console_contains(want), "mm_report did not print:\n%s", want);
	return 0;
}

/* State of the checked random run. */
struct shadow {
	unsigned short *owner;		/* per pfn: live slot + 1, or 0 */
	unsigned long pfn[512];
	unsigned int order[512];
	unsigned int live;
	unsigned long owned;		/* pages in live blocks */
	struct buddy_stats want;	/* the event counters we expect */
};

static unsigned long *block_tail(unsigned long pfn, unsigned int order)
{
	return (unsigned long *)((char *)page_address(pfn_to_page(pfn)) + (PAGE_SIZE << order)) - 1;
}

/* shadow_verify - the allocator against the shadow: counters, ownership, free lists. */
static int shadow_verify(const struct shadow *sh, unsigned long step)
{
	struct buddy_stats snapshot;
	const struct buddy_stats *st = &snapshot;

	buddy_read_stats(&snapshot);
	if (buddy_check())
		return selftest_fail("step %lu: buddy_check failed", step);
	ST_EXPECT(st->allocs == sh->want.allocs && st->frees == sh->want.frees &&
			  st->failed_allocs == sh->want.failed_allocs && st->bad_frees == 0,
		  "step %lu: event counters off", step);
	ST_EXPECT(st->free_pages == st->managed_pages - sh->owned &&
			  nr_free_pages() == st->free_pages,
		  "step %lu: %lu free, expected %lu", step, st->free_pages,
		  st->managed_pages - sh->owned);
	for (unsigned long pfn = 0; pfn < max_pfn; pfn++) {
		const struct page *page = pfn_to_page(pfn);

		if (!(page->flags & (PG_buddy | PG_pcp)))
			continue;
		for (unsigned long i = 0; i < 1UL << page->order; i++)
			ST_EXPECT(!sh->owner[pfn + i],
				  "step %lu: held pfn 0x%lx lies in a free block", step, pfn + i);
		pfn += (1UL << page->order) - 1;
	}
	for (unsigned int k = 0; k < sh->live; k++) {
		const struct page *page = pfn_to_page(sh->pfn[k]);

		ST_EXPECT((page->flags & PG_head) && page->order == sh->order[k],
			  "step %lu: held block at pfn 0x%lx lost its head", step, sh->pfn[k]);
	}
	return 0;
}

static int shadow_alloc(struct shadow *sh, unsigned int order, unsigned long step)
{
	struct page *p = alloc_pages(order);
	unsigned long pfn;
	bool room = false;

	if (!p) {
		struct buddy_stats st;

		/* A refusal first drained this CPU's list: nothing may be left that fits. */
		buddy_read_stats(&st);
		for (unsigned int o = order; o <= MAX_ORDER; o++)
			room |= st.nr_free[o] != 0 || st.pcp_pages != 0;
		ST_EXPECT(!room, "step %lu: order %u refused with a block free", step, order);
		sh->want.failed_allocs++;
		return 0;
	}
	ST_EXPECT(order <= MAX_ORDER, "step %lu: order %u granted", step, order);
	pfn = page_to_pfn(p);
	ST_EXPECT(IS_ALIGNED(pfn, 1UL << order) && pfn + (1UL << order) <= max_pfn,
		  "step %lu: order-%u block at pfn 0x%lx", step, order, pfn);
	for (unsigned long i = 0; i < 1UL << order; i++)
		ST_EXPECT(!sh->owner[pfn + i] && !(p[i].flags & PG_reserved),
			  "step %lu: pfn 0x%lx handed out twice or reserved", step, pfn + i);
	for (unsigned long i = 0; i < 1UL << order; i++)
		sh->owner[pfn + i] = (unsigned short)(sh->live + 1);
	*(unsigned long *)page_address(p) = pfn;
	*block_tail(pfn, order) = ~pfn;
	sh->pfn[sh->live] = pfn;
	sh->order[sh->live++] = order;
	sh->owned += 1UL << order;
	sh->want.allocs++;
	return 0;
}

static int shadow_free(struct shadow *sh, unsigned int k, unsigned long step)
{
	unsigned long pfn = sh->pfn[k];
	unsigned int order = sh->order[k];

	ST_EXPECT(*(unsigned long *)page_address(pfn_to_page(pfn)) == pfn &&
			  *block_tail(pfn, order) == ~pfn,
		  "step %lu: block at pfn 0x%lx was written by someone else", step, pfn);
	ST_EXPECT(free_pages(pfn_to_page(pfn), order) == 0, "step %lu: free failed", step);
	for (unsigned long i = 0; i < 1UL << order; i++)
		sh->owner[pfn + i] = 0;
	sh->owned -= 1UL << order;
	sh->want.frees++;
	if (k != --sh->live) {	/* move the last slot into k */
		sh->pfn[k] = sh->pfn[sh->live];
		sh->order[k] = sh->order[sh->live];
		for (unsigned long i = 0; i < 1UL << sh->order[k]; i++)
			sh->owner[sh->pfn[k] + i] = (unsigned short)(k + 1);
	}
	return 0;
}

static int random_checked_body(void)
{
	static struct shadow sh;
	struct buddy_stats start = snap(), end;
	unsigned long ops = 12000UL * SELFTEST_SCALE;
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	int ret = 0;

	sh = (struct shadow){ .owner = calloc(max_pfn, sizeof(*sh.owner)) };
	ST_EXPECT(sh.owner != NULL, "calloc failed");
	for (unsigned long i = 0; i < ops && !ret; i++) {
		uint64_t r = rng_next(&seed);
		unsigned int fill = (i >> 12) & 1 ? 80 : 190;	/* phases: drain, then fill */

		if (sh.live < ARRAY_SIZE(sh.pfn) && (sh.live == 0 || (r & 0xff) < fill)) {
			unsigned int o = (unsigned int)__builtin_ctzll(r >> 8 | 1ULL << 40);

			if (((r >> 50) & 63) == 0)
				o = MAX_ORDER + 1;	/* never granted */
			ret = shadow_alloc(&sh, MIN(o, (unsigned int)MAX_ORDER + 1), i);
		} else {
			ret = shadow_free(&sh, (unsigned int)((r >> 8) % sh.live), i);
		}
		if (!ret)
			ret = shadow_verify(&sh, i);
	}
	while (!ret && sh.live)
		ret = shadow_free(&sh, sh.live - 1, ops);
	if (!ret)
		ret = shadow_verify(&sh, ops);
	free(sh.owner);
	if (ret)
		return ret;
	end = snap();
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		ST_EXPECT(end.nr_free[o] == start.nr_free[o],
			  "order %u: %lu blocks after freeing all, %lu at the start", o,
			  end.nr_free[o], start.nr_free[o]);
	return 0;
}

SELFTEST_HOST(buddy_host_random_checked)
{
	return on_private_arena(SMALL_ARENA_PAGES * PAGE_SIZE, random_checked_body);
}

static int exhaust_body(void)
{
	struct buddy_stats start = snap(), end;
	unsigned long n = 0, cap = start.free_pages;
	void **held = calloc(cap, sizeof(*held));
	uint64_t seed = 0x1234567;
	unsigned int top = MAX_ORDER;
	struct page *p;
	void *mem;

	ST_EXPECT(held != NULL, "calloc failed");
	while ((mem = get_free_pages(0)) != NULL && n < cap)
		held[n++] = mem;
	ST_EXPECT(mem == NULL && n == start.managed_pages, "%lu order-0 pages of %lu managed", n,
		  start.managed_pages);
	ST_EXPECT(nr_free_pages() == 0 && buddy_check() == 0, "not cleanly exhausted");
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		ST_EXPECT(alloc_pages(o) == NULL, "order %u allocated with nothing free", o);
	for (unsigned long i = n; i > 1; i--) {	/* free in a shuffled order */
		unsigned long j = rng_next(&seed) % i;
		void *t = held[i - 1];

		held[i - 1] = held[j];
		held[j] = t;
	}
	for (unsigned long i = 0; i < n; i++)
		ST_EXPECT(free_pages_addr(held[i], 0) == 0, "free %lu failed", i);
	free(held);
	ST_EXPECT(buddy_check() == 0, "buddy_check failed after freeing all");
	end = snap();
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		ST_EXPECT(end.nr_free[o] == start.nr_free[o], "order %u did not coalesce back", o);
	ST_EXPECT(end.failed_allocs == start.failed_allocs + 2 + MAX_ORDER, "failed_allocs %lu",
		  end.failed_allocs);
	while (top > 0 && !start.nr_free[top])
		top--;
	p = alloc_pages(top);
	ST_EXPECT(p != NULL && free_pages(p, top) == 0,
		  "order %u alloc after recovery failed", top);
	return 0;
}

SELFTEST_HOST(buddy_host_exhaust_order0)
{
	return on_private_arena(SMALL_ARENA_PAGES * PAGE_SIZE, exhaust_body);
}

struct smp_worker {
	unsigned int cpu;
	unsigned long ops, allocs, frees;
	int failed;
};

static void *smp_worker_fn(void *arg)
{
	struct smp_worker *w = arg;
	struct page *held[64];
	unsigned int order[64], n = 0;
	uint64_t seed = 0x51afd7ed558ccdULL * (w->cpu + 1);

	host_set_cpu(w->cpu);
	for (unsigned long i = 0; i < w->ops && !w->failed; i++) {
		uint64_t r = rng_next(&seed);

		if (n < 64 && (n == 0 || (r & 1))) {
			unsigned int o = (unsigned int)((r >> 8) % 4);
			struct page *p = alloc_pages(o);

			if (!p)
				continue;
			*(unsigned long *)page_address(p) = w->cpu;
			held[n] = p;
			order[n++] = o;
			w->allocs++;
		} else {
			unsigned int k = (unsigned int)((r >> 8) % n);

			w->failed |= *(unsigned long *)page_address(held[k]) != w->cpu;
			w->failed |= free_pages(held[k], order[k]) != 0;
			held[k] = held[--n];
			order[k] = order[n];
			w->frees++;
		}
		if ((i & 2047) == 0)
			w->failed |= buddy_check() != 0;
	}
	while (n--) {
		w->failed |= free_pages(held[n], order[n]) != 0;
		w->frees++;
	}
	buddy_drain_local();	/* a CPU drains only its own list */
	return NULL;
}

/* Two threads as two CPUs allocating and freeing at once: the zone lock must hold. */
SELFTEST_HOST(buddy_host_two_cpus)
{
	struct smp_worker w[2] = { { .cpu = 1 }, { .cpu = 2 } };
	struct buddy_stats start = snap(), end;
	pthread_t t[2];

	for (unsigned int i = 0; i < 2; i++) {
		w[i].ops = 5000UL * SELFTEST_SCALE;
		ST_EXPECT(pthread_create(&t[i], NULL, smp_worker_fn, &w[i]) == 0, "pthread_create");
	}
	for (unsigned int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	ST_EXPECT(!w[0].failed && !w[1].failed, "a worker saw a bad block or a failed free");
	end = snap();
	ST_EXPECT(end.allocs - start.allocs == w[0].allocs + w[1].allocs &&
			  end.frees - start.frees == w[0].frees + w[1].frees,
		  "allocs/frees counters lost updates");
	ST_EXPECT(end.pcp_pages == 0, "%lu pages left on CPU lists", end.pcp_pages);
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		ST_EXPECT(end.nr_free[o] == start.nr_free[o], "order %u not back", o);
	return buddy_check() ? selftest_fail("buddy_check failed") : 0;
}
