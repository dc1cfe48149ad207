/*
 * fuzz.c - the fuzzer's operations, rounds and checkpoints (design in
 * tests/fuzz/fuzz.h).
 */
#include "tests/fuzz/fuzz_int.h"
#include "host_shim.h"
#include "kernel/errno.h"
#include "kernel/numa.h"
#include "mm/buddy.h"
#include "mm/fault_inject.h"
#include "mm/slab.h"
#include "mm/slab_impl.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Constructors: one per cache slot, writing that slot's pattern over its size. */
static void ctor_fill(unsigned int slot, void *p)
{
	fz_fill(p, fz.cache[slot].size, FZ_CTOR_ID(slot));
}

#define FZ_CTOR(n) static void fz_ctor_##n(void *p) { ctor_fill(n, p); }
FZ_CTOR(0) FZ_CTOR(1) FZ_CTOR(2) FZ_CTOR(3) FZ_CTOR(4) FZ_CTOR(5)
FZ_CTOR(6) FZ_CTOR(7) FZ_CTOR(8) FZ_CTOR(9) FZ_CTOR(10) FZ_CTOR(11)
static void (*const fz_ctors[FZ_CACHES])(void *) = {
	fz_ctor_0, fz_ctor_1, fz_ctor_2, fz_ctor_3, fz_ctor_4, fz_ctor_5,
	fz_ctor_6, fz_ctor_7, fz_ctor_8, fz_ctor_9, fz_ctor_10, fz_ctor_11,
};

static const char *kind_name(const struct fz_obj *o)
{
	static const char *const names[] = { "kmalloc", "cache object", "pages", "pages (addr)" };

	return names[o->kind];
}

/* Count o (d = 1) or uncount it (d = -1) among c's big and all CPUs' huge allocations. */
static void book_size(struct fz_cpu *c, const struct fz_obj *o, int d)
{
	if (o->len > FZ_BIG)
		c->nbig += d;
	if (o->len > FZ_HUGE)
		__atomic_add_fetch(&fz.nhuge, d, __ATOMIC_RELAXED);
}

/*
 * Take a new allocation into the books: in the arena, aligned, overlapping
 * nothing live; then fill it with its pattern and keep it on c's list.
 */
static void track(struct fz_cpu *c, struct fz_obj *o, size_t align)
{
	o->owner = (uint8_t)c->cpu;
	o->id = (c->cpu << 27) + (c->next_id++ & ((1U << 27) - 1));
	if (!fz_in_arena(o->p, o->len)) {
		fz_finding(c, "%s %p (%zu bytes) outside the arena", kind_name(o), o->p, o->len);
		return;
	}
	if (align > 1 && (uintptr_t)o->p % align) {
		fz_finding(c, "%s %p (%zu bytes) not aligned to %zu", kind_name(o), o->p, o->len,
			   align);
		return;
	}
	if (!fz_shadow_mark(o->p, o->len)) {
		fz_finding(c, "%s %p (%zu bytes) overlaps a live allocation", kind_name(o), o->p,
			   o->len);
		return;
	}
	fz_fill(o->p, o->len, o->id);
	c->live[c->nlive++] = *o;
	book_size(c, o, 1);
}

/* Check o's pattern and take it out of the shadow map; false after a finding. */
static bool untrack(struct fz_cpu *c, const struct fz_obj *o, const char *why)
{
	size_t at = fz_check(o->p, o->len, o->id);

	if (at != FZ_INTACT) {
		fz_finding(c, "%s %p (%zu bytes, allocated on CPU %u) overwritten at offset %zu "
			   "(byte 0x%02x) before %s", kind_name(o), o->p, o->len, o->owner, at,
			   o->p[at], why);
		return false;
	}
	if (!fz_shadow_clear(o->p, o->len)) {
		fz_finding(c, "%s %p (%zu bytes): its shadow bits were cleared by someone else",
			   kind_name(o), o->p, o->len);
		return false;
	}
	return true;
}

/* Free o (already off c's list) on the running CPU. */
static void release(struct fz_cpu *c, const struct fz_obj *o)
{
	struct fz_cache *fc;
	int rc;

	if (!untrack(c, o, "its free"))
		return;
	if (o->owner != c->cpu)
		c->remote_frees++;
	switch (o->kind) {
	case FZ_KMALLOC:
		kfree(o->p);
		break;
	case FZ_CACHE:
		fc = &fz.cache[o->slot];
		if (fc->ctor)	/* objects go back in their constructed state */
			ctor_fill(o->slot, o->p);
		kmem_cache_free(fc->cachep, o->p);
		__atomic_sub_fetch(&fc->live, 1, __ATOMIC_RELAXED);
		break;
	case FZ_PAGES:
		rc = free_pages(virt_to_page(o->p), o->order);
		if (rc)
			fz_finding(c, "free_pages(%p, order %u) returned %d", o->p, o->order, rc);
		break;
	case FZ_PAGES_ADDR:
		rc = free_pages_addr(o->p, o->order);
		if (rc)
			fz_finding(c, "free_pages_addr(%p, order %u) returned %d", o->p, o->order,
				   rc);
		break;
	}
}

