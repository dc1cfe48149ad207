/*
 * bench_pages.c - the page allocator: alloc_pages then free_pages of
 * PAGE_OBJECTS blocks at orders 0 to 3, timed as loops, on one CPU (with
 * interrupts off) and on every CPU at once (started through a barrier).
 */
#include "kernel/bench.h"
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
};

static struct page *blocks[NR_CPUS][PAGE_OBJECTS];

/* Time PAGE_OBJECTS alloc_pages then as many free_pages on this CPU. */
static void page_loops(unsigned int order, uint64_t *alloc_cost, uint64_t *free_cost,
		       struct smp_barrier *barrier)
{
	struct page **b = blocks[smp_processor_id()];
	unsigned long got = 0;
	uint64_t t0, t1, t2;

	if (barrier)
		smp_barrier_wait(barrier);
	t0 = arch_cycles();
	for (; got < PAGE_OBJECTS; got++) {
		b[got] = alloc_pages(order);
		if (!b[got])
			break;
	}
	t1 = arch_cycles();
	if (barrier)
		smp_barrier_wait(barrier);
	t2 = arch_cycles();
	for (unsigned long i = 0; i < got; i++)
		free_pages(b[i], order);
	*alloc_cost = got ? bench_per_op(t1 - t0, got) : 0;
	*free_cost = got ? bench_per_op(arch_cycles() - t2, got) : 0;
}

static void page_cpu(void *arg)
{
	struct page_run *run = arg;
	unsigned int cpu = smp_processor_id();

	page_loops(run->order, &run->alloc_cost[cpu], &run->free_cost[cpu], &run->barrier);
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

		page_loops(order, &a, &f, NULL);
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
	}
}
