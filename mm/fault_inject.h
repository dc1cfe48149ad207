/*
 * fault_inject.h - make allocations fail on purpose, as Linux's
 * fail_page_alloc and failslab do, so that the callers' error paths run.
 *
 * Two points fail: fail_page_alloc makes alloc_pages() (hence every slab
 * grow and every large kmalloc) return NULL; failslab makes kmalloc() and
 * kmem_cache_alloc() return NULL before they touch the allocator. Each is
 * described by four numbers, written "interval,probability,times,seed":
 *   interval     only every interval-th call may fail (1: any call)
 *   probability  percent (0..100) of those calls that fail
 *   times        how many failures at most; -1: no limit
 *   seed         the failure pattern: call n fails when a hash of (seed, n)
 *                falls under the probability, so one CPU making the same
 *                calls sees the same failures every run
 * The kernel reads them from its command line (fail_page_alloc=... and
 * failslab=..., see kernel/kmain.c) once it is up; the host harness from
 * QUARRY_FAIL_PAGE_ALLOC and QUARRY_FAILSLAB (tests/fuzz) or by calling
 * fault_attr_set().
 *
 * Cost when off: one load and a not-taken branch per alloc_pages call, and
 * per kmem_cache_alloc call for SLUB and SLOB; nothing per kmalloc call
 * (SLUB, SLOB: kmalloc's size table is emptied while failslab is on,
 * mm/slab_impl.h) and nothing for SLAB, which folds the test into its
 * per-CPU array lookup (every CPU's slab_cpu_index names an always-empty
 * array while failslab is on: SLAB_CPU_FAILSLAB, mm/slab/slab_def.h). When on:
 * an atomic add and a hash per call (SLAB: and its slow path).
 */
#ifndef MM_FAULT_INJECT_H
#define MM_FAULT_INJECT_H

#include "kernel/compiler.h"

struct fault_attr {
	const char *name;		/* "fail_page_alloc" or "failslab" */
	int enabled;			/* set last by fault_attr_set, read first */
	unsigned long interval;
	unsigned int probability;	/* percent */
	long times;			/* failures left, -1: no limit (atomic) */
	uint64_t seed;
	unsigned long calls;		/* calls seen while enabled (atomic) */
	unsigned long injected;		/* failures made (atomic) */
};

extern struct fault_attr fail_page_alloc;
extern struct fault_attr failslab;

/*
 * __should_fail - the decision for one call while attr is enabled: counts
 * the call, returns true (and counts a failure, using up one of 'times')
 * when this call is to fail. Any context, any CPU.
 */
bool __should_fail(struct fault_attr *attr);

/* fault_attr_on - whether attr is switched on: one load. */
static __always_inline bool fault_attr_on(const struct fault_attr *attr)
{
	return __atomic_load_n(&attr->enabled, __ATOMIC_RELAXED);
}

/*
 * slab_alloc_failslab - kmalloc's and kmem_cache_alloc's allocation while
 * failslab is on (SLUB, SLOB; SLAB asks should_fail in its slow path):
 * NULL when should_fail says so, else the allocator's slab_alloc. Out of
 * line (mm/kmalloc.c), so that the fast paths only test fault_attr_on and
 * tail-call it: a call that returns into them would cost every allocation
 * a stack frame (9 instructions on x86_64's kmalloc(32)).
 */
struct kmem_cache;
void *slab_alloc_failslab(struct kmem_cache *cachep);

/* should_fail - false at the cost of one load while attr is off, else __should_fail. */
static __always_inline bool should_fail(struct fault_attr *attr)
{
	if (likely(!__atomic_load_n(&attr->enabled, __ATOMIC_RELAXED)))
		return false;
	return __should_fail(attr);
}

/*
 * fault_attr_set - switch attr on with these numbers and zero its counts
 * (interval 0 is taken as 1, probability above 100 as 100). Call while no
 * CPU allocates, or accept that calls racing with it see either setting.
 * fault_attr_disable - switch attr off; its counts stay for reports.
 */
void fault_attr_set(struct fault_attr *attr, unsigned long interval, unsigned int probability,
		    long times, uint64_t seed);
void fault_attr_disable(struct fault_attr *attr);

/*
 * fault_attr_parse - read "interval,probability,times,seed" (decimal;
 * times may be -1; seed may be 0x-prefixed hex) and switch attr on with it.
 * Returns 0, or -EINVAL after printing what is wrong, naming attr and the
 * text, with attr left as it was.
 */
int fault_attr_parse(struct fault_attr *attr, const char *spec);

/* fault_attr_show - one line: the setting and how many of how many calls failed. */
void fault_attr_show(const struct fault_attr *attr);

#endif
