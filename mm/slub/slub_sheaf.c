/*
 * slub_sheaf.c - SLUB's per-CPU sheaves and the node's barn (SLUB_SHEAVES=1,
 * the default): arrays of free object pointers in front of the slabs, after
 * the shape of Linux 6.18's "SLUB percpu sheaves".
 *
 * A sheaf (struct slub_sheaf, mm/slub/slub_def.h) holds up to sheaf_capacity
 * free objects of one cache, the last freed on top. Per CPU and cache a
 * main sheaf (its pointer in the per-CPU area, slot by slot like the
 * classic pair, so that the fast paths reach it with one load) and a spare
 * (s->cpu[cpu].spare, or NULL). The fast paths (slab_alloc_at, slub_free)
 * pop and push the main sheaf in restartable sequences (kernel/restart.h;
 * with interrupts off on an arch without them); the rest is here, with
 * interrupts off:
 *
 *  - allocation, main empty: swap with the spare if it has objects; else
 *    give the empty main to the barn for a full sheaf; else refill main
 *    from the slabs (slub_refill_sheaf: the CPU freelist's chain at once,
 *    then the classic slow path's CPU slabs); if nothing comes, NULL. The
 *    first refill after a CPU's sheaves were made takes a quarter of the
 *    capacity (rounded up to whole slabs: cold_refill), so that a CPU that uses a cache once (every CPU touching
 *    every kmalloc cache at boot, say) pins few objects and slabs.
 *  - free, main full: swap with the spare if it is empty; else give the
 *    full main to the barn for an empty one (a new one from slub_sheaf if
 *    the barn has none); else (the barn holds max_full full ones, or
 *    no memory) free all of main to the slabs (slub_free_bulk: each run
 *    of objects of one slab as one chain, onto the CPU freelist or the
 *    page freelist, one cmpxchg per run).
 *  - the barn (one per node and cache: the CPUs whose memory node it is
 *    share it; slub_local_node) keeps up to
 *    max_full full (at rest SLUB_BARN_MAX, fewer when that would hold
 *    more than SLUB_BARN_BYTES of objects, at least 2) and SLUB_BARN_MAX
 *    empty sheaves on two lists, under its own lock; more empty ones go
 *    back to slub_sheaf.
 *  - a barn that swings grows (barn_grow): when a full sheaf would be
 *    flushed and, since the barn's last flush (one of scattered objects: a
 *    quarter or more of them the only one of their slab in their run, so
 *    that each took a locked exchange), its CPUs refilled a sheaf from the
 *    slabs (slub_barn.swing), what the flush frees would only be
 *    refilled again (a producer freeing in bursts what a consumer
 *    allocates in bursts), so max_full doubles instead (a cache that only
 *    fills up, then empties, never grows its barn), up to
 *    SLUB_BARN_GROW_MAX sheaves holding SLUB_BARN_GROW_BYTES of objects and
 *    sheaves, while the node has free pages to spare. It goes back to its
 *    rest size whenever the barn is emptied: by the reap when idle, by
 *    kmem_cache_shrink, and by slub_barns_trim when a slab of another cache
 *    finds no pages.
 *
 * Frees of objects of the freeing CPU's memory node, from any CPU, go to
 * the freeing CPU's sheaf; on a machine of several memory nodes
 * (node_check) another node's object goes past the sheaves to its slab
 * (slub_free_to_slabs), whose node's list takes the slab when it becomes
 * partial or empty: sheaves and barns hold their node's objects, but
 * for what a refill took when the CPU's node had none left. Sheaves are
 * made lazily, on a CPU's first slow path of a cache once slab_state is
 * SLAB_UP, from the slub_sheaf cache (SLUB_SHEAF_BYTES each), which has no
 * sheaves itself (sheaf_capacity 0) and so never recurses into this code;
 * neither do debug caches, which keep the classic (locked, checking) paths.
 * A cache or CPU without sheaves has slub_sheaf_none (capacity 0) as main:
 * its fast paths fall here and go on to the classic paths.
 *
 * Capacity (sheaf_capacity, slub_sheaf_setup): by object size, as SLAB's
 * array limits: SLUB_SHEAF_MAX (61) up to 1 KiB, 32 up to 4 KiB, then 128
 * KiB of objects (at least 4), chosen on the host workloads (61/61/32/16
 * for <=256/<=1024/<=4096/8192 bytes beat 61/32/16/8 and 30/16/8/4:
 * prodcons at 2 threads 32.0 ns against 45.5 and 60.1).
 *
 * Giving objects back: kmem_cache_drain_local, kmem_cache_shrink,
 * slab_drain_all and kmem_cache_destroy free every object of the CPU's
 * sheaves to the slabs and the sheaves themselves to slub_sheaf
 * (slub_sheaves_release_cpu; shrink, drain_all and destroy empty the barn
 * too: slub_barn_flush). The reap (the tick) releases a CPU's sheaves when
 * its main sheaf did not change since the last pass (same sheaf, same
 * size), and every second pass empties a barn that no sheaf entered or
 * left meanwhile.
 *
 * Checks: every free still tests the object boundary and that the page is
 * a slab page of the cache (slub_free), then the object's free word: a
 * free leaves the object's mark there, so that a second free of it, in
 * whichever sheaf of whichever CPU or in the barn it waits, or on a
 * freelist after a flush, finds the word saying free and goes to
 * slub_free_is_double (mm/slub/slub_dfree.c), which finds it and reports the
 * double free (mm/slub/slub_def.h says how). Every object a sheaf hands out
 * has its word cleared. kmem_cache_check still reports an object held
 * twice in sheaves, or both in a sheaf and on a freelist.
 *
 * Locking: the sheaves of a CPU change only on that CPU, with interrupts
 * off or in a fast path's restartable sequence, which an interrupt that
 * changes them sends back to its start (or, for kmem_cache_destroy, on any
 * CPU while no CPU uses the cache). Lock order: slab_caches_lock -> node[nid].list_lock ->
 * node[nid].barn.lock -> zone lock; a barn lock is taken with interrupts
 * off and nothing else is taken under it but for kmem_cache_check, which
 * holds the node locks. A CPU uses its memory node's barn only.
 * Departures from Linux: no kfree_rcu sheaf, no
 * prefilled sheaves API; sheaves for every cache without debugging (not
 * by a caller's request); the reap releases idle CPUs' sheaves; barns
 * grow while their cache swings and give back all they hold when a slab
 * finds no pages (Linux's barns have a fixed size).
 */