/* Take live object k off c's list. */
static struct fz_obj take(struct fz_cpu *c, unsigned int k)
{
	struct fz_obj o = c->live[k];

	c->live[k] = c->live[--c->nlive];
	book_size(c, &o, -1);
	return o;
}

static bool ring_put(struct fz_ring *r, const struct fz_obj *o)
{
	unsigned long head = r->head;

	if (head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) == FZ_RING)
		return false;
	r->slot[head % FZ_RING] = *o;
	__atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
	return true;
}

/* Free everything other CPUs sent to c. */
static void ring_drain(struct fz_cpu *c)
{
	struct fz_ring *r = c->in;

	if (!r)
		return;
	while (r->tail != __atomic_load_n(&r->head, __ATOMIC_ACQUIRE)) {
		struct fz_obj o = r->slot[r->tail % FZ_RING];

		__atomic_store_n(&r->tail, r->tail + 1, __ATOMIC_RELEASE);
		release(c, &o);
	}
}

/*
 * Sizes within a header (FZ_EDGE bytes) below an edge: a page, where an
 * object and its guards or a block's header just fit or just do not, and
 * the largest block (KMEM_CACHE_MAX_SIZE, the largest object).
 */
#define FZ_EDGE		80
static size_t below_edge(struct fz_src *s, size_t edge)
{
	return edge - fz_below(s, FZ_EDGE);
}

/*
 * A kmalloc size: mostly small, some at every class edge, some just under
 * a page, a few large; 1 in 400 up to the largest block, half of those
 * just under it.
 */
static size_t pick_size(struct fz_src *s)
{
	uint64_t r = fz_below(s, 100);

	if (r < 45)
		return 1 + fz_below(s, 256);
	if (r < 65)
		return 257 + fz_below(s, KMALLOC_MAX_CACHE_SIZE - 256);
	if (r < 70)
		return below_edge(s, PAGE_SIZE);
	if (r < 85) {	/* a power of two, or one either side */
		size_t p = 1UL << (3 + fz_below(s, KMALLOC_SHIFT_HIGH - 2));

		return p + fz_below(s, 3) - 1;
	}
	if (r < 99 || fz_below(s, 4))
		return KMALLOC_MAX_CACHE_SIZE + 1 + fz_below(s, 4 * PAGE_SIZE);
	if (fz_below(s, 2))
		return below_edge(s, PAGE_SIZE << MAX_ORDER);
	return 1 + fz_below(s, PAGE_SIZE << MAX_ORDER);
}

/* The alignment kmalloc promises for size bytes (mm/slab.h). */
static size_t kmalloc_align(size_t size)
{
#ifndef CONFIG_SLAB_DEBUG
	if (size <= PAGE_SIZE && (size & (size - 1)) == 0)
		return size < 8 ? 8 : size;
#endif
	if (size > KMALLOC_MAX_CACHE_SIZE)
		return PAGE_SIZE;
	return 8;
}

/*
 * Room for one more allocation of size bytes on c: FZ_LIVE in all, of
 * which FZ_BIG_LIVE above FZ_BIG, and of all CPUs' together FZ_HUGE_LIVE
 * above FZ_HUGE (blocks near the largest take a sixth of the small arena
 * each: the checks need the rest free).
 */
static bool room(struct fz_cpu *c, size_t size)
{
	return c->nlive < FZ_LIVE && (size <= FZ_BIG || c->nbig < FZ_BIG_LIVE) &&
	       (size <= FZ_HUGE || __atomic_load_n(&fz.nhuge, __ATOMIC_RELAXED) < FZ_HUGE_LIVE);
}

/*
 * pick_node - a node for a _node call: one of the online nodes or, one
 * time in (nodes + 1), NUMA_NO_NODE. Never a bad node: those are reported
 * (a console line each), which the bad-input tests cover.
 */
static unsigned int pick_node(struct fz_cpu *c)
{
	unsigned int k = (unsigned int)fz_below(c->src, numa_num_nodes() + 1);

	for (unsigned int n = 0; n < MAX_NUMNODES; n++)
		if (numa_node_online(n) && !k--)
			return n;
	return NUMA_NO_NODE;
}

