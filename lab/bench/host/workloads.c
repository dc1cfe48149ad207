/*
 * workloads.c - multi-threaded, malloc-heavy workloads of the kind allocator
 * papers run, with Quarry's mm/ (built for Linux user space, threads pinned to
 * cores acting as CPUs) beside glibc, jemalloc, tcmalloc and mimalloc in one
 * process, in wall-clock time: the workloads' timed loops, each allocator's
 * copy of them, and one run of a workload (wl_run_once). The program's options,
 * set-up and main loop are in workloads_main.c; workloads.h is what the two share.
 *
 * The workloads (written for Quarry; the papers' programs gave the idea only):
 *
 *   larson    server churn (after Larson and Krishnan): 2 x threads sets of 1000
 *             slots, objects of 8..1000 bytes uniformly. A thread takes a free set,
 *             replaces 1000 random slots (free the old object, allocate a new one of
 *             a random size), hands the set back and takes the next free one, so
 *             most objects are freed by another thread than the one that made them
 *             (with one thread, none is). 1,000,000 replacements per thread.
 *   mixed     per-thread mixed sizes (after glibc's bench-malloc-thread): each thread
 *             owns 1024 slots; 1,000,000 times: a random slot's object is freed and
 *             replaced by one of a size drawn from 8..256 (80%), 257..2048 (15%),
 *             2049..8192 (4%) or 8193..32768 bytes (1%). Nothing crosses threads.
 *   prodcons  producer/consumer: with two threads, thread 0 allocates 1,000,000
 *             objects of 16..512 bytes and passes them through a 1024-entry ring to
 *             thread 1, which frees them (every free is remote); with one thread,
 *             batches of 256 are allocated and then freed in order. With 2k threads,
 *             k pairs.
 *
 * Under `perf record -D -1 --control fifo:C,A` with WL_PERF_CTL="C,A" in the
 * environment, the events are enabled only during the timed runs (not the
 * set-up, Quarry's arena, the warm-up run), as lab/bench/host/profile.sh does.
 *
 * Every object gets a tag (its address and size, mixed) in its first 8 bytes
 * and a byte derived from it in its last; the tag is checked before the free,
 * so an allocator that hands out overlapping objects fails the run (exit 1,
 * naming allocator, workload and address). Timing never fails it.
 *
 * Each allocator is called through a small static wrapper that the compiler
 * inlines into that allocator's own copy of each workload (constant function
 * pointers into __always_inline bodies), so Quarry is called directly and the
 * dlopen'ed libraries through the pointer dlsym gave, as a PLT call would.
 */
#ifndef _GNU_SOURCE
#error "build with -D_GNU_SOURCE (the prelude header pulls in <features.h> first)"
#endif
#include "host_shim.h"
#include "mm/slab.h"
#include "mm/page.h"
#include "kernel/spinlock.h"
#include <asm/processor.h>
#include "peers.h"
#include "workloads_sync.h"
#include "workloads.h"
#include "workloads_sample.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#else
#define HAVE_CALLGRIND 0
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_DUMP_STATS_AT(s) ((void)(s))
#endif

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define LARSON_SLOTS 1000
#define LARSON_MIN   8
#define LARSON_MAX   1000
#define LARSON_OPS   1000000
#define MIXED_SLOTS  1024
#define MIXED_OPS    1000000
#define PC_ITEMS     1000000
#define PC_MIN	     16
#define PC_MAX	     512
#define PC_RING	     1024 /* a power of two */
#define PC_BATCH     256
#define TAG_SALT     0x5157a11c0ffee000ULL

/* The options (workloads_main.c parses them), with their defaults. */
struct wl_options wl_opt = {
	.runs = 5,
	.scale = 100,
	.arena_mb = 512,
	.variant = "slab",
	.allocators = "quarry,glibc,jemalloc,tcmalloc,mimalloc",
	.workloads = "larson,mixed,prodcons",
	.threads = "1,2",
	.warm_each = true,
};
unsigned int wl_ncores = 1;
const bool wl_have_callgrind = HAVE_CALLGRIND;
static unsigned int plant_left; /* thread 0's allocations until it spoils a tag (0: never) */
static bool cg_collect;		/* this run's measured parts are collected */