#include "mm/slab_impl.h"
#include "kernel/printk.h"

DEFINE_PER_CPU(struct slub_sheaf_slots, slub_sheaf);

/* "No sheaf": size 0 and capacity 0, so that both fast paths fall through. */
struct slub_sheaf slub_sheaf_none;
struct kmem_cache *slub_sheaf_cache;

static struct slub_sheaf **main_of(struct kmem_cache *s, unsigned int cpu)
{
	return &per_cpu_ptr(slub_sheaf, cpu)->main[s->slot];
}

/* A barn's max_full at rest: 0 without sheaves. */
static unsigned int barn_base_full(const struct kmem_cache *s)
{
	if (!s->sheaf_capacity)
		return 0;
	return (unsigned int)MAX(2UL, MIN((unsigned long)SLUB_BARN_MAX,
		SLUB_BARN_BYTES / ((unsigned long)s->sheaf_capacity * s->size)));
}

/* The most a barn's max_full grows to (the sheaves count: they outweigh tiny objects). */
static unsigned int barn_grow_full(const struct kmem_cache *s)
{
	unsigned long n = SLUB_BARN_GROW_BYTES /
			  ((unsigned long)s->sheaf_capacity * s->size + SLUB_SHEAF_BYTES);

	return (unsigned int)MAX((unsigned long)barn_base_full(s),
				 MIN(n, (unsigned long)SLUB_BARN_GROW_MAX));
}

/*
 * slub_sheaf_setup - a new cache's sheaf capacity (0 without sheaves) and
 * every CPU's main sheaf set to slub_sheaf_none. Before the cache is seen.
 */
