/*
 * fuzz_null.c - when a NULL from an allocation is a finding (tests/fuzz/fuzz.h).
 *
 * Never when fault injection made it: a call's failure is injected when a
 * failure point is on and (sequential runs) its count of injected failures
 * moved during the call, or (threaded runs, where other CPUs' calls move
 * the counts too) whenever one is on. Otherwise a NULL is a finding when
 *  - a small request (256 bytes or less) fails with more than an eighth of
 *    the pages free and a free block of the order one slab or block of it
 *    needs (need_order, from the caller: its slab's or block's order);
 *  - a slab-sized request (a kmalloc served by a cache, up to the largest
 *    kmalloc cache; a kmem_cache_alloc of objects no larger) fails with
 *    more than half of the pages free and a free block that holds one
 *    object of its cache, guards and alignment included (objsize from the
 *    cache's slabinfo row): NULL must mean memory is out, not that the
 *    allocator's preferred slab size is not free.
 * Threaded runs check blocks of order 0 only: the zone is read after the
 * failure, and with other CPUs freeing meanwhile a block of order 1 or more
 * can form by merging in between (seen in 8 of 60 threaded 10-s runs at 64K
 * on the 24 MB arena, always a single such block, against 0 in 80
 * sequential runs of 3-4 million operations, where the reading is exact).
 * The report names the zone's free blocks per order and the pages on CPU
 * lists (which the failing CPU cannot reach when they are another CPU's:
 * mm/page_alloc/buddy_pcp.c).
 *
 * Fragmenting (fz_frag_churn, at checkpoints): the operations alone seldom
 * leave most memory free in small blocks only (no slab-sized NULL at all in
 * 4K runs of millions of operations), so now and then, for 1-4 rounds,
 * the fuzzer holds one page of every aligned group of 2 << k (k = 0..2)
 * of the free pages: the rest is free in blocks of order k at most, 1/2,
 * 3/4 or 7/8 of what was free. Each held page is booked in the shadow map
 * and carries its address, checked when it is freed.
 */
#include "tests/fuzz/fuzz_int.h"
#include "mm/buddy.h"
#include "mm/fault_inject.h"
#include "mm/slab.h"
#include "mm/slab_impl.h"
#include <stdio.h>
#include <stdlib.h>

/* fz_faults_on: see fuzz_int.h. */
bool fz_faults_on(void)
{
	return __atomic_load_n(&fail_page_alloc.enabled, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&failslab.enabled, __ATOMIC_RELAXED);
}

/* fz_inject_mark: see fuzz_int.h. */
void fz_inject_mark(struct fz_inject *m)
{
	m->page = __atomic_load_n(&fail_page_alloc.injected, __ATOMIC_RELAXED);
	m->slab = __atomic_load_n(&failslab.injected, __ATOMIC_RELAXED);
}

/* fz_injected_since: see fuzz_int.h. */
bool fz_injected_since(const struct fz_inject *m, bool alone)
{
	if (!fz_faults_on())
		return false;
	return (fz.cfg.threads && !alone) ||
	       m->page != __atomic_load_n(&fail_page_alloc.injected, __ATOMIC_RELAXED) ||
	       m->slab != __atomic_load_n(&failslab.injected, __ATOMIC_RELAXED);
}

/* Field 'field' (1: name) of the cache's slabinfo row, or 0. */
static unsigned long slabinfo_field(struct kmem_cache *cachep, unsigned int field)
{
	char row[256], *p = row, *end;
	unsigned long v = 0;

	slabinfo_line(cachep, row, sizeof(row));
	for (unsigned int f = 1; f <= field; f++) {
		while (*p == ' ')
			p++;
		v = strtoul(p, &end, 10);
		while (*p && *p != ' ')
			p++;
		if (f == field && end == p)
			return v;
	}
	return 0;
}

/* fz_cache_slab_order: see fuzz_int.h. */
unsigned int fz_cache_slab_order(struct kmem_cache *cachep)
{
	unsigned long pages = slabinfo_field(cachep, 6);

	return get_order((pages ? pages : 1) * PAGE_SIZE);
}

/*
 * The order of the smallest block one object of cachep fits in: slabinfo's
 * objsize, and under SLAB the red zone a debug cache with a large alignment
 * keeps past its last slot (its 'tail', which objsize leaves out).
 */