/* kmalloc, kzalloc, kmalloc_array, kcalloc or kmalloc_node (any node) of a random size. */
static void op_kmalloc(struct fz_cpu *c, unsigned int how)
{
	static const char *const names[] = { "kmalloc", "kzalloc", "kmalloc_array", "kcalloc",
					     "kmalloc_node" };
	size_t size = pick_size(c->src), n = 1, esize = size;
	struct fz_obj o = { .kind = FZ_KMALLOC };
	struct fz_inject inj;
	size_t got;

	if (!room(c, size))
		return;
	if (how == 2 || how == 3) {	/* n elements of esize; now and then one that overflows */
		if (fz_below(c->src, 64) == 0) {
			n = ((size_t)-1) / 2 + 1 + fz_below(c->src, 1000);
			esize = 2 + fz_below(c->src, 64);
			o.p = how == 2 ? kmalloc_array(n, esize) : kcalloc(n, esize);
			if (o.p)
				fz_finding(c, "%s(%zu, %zu) overflows but returned %p", names[how],
					   n, esize, o.p);
			return;
		}
		n = 1 + fz_below(c->src, 16);
		esize = size / n ? size / n : 1;
		size = n * esize;
	}
	fz_inject_mark(&inj);
	switch (how) {
	case 0: o.p = kmalloc(size); break;
	case 1: o.p = kzalloc(size); break;
	case 2: o.p = kmalloc_array(n, esize); break;
	case 3: o.p = kcalloc(n, esize); break;
	default: o.p = kmalloc_node(size, pick_node(c)); break;
	}
	if (!o.p) {
		if (size <= (PAGE_SIZE << MAX_ORDER))
			fz_got_null(c, names[how], size, get_order(size), kmalloc_slab(size), &inj);
		return;
	}
	if (size > (PAGE_SIZE << MAX_ORDER)) {
		fz_finding(c, "%s(%zu) above the largest block returned %p", names[how], size, o.p);
		return;
	}
	got = ksize(o.p);
	if (got < size) {
		fz_finding(c, "%s(%zu) = %p: ksize says %zu", names[how], size, o.p, got);
		return;
	}
	if ((how & 1) && fz_zero_at(o.p, size) != FZ_INTACT) {
		fz_finding(c, "%s(%zu) = %p: byte %zu not zero", names[how], size, o.p,
			   fz_zero_at(o.p, size));
		return;
	}
	/* a quarter of the time use every byte ksize offers */
	o.len = fz_below(c->src, 4) == 0 ? got : size;
	track(c, &o, kmalloc_align(size));
}

static void op_kmalloc0(struct fz_cpu *c)
{
	void *p = kmalloc(0);

	if (p != ZERO_SIZE_PTR)
		fz_finding(c, "kmalloc(0) returned %p, not ZERO_SIZE_PTR", p);
	else if (ksize(p) != 0)
		fz_finding(c, "ksize(ZERO_SIZE_PTR) is %zu", ksize(p));
	kfree(p);
	kfree(NULL);
	if (krealloc(NULL, 0) != ZERO_SIZE_PTR)
		fz_finding(c, "krealloc(NULL, 0) is not ZERO_SIZE_PTR");
}

/* A live kmalloc allocation of c's, or -1. */
static int pick_kmalloc(struct fz_cpu *c)
{
	for (unsigned int tries = 0; tries < 4 && c->nlive; tries++) {
		unsigned int k = (unsigned int)fz_below(c->src, c->nlive);

		if (c->live[k].kind == FZ_KMALLOC)
			return (int)k;
	}
	return -1;
}

/* krealloc a live allocation to a random size (0: it frees). */
static void op_krealloc(struct fz_cpu *c)
{
	int k = pick_kmalloc(c);
	size_t size, keep, at;
	struct fz_inject inj;
	struct fz_obj o;
	bool moved;
	uint8_t *q;

	if (k < 0)
		return;
	size = fz_below(c->src, 16) == 0 ? 0 : pick_size(c->src);
	if (size > (PAGE_SIZE << MAX_ORDER) || (size > FZ_BIG && c->nbig >= FZ_BIG_LIVE) ||
	    (size > FZ_HUGE && __atomic_load_n(&fz.nhuge, __ATOMIC_RELAXED) >= FZ_HUGE_LIVE))
		return;
	o = take(c, (unsigned int)k);
	if (size == 0) {
		if (!untrack(c, &o, "krealloc(p, 0)"))
			return;
		q = krealloc(o.p, 0);
		if (q != ZERO_SIZE_PTR)
			fz_finding(c, "krealloc(%p, 0) returned %p, not ZERO_SIZE_PTR", o.p, q);
		return;
	}
	at = fz_check(o.p, o.len, o.id);
	if (at != FZ_INTACT) {
		fz_finding(c, "kmalloc %p (%zu bytes) overwritten at offset %zu before krealloc",
			   o.p, o.len, at);
		return;
	}
	fz_shadow_clear(o.p, o.len);
	fz_inject_mark(&inj);
	q = krealloc(o.p, size);
	if (!q) {	/* p untouched and still ours */
		fz_got_null(c, "krealloc", size, get_order(size), kmalloc_slab(size), &inj);
		fz_shadow_mark(o.p, o.len);
		c->live[c->nlive++] = o;
		book_size(c, &o, 1);
		return;
	}
	keep = o.len < size ? o.len : size;
	at = fz_check_upto(q, o.len, keep, o.id);
	if (at != FZ_INTACT) {
		fz_finding(c, "krealloc(%p, %zu) = %p lost the contents at offset %zu of %zu", o.p,
			   size, q, at, keep);
		return;
	}
	if (ksize(q) < size) {
		fz_finding(c, "krealloc(%p, %zu) = %p: ksize says %zu", o.p, size, q, ksize(q));
		return;
	}
	/* p itself comes back when it is big enough: then only its old alignment holds */
	moved = q != o.p;
	o.p = q;
	o.len = size;
	track(c, &o, moved ? kmalloc_align(size) : 8);
}