void slub_sheaf_setup(struct kmem_cache *s)
{
	unsigned int cap;

	if (!CONFIG_SLUB_SHEAVES || slub_debug_on(s))
		cap = 0;	/* slub_sheaf itself: slub_sheaves_init sets 0 */
	else if (s->size <= 1024)
		cap = SLUB_SHEAF_MAX;
	else	/* 32 up to 4 KiB, then 128 KiB of objects (16 of 8 KiB), at least 4 */
		cap = (unsigned int)MAX(4UL, MIN(32UL, (128UL << 10) / s->size));
	s->sheaf_capacity = MIN(cap, (unsigned int)SLUB_SHEAF_MAX);
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
		struct slub_barn *b = &s->node[nid].barn;

		b->max_full = barn_base_full(s);
		b->swing = BARN_CALM;
		spin_lock_init(&b->lock);
	}
	slub_nodes_check();
	slub_set_node_check(s, slub_node_check_of(s));
	s->sheaf_key = per_cpu_key(slub_sheaf, offsetof(struct slub_sheaf_slots, main) +
					       s->slot * sizeof(struct slub_sheaf *));
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		*main_of(s, cpu) = &slub_sheaf_none;
		s->cpu[cpu].spare = NULL;
		s->cpu[cpu].reap_main = NULL;
	}
}

/*
 * slub_sheaves_init - make the cache of sheaves (boot, after the kmalloc
 * caches): it has no sheaves of its own.
 */
void slub_sheaves_init(void)
{
	if (!CONFIG_SLUB_SHEAVES)
		return;
	slub_sheaf_cache = __kmem_cache_create("slub_sheaf", SLUB_SHEAF_BYTES, 0,
					       SLAB_NO_DEBUG, NULL);
	if (!slub_sheaf_cache)
		panic("slub: cannot make the slub_sheaf cache");
	slub_sheaf_cache->sheaf_capacity = 0;
	slub_set_node_check(slub_sheaf_cache, false);
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++)
		slub_sheaf_cache->node[nid].barn.max_full = 0;
	slab_caches_add(slub_sheaf_cache);
}

/* An empty sheaf for s from slub_sheaf, or NULL. Any context. */
static struct slub_sheaf *sheaf_new(struct kmem_cache *s)
{
	struct slub_sheaf *sh = slab_alloc_classic(slub_sheaf_cache);

	if (!sh)
		return NULL;
	sh->next = NULL;
	sh->size = 0;
	sh->capacity = s->sheaf_capacity;
	stat(s, sheaf_made, 1);
	return sh;
}

static void sheaf_free(struct slub_sheaf *sh)
{
	if (sh)
		slub_free_to_slabs(slub_sheaf_cache, sh, "slub_sheaf");
}

/*
 * Free every object of sh to the slabs (slub_free_bulk). Returns how many
 * were alone in their run (scattered over slabs). Interrupts off.
 */
static unsigned int sheaf_flush(struct kmem_cache *s, struct slub_sheaf *sh)
{
	unsigned int alone = slub_free_bulk(s, sh->objects, (unsigned int)sh->size, "kmem_cache_free");

	sh->size = 0;
	stat(s, sheaf_flushes, 1);
	return alone;
}

/*
 * The running CPU's first slow path of s: make its main sheaf. False when
 * s has no sheaves, slab_state is not SLAB_UP, or no memory: the caller
 * takes the classic path. Interrupts off.
 */
static bool sheaves_start(struct kmem_cache *s)
{
	struct slub_sheaf *sh;

	if (!s->sheaf_capacity || slab_state != SLAB_UP)
		return false;
	sh = sheaf_new(s);
	if (!sh)
		return false;
	*main_of(s, smp_processor_id()) = sh;
	return true;
}

/* Take a full sheaf from the CPU's node's barn, leaving 'empty' there (or returning it to be freed). */
static struct slub_sheaf *barn_get_full(struct kmem_cache *s, struct slub_sheaf **empty)
{
	struct slub_barn *b = &slub_local_node(s)->barn;
	struct slub_sheaf *full = NULL;

