/*
 * bench_kmalloc.c - the kmalloc benchmarks of the seed posts:
 *   1. single CPU, "Repeatedly allocate then free": BENCH_OBJECTS kmallocs
 *      of one size timed as a loop, then as many kfrees;
 *   2. single CPU, "alloc/free": kmalloc and kfree at once;
 *   3. concurrent: every CPU runs test 1 at the same time, each phase
 *      started through a barrier (seed 001's "N*alloc N*free" table);
 *   4. remote free: CPU 0 allocates, CPU 1 frees.
 * Single-CPU loops run with interrupts off so that, under QEMU -icount, no
 * timer tick lands in a timed loop and the figures repeat exactly. Each
 * object has one byte touched when allocated.
 */
#include "kernel/bench.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/bug.h"
#include "mm/buddy.h"
#include "mm/slab.h"
#include <asm/irqflags.h>
#include <asm/processor.h>

static const size_t single_sizes[] = { 8, 16, 32, 64, 96, 128, 192, 256, 512,
				       1024, 2048, 4096, 8192, 16384 };
static const size_t concurrent_sizes[] = { 32, 64, 128, 256, 512, 1024, 2048, 4096 };

/* The order of a block holding BENCH_OBJECTS pointers. */
static unsigned int ptr_array_order(void)
{
	unsigned int order = 0;

	while ((PAGE_SIZE << order) < BENCH_OBJECTS * sizeof(void *))
		order++;
	return order;
}

/* Allocate n objects of size into objs; returns how many it got (n unless out of memory). */
static unsigned long alloc_loop(void **objs, unsigned long n, size_t size)
{
	for (unsigned long i = 0; i < n; i++) {
		void *p = kmalloc(size);
		if (unlikely(!p))
			return i;
		*(volatile char *)p = 1;
		objs[i] = p;
	}
	return n;
}

static void free_loop(void **objs, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		kfree(objs[i]);
}

/* bench_kmalloc_single: see bench.h. */
void bench_kmalloc_single(void)
{
	unsigned int order = ptr_array_order();
	void **objs = get_free_pages(order);

	if (!objs) {
		printk("bench: no memory for the pointer array; kmalloc tests skipped\n");
		return;
	}
	printk("\nSingle thread testing\n1. Kmalloc: Repeatedly allocate then free test\n");
	for (unsigned int s = 0; s < ARRAY_SIZE(single_sizes); s++) {
		size_t size = single_sizes[s];
		unsigned long flags, got;
		uint64_t t0, t1, t2;

		kfree(kmalloc(size));	/* warm-up */
		flags = arch_irq_save();
		t0 = arch_cycles();
		got = alloc_loop(objs, BENCH_OBJECTS, size);
		t1 = arch_cycles();
		free_loop(objs, got);
		t2 = arch_cycles();
		arch_irq_restore(flags);
		if (got < BENCH_OBJECTS) {
			printk("%d times kmalloc(%zu): out of memory after %lu\n", BENCH_OBJECTS, size,
			       got);
			continue;
		}
		printk("%d times kmalloc(%zu) -> %lu cycles kfree -> %lu cycles\n", BENCH_OBJECTS,
		       size, bench_per_op(t1 - t0, got), bench_per_op(t2 - t1, got));
		bench_line("kmalloc_then_free", size, 2, "alloc_cost", bench_per_op(t1 - t0, got),
			   "free_cost", bench_per_op(t2 - t1, got));
	}

	printk("2. Kmalloc: alloc/free test\n");
	for (unsigned int s = 0; s < ARRAY_SIZE(single_sizes); s++) {
		size_t size = single_sizes[s];
		unsigned long flags;
		uint64_t t0, t1;
		bool failed = false;

		kfree(kmalloc(size));	/* warm-up */
		flags = arch_irq_save();
		t0 = arch_cycles();
		for (unsigned long i = 0; i < BENCH_OBJECTS; i++) {
			void *p = kmalloc(size);
			if (unlikely(!p)) {
				failed = true;
				break;
			}
			*(volatile char *)p = 1;
			kfree(p);
		}
		t1 = arch_cycles();
		arch_irq_restore(flags);
		if (failed) {
			printk("%d times kmalloc(%zu)/kfree: out of memory\n", BENCH_OBJECTS, size);
			continue;
		}
		printk("%d times kmalloc(%zu)/kfree -> %lu cycles\n", BENCH_OBJECTS, size,
		       bench_per_op(t1 - t0, BENCH_OBJECTS));
		bench_line("kmalloc_free_pair", size, 1, "pair_cost",
			   bench_per_op(t1 - t0, BENCH_OBJECTS));
	}
	free_pages_addr(objs, order);
}