/* ksize of a live allocation covers what was asked. */
static void op_ksize(struct fz_cpu *c)
{
	int k = pick_kmalloc(c);

	if (k >= 0 && ksize(c->live[k].p) < c->live[k].len)
		fz_finding(c, "ksize(%p) = %zu, below the %zu bytes in use", c->live[k].p,
			   ksize(c->live[k].p), c->live[k].len);
}

/* Free a live allocation of c's, here or (a quarter of the time) on the next CPU. */
static void op_free(struct fz_cpu *c)
{
	struct fz_obj o;

	if (!c->nlive)
		return;
	o = take(c, (unsigned int)fz_below(c->src, c->nlive));
	if (c->out && fz_below(c->src, 4) == 0 && ring_put(c->out, &o))
		return;
	release(c, &o);
}

/* kmem_cache_alloc, or with node kmem_cache_alloc_node of a random node (pick_node). */
static void op_cache_alloc(struct fz_cpu *c, bool node)
{
	unsigned int slot = (unsigned int)fz_below(c->src, FZ_CACHES);
	struct fz_cache *fc = &fz.cache[slot];
	struct fz_obj o = { .kind = FZ_CACHE, .slot = (uint8_t)slot };
	struct fz_inject inj;
	size_t at;

	if (fc->state != FZ_SLOT_ACTIVE || !room(c, fc->size))
		return;
	fz.last_cache = fc;
	fz.last_call = node ? "kmem_cache_alloc_node" : "kmem_cache_alloc";
	fz_inject_mark(&inj);
	o.p = node ? kmem_cache_alloc_node(fc->cachep, pick_node(c)) : kmem_cache_alloc(fc->cachep);
	if (!o.p) {
		fz_got_null(c, fz.last_call, fc->size, fz_cache_slab_order(fc->cachep),
			    fc->size <= KMALLOC_MAX_CACHE_SIZE ? fc->cachep : NULL, &inj);
		return;
	}
	__atomic_add_fetch(&fc->live, 1, __ATOMIC_RELAXED);
	if (fc->ctor) {
		at = fz_check(o.p, fc->size, FZ_CTOR_ID(slot));
		if (at != FZ_INTACT) {
			fz_finding(c, "%s: object %p not in its constructed state at offset %zu "
				   "(byte 0x%02x)", fc->name, o.p, at, o.p[at]);
			return;
		}
		o.len = fc->size;
	} else {
		o.len = fz_below(c->src, 4) == 0 ? kmem_cache_size(fc->cachep) : fc->size;
	}
	track(c, &o, fc->align ? fc->align : 8);
}

static void op_pages(struct fz_cpu *c, bool by_addr)
{
	/* order k about 2^-(k+1) of the time; now and then one past MAX_ORDER */
	unsigned int order = (unsigned int)__builtin_ctzll(fz_below(c->src, 1ULL << 20) |
							   (1ULL << (MAX_ORDER + 1)));
	struct fz_obj o = { .kind = by_addr ? FZ_PAGES_ADDR : FZ_PAGES, .order = (uint8_t)order };
	struct fz_inject inj;
	struct page *page;

	if (order > MAX_ORDER) {
		if (alloc_pages(order) || get_free_pages(order))
			fz_finding(c, "alloc_pages(%u) above MAX_ORDER %d succeeded", order,
				   MAX_ORDER);
		return;
	}
	if (!room(c, PAGE_SIZE << order))
		return;
	fz_inject_mark(&inj);
	if (by_addr) {
		o.p = get_free_pages(order);
		page = o.p ? virt_to_page(o.p) : NULL;
	} else {
		page = alloc_pages(order);
		o.p = page ? page_address(page) : NULL;
	}
	if (!page) {
		fz_got_null(c, "alloc_pages", order ? PAGE_SIZE << order : 1, order, NULL, &inj);
		return;
	}
	if (!(page->flags & PG_head) || page->order != order ||
	    (page->flags & (PG_slab | PG_buddy))) {
		fz_finding(c, "alloc_pages(%u) = %p: flags 0x%lx, order %u", order, o.p,
			   (unsigned long)page->flags, (unsigned int)page->order);
		return;
	}
	o.len = PAGE_SIZE << order;
	track(c, &o, PAGE_SIZE << order);
}

