/*
 * bench_pages.c - the page allocator: alloc_pages then free_pages of
 * PAGE_OBJECTS blocks at orders 0 to 3, timed as loops, on one CPU (with
 * interrupts off) and on every CPU at once (started through a barrier).
 * Under QEMU -icount with several CPUs the CPUs take turns of bench_turn
 * operations (bench.h) and each phase's span over all CPUs' operations is
 * reported too (test=pages_span: instructions per op per CPU).
 */
#include "lab/bench.h"
#include "tools/cachemodel/marker.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "mm/buddy.h"
#include <asm/irqflags.h>
#include <asm/processor.h>

#define PAGE_OBJECTS	1000
#define PAGE_MAX_ORDER	3

struct page_run {
	unsigned int order;
	struct smp_barrier barrier;
	uint64_t alloc_cost[NR_CPUS];
	uint64_t free_cost[NR_CPUS];
	unsigned long got[NR_CPUS];
	uint64_t stamp[NR_CPUS][4];	/* bench_clock at each CPU's phase starts and ends */
};

static struct page *blocks[NR_CPUS][PAGE_OBJECTS];

/*
 * Time PAGE_OBJECTS alloc_pages then as many free_pages on this CPU; with a
 * run, start each phase through its barrier, yield every step operations
 * (step < PAGE_OBJECTS) and record the phases' stamps and the count in it.
 */
static void page_loops(unsigned int order, uint64_t *alloc_cost, uint64_t *free_cost,
		       struct page_run *run, unsigned long step)
{
	unsigned int cpu = smp_processor_id();
	struct page **b = blocks[cpu];
	unsigned long got = 0;
	uint64_t t0, t1, t2, t3, g[4];

	if (run)
		smp_barrier_wait(&run->barrier);
	g[0] = bench_clock();
	t0 = arch_cycles();
	MODEL_BEGIN(MODEL_R_PAGES_ALLOC);
	for (unsigned long end = MIN(step, PAGE_OBJECTS); got < PAGE_OBJECTS;
	     end = MIN(end + step, PAGE_OBJECTS)) {
		for (; got < end; got++) {
			b[got] = alloc_pages(order);
			if (!b[got])
				break;
		}
		if (got < end)
			break;
		if (step < PAGE_OBJECTS)
			cpu_relax();
	}
	MODEL_END(MODEL_R_PAGES_ALLOC);
	t1 = arch_cycles();
	g[1] = bench_clock();
	if (run)
		smp_barrier_wait(&run->barrier);
	g[2] = bench_clock();
	t2 = arch_cycles();
	MODEL_BEGIN(MODEL_R_PAGES_FREE);
	for (unsigned long i = 0; i < got; i += step) {
		for (unsigned long k = i; k < MIN(i + step, got); k++)
			free_pages(b[k], order);
		if (step < PAGE_OBJECTS)
			cpu_relax();
	}
	MODEL_END(MODEL_R_PAGES_FREE);
	t3 = arch_cycles();
	g[3] = bench_clock();
	*alloc_cost = got ? bench_per_op(t1 - t0, got) : 0;
	*free_cost = got ? bench_per_op(t3 - t2, got) : 0;
	if (run) {
		run->got[cpu] = got;
		for (unsigned int i = 0; i < 4; i++)
			run->stamp[cpu][i] = g[i];
	}
}

static void page_cpu(void *arg)
{
	struct page_run *run = arg;
	unsigned int cpu = smp_processor_id();

	bool quiet = bench_icount && num_online_cpus() > 1;	/* see concurrent_cpu */
	unsigned long step = quiet && bench_turn ? bench_turn : PAGE_OBJECTS;
	unsigned long flags = quiet ? arch_irq_save() : 0;

	page_loops(run->order, &run->alloc_cost[cpu], &run->free_cost[cpu], run, step);
	if (quiet)
		arch_irq_restore(flags);
}

/* bench_pages: see bench.h. */
void bench_pages(void)
{
	static struct page_run run;
	unsigned int ncpus = num_online_cpus(), cpu;

	printk("\n6. Page allocator: %d times alloc_pages(order) then free_pages\n", PAGE_OBJECTS);
	for (unsigned int order = 0; order <= PAGE_MAX_ORDER; order++) {
		uint64_t a, f;
		unsigned long flags = arch_irq_save();

		page_loops(order, &a, &f, NULL, PAGE_OBJECTS);
		arch_irq_restore(flags);
		printk("%d times alloc_pages(%u) -> %lu cycles free_pages -> %lu cycles\n",
		       PAGE_OBJECTS, order, (unsigned long)a, (unsigned long)f);
		bench_line("pages_single", order, 2, "alloc_cost", (unsigned long)a, "free_cost",
			   (unsigned long)f);
	}
	for (unsigned int order = 0; order <= PAGE_MAX_ORDER; order++) {
		uint64_t asum = 0, fsum = 0;

		run.order = order;
		smp_barrier_init(&run.barrier, ncpus);
		on_each_cpu_wait(page_cpu, &run);
		for_each_online_cpu(cpu) {
			asum += run.alloc_cost[cpu];
			fsum += run.free_cost[cpu];
		}
		printk("Pages N*alloc N*free(order %u) on %u CPU(s): Average=%lu/%lu\n", order, ncpus,
		       bench_per_op(asum, ncpus), bench_per_op(fsum, ncpus));
		bench_line("pages_concurrent", order, 2, "alloc_cost", bench_per_op(asum, ncpus),
			   "free_cost", bench_per_op(fsum, ncpus));
		if (bench_icount) {
			/* The counter is the machine's: a span counts every CPU's instructions. */
			uint64_t start[2] = { UINT64_MAX, UINT64_MAX }, end[2] = { 0, 0 };
			unsigned long ops = 0;

			for_each_online_cpu(cpu) {
				ops += run.got[cpu];
				for (unsigned int p = 0; p < 2; p++) {
					start[p] = MIN(start[p], run.stamp[cpu][2 * p]);
					end[p] = MAX(end[p], run.stamp[cpu][2 * p + 1]);
				}
			}
			if (ops)
				bench_line("pages_span", order, 2, "alloc_cost",
					   bench_per_op(end[0] - start[0], ops), "free_cost",
					   bench_per_op(end[1] - start[1], ops));
		}
	}
}
