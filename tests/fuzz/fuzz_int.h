/*
 * fuzz_int.h - the fuzzer's internal state, shared by tests/fuzz/fuzz.c
 * (the operations and rounds) and tests/fuzz/fuzz_check.c (streams,
 * shadow map, patterns, findings). See tests/fuzz/fuzz.h for the design.
 */
#ifndef TESTS_FUZZ_FUZZ_INT_H
#define TESTS_FUZZ_FUZZ_INT_H

#include "tests/fuzz/fuzz.h"
#include "kernel/compiler.h"

#define FZ_MAX_CPUS	8
#define FZ_LIVE		192	/* allocations one CPU holds at most */
#define FZ_BIG_LIVE	4	/* of those, above FZ_BIG bytes */
#define FZ_BIG		(256UL << 10)
#define FZ_HUGE		(1UL << 20)	/* above: at most FZ_HUGE_LIVE live in all CPUs */
#define FZ_HUGE_LIVE	2
#define FZ_CACHES	12	/* cache slots */
#define FZ_RING		256	/* cross-CPU free ring slots (power of two) */
#define FZ_GRANULE	8	/* shadow map: bytes per bit (kmalloc's minimum alignment) */
#define FZ_INTACT	((size_t)-1)
#define FZ_FULL_PATTERN	(64UL << 10)	/* bigger allocations get a sampled pattern */

enum fz_kind { FZ_KMALLOC, FZ_CACHE, FZ_PAGES, FZ_PAGES_ADDR };

/* One live allocation. */
struct fz_obj {
	uint8_t *p;
	size_t len;		/* bytes covered by the pattern and the shadow map */
	uint32_t id;		/* names the pattern (cpu << 27 | serial) */
	uint8_t kind;		/* enum fz_kind */
	uint8_t slot;		/* FZ_CACHE: the cache slot */
	uint8_t order;		/* FZ_PAGES*: the block's order */
	uint8_t owner;		/* allocating CPU */
};

enum fz_cache_state { FZ_SLOT_EMPTY, FZ_SLOT_ACTIVE, FZ_SLOT_DYING };

/* A cache the fuzzer made. State changes only at checkpoints (one CPU running). */
struct fz_cache {
	struct kmem_cache *cachep;
	int state;		/* enum fz_cache_state; DYING: destroy said -EBUSY, frees only */
	size_t size, align;
	unsigned int flags;
	bool ctor;
	unsigned long live;	/* objects allocated and not freed (atomic) */
	char name[32];
};

/* A decision stream: a seeded generator, or libFuzzer's input bytes. */
struct fz_src {
	uint64_t x;
	const uint8_t *data;
	size_t size, pos;
	bool done;		/* data used up */
};

struct fz_ring {
	struct fz_obj slot[FZ_RING];
	unsigned long head;	/* producer, release */
	unsigned long tail;	/* consumer, release */
};

struct fz_cpu {
	unsigned int cpu;
	struct fz_src *src;
	struct fz_src own;	/* threaded mode: this CPU's stream */
	struct fz_obj live[FZ_LIVE];
	unsigned int nlive, nbig;
	uint32_t next_id;
	struct fz_ring *out, *in;
	unsigned long ops, alloc_nulls, remote_frees;
};

struct fz_frag_page;

struct fz_state {
	struct fuzz_config cfg;
	struct fz_cpu cpu[FZ_MAX_CPUS];
	struct fz_ring ring[FZ_MAX_CPUS];	/* ring[i]: from CPU i to CPU i + 1 */
	struct fz_cache cache[FZ_CACHES];
	struct fz_src seq_src;			/* sequential mode: the one stream */
	uintptr_t arena_lo, arena_hi;
	uint64_t *shadow;
	unsigned long ops;			/* all CPUs (atomic) */
	unsigned long findings;			/* atomic */
	int stop;				/* a finding: every CPU stops (atomic) */
	int done;				/* no more rounds (written at checkpoints) */
	int planted;				/* --plant done */
	unsigned long checkpoints, caches_made;
	long nhuge;				/* live allocations above FZ_HUGE (atomic) */
	int running;				/* fuzz_run under way (fuzz_died) */
	struct fz_cache *last_cache;		/* the cache of the last cache call begun */
	const char *last_call;			/* and that call */
	struct fz_frag_page *frag;		/* pages the fragmenter holds */
	unsigned int frag_rounds;		/* rounds until it gives them back */
	unsigned long bad_frees0, corruptions0, buddy_bad0;
	double t_end;				/* deadline, CLOCK_MONOTONIC seconds */
};