static void op_cache_shrink(struct fz_cpu *c)
{
	struct fz_cache *fc = &fz.cache[fz_below(c->src, FZ_CACHES)];

	if (fc->state != FZ_SLOT_EMPTY)
		kmem_cache_shrink(fc->cachep);
}

static void op_drain_cache(struct fz_cpu *c)
{
	struct fz_cache *fc = &fz.cache[fz_below(c->src, FZ_CACHES)];
	unsigned int r;

	if (fc->state != FZ_SLOT_EMPTY)
		kmem_cache_drain_local(fc->cachep);
	else if (kmalloc_caches[KMALLOC_SHIFT_LOW + (r = (unsigned int)fz_below(c->src, 4))])
		kmem_cache_drain_local(kmalloc_caches[KMALLOC_SHIFT_LOW + r]);
}

static void op_reports(struct fz_cpu *c)
{
	struct fz_cache *fc = &fz.cache[fz_below(c->src, FZ_CACHES)];
	char buf[160];

	(void)slab_total_pages();
	(void)nr_free_pages();
	if (fc->state == FZ_SLOT_EMPTY)
		return;
	if (strcmp(kmem_cache_name(fc->cachep), fc->name) != 0)
		fz_finding(c, "kmem_cache_name says \"%s\" for %s", kmem_cache_name(fc->cachep),
			   fc->name);
	slabinfo_line(fc->cachep, buf, sizeof(buf));
	if (strncmp(buf, fc->name, strlen(fc->name)) != 0)
		fz_finding(c, "slabinfo line of %s: \"%s\"", fc->name, buf);
}

/*
 * --plant: break the books on purpose once, to show the checks catch it
 * (tests/fuzz/run.sh expects a finding from each): 1 flips a byte of a
 * live allocation, 2 books a live allocation a second time (an overlap),
 * 3 forgets a live kmalloc allocation, so it is never freed (a leak the
 * page accounting at the end must see).
 */
static void plant(struct fz_cpu *c)
{
	int k = pick_kmalloc(c);

	if (k < 0)
		return;
	fz.planted = 1;
	if (fz.cfg.plant == 1) {
		c->live[k].p[c->live[k].len / 2] ^= 0x10;
	} else if (fz.cfg.plant == 2 && c->nlive < FZ_LIVE) {
		struct fz_obj o = c->live[k];

		track(c, &o, 8);
	} else if (fz.cfg.plant == 3) {
		fz_shadow_clear(c->live[k].p, c->live[k].len);
		take(c, (unsigned int)k);
	}
}

/* One operation on CPU c; the weights are out of 1000. */
static void one_op(struct fz_cpu *c)
{
	uint64_t r = fz_below(c->src, 1000);

	if (unlikely(fz.cfg.plant && !fz.planted && fz.ops >= fz.cfg.max_ops / 2))
		plant(c);

	if (r < 180)
		op_kmalloc(c, 0);
	else if (r < 230)
		op_kmalloc(c, 4);
	else if (r < 270)
		op_kmalloc(c, 1);
	else if (r < 290)
		op_kmalloc(c, 2);
	else if (r < 310)
		op_kmalloc(c, 3);
	else if (r < 370)
		op_krealloc(c);
	else if (r < 380)
		op_ksize(c);
	else if (r < 385)
		op_kmalloc0(c);
	else if (r < 490)
		op_cache_alloc(c, false);
	else if (r < 530)
		op_cache_alloc(c, true);
	else if (r < 560)
		op_pages(c, false);
	else if (r < 575)
		op_pages(c, true);
	else if (r < 980)
		op_free(c);
	else if (r < 983)
		op_cache_shrink(c);
	else if (r < 988)
		op_drain_cache(c);
	else if (r < 990)
		slab_drain_local_all();
	else if (r < 994)
		slab_reap();
	else if (r < 997)
		buddy_drain_local();
	else
		op_reports(c);
	c->ops++;
	__atomic_add_fetch(&fz.ops, 1, __ATOMIC_RELAXED);
}

/* --- checkpoints and cache churn: one CPU runs, the others wait --- */

static unsigned long buddy_bad_frees(void)
{
	struct buddy_stats st;

	buddy_read_stats(&st);
	return st.bad_frees;
}