/* wl_listed: see workloads.h. */
bool wl_listed(const char *list, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == k && !strncmp(p, key, k))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* wl_clock_ns: see workloads.h. */
uint64_t wl_clock_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* A pause that also lets another thread of this core run when the wait is long. */
static inline void spin_pause(unsigned long *spins)
{
	__asm__ __volatile__("pause" ::: "memory");
	if (++*spins % 256 == 0)
		sched_yield();
}

/* The measured part of a run starts and ends (also its --callgrind collection). */
static inline void cg_begin(unsigned int id)
{
	wl_window_begin();
	if (wl_opt.lockstep)
		lockstep_enter(id);
	if (cg_collect)
		CALLGRIND_TOGGLE_COLLECT;
}

static inline void cg_end(void)
{
	if (cg_collect)
		CALLGRIND_TOGGLE_COLLECT;
	if (ls_in)
		lockstep_leave();
	wl_window_end();
}

/* xorshift64*: each thread's own sequence, seeded from its id and the run. */
static inline uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* A uniform value in [lo, hi]. */
static inline size_t rnd_range(uint64_t *s, size_t lo, size_t hi)
{
	return lo + (size_t)((rnd(s) >> 32) * (hi - lo + 1) >> 32);
}

/* The mixed workload's sizes: mostly small, a long tail up to 32 KiB. */
static inline size_t rnd_mixed_size(uint64_t *s)
{
	uint64_t r = rnd(s);
	unsigned int pct = (unsigned int)((r & 0xffffffffu) * 100 >> 32);

	if (pct < 80)
		return rnd_range(s, 8, 256);
	if (pct < 95)
		return rnd_range(s, 257, 2048);
	if (pct < 99)
		return rnd_range(s, 2049, 8192);
	return rnd_range(s, 8193, 32768);
}

/* ---- object tags: written after each allocation, checked before each free ---- */

static inline uint64_t tag_of(const void *p, size_t n)
{
	return ((uint64_t)(uintptr_t)p ^ TAG_SALT) ^ ((uint64_t)n << 48);
}

static inline void tag_set(void *p, size_t n)
{
	uint64_t t = tag_of(p, n);

	memcpy(p, &t, sizeof(t));
	if (n > sizeof(t))
		((volatile unsigned char *)p)[n - 1] = (unsigned char)(t >> 3);
}

struct wthread;
static void tag_fail(struct wthread *t, const void *p, const char *what);

/*
 * Check p's tag (its first 8 bytes): its size, or 0 after a report. The last
 * byte written at allocation is not read back (a second cache line per object
 * would make the workloads measure mostly the objects' own misses); an object
 * that overlaps the next one is still caught, when its last byte lands in that
 * one's tag.
 */
static inline size_t tag_check(struct wthread *t, const void *p)
{
	uint64_t v, n;

	memcpy(&v, p, sizeof(v));
	n = (v ^ (uint64_t)(uintptr_t)p ^ TAG_SALT) >> 48;
	if (unlikely(tag_of(p, n) != v || n < 8)) {
		tag_fail(t, p, "first 8 bytes overwritten (tag)");
		return 0;
	}
	return n;
}

struct wthread {
	pthread_t thread;
	unsigned int id, nthreads;
	uint64_t seed;
	void **slots;	   /* mixed: this thread's working set */
	uint64_t t0, t1;   /* wall clock at the start and end of the measured part */
	uint64_t cpu_ns;   /* this thread's CPU time in the measured part */
	uint64_t ops;	   /* allocations made in the measured part */
	unsigned long bad; /* objects whose tag did not check */
	void (*fn)(struct wthread *t);
	/* --diag: the measured part's spin turns (cpu_relax), page faults, context switches */
	uint64_t spins, minflt, nvcsw, nivcsw;
} __aligned(64);