struct concurrent_run {
	size_t size;
	struct smp_barrier barrier;
	uint64_t alloc_cost[NR_CPUS];
	uint64_t free_cost[NR_CPUS];
	unsigned long got[NR_CPUS];
};

static void concurrent_cpu(void *arg)
{
	struct concurrent_run *run = arg;
	unsigned int cpu = smp_processor_id();
	unsigned int order = ptr_array_order();
	void **objs = get_free_pages(order);
	unsigned long got = 0;
	uint64_t t0, t1, t2, t3;

	smp_barrier_wait(&run->barrier);
	t0 = arch_cycles();
	if (objs)
		got = alloc_loop(objs, BENCH_OBJECTS, run->size);
	t1 = arch_cycles();
	smp_barrier_wait(&run->barrier);
	t2 = arch_cycles();
	if (objs)
		free_loop(objs, got);
	t3 = arch_cycles();
	smp_barrier_wait(&run->barrier);
	run->got[cpu] = got;
	run->alloc_cost[cpu] = got ? bench_per_op(t1 - t0, got) : 0;
	run->free_cost[cpu] = got ? bench_per_op(t3 - t2, got) : 0;
	if (objs)
		free_pages_addr(objs, order);
}

/* bench_kmalloc_concurrent: see bench.h. */
void bench_kmalloc_concurrent(void)
{
	static struct concurrent_run run;
	unsigned int ncpus = num_online_cpus(), cpu;

	printk("\n3. Concurrent allocs on %u CPU(s)\n", ncpus);
	for (unsigned int s = 0; s < ARRAY_SIZE(concurrent_sizes); s++) {
		uint64_t asum = 0, fsum = 0;
		bool short_run = false;

		run.size = concurrent_sizes[s];
		smp_barrier_init(&run.barrier, ncpus);
		on_each_cpu_wait(concurrent_cpu, &run);
		for_each_online_cpu(cpu) {
			asum += run.alloc_cost[cpu];
			fsum += run.free_cost[cpu];
			short_run |= run.got[cpu] < BENCH_OBJECTS;
			printk("  CPU %u: %lu/%lu\n", cpu, (unsigned long)run.alloc_cost[cpu],
			       (unsigned long)run.free_cost[cpu]);
		}
		if (short_run)
			printk("  (out of memory: some CPUs allocated fewer than %d)\n", BENCH_OBJECTS);
		printk("Kmalloc N*alloc N*free(%zu): Average=%lu/%lu\n", run.size,
		       bench_per_op(asum, ncpus), bench_per_op(fsum, ncpus));
		bench_line("concurrent_alloc_free", run.size, 2, "alloc_cost",
			   bench_per_op(asum, ncpus), "free_cost", bench_per_op(fsum, ncpus));
		for_each_online_cpu(cpu)
			bench_line("concurrent_alloc_free_cpu", run.size, 3, "cpu", (unsigned long)cpu,
				   "alloc_cost", (unsigned long)run.alloc_cost[cpu], "free_cost",
				   (unsigned long)run.free_cost[cpu]);
	}
}

struct remote_run {
	void **objs;
	unsigned long n;
	uint64_t cycles;
};

static void remote_free_cpu(void *arg)
{
	struct remote_run *r = arg;
	uint64_t t0 = arch_cycles();

	free_loop(r->objs, r->n);
	r->cycles = arch_cycles() - t0;
}

/* bench_remote_free: see bench.h. */
void bench_remote_free(void)
{
	unsigned int order = ptr_array_order();
	struct remote_run r;

	printk("\n4. Remote free: CPU 0 allocates, CPU 1 frees\n");
	if (num_online_cpus() < 2) {
		printk("  needs 2 CPUs; skipped\n");
		return;
	}
	r.objs = get_free_pages(order);
	if (!r.objs)
		return;
	for (unsigned int s = 0; s < ARRAY_SIZE(concurrent_sizes); s++) {
		size_t size = concurrent_sizes[s];
		uint64_t t0 = arch_cycles();

		r.n = alloc_loop(r.objs, BENCH_OBJECTS, size);
		t0 = arch_cycles() - t0;
		if (smp_call_on_cpu(1, remote_free_cpu, &r) || !r.n)
			break;
		printk("%d times kmalloc(%zu) on CPU 0 -> %lu cycles, kfree on CPU 1 -> %lu cycles\n",
		       BENCH_OBJECTS, size, bench_per_op(t0, r.n), bench_per_op(r.cycles, r.n));
		bench_line("remote_free", size, 2, "alloc_cost", bench_per_op(t0, r.n),
			   "remote_free_cost", bench_per_op(r.cycles, r.n));
	}
	free_pages_addr(r.objs, order);
}