static void checkpoint(void)
{
	struct kmem_cache *cachep, *all[64];
	unsigned int n = 0;
	unsigned long flags;
	const char *bad = NULL;

	fz.checkpoints++;
	/* kmem_cache_check takes slab_caches_lock itself: gather the caches first */
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(cachep, &slab_caches, list)
		if (n < ARRAY_SIZE(all))
			all[n++] = cachep;
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	for (unsigned int i = 0; i < n && !bad; i++)
		if (kmem_cache_check(all[i]) != 0)
			bad = all[i]->name;
	if (bad)
		fz_finding(NULL, "checkpoint %lu: kmem_cache_check(%s) failed (see the console)",
			   fz.checkpoints, bad);
	else if (buddy_check() != 0)
		fz_finding(NULL, "checkpoint %lu: buddy_check failed (see the console)",
			   fz.checkpoints);
	else if (slab_bad_frees != fz.bad_frees0 || slab_corruptions != fz.corruptions0 ||
		 buddy_bad_frees() != fz.buddy_bad0)
		fz_finding(NULL, "checkpoint %lu: the allocators reported %lu bad frees, %lu "
			   "corruptions, %lu bad page frees (see the console)", fz.checkpoints,
			   slab_bad_frees - fz.bad_frees0, slab_corruptions - fz.corruptions0,
			   buddy_bad_frees() - fz.buddy_bad0);
}

/* Every live allocation of every CPU freed, each on the CPU that holds it. */
static void free_everything(void)
{
	for (unsigned int i = 0; i < fz.cfg.cpus && !fz.stop; i++) {
		struct fz_cpu *c = &fz.cpu[i];

		host_set_cpu(c->cpu);
		ring_drain(c);
		while (c->nlive && !fz.stop) {
			struct fz_obj o = take(c, c->nlive - 1);

			release(c, &o);
		}
	}
	host_set_cpu(0);
}

/*
 * A new cache in slot: objects mostly small, some near a page and above,
 * some within a header (FZ_EDGE) below a page or below the largest object
 * (KMEM_CACHE_MAX_SIZE), a few up to a quarter of that; any alignment up
 * to a page a third of the time; any set of the four flags; a constructor
 * a third of the time. The arguments are always valid: a refusal that
 * fault injection did not cause is a finding.
 */
static void cache_make(struct fz_src *s, unsigned int slot)
{
	struct fz_cache *fc = &fz.cache[slot];
	uint64_t r = fz_below(s, 100);
	struct fz_inject inj;

	if (r < 40)
		fc->size = 1 + fz_below(s, 64);
	else if (r < 72)
		fc->size = 65 + fz_below(s, 960);
	else if (r < 86)
		fc->size = 1025 + fz_below(s, PAGE_SIZE);
	else if (r < 93)
		fc->size = below_edge(s, PAGE_SIZE);
	else if (r < 98)
		fc->size = PAGE_SIZE + fz_below(s, 4 * PAGE_SIZE);
	else if (r < 99)
		fc->size = 1 + fz_below(s, (PAGE_SIZE << MAX_ORDER) / 4);
	else
		fc->size = below_edge(s, KMEM_CACHE_MAX_SIZE);
	fc->align = fz_below(s, 3) ? 0 : 1UL << fz_below(s, PAGE_SHIFT + 1);
	fc->flags = 0;
	for (unsigned int bit = 0; bit < 4; bit++)	/* each flag half of the time */
		if (fz_below(s, 2))
			fc->flags |= (SLAB_HWCACHE_ALIGN | SLAB_DEBUG | SLAB_NO_DEBUG) & (1U << bit);
	fc->ctor = fz_below(s, 3) == 0;
	fc->live = 0;
	snprintf(fc->name, sizeof(fc->name), "fuzz-%u-%zu", slot, fc->size);
	fz.last_cache = fc;
	fz.last_call = "kmem_cache_create";
	fz_inject_mark(&inj);
	fc->cachep = kmem_cache_create(fc->name, fc->size, fc->align, fc->flags,
				       fc->ctor ? fz_ctors[slot] : NULL);
	if (!fc->cachep) {
		if (!fz_injected_since(&inj, true))
			fz_finding(NULL, "kmem_cache_create(%s, %zu, %zu, 0x%x, %s) refused valid "
				   "arguments", fc->name, fc->size, fc->align, fc->flags,
				   fc->ctor ? "ctor" : "NULL");
		return;
	}
	if (kmem_cache_size(fc->cachep) < fc->size) {
		fz_finding(NULL, "kmem_cache_size(%s) = %zu, below its size %zu", fc->name,
			   kmem_cache_size(fc->cachep), fc->size);
		return;
	}
	fc->state = FZ_SLOT_ACTIVE;
	fz.caches_made++;
}

static void cache_destroy(unsigned int slot, bool live_ok)
{
	struct fz_cache *fc = &fz.cache[slot];
	unsigned long live = fc->live;
	int rc = kmem_cache_destroy(fc->cachep);

	if (live == 0 && rc != 0) {
		fz_finding(NULL, "kmem_cache_destroy(%s) with no live objects returned %d",
			   fc->name, rc);
	} else if (live && rc != -EBUSY) {
		fz_finding(NULL, "kmem_cache_destroy(%s) with %lu live objects returned %d",
			   fc->name, live, rc);
	} else if (live) {
		fc->state = FZ_SLOT_DYING;	/* frees only; destroyed again once empty */
	} else {
		fc->state = FZ_SLOT_EMPTY;
		fc->cachep = NULL;
	}
	(void)live_ok;
}

