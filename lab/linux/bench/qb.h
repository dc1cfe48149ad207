/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qb.h - what the files of Quarry's benchmark module share: its parameters,
 * the counter, the BENCH line printer, a spinning barrier and a kthread per
 * online CPU. qb_kmalloc.c holds tests 1-4 and the module's init, qb_pages.c
 * the page allocator's rows, qb_msg.c the messaging workload; each prints the
 * BENCH lines Quarry's own lab/bench_*.c print for the same benchmark.
 */
#ifndef QB_H
#define QB_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/math64.h>
#include <linux/timex.h>

#define QB_MAX_CPUS	8

#ifdef CONFIG_ARM64
#define QB_ARCH		"arm64"
#else
#define QB_ARCH		"x86_64"
#endif

/* The alloc= of the BENCH lines: linux<VER>-<allocator>, or the name= parameter (qb_kmalloc.c). */
extern char qb_alloc_name[32];

extern bool qb_icount;		/* the counter counts guest instructions (-icount) */
extern unsigned int qb_turn;	/* -icount, 2+ CPUs: yield every qb_turn operations */

/* The counter: RDTSC on x86_64, PMCCNTR_EL0 on arm64 (enabled at load, qb_pmu_enable_all). */
static inline u64 qb_cycles(void)
{
#ifdef CONFIG_ARM64
	u64 v;

	asm volatile("mrs %0, pmccntr_el0" : "=r"(v));
	return v;
#else
	return get_cycles();
#endif
}

/* total / n, rounded to nearest; n > 0. */
static inline unsigned long per_op(u64 total, unsigned long n)
{
	return (unsigned long)div64_u64(total + n / 2, n);
}

/*
 * A timed phase on 2+ CPUs under -icount runs with interrupts off and yields
 * the vCPU every qb_turn operations (cpu_relax), as Quarry's bench does.
 */
bool qb_quiet(void);

/*
 * Print one BENCH line: arch, page, alloc, cpus, mode, test, size, then nkv
 * pairs of (const char *key, unsigned long value), then the unit.
 */
void bench_line(const char *test, unsigned long size, unsigned int nkv, ...);

/* Slab memory now, in kB: /proc/meminfo's Slab: (reclaimable + unreclaimable). */
unsigned long qb_slab_kb(void);

/* On arm64, start PMCCNTR on every online CPU; nothing elsewhere. */
void qb_pmu_enable_all(void);

/* A sense-counting barrier over n spinning CPUs (nothing sleeps). */
struct qb_barrier {
	unsigned int n;
	atomic_t arrived;
	atomic_t gen;
};

void qb_barrier_init(struct qb_barrier *b, unsigned int n);
void qb_barrier_wait(struct qb_barrier *b);

/*
 * Run fn(arg) in a kthread bound to each online CPU, all created before any
 * is woken, and wait until every one has returned. Process context, may sleep.
 * Returns 0, or -ENOMEM (with a message) when a thread could not be created;
 * then none ran.
 */
int qb_run_on_cpus(int (*fn)(void *), void *arg);

void bench_pages(void);		/* qb_pages.c */
void bench_messaging(void);	/* qb_msg.c */

#endif