	if (!READ_ONCE(b->nr_full))
		return NULL;
	spin_lock(&b->lock);
	stat(s, barn_locks, 1);
	if (b->nr_full) {
		full = b->full;
		b->full = full->next;
		b->nr_full--;
		b->touched = 1;
		if (b->nr_empty < SLUB_BARN_MAX) {
			(*empty)->next = b->empty;
			b->empty = *empty;
			b->nr_empty++;
			*empty = NULL;
		}
	}
	spin_unlock(&b->lock);
	return full;
}

/*
 * The CPU's node's barn b is full, a full sheaf would be flushed, and the
 * cache swings (b->swing is BARN_SWINGS: its CPUs refilled a sheaf from the
 * slabs after the barn's last flush of scattered objects, so what a flush
 * frees now would be refilled again): double the barn's max_full, up to
 * barn_grow_full, while the node has memory to spare (free pages at least
 * 16 times what the growth may hold). True if it grew: the caller takes
 * the sheaf. Out of line: the full barn's usual path (no swing) pays one
 * load for it. Interrupts off.
 */
static __noinline bool barn_grow(struct kmem_cache *s, struct slub_barn *b)
{
	unsigned int grow_full = barn_grow_full(s), max_full = READ_ONCE(b->max_full);
	unsigned long want = (unsigned long)max_full * s->sheaf_capacity * s->size >> PAGE_SHIFT;
	bool grown = false;

	if (max_full >= grow_full || nr_free_pages_node(slub_local_nid()) < 16 * want) {
		WRITE_ONCE(b->swing, BARN_CALM);	/* as big as it may get now: flush */
		return false;
	}
	spin_lock(&b->lock);
	stat(s, barn_locks, 1);
	if (b->max_full < grow_full) {
		b->max_full = MIN(grow_full, 2 * b->max_full);
		grown = true;
	}
	b->swing = BARN_CALM;
	spin_unlock(&b->lock);
	stat(s, barn_grown, grown);
	return grown;
}

/*
 * Give the full sheaf 'full' to the CPU's node's barn for an empty one (from the barn,
 * else a new one). NULL, with 'full' kept, when the barn holds max_full
 * full ones and does not grow (barn_grow), or no empty one can be had.
 */
static struct slub_sheaf *barn_put_full(struct kmem_cache *s, struct slub_sheaf *full)
{
	struct slub_barn *b = &slub_local_node(s)->barn;
	struct slub_sheaf *empty = NULL, *made = NULL;

	if (READ_ONCE(b->nr_full) >= b->max_full &&
	    (READ_ONCE(b->swing) != BARN_SWINGS || !barn_grow(s, b)))
		return NULL;
	if (!READ_ONCE(b->nr_empty)) {
		made = sheaf_new(s);
		if (!made)
			return NULL;
	}
	spin_lock(&b->lock);
	stat(s, barn_locks, 1);
	if (b->nr_full < b->max_full) {
		if (b->nr_empty) {
			empty = b->empty;
			b->empty = empty->next;
			b->nr_empty--;
		} else {
			empty = made;
			made = NULL;
		}
		if (empty) {
			full->next = b->full;
			b->full = full;
			b->nr_full++;
			b->touched = 1;
		}
	}
	spin_unlock(&b->lock);
	sheaf_free(made);
	return empty;
}

/*
 * A CPU's first refill: a quarter of the capacity, so that one use of a
 * cache costs little, rounded up to whole slabs (by division: a slab's
 * object count is seldom a power of two) where a slab holds no more than a
 * sheaf: later refills then keep taking whole slabs, and a flush
 * frees whole slabs' runs (x86_64 test 1, kfree(8192): 236 instructions per
 * op with whole slabs, 289 with a quarter sheaf of 2 objects of 4).
 */
