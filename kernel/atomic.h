/*
 * atomic.h - atomic counters and the memory-ordering primitives kernel/ and
 * mm/ use between CPUs. Built on the compiler's __atomic builtins, so the
 * same code is correct on x86_64, on ARM64 later, and on the host.
 *
 * Ordering, in one line each:
 *  - atomic_read/atomic_set, atomic_inc/dec/add/sub: atomic, but order
 *    nothing else (relaxed). Use for statistics and counters that nobody
 *    uses to publish other data.
 *  - atomic_*_return, atomic_dec_and_test, atomic_xchg, atomic_cmpxchg:
 *    full barriers: every access before them is visible before the update,
 *    and none after moves before it. Use when the counter's value decides
 *    what another CPU may do with shared data (last reference, hand-off).
 *  - smp_store_release(p, v): every access before it is visible to a CPU
 *    that sees v; smp_load_acquire(p): no access after it happens before it.
 *    A release store paired with an acquire load publishes data (fill a
 *    buffer, then release a flag; acquire the flag, then read the buffer).
 *  - smp_mb(): full fence, orders everything including an earlier store
 *    against a later load (the only reordering x86 does). smp_rmb/smp_wmb
 *    order only loads/only stores (compiler barriers on x86).
 */
#ifndef QUARRY_ATOMIC_H
#define QUARRY_ATOMIC_H

#include "kernel/compiler.h"
#include <asm/barrier.h>

struct atomic {
	int counter;
};

struct atomic_long {
	long counter;
};

#define ATOMIC_INIT(v)	{ (v) }

#define smp_mb()	mb()
#define smp_rmb()	rmb()
#define smp_wmb()	wmb()

#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

static inline int atomic_read(const struct atomic *a)
{
	return __atomic_load_n(&a->counter, __ATOMIC_RELAXED);
}

static inline void atomic_set(struct atomic *a, int v)
{
	__atomic_store_n(&a->counter, v, __ATOMIC_RELAXED);
}

static inline void atomic_add(struct atomic *a, int v)
{
	__atomic_fetch_add(&a->counter, v, __ATOMIC_RELAXED);
}

static inline void atomic_sub(struct atomic *a, int v)
{
	__atomic_fetch_sub(&a->counter, v, __ATOMIC_RELAXED);
}

static inline void atomic_inc(struct atomic *a)
{
	atomic_add(a, 1);
}

static inline void atomic_dec(struct atomic *a)
{
	atomic_sub(a, 1);
}

/* The new value; a full barrier. */
static inline int atomic_add_return(struct atomic *a, int v)
{
	return __atomic_add_fetch(&a->counter, v, __ATOMIC_SEQ_CST);
}

static inline int atomic_sub_return(struct atomic *a, int v)
{
	return __atomic_sub_fetch(&a->counter, v, __ATOMIC_SEQ_CST);
}

/* True when the decrement reached zero; a full barrier. */
static inline bool atomic_dec_and_test(struct atomic *a)
{
	return atomic_sub_return(a, 1) == 0;
}

/* Store v, return the old value; a full barrier. */
static inline int atomic_xchg(struct atomic *a, int v)
{
	return __atomic_exchange_n(&a->counter, v, __ATOMIC_SEQ_CST);
}

/* If the value is old, make it new. Returns the value found; a full barrier. */
static inline int atomic_cmpxchg(struct atomic *a, int old, int new)
{
	__atomic_compare_exchange_n(&a->counter, &old, new, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	return old;
}

static inline long atomic_long_read(const struct atomic_long *a)
{
	return __atomic_load_n(&a->counter, __ATOMIC_RELAXED);
}

static inline void atomic_long_set(struct atomic_long *a, long v)
{
	__atomic_store_n(&a->counter, v, __ATOMIC_RELAXED);
}

static inline void atomic_long_add(struct atomic_long *a, long v)
{
	__atomic_fetch_add(&a->counter, v, __ATOMIC_RELAXED);
}

static inline void atomic_long_sub(struct atomic_long *a, long v)
{
	__atomic_fetch_sub(&a->counter, v, __ATOMIC_RELAXED);
}

static inline long atomic_long_add_return(struct atomic_long *a, long v)
{
	return __atomic_add_fetch(&a->counter, v, __ATOMIC_SEQ_CST);
}

#endif