static unsigned int object_order(struct kmem_cache *cachep)
{
	unsigned long need = slabinfo_field(cachep, 4);

#ifdef CONFIG_ALLOC_SLAB
	need += cachep->tail;
#endif
	return get_order(need);
}

/* fz_got_null: see fuzz_int.h and above. */
void fz_got_null(struct fz_cpu *c, const char *what, size_t size, unsigned int need_order,
		 struct kmem_cache *slab, const struct fz_inject *m)
{
	struct buddy_stats st;
	char orders[22 * NR_ORDERS + 1];	/* " %lu" per order */
	unsigned int o, at = 0, obj_order = slab ? object_order(slab) : 0;
	bool big_enough = false, holds_one = false, small = size <= 256;
	unsigned long free;

	c->alloc_nulls++;
	if (fz_injected_since(m, false))
		return;
	if (fz.cfg.threads) {
		small &= need_order == 0;
		slab = obj_order ? NULL : slab;
	}
	if (!small && !slab)
		return;
	buddy_read_stats(&st);
	for (o = 0; o < NR_ORDERS; o++) {
		big_enough |= o >= need_order && st.nr_free[o];
		holds_one |= o >= obj_order && st.nr_free[o];
		at += (unsigned int)snprintf(orders + at, sizeof(orders) - at, " %lu", st.nr_free[o]);
	}
	free = nr_free_pages();
	if (small && free > st.managed_pages / 8 && big_enough)
		fz_finding(c, "%s(%zu) returned NULL with %lu of %lu pages free (%lu on CPU lists; "
			   "zone's free blocks by order:%s; need order %u)", what, size, free,
			   st.managed_pages, st.pcp_pages, orders, need_order);
	else if (slab && free > st.managed_pages / 2 && holds_one)
		fz_finding(c, "%s(%zu) from %s returned NULL with %lu of %lu pages free, more than "
			   "half (%lu on CPU lists; zone's free blocks by order:%s; one object "
			   "fits order %u)", what, size, kmem_cache_name(slab), free,
			   st.managed_pages, st.pcp_pages, orders, obj_order);
}

/* A page the fragmenter holds: the next one, and a word naming this one. */
struct fz_frag_page {
	struct fz_frag_page *next;
	uintptr_t self;
};

/* Give back every page the fragmenter holds, checking each. */
void fz_frag_release(void)
{
	while (fz.frag) {
		struct fz_frag_page *p = fz.frag;

		fz.frag = p->next;
		if (p->self != ((uintptr_t)p ^ 0xf4a9f4a9f4a9f4a9ULL))
			fz_finding(NULL, "page %p held by the fragmenter was written: 0x%lx",
				   (void *)p, (unsigned long)p->self);
		fz_shadow_clear(p, PAGE_SIZE);
		if (free_pages_addr(p, 0) != 0)
			fz_finding(NULL, "free_pages_addr(%p, 0) of a fragmenter's page failed",
				   (void *)p);
	}
	fz.frag_rounds = 0;
}

/* Take every free page, keep one of each aligned group of 2 << k, free the rest. */
static void frag_start(unsigned int k)
{
	struct fz_frag_page *all = NULL, *p;

	drain_all_pages();
	while ((p = get_free_pages(0)) != NULL) {
		p->next = all;
		all = p;
	}
	while (all) {
		p = all;
		all = p->next;
		if (page_to_pfn(virt_to_page(p)) % (2UL << k) || fz.stop) {
			free_pages_addr(p, 0);
			continue;
		}
		if (!fz_in_arena(p, PAGE_SIZE) || !fz_shadow_mark(p, PAGE_SIZE))
			fz_finding(NULL, "get_free_pages(0) = %p: outside the arena or over a live "
				   "allocation", (void *)p);
		p->self = (uintptr_t)p ^ 0xf4a9f4a9f4a9f4a9ULL;
		p->next = fz.frag;
		fz.frag = p;
	}
	buddy_drain_local();
}

/* fz_frag_churn: see fuzz_int.h and above. */
void fz_frag_churn(struct fz_src *s)
{
	if (fz.frag_rounds) {
		if (--fz.frag_rounds == 0)
			fz_frag_release();
	} else if (fz_below(s, 8) == 0) {
		frag_start((unsigned int)fz_below(s, 3));
		fz.frag_rounds = 1 + (unsigned int)fz_below(s, 4);
	}
}