static unsigned long cold_refill(const struct kmem_cache *s)
{
	unsigned long want = MAX(1U, s->sheaf_capacity / 4);

	if (s->num <= s->sheaf_capacity)
		want = MIN((unsigned long)s->sheaf_capacity, DIV_ROUND_UP(want, (unsigned long)s->num) * s->num);
	return want;
}

/* slub_sheaf_alloc_slow: see slub_def.h and above. */
void *slub_sheaf_alloc_slow(struct kmem_cache *s, unsigned long flags)
{
	struct kmem_cache_cpu_partial *p;
	struct slub_sheaf *sh, *full;
	void *x = NULL;

	sh = slub_this_main(s);
	if (sh == &slub_sheaf_none) {
		if (!sheaves_start(s)) {
			arch_irq_restore(flags);
			return slab_alloc_classic(s);
		}
		sh = slub_this_main(s);
	}
	p = &s->cpu[smp_processor_id()];
	if (p->spare && p->spare->size) {
		*main_of(s, smp_processor_id()) = p->spare;
		p->spare = sh;
		sh = slub_this_main(s);
		stat(s, sheaf_swaps, 1);
	} else if ((full = barn_get_full(s, &sh)) != NULL) {
		if (sh && !p->spare) {
			p->spare = sh;	/* kept as the spare: the barn had no room for it */
			sh = NULL;
		}
		sheaf_free(sh);
		*main_of(s, smp_processor_id()) = full;
		sh = full;
		stat(s, barn_get, 1);
	} else {
		slub_refill_sheaf(s, sh, p->sheaf_warm ? sh->capacity : cold_refill(s));
		p->sheaf_warm = true;
		if (READ_ONCE(slub_local_node(s)->barn.swing) == BARN_FLUSHED)
			WRITE_ONCE(slub_local_node(s)->barn.swing, BARN_SWINGS);
	}
	if (sh->size)
		x = sh->objects[--sh->size];
	arch_irq_restore(flags);
	if (x)
		slub_fw_clear(s, x, false);
	stat(s, shared.allocs, x != NULL);
	return x;
}

/* x's free word says free and slub_free_is_double found it so: report it. */
static __noinline bool sheaf_double_free(struct kmem_cache *s, void *x, const char *fn,
					 unsigned long flags)
{
	char what[80];

	if (!slub_free_is_double(s, x, what, sizeof(what)))
		return false;
	arch_irq_restore(flags);
	slab_bad_free(s, fn, x, what);
	return true;
}

/* slub_sheaf_free_slow: see slub_def.h and above. */
void slub_sheaf_free_slow(void *x, struct kmem_cache *s, const char *fn, bool on_slab,
			  unsigned long flags)
{
	struct kmem_cache_cpu_partial *p;
	struct slub_sheaf *sh = slub_this_main(s), *empty;
	uintptr_t *slot = slub_fw_slot(s, x), mark = slub_fw_mark(s, x, slot);

	if (slub_fw_free(s, *slot, mark) && sheaf_double_free(s, x, fn, flags))
		return;
	if (s->node_check && slub_obj_remote(x)) {
		/* Another node's object: past the sheaves, to its own slab and node. */
		slub_free_to_slabs(s, x, fn);
		stat(s, free_remote, 1);
		stat(s, shared.frees, 1);
		arch_irq_restore(flags);
		return;
	}
	if (sh == &slub_sheaf_none) {
		if (!sheaves_start(s)) {
			arch_irq_restore(flags);
			slub_free_classic(s, x, fn, on_slab, false);
			return;
		}
		sh = slub_this_main(s);
	}
	p = &s->cpu[smp_processor_id()];
	if (sh->size >= sh->capacity) {
		if (p->spare && p->spare->size == 0) {
			*main_of(s, smp_processor_id()) = p->spare;
			p->spare = sh;
			stat(s, sheaf_swaps, 1);
		} else if (!p->spare && (empty = sheaf_new(s)) != NULL) {
			p->spare = sh;
			*main_of(s, smp_processor_id()) = empty;
			stat(s, sheaf_swaps, 1);
		} else if ((empty = barn_put_full(s, sh)) != NULL) {
			*main_of(s, smp_processor_id()) = empty;
			stat(s, barn_put, 1);
		} else {
			/*
			 * Objects of many slabs (a quarter or more alone in their
			 * run) went back one locked exchange each, and a refill
			 * takes them one by one again: then growing pays. A sheaf
			 * of runs (objects freed in the order they were handed
			 * out) goes back cheaply and does not count.
			 */
			unsigned int size = (unsigned int)sh->size;

			WRITE_ONCE(slub_local_node(s)->barn.swing,
				   4 * sheaf_flush(s, sh) >= size ? BARN_FLUSHED : BARN_CALM);
		}
		sh = slub_this_main(s);
	}
	*slot = mark;
	sh->objects[sh->size++] = x;
	stat(s, shared.frees, 1);
	arch_irq_restore(flags);
}

