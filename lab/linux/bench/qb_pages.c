// SPDX-License-Identifier: GPL-2.0
/*
 * qb_pages.c - benchmark 6 of Quarry's bench (lab/bench_pages.c) in Linux:
 * PAGE_OBJECTS alloc_pages then as many __free_pages at orders 0 to 3, on CPU
 * 0 alone with interrupts off (pages_single), then on every online CPU at
 * once through a barrier (pages_concurrent; under -icount on 2+ CPUs with
 * interrupts off and a yield every qb_turn operations, and on x86_64, where
 * the TSC is the machine's clock, the span over all CPUs: pages_span).
 * GFP_NOWAIT: nothing may sleep with interrupts off. Orders 0-3 go through
 * Linux's per-CPU page lists as Quarry's do through its own.
 */
#include <linux/kernel.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/smp.h>
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/minmax.h>
#include "marker.h"
#include "qb.h"

#define PAGE_OBJECTS	1000
#define PAGE_MAX_ORDER	3
#define PAGE_GFP	(GFP_NOWAIT | __GFP_NOWARN)

struct page_run {
	unsigned int order;
	struct qb_barrier barrier;
	u64 alloc_cost[QB_MAX_CPUS], free_cost[QB_MAX_CPUS];
	unsigned long got[QB_MAX_CPUS];
	u64 stamp[QB_MAX_CPUS][4];	/* the counter at each phase's start and end */
};

static struct page *blocks[QB_MAX_CPUS][PAGE_OBJECTS];

/*
 * PAGE_OBJECTS allocations then as many frees at one order on this CPU, the
 * caller having turned interrupts off; with a run, each phase starts at its
 * barrier, yields every step operations and leaves its stamps and count.
 */
static void page_loops(unsigned int order, u64 *alloc_cost, u64 *free_cost,
		       struct page_run *run, unsigned long step)
{
	unsigned int cpu = smp_processor_id();
	struct page **b = blocks[cpu];
	unsigned long got = 0, end, i, k;
	u64 t0, t1, t2, t3, g[4];

	if (run)
		qb_barrier_wait(&run->barrier);
	g[0] = qb_cycles();
	t0 = qb_cycles();
	MODEL_BEGIN(MODEL_R_PAGES_ALLOC);
	for (end = min(step, (unsigned long)PAGE_OBJECTS); got < PAGE_OBJECTS;
	     end = min(end + step, (unsigned long)PAGE_OBJECTS)) {
		for (; got < end; got++) {
			b[got] = alloc_pages(PAGE_GFP, order);
			if (!b[got])
				break;
		}
		if (got < end)
			break;
		if (step < PAGE_OBJECTS)
			cpu_relax();
	}
	MODEL_END(MODEL_R_PAGES_ALLOC);
	t1 = qb_cycles();
	g[1] = qb_cycles();
	if (run)
		qb_barrier_wait(&run->barrier);
	g[2] = qb_cycles();
	t2 = qb_cycles();
	MODEL_BEGIN(MODEL_R_PAGES_FREE);
	for (i = 0; i < got; i += step) {
		for (k = i; k < min(i + step, got); k++)
			__free_pages(b[k], order);
		if (step < PAGE_OBJECTS)
			cpu_relax();
	}
	MODEL_END(MODEL_R_PAGES_FREE);
	t3 = qb_cycles();
	g[3] = qb_cycles();
	*alloc_cost = got ? per_op(t1 - t0, got) : 0;
	*free_cost = got ? per_op(t3 - t2, got) : 0;
	if (run) {
		run->got[cpu] = got;
		for (i = 0; i < 4; i++)
			run->stamp[cpu][i] = g[i];
	}
}

static int page_cpu(void *arg)
{
	struct page_run *run = arg;
	unsigned int cpu = smp_processor_id();
	unsigned long step = qb_quiet() && qb_turn ? qb_turn : PAGE_OBJECTS;
	unsigned long flags = 0;

	if (qb_quiet())
		local_irq_save(flags);
	page_loops(run->order, &run->alloc_cost[cpu], &run->free_cost[cpu], run, step);
	if (qb_quiet())
		local_irq_restore(flags);
	return 0;
}

/* Benchmark 6 (qb.h). Process context; prints its rows or why it could not run. */
void bench_pages(void)
{
	static struct page_run run;
	unsigned int ncpus = num_online_cpus(), cpu, order;

	pr_info("\n6. Page allocator: %d times alloc_pages(order) then free_pages\n", PAGE_OBJECTS);
	for (order = 0; order <= PAGE_MAX_ORDER; order++) {
		unsigned long flags;
		u64 a, f;

		local_irq_save(flags);
		page_loops(order, &a, &f, NULL, PAGE_OBJECTS);
		local_irq_restore(flags);
		pr_info("%d times alloc_pages(%u) -> %llu cycles free_pages -> %llu cycles\n",
			PAGE_OBJECTS, order, a, f);
		bench_line("pages_single", order, 2, "alloc_cost", (unsigned long)a, "free_cost",
			   (unsigned long)f);
	}
	if (ncpus > QB_MAX_CPUS) {
		pr_info("Pages on every CPU: more than %d CPUs; skipped\n", QB_MAX_CPUS);
		return;
	}
	for (order = 0; order <= PAGE_MAX_ORDER; order++) {
		u64 asum = 0, fsum = 0, start[2] = { U64_MAX, U64_MAX }, end[2] = { 0, 0 };
		unsigned long ops = 0;
		unsigned int p;

		run.order = order;
		qb_barrier_init(&run.barrier, ncpus);
		memset(run.got, 0, sizeof(run.got));
		if (qb_run_on_cpus(page_cpu, &run))
			return;
		for_each_online_cpu(cpu) {
			asum += run.alloc_cost[cpu];
			fsum += run.free_cost[cpu];
			ops += run.got[cpu];
			for (p = 0; p < 2; p++) {
				start[p] = min(start[p], run.stamp[cpu][2 * p]);
				end[p] = max(end[p], run.stamp[cpu][2 * p + 1]);
			}
		}
		pr_info("Pages N*alloc N*free(order %u) on %u CPU(s): Average=%lu/%lu\n", order, ncpus,
			per_op(asum, ncpus), per_op(fsum, ncpus));
		bench_line("pages_concurrent", order, 2, "alloc_cost", per_op(asum, ncpus),
			   "free_cost", per_op(fsum, ncpus));
#ifdef CONFIG_X86
		/* The TSC is the machine's clock under -icount; arm64's PMCCNTR is per CPU. */
		if (qb_icount && ops)
			bench_line("pages_span", order, 2, "alloc_cost",
				   per_op(end[0] - start[0], ops), "free_cost",
				   per_op(end[1] - start[1], ops));
#endif
	}
}