extern struct fz_state fz;
extern const char *fz_argv0;	/* for the reproduce line */
extern char fz_repro_extra[48];	/* its options besides seed, CPUs, threads, ops */

/* fz_src_seed - a generator stream for (seed, stream number). */
void fz_src_seed(struct fz_src *s, uint64_t seed, unsigned int stream);
/* fz_below - a number in [0, n) from s (0 and s->done set once input data runs out). */
uint64_t fz_below(struct fz_src *s, uint64_t n);

/*
 * The shadow map over the arena [lo, hi): fz_shadow_mark sets the bits of
 * [p, p + len) and returns false if one was set (an overlap);
 * fz_shadow_clear clears them and returns false if one was clear.
 * Atomic: any CPU, any time.
 */
void fz_shadow_init(uintptr_t lo, uintptr_t hi);
bool fz_shadow_mark(const void *p, size_t len);
bool fz_shadow_clear(const void *p, size_t len);
bool fz_in_arena(const void *p, size_t len);

/*
 * fz_fill - write allocation id's pattern over len bytes (above
 * FZ_FULL_PATTERN: over the first and last 4 KiB and 64 bytes of every
 * 4 KiB); fz_check - the offset of the first byte that differs from it
 * there, or FZ_INTACT;
 * fz_zero_at - the first non-zero byte, or FZ_INTACT. These are built
 * with -O2 and without sanitizer instrumentation (they touch only arena
 * memory, which ASan does not track): they are most of the fuzzer's time.
 */
void fz_fill(void *p, size_t len, uint32_t id);
size_t fz_check(const void *p, size_t len, uint32_t id);
/* fz_check_upto - fz_check of a len-byte allocation's pattern, in its first limit bytes only. */
size_t fz_check_upto(const void *p, size_t len, size_t limit, uint32_t id);
size_t fz_zero_at(const void *p, size_t len);
/* What cache slot's constructor writes: the pattern of an id no allocation has. */
#define FZ_CTOR_ID(slot)	(0xffff0000U + (slot))

/*
 * fuzz_null.c: whether a NULL is a finding. fz_inject_mark - the failure
 * points' injected counts, taken before an allocation; fz_injected_since -
 * whether fault injection may have made it fail (a count moved; in a
 * threaded run, unless 'alone', any time a point is on: other CPUs move
 * the counts); fz_faults_on - a failure point is on.
 * fz_got_null - an allocation of size bytes ('what', e.g. "kmalloc")
 * returned NULL on c: counts it, and reports a finding when it should not
 * have failed (fuzz_null.c). need_order: the smallest order one slab or
 * block of the request fits in; slab: the cache a slab-sized request is
 * served from (NULL: none, or pages). fz_cache_slab_order - the block order
 * of one slab of cachep (its slabinfo row's pagesperslab).
 */
struct fz_inject {
	unsigned long page, slab;
};
struct kmem_cache;
void fz_inject_mark(struct fz_inject *m);
bool fz_injected_since(const struct fz_inject *m, bool alone);
bool fz_faults_on(void);
void fz_got_null(struct fz_cpu *c, const char *what, size_t size, unsigned int need_order,
		 struct kmem_cache *slab, const struct fz_inject *m);
unsigned int fz_cache_slab_order(struct kmem_cache *cachep);
/*
 * fz_frag_churn - at a checkpoint (one CPU running): end the fragmented
 * spell after its rounds, or start one now and then (fuzz_null.c);
 * fz_frag_release - end it now (the end of a run).
 */
void fz_frag_churn(struct fz_src *s);
void fz_frag_release(void);

/*
 * fz_finding - report a finding (the first of a run is printed with the
 * seed, CPU and operation that reproduce it) and make every CPU stop.
 * c may be NULL (checkpoints).
 */
void fz_finding(struct fz_cpu *c, const char *fmt, ...) __printf(2, 3);

#endif