/*
 * slub_sheaves_release_cpu - free every object of cpu's sheaves of s to
 * the slabs and the sheaves to slub_sheaf; the CPU has none afterwards.
 * cpu is the running CPU with interrupts off, or any CPU when no CPU uses
 * s (kmem_cache_destroy; the objects then go through the running CPU's
 * slabs, which the caller flushes after).
 */
void slub_sheaves_release_cpu(struct kmem_cache *s, unsigned int cpu)
{
	struct kmem_cache_cpu_partial *p = &s->cpu[cpu];
	struct slub_sheaf *sh = *main_of(s, cpu), *spare = p->spare;
	unsigned long flags;

	if (sh == &slub_sheaf_none && !spare)
		return;
	flags = arch_irq_save();
	*main_of(s, cpu) = &slub_sheaf_none;
	p->spare = NULL;
	p->reap_main = NULL;
	p->sheaf_warm = false;
	if (sh != &slub_sheaf_none) {
		sheaf_flush(s, sh);
		sheaf_free(sh);
	}
	if (spare) {
		sheaf_flush(s, spare);
		sheaf_free(spare);
	}
	arch_irq_restore(flags);
}

/* Take both of the barn's lists, leaving it empty and at its base size. Its lock held. */
static void barn_detach(struct kmem_cache *s, struct slub_barn *b, struct slub_sheaf **full,
			struct slub_sheaf **empty)
{
	assert_spin_locked(&b->lock);
	*full = b->full;
	*empty = b->empty;
	b->full = b->empty = NULL;
	b->nr_full = b->nr_empty = 0;
	b->max_full = barn_base_full(s);
	b->swing = BARN_CALM;
}

/* Free the objects of the sheaves on 'full' and every sheaf on both lists. Interrupts off. */
static void barn_release(struct kmem_cache *s, struct slub_sheaf *full, struct slub_sheaf *empty)
{
	while (full) {
		struct slub_sheaf *next = full->next;

		sheaf_flush(s, full);
		sheaf_free(full);
		full = next;
	}
	while (empty) {
		struct slub_sheaf *next = empty->next;

		sheaf_free(empty);
		empty = next;
	}
}

/*
 * slub_barn_flush - free the objects of every node's barn's full sheaves
 * to the slabs (through the running CPU's, which the caller flushes if it
 * must) and every sheaf of the barns to slub_sheaf. Interrupts on or off.
 */
void slub_barn_flush(struct kmem_cache *s)
{
	struct slub_sheaf *full, *empty;
	unsigned long flags;

	if (!s->sheaf_capacity)
		return;
	flags = arch_irq_save();
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
		struct slub_barn *b = &s->node[nid].barn;

		if (!READ_ONCE(b->nr_full) && !READ_ONCE(b->nr_empty))
			continue;
		spin_lock(&b->lock);
		stat(s, barn_locks, 1);
		barn_detach(s, b, &full, &empty);
		spin_unlock(&b->lock);
		barn_release(s, full, empty);
	}
	arch_irq_restore(flags);
}