/* The measured part's counts start: this thread's own (getrusage RUSAGE_THREAD). */
static void diag_begin(struct wthread *t)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	t->spins = host_spins;
	t->minflt = (uint64_t)ru.ru_minflt;
	t->nvcsw = (uint64_t)ru.ru_nvcsw;
	t->nivcsw = (uint64_t)ru.ru_nivcsw;
}

static void diag_end(struct wthread *t)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	t->spins = host_spins - t->spins;
	t->minflt = (uint64_t)ru.ru_minflt - t->minflt;
	t->nvcsw = (uint64_t)ru.ru_nvcsw - t->nvcsw;
	t->nivcsw = (uint64_t)ru.ru_nivcsw - t->nivcsw;
}

static struct wthread threads[MAX_THREADS];
static struct barrier start_barrier;
static const char *cur_alloc, *cur_workload;

static void tag_fail(struct wthread *t, const void *p, const char *what)
{
	if (t->bad++ < 5)
		fprintf(stderr, "workloads: %s, %s, thread %u: object %p: %s\n", cur_alloc,
			cur_workload, t->id, p, what);
}

/* An allocation failed: the workloads need far less memory than any allocator has. */
static __noinline void alloc_fail(struct wthread *t, size_t n)
{
	fprintf(stderr, "workloads: %s, %s, thread %u: allocation of %zu bytes failed\n", cur_alloc,
		cur_workload, t->id, n);
	exit(1);
}

/* A new object of n bytes from alloc, tagged. */
static __always_inline void *obj_new(struct wthread *t, void *(*alloc)(size_t), size_t n)
{
	void *p = alloc(n);

	if (unlikely(!p))
		alloc_fail(t, n);
	tag_set(p, n);
	if (unlikely(t->id == 0 && plant_left) && --plant_left == 0)
		((volatile unsigned char *)p)[1] ^= 0x5a; /* --plant: the checks must see this */
	return p;
}

static unsigned int ops_scaled(unsigned int n)
{
	uint64_t v = (uint64_t)n * wl_opt.scale / 100;

	return v ? (unsigned int)v : 1;
}

/* ---- larson: sets of slots handed between threads ---- */

struct larson_set {
	uint32_t busy __aligned(64);
	void *slot[LARSON_SLOTS];
};

static struct larson_set *larson_sets; /* 2 x nthreads */
static uint32_t larson_next;

static struct larson_set *larson_take(unsigned int nsets)
{
	unsigned int i = __atomic_fetch_add(&larson_next, 1, __ATOMIC_RELAXED) % nsets;
	unsigned long spins = 0;