static void shrink_all(void)
{
	struct kmem_cache *cachep;
	unsigned long flags;

	for (int pass = 0; pass < 2; pass++) {
		flags = spin_lock_irqsave(&slab_caches_lock);
		list_for_each_entry(cachep, &slab_caches, list)
			kmem_cache_shrink(cachep);
		spin_unlock_irqrestore(&slab_caches_lock, flags);
	}
}

/* Between rounds: one CPU changes the caches and drains things now and then. */
static void churn(struct fz_src *s)
{
	unsigned int slot = (unsigned int)fz_below(s, FZ_CACHES);
	struct fz_cache *fc = &fz.cache[slot];
	uint64_t r = fz_below(s, 16);

	host_set_cpu(0);
	if (fc->state == FZ_SLOT_EMPTY)
		cache_make(s, slot);
	else if (fc->state == FZ_SLOT_DYING && fc->live == 0)
		cache_destroy(slot, false);
	else if (fc->state == FZ_SLOT_ACTIVE && (fc->live == 0 || r == 0))
		cache_destroy(slot, true);	/* with live objects: -EBUSY */
	r = fz_below(s, 16);
	if (r == 0)
		slab_drain_all();
	else if (r == 1)
		drain_all_pages();
	else if (r == 2)
		shrink_all();
	fz_frag_churn(s);
}

/* --- rounds --- */

struct fz_thread {
	pthread_t tid;
	struct fz_cpu *c;
	pthread_barrier_t *barrier;
};

/* Past the deadline (checked every 256 operations in a round too). */
static bool past_deadline(void)
{
	return fz.cfg.seconds > 0 && now() >= fz.t_end;
}

static bool time_up(void)
{
	return (fz.cfg.seconds > 0 && now() >= fz.t_end) ||
	       (fz.cfg.max_ops && fz.ops >= fz.cfg.max_ops) || fz.stop;
}

/*
 * The end of a round on the leader (CPU 0), all rings drained, no CPU
 * running. A finding ends the run here too (done): the threads test only
 * done at the top of a round, which changes only here, between barriers.
 * Testing stop there let a thread leave while another, already into the
 * next round, set stop and waited at the barrier for it forever.
 */
static void round_end(struct fz_src *s)
{
	if (!fz.stop)
		checkpoint();
	if (fz.stop) {
		fz.done = 1;
		return;
	}
	if (fz.cfg.data && s->done)
		fz.done = 1;
	if (time_up())
		fz.done = 1;
	else
		churn(s);
}

static void *cpu_thread(void *arg)
{
	struct fz_thread *t = arg;
	struct fz_cpu *c = t->c;

	host_set_cpu(c->cpu);
	while (!__atomic_load_n(&fz.done, __ATOMIC_ACQUIRE)) {
		for (unsigned long i = 0; i < fz.cfg.ops_per_round && !fz.stop; i++) {
			if ((i & 255) == 255 && past_deadline())
				break;
			one_op(c);
		}
		pthread_barrier_wait(t->barrier);	/* every send is done */
		ring_drain(c);
		pthread_barrier_wait(t->barrier);
		if (c->cpu == 0)
			round_end(c->src);
		pthread_barrier_wait(t->barrier);
		host_set_cpu(c->cpu);
	}
	return NULL;
}

static void run_threads(void)
{
	struct fz_thread t[FZ_MAX_CPUS];
	pthread_barrier_t barrier;

	pthread_barrier_init(&barrier, NULL, fz.cfg.cpus);
	for (unsigned int i = 0; i < fz.cfg.cpus; i++) {
		t[i] = (struct fz_thread){ .c = &fz.cpu[i], .barrier = &barrier };
		if (pthread_create(&t[i].tid, NULL, cpu_thread, &t[i]) != 0) {
			perror("fuzz: pthread_create");
			exit(2);
		}
	}
	for (unsigned int i = 0; i < fz.cfg.cpus; i++)
		pthread_join(t[i].tid, NULL);
	pthread_barrier_destroy(&barrier);
	host_set_cpu(0);
}

static void run_sequential(void)
{
	struct fz_src *s = &fz.seq_src;

	while (!fz.done && !fz.stop) {
		unsigned long n = fz.cfg.ops_per_round * fz.cfg.cpus;

		for (unsigned long i = 0; i < n && !fz.stop && !s->done; i++) {
			struct fz_cpu *c = &fz.cpu[fz_below(s, fz.cfg.cpus)];

			if ((fz.cfg.max_ops && fz.ops >= fz.cfg.max_ops) ||
			    ((i & 255) == 255 && past_deadline()))
				break;
			host_set_cpu(c->cpu);
			one_op(c);
			if ((c->ops & 15) == 0)
				ring_drain(c);
		}
		for (unsigned int i = 0; i < fz.cfg.cpus; i++) {
			host_set_cpu(i);
			ring_drain(&fz.cpu[i]);
		}
		host_set_cpu(0);
		round_end(s);
	}
}