/* slub_barns_trim's part for one cache: its barns emptied; whether they held anything. */
static bool barns_trim_cache(struct kmem_cache *s, void *unused)
{
	struct slub_sheaf *full, *empty;
	bool worked = false;

	(void)unused;
	if (!s->sheaf_capacity)
		return false;
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
		struct slub_barn *b = &s->node[nid].barn;

		if (!READ_ONCE(b->nr_full))
			continue;
		spin_lock(&b->lock);
		stat(s, barn_locks, 1);
		barn_detach(s, b, &full, &empty);
		spin_unlock(&b->lock);
		worked |= full != NULL;
		stat(s, barn_trimmed, full != NULL);
		barn_release(s, full, empty);
	}
	return worked;
}

/*
 * slub_barns_trim - a slab of 'except' found no pages: every other cache's
 * barns give back what they hold (the objects of their full sheaves to the
 * slabs, whose emptied slabs go to the page allocator as slub_node_spare
 * says; the sheaves to slub_sheaf) and go back to their base size. True if
 * anything was given back; false, with nothing done, when slab_caches_lock
 * is held (perhaps by the code this interrupt cut in on). Interrupts on or
 * off, no lock held.
 */
bool slub_barns_trim(struct kmem_cache *except)
{
	return slab_caches_try_each(barns_trim_cache, NULL, except);
}

/*
 * slub_sheaves_reap - the reap's part for sheaves (mm/slub/slub_partial.c):
 * release the running CPU's sheaves of s if its main sheaf did not change
 * since the last pass; every second pass, empty the barn if no sheaf came
 * or went since the pass before. Returns whether anything was given back.
 * Interrupts off.
 */
bool slub_sheaves_reap(struct kmem_cache *s)
{
	unsigned int cpu = smp_processor_id();
	struct kmem_cache_cpu_partial *p = &s->cpu[cpu];
	struct slub_sheaf *sh = *main_of(s, cpu), *full, *empty;
	struct slub_barn *b = &slub_local_node(s)->barn;
	bool worked = false;

	assert_irqs_disabled();
	if (!s->sheaf_capacity)
		return false;
	if (sh != &slub_sheaf_none) {
		if (sh == p->reap_main && sh->size == p->reap_size) {
			slub_sheaves_release_cpu(s, cpu);
			worked = true;
		} else {
			p->reap_main = sh;
			p->reap_size = sh->size;
		}
	}
	if ((READ_ONCE(b->nr_full) || READ_ONCE(b->nr_empty)) && spin_trylock(&b->lock)) {
		full = empty = NULL;
		if (++b->reap_visits >= 2) {
			b->reap_visits = 0;
			if (b->touched)
				b->touched = 0;
			else
				barn_detach(s, b, &full, &empty);
		}
		spin_unlock(&b->lock);
		worked |= full || empty;
		barn_release(s, full, empty);
	}
	return worked;
}

/*
 * slub_sheaved - objects of s in sheaves (every CPU's and the barns'), and
 * in *in_barn those in the barns' (nid: node nid's barn only; NUMA_NO_NODE:
 * every node's). The caller keeps the CPUs off s or accepts a snapshot.
 * Takes the barn locks in turn.
 */
unsigned long slub_sheaved(struct kmem_cache *s, unsigned int nid, unsigned long *in_barn)
{
	unsigned long n = 0, barn = 0, flags;

	if (!s->sheaf_capacity) {
		if (in_barn)
			*in_barn = 0;
		return 0;
	}
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct slub_sheaf *spare = READ_ONCE(s->cpu[cpu].spare);

		n += READ_ONCE((*main_of(s, cpu))->size);
		if (spare)
			n += READ_ONCE(spare->size);
	}
	for (unsigned int i = 0; i < MAX_NUMNODES; i++) {
		struct slub_barn *b = &s->node[i].barn;

		if (nid != NUMA_NO_NODE && i != nid)
			continue;
		/* Not counted in barn_locks: a report's read is no path of the allocator's. */
		flags = spin_lock_irqsave(&b->lock);
		for (struct slub_sheaf *sh = b->full; sh; sh = sh->next)
			barn += sh->size;
		spin_unlock_irqrestore(&b->lock, flags);
	}
	if (in_barn)
		*in_barn = barn;
	return n + barn;
}