	for (;; i = (i + 1) % nsets) {
		uint32_t zero = 0;
		struct larson_set *s = &larson_sets[i];

		if (!__atomic_load_n(&s->busy, __ATOMIC_RELAXED) &&
		    __atomic_compare_exchange_n(&s->busy, &zero, 1, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return s;
		spin_pause(&spins);
	}
}

static __always_inline void larson_body(struct wthread *t, void *(*alloc)(size_t),
					void (*dealloc)(void *))
{
	unsigned int nsets = 2 * t->nthreads, total = ops_scaled(LARSON_OPS), done = 0;
	uint64_t s = t->seed;

	/* Set-up (untimed): thread i fills sets 2i and 2i+1. */
	for (unsigned int k = 2 * t->id; k < 2 * t->id + 2; k++) {
		for (unsigned int j = 0; j < LARSON_SLOTS; j++) {
			size_t n = rnd_range(&s, LARSON_MIN, LARSON_MAX);
			larson_sets[k].slot[j] = obj_new(t, alloc, n);
		}
	}
	barrier_wait(&start_barrier);
	t->t0 = wl_clock_ns(CLOCK_MONOTONIC);
	t->cpu_ns = wl_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	diag_begin(t);
	cg_begin(t->id);
	while (done < total) {
		struct larson_set *set = larson_take(nsets);
		unsigned int round = MIN(LARSON_SLOTS, total - done);

		for (unsigned int k = 0; k < round; k++) {
			unsigned int j = (unsigned int)((rnd(&s) >> 32) * LARSON_SLOTS >> 32);
			size_t n = rnd_range(&s, LARSON_MIN, LARSON_MAX);

			tag_check(t, set->slot[j]);
			dealloc(set->slot[j]);
			set->slot[j] = obj_new(t, alloc, n);
		}
		done += round;
		__atomic_store_n(&set->busy, 0, __ATOMIC_RELEASE);
	}
	cg_end();
	t->t1 = wl_clock_ns(CLOCK_MONOTONIC);
	t->cpu_ns = wl_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t->cpu_ns;
	diag_end(t);
	t->ops = done;
	/* Clean-up (untimed): every set freed by the thread that filled it. */
	barrier_wait(&start_barrier);
	for (unsigned int k = 2 * t->id; k < 2 * t->id + 2; k++) {
		for (unsigned int j = 0; j < LARSON_SLOTS; j++) {
			tag_check(t, larson_sets[k].slot[j]);
			dealloc(larson_sets[k].slot[j]);
		}
	}
	t->seed = s;
}

/* ---- mixed: each thread's own working set of mixed sizes ---- */

static __always_inline void mixed_body(struct wthread *t, void *(*alloc)(size_t),
				       void (*dealloc)(void *))
{
	unsigned int total = ops_scaled(MIXED_OPS);
	void **slot = t->slots;
	uint64_t s = t->seed;

	memset(slot, 0, MIXED_SLOTS * sizeof(*slot));
	barrier_wait(&start_barrier);
	t->t0 = wl_clock_ns(CLOCK_MONOTONIC);
	t->cpu_ns = wl_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	diag_begin(t);
	cg_begin(t->id);
	for (unsigned int k = 0; k < total; k++) {
		unsigned int j = (unsigned int)((rnd(&s) >> 32) * MIXED_SLOTS >> 32);
		size_t n = rnd_mixed_size(&s);

		if (slot[j]) {
			tag_check(t, slot[j]);
			dealloc(slot[j]);
		}
		slot[j] = obj_new(t, alloc, n);
	}
	cg_end();
	t->t1 = wl_clock_ns(CLOCK_MONOTONIC);
	t->cpu_ns = wl_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t->cpu_ns;
	diag_end(t);
	t->ops = total;
	for (unsigned int j = 0; j < MIXED_SLOTS; j++) {
		if (slot[j]) {
			tag_check(t, slot[j]);
			dealloc(slot[j]);
		}
	}
	t->seed = s;
}

/* ---- prodcons: a ring per pair, frees on the consumer ---- */

/*
 * The ring: a waiting side spins briefly, then sleeps on a futex, and is woken
 * only when the other side has moved half a ring, so that on a loaded machine
 * a waiter costs no CPU time and the wake-ups are few (the same for every
 * allocator). 'seq' counts the waker's moves; 'sleeping' says who sleeps.
 * Each side keeps the other's index as last read and reads it again only
 * when the ring looks full (producer) or empty (consumer), and publishes its
 * own with a release store; the one full barrier is the kick's, each half
 * ring, against the waiter's 'sleeping' store. (Until issue 14's last
 * session each item was a sequentially consistent store and a read of the
 * other side's index: the ring's line bouncing then took about 60% of the
 * two-thread CPU time, whichever the allocator.)
 */
struct ring {
	uint64_t head __aligned(64); /* next to write (producer) */
	uint32_t head_seq;	     /* futex word the consumer sleeps on */
	uint32_t cons_sleeping;
	uint64_t tail __aligned(64); /* next to read (consumer) */
	uint32_t tail_seq;	     /* futex word the producer sleeps on */
	uint32_t prod_sleeping;
	void *slot[PC_RING] __aligned(64);
};

/* Wait until cond(r) holds: a short spin, then sleep on *seq while *sleeping is set. */
#define RING_WAIT(r, cond, seq, sleeping)                                                          \
	do {                                                                                       \
		for (unsigned int spin_ = 0; !(cond) && spin_ < 200; spin_++)                      \
			__asm__ __volatile__("pause" ::: "memory");                                \
		while (!(cond)) {                                                                  \
			uint32_t v_ = __atomic_load_n(&(r)->seq, __ATOMIC_SEQ_CST);                \
                                                                                                   \
			__atomic_store_n(&(r)->sleeping, 1, __ATOMIC_SEQ_CST);                     \
			if (!(cond))                                                               \
				futex_wait(&(r)->seq, v_);                                         \
			__atomic_store_n(&(r)->sleeping, 0, __ATOMIC_SEQ_CST);                     \
		}                                                                                  \
	} while (0)

/* After a move: wake the other side, if asleep, each half ring and at the end. */
static inline void ring_kick(uint32_t *seq, uint32_t *sleeping, uint64_t pos, bool last)
{
	if (pos % (PC_RING / 2) && !last)
		return;
	__atomic_fetch_add(seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(sleeping, __ATOMIC_SEQ_CST))
		futex_wake(seq, 1);
}

static struct ring rings[MAX_THREADS / 2];

static __always_inline void prodcons_body(struct wthread *t, void *(*alloc)(size_t),
					  void (*dealloc)(void *))
{
	unsigned int total = ops_scaled(PC_ITEMS);
	uint64_t s = t->seed;

	barrier_wait(&start_barrier);
	t->t0 = wl_clock_ns(CLOCK_MONOTONIC);
	t->cpu_ns = wl_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	diag_begin(t);
	cg_begin(t->id);
	if (t->nthreads == 1) {
		void **batch = t->slots;

		for (unsigned int done = 0; done < total;) {
			unsigned int b = MIN(PC_BATCH, total - done);

			for (unsigned int k = 0; k < b; k++) {
				size_t n = rnd_range(&s, PC_MIN, PC_MAX);

				batch[k] = obj_new(t, alloc, n);
			}
			for (unsigned int k = 0; k < b; k++) {
				tag_check(t, batch[k]);
				dealloc(batch[k]);
			}
			done += b;
		}
		t->ops = total;
	} else if (t->id % 2 == 0) {
		struct ring *r = &rings[t->id / 2];
		uint64_t head = 0, tail_seen = 0;

		for (unsigned int k = 0; k < total; k++) {
			size_t n = rnd_range(&s, PC_MIN, PC_MAX);
			void *p = obj_new(t, alloc, n);

			/* The consumer's index is read only when the ring looks full. */
			if (head - tail_seen >= PC_RING)
				RING_WAIT(r,
					  head - (tail_seen = __atomic_load_n(&r->tail,
									      __ATOMIC_SEQ_CST)) <
						  PC_RING,
					  tail_seq, prod_sleeping);
			r->slot[head % PC_RING] = p;
			__atomic_store_n(&r->head, ++head, __ATOMIC_RELEASE);
			ring_kick(&r->head_seq, &r->cons_sleeping, head, k + 1 == total);
		}
		t->ops = total;
	} else {
		struct ring *r = &rings[t->id / 2];
		uint64_t tail = 0, head_seen = 0;

		for (unsigned int k = 0; k < total; k++) {
			void *p;

			/* The producer's index is read only when the ring looks empty. */
			if (head_seen == tail)
				RING_WAIT(r,
					  (head_seen = __atomic_load_n(&r->head, __ATOMIC_SEQ_CST)) !=
						  tail,
					  head_seq, cons_sleeping);
			p = r->slot[tail % PC_RING];
			__atomic_store_n(&r->tail, ++tail, __ATOMIC_RELEASE);
			ring_kick(&r->tail_seq, &r->prod_sleeping, tail, k + 1 == total);
			tag_check(t, p);
			dealloc(p);
		}
		t->ops = 0; /* the producer counts the pairs */
	}
	cg_end();
	t->t1 = wl_clock_ns(CLOCK_MONOTONIC);
	t->cpu_ns = wl_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t->cpu_ns;
	diag_end(t);
	t->seed = s;
}

/* ---- one copy of each workload per allocator ---- */

static inline void *quarry_alloc(size_t n)
{
	return kmalloc(n);
}
static inline void quarry_free(void *p)
{
	kfree(p);
}
static inline void *glibc_alloc(size_t n)
{
	return malloc(n);
}
static inline void glibc_free(void *p)
{
	free(p);
}
static inline void *jemalloc_alloc(size_t n)
{
	return peer_je_mallocx(n, 0);
}
static inline void jemalloc_free(void *p)
{
	peer_je_dallocx(p, 0);
}
static inline void *tcmalloc_alloc(size_t n)
{
	return peer_tc_malloc(n);
}
static inline void tcmalloc_free(void *p)
{
	peer_tc_free(p);
}
static inline void *mimalloc_alloc(size_t n)
{
	return peer_mi_malloc(n);
}
static inline void mimalloc_free(void *p)
{
	peer_mi_free(p);
}
/* The yardstick of a one-lock heap: every call under one spinlock, as SLOB's heap is. */
static struct spinlock locked_heap_lock __aligned(64) = SPINLOCK_INIT;
static inline void *locked_alloc(size_t n)
{
	void *p;

	spin_lock(&locked_heap_lock);
	p = malloc(n);
	spin_unlock(&locked_heap_lock);
	return p;
}
static inline void locked_free(void *p)
{
	spin_lock(&locked_heap_lock);
	free(p);
	spin_unlock(&locked_heap_lock);
}

/*
 * Each allocator's copies of the workloads, and under --lockstep copies
 * whose allocations first wait for the token (a separate copy, so that the
 * timed loops of ordinary runs have no test for it).
 */
#define DEFINE_WORKLOADS(NAME)                                                                     \
	static void NAME##_larson(struct wthread *t)                                               \
	{                                                                                          \
		larson_body(t, NAME##_alloc, NAME##_free);                                         \
	}                                                                                          \
	static void NAME##_mixed(struct wthread *t)                                                \
	{                                                                                          \
		mixed_body(t, NAME##_alloc, NAME##_free);                                          \
	}                                                                                          \
	static void NAME##_prodcons(struct wthread *t)                                             \
	{                                                                                          \
		prodcons_body(t, NAME##_alloc, NAME##_free);                                       \
	}                                                                                          \
	static inline void *NAME##_ls_alloc(size_t n)                                              \
	{                                                                                          \
		if (ls_in)                                                                         \
			lockstep_turn();                                                           \
		return NAME##_alloc(n);                                                            \
	}                                                                                          \
	static void NAME##_larson_ls(struct wthread *t)                                            \
	{                                                                                          \
		larson_body(t, NAME##_ls_alloc, NAME##_free);                                      \
	}                                                                                          \
	static void NAME##_mixed_ls(struct wthread *t)                                             \
	{                                                                                          \
		mixed_body(t, NAME##_ls_alloc, NAME##_free);                                       \
	}

DEFINE_WORKLOADS(quarry)
DEFINE_WORKLOADS(glibc)
DEFINE_WORKLOADS(jemalloc)
DEFINE_WORKLOADS(tcmalloc)
DEFINE_WORKLOADS(mimalloc)
DEFINE_WORKLOADS(locked)

#define ALLOCATOR(NAME)                                                                            \
	{                                                                                          \
#NAME, {NAME##_larson, NAME##_mixed, NAME##_prodcons },                            \
		    {NAME##_larson_ls, NAME##_mixed_ls, NULL}, false, ""                           \
	}

struct allocator wl_allocs[WL_NALLOCS] = {
    ALLOCATOR(quarry),	 ALLOCATOR(glibc),    ALLOCATOR(jemalloc),
    ALLOCATOR(tcmalloc), ALLOCATOR(mimalloc), ALLOCATOR(locked),
};

const char *const wl_workload_names[3] = {"larson", "mixed", "prodcons"};

/* wl_alloc_name: see workloads.h. */
const char *wl_alloc_name(const struct allocator *a)
{
	return a == &wl_allocs[0] ? wl_opt.variant : a->key;
}

/* ---- running ---- */

static void pin(unsigned int core)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(core, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		fprintf(stderr, "workloads: cannot pin to core %u\n", core);
}

/* This run's threads are sampled (--sample, timed runs only). */
static bool sample_run;

static void *thread_main(void *arg)
{
	struct wthread *t = arg;

	pin(t->id % wl_ncores);
	host_set_cpu(t->id);
	if (sample_run)
		wl_sample_thread_start(t->id);
	t->fn(t);
	if (sample_run)
		wl_sample_thread_stop();
	return NULL;
}

FILE *wl_diag_file;

/* wl_run_once: see workloads.h. */

bool wl_run_once(struct allocator *a, unsigned int w, unsigned int n, unsigned int run,
		     FILE *csv)
{
	uint64_t t0 = UINT64_MAX, t1 = 0, cpu = 0, ops = 0, spins = 0, minflt = 0, nvcsw = 0;
	uint64_t nivcsw = 0;
	unsigned long bad = 0;

	cg_collect = wl_opt.callgrind && run > 0 && n == 1;
	plant_left = run > 0 ? wl_opt.plant : 0;
	sample_run = wl_opt.sample && run > 0;
	cur_alloc = wl_alloc_name(a);
	cur_workload = wl_workload_names[w];
	start_barrier = (struct barrier){.n = n};
	larson_next = 0;
	memset(rings, 0, sizeof(rings));
	for (unsigned int i = 0; i < 2 * n && w == 0; i++)
		larson_sets[i].busy = 0;
	lockstep_reset(n);
	if (run > 0)
		perf_ctl("enable\n");
	for (unsigned int i = 0; i < n; i++) {
		struct wthread *t = &threads[i];

		t->id = i;
		t->nthreads = n;
		t->seed = 0x9e3779b97f4a7c15ULL * (i + 1) + run * 0x632be59bd9b4e019ULL + w;
		t->fn = wl_opt.lockstep ? a->fn_ls[w] : a->fn[w];
		t->bad = 0;
		if (pthread_create(&t->thread, NULL, thread_main, t)) {
			fprintf(stderr, "workloads: cannot start thread %u\n", i);
			exit(2);
		}
	}
	for (unsigned int i = 0; i < n; i++) {
		struct wthread *t = &threads[i];

		pthread_join(t->thread, NULL);
		t0 = MIN(t0, t->t0);
		t1 = MAX(t1, t->t1);
		cpu += t->cpu_ns;
		ops += t->ops;
		bad += t->bad;
		spins += t->spins;
		minflt += t->minflt;
		nvcsw += t->nvcsw;
		nivcsw += t->nivcsw;
	}
	if (run > 0)
		perf_ctl("disable\n");
	if (cg_collect) {
		char name[96];

		snprintf(name, sizeof(name), "%s|%s|%u|%llu", wl_workload_names[w], wl_alloc_name(a), n,
			 (unsigned long long)ops);
		CALLGRIND_DUMP_STATS_AT(name);
	}
	if (csv && run > 0)
		fprintf(csv, "%s,%u,%s,%u,%llu,%llu,%llu\n", wl_alloc_name(a), n, wl_workload_names[w],
			run, (unsigned long long)(t1 - t0), (unsigned long long)cpu,
			(unsigned long long)ops);
	if (wl_diag_file && csv && run > 0)
		fprintf(wl_diag_file, "%s,%u,%s,%u,%llu,%llu,%llu,%llu,%llu\n", wl_alloc_name(a), n,
			wl_workload_names[w], run, (unsigned long long)ops, (unsigned long long)spins,
			(unsigned long long)minflt, (unsigned long long)nvcsw,
			(unsigned long long)nivcsw);
	if (bad)
		fprintf(stderr, "workloads: %s, %s, %u threads: %lu objects with bad tags\n",
			wl_alloc_name(a), wl_workload_names[w], n, bad);
	return bad == 0;
}

/* wl_prepare: see workloads.h. */
bool wl_prepare(unsigned int maxn)
{
	larson_sets = calloc(2 * maxn, sizeof(*larson_sets));
	if (!larson_sets)
		return false;
	for (unsigned int i = 0; i < maxn; i++) {
		threads[i].slots = calloc(MAX(MIXED_SLOTS, PC_BATCH), sizeof(void *));
		if (!threads[i].slots)
			return false;
	}
	return true;
}