/* The state every run starts from: CPUs have used every kmalloc cache, nothing cached. */
static unsigned long settle(void)
{
	for (unsigned int cpu = 0; cpu < FZ_MAX_CPUS; cpu++) {
		host_set_cpu(cpu);
		for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
			if (kmalloc_caches[i])
				kfree(kmalloc(kmalloc_caches[i]->object_size));
	}
	host_set_cpu(0);
	slab_drain_all();
	drain_all_pages();
	shrink_all();
	return nr_free_pages();
}

/* fuzz_init: see fuzz.h. */
void fuzz_init(unsigned long arena_mb)
{
	host_mm_setup(arena_mb << 20);
	kmem_cache_init();
	fz_shadow_init((uintptr_t)host_arena.map, (uintptr_t)host_arena.map + host_arena.map_bytes);
}

/* fuzz_run: see fuzz.h. */
int fuzz_run(const struct fuzz_config *cfg, struct fuzz_result *res)
{
	bool faults = fz_faults_on();
	unsigned long before, after;

	fz.cfg = *cfg;
	if (fz.cfg.cpus < 1 || fz.cfg.cpus > FZ_MAX_CPUS)
		fz.cfg.cpus = 1;
	if (fz.cfg.data)
		fz.cfg.threads = false;
	if (!fz.cfg.ops_per_round)
		fz.cfg.ops_per_round = 2000;
	fz.ops = fz.findings = 0;
	fz.stop = fz.done = fz.planted = 0;
	fz.checkpoints = fz.caches_made = 0;
	fz.nhuge = 0;
	fz.frag = NULL;
	fz.frag_rounds = 0;
	fz.last_cache = NULL;
	fz.running = 1;
	fz.t_end = now() + cfg->seconds;
	/* faults stay off while the starting state is measured */
	fault_attr_disable(&fail_page_alloc);
	fault_attr_disable(&failslab);
	before = settle();
	fz.bad_frees0 = slab_bad_frees;
	fz.corruptions0 = slab_corruptions;
	fz.buddy_bad0 = buddy_bad_frees();
	memset(fz.ring, 0, sizeof(fz.ring));
	fz_src_seed(&fz.seq_src, cfg->seed, 0);
	fz.seq_src.data = cfg->data;
	fz.seq_src.size = cfg->size;
	for (unsigned int i = 0; i < fz.cfg.cpus; i++) {
		struct fz_cpu *c = &fz.cpu[i];

		memset(c, 0, sizeof(*c));
		c->cpu = i;
		fz_src_seed(&c->own, cfg->seed, i + 1);
		c->src = fz.cfg.threads ? &c->own : &fz.seq_src;
		if (fz.cfg.cpus > 1) {
			c->out = &fz.ring[i];
			c->in = &fz.ring[(i + fz.cfg.cpus - 1) % fz.cfg.cpus];
		}
	}
	if (faults) {	/* the settings the caller made, counts from zero */
		fault_attr_set(&fail_page_alloc, fail_page_alloc.interval,
			       fail_page_alloc.probability, fail_page_alloc.times,
			       fail_page_alloc.seed);
		fault_attr_set(&failslab, failslab.interval, failslab.probability, failslab.times,
			       failslab.seed);
	}
	if (fz.cfg.threads)
		run_threads();
	else
		run_sequential();

	/* the end: everything back, faults still on */
	if (!fz.stop) {
		fz_frag_release();
		free_everything();
		for (unsigned int slot = 0; slot < FZ_CACHES && !fz.stop; slot++)
			if (fz.cache[slot].state != FZ_SLOT_EMPTY)
				cache_destroy(slot, false);
	}
	if (!fz.stop)
		checkpoint();
	if (!fz.stop) {
		slab_drain_all();
		drain_all_pages();
		shrink_all();
		after = nr_free_pages();
		if (after != before)
			fz_finding(NULL, "pages not back after the run: %lu free, %lu at the start "
				   "(%ld missing; slabs hold %lu)", after, before,
				   (long)(before - after), slab_total_pages());
	}
	fz.running = 0;
	memset(res, 0, sizeof(*res));
	res->ops = fz.ops;
	res->findings = fz.findings;
	res->checkpoints = fz.checkpoints;
	res->caches_made = fz.caches_made;
	for (unsigned int i = 0; i < fz.cfg.cpus; i++) {
		res->alloc_nulls += fz.cpu[i].alloc_nulls;
		res->remote_frees += fz.cpu[i].remote_frees;
	}
	return fz.findings ? 1 : 0;
}

