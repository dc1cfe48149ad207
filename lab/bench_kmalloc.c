/*
 * bench_kmalloc.c - the kmalloc benchmarks of the seed posts:
 *   1. single CPU, "Repeatedly allocate then free": BENCH_OBJECTS kmallocs
 *      of one size timed as a loop, then as many kfrees;
 *   2. single CPU, "alloc/free": kmalloc and kfree at once;
 *   3. concurrent: every CPU runs test 1 at the same time, each phase
 *      started through a barrier (seed 001's "N*alloc N*free" table).
 *      Alternating with it, in the same boot, CPU 0 runs it alone while
 *      the others wait at the barrier: the ratio of the two is what the
 *      other CPUs cost CPU 0, with the host's speed (which drifts by tens
 *      of percent between and within real-time QEMU boots) the same in
 *      both. Then the same pair of runs with a private kmem_cache of the
 *      size on every CPU: nothing is shared above the page allocator, so
 *      its ratio is what the machine itself (QEMU, host caches, buddy)
 *      charges for running CPUs at once, the floor for kmalloc's ratio.
 *      CONCURRENT_ROUNDS of each, alternating, medians reported;
 *   4. remote free: CPU 0 allocates, CPU 1 frees.
 * Under QEMU -icount with several CPUs (one host thread, round-robin) test 3
 * runs in turns (bench.h, bench_turn) and also reports each phase's span:
 * every instruction the machine ran from the first CPU's start to the last
 * CPU's end, over all CPUs' operations, i.e. instructions per operation per
 * CPU, spinning and sharing included (test=concurrent_span).
 * Single-CPU loops run with interrupts off so that, under QEMU -icount, no
 * timer tick lands in a timed loop and the figures repeat exactly. Each
 * object has one byte touched when allocated.
 */
#include "lab/bench.h"
#include "tools/cachemodel/marker.h"
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
		MODEL_BEGIN(MODEL_R_KMALLOC_ALLOC);
		got = alloc_loop(objs, BENCH_OBJECTS, size);
		MODEL_END(MODEL_R_KMALLOC_ALLOC);
		t1 = arch_cycles();
		MODEL_BEGIN(MODEL_R_KMALLOC_FREE);
		free_loop(objs, got);
		MODEL_END(MODEL_R_KMALLOC_FREE);
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
		MODEL_BEGIN(MODEL_R_KMALLOC_PAIR);
		for (unsigned long i = 0; i < BENCH_OBJECTS; i++) {
			void *p = kmalloc(size);
			if (unlikely(!p)) {
				failed = true;
				break;
			}
			*(volatile char *)p = 1;
			kfree(p);
		}
		MODEL_END(MODEL_R_KMALLOC_PAIR);
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

/* Rounds of each concurrent measurement (all CPUs, CPU 0 alone), alternating. */
#define CONCURRENT_ROUNDS	5

struct concurrent_run {
	size_t size;
	bool alone;		/* only CPU 0 works; the others wait at the barriers */
	bool private;		/* each CPU its own kmem_cache of 'size', not kmalloc */
	struct smp_barrier barrier;
	uint64_t alloc_cost[NR_CPUS];
	uint64_t free_cost[NR_CPUS];
	unsigned long got[NR_CPUS];
	uint64_t stamp[NR_CPUS][4];	/* bench_clock at each CPU's phase starts and ends */
	uint64_t span_alloc;		/* -icount: the phases' spans per operation */
	uint64_t span_free;
};

/* alloc_loop and free_loop for one cache. */
static unsigned long cache_alloc_loop(struct kmem_cache *c, void **objs, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		void *p = kmem_cache_alloc(c);
		if (unlikely(!p))
			return i;
		*(volatile char *)p = 1;
		objs[i] = p;
	}
	return n;
}

static void cache_free_loop(struct kmem_cache *c, void **objs, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
}

/*
 * BENCH_OBJECTS allocations (from c, or kmalloc(size) when c is NULL) in
 * turns of step, yielding the vCPU after each turn unless step covers them
 * all; returns how many it got.
 */
static unsigned long turns_alloc(struct kmem_cache *c, size_t size, void **objs,
				 unsigned long step)
{
	unsigned long got = 0;

	for (unsigned long i = 0; i < BENCH_OBJECTS; i += step) {
		unsigned long n = MIN(step, BENCH_OBJECTS - i);
		unsigned long k = c ? cache_alloc_loop(c, objs + i, n) : alloc_loop(objs + i, n, size);

		got += k;
		if (k < n)
			break;
		if (step < BENCH_OBJECTS)
			cpu_relax();
	}
	return got;
}

/* Free the got objects of turns_alloc in turns of step. */
static void turns_free(struct kmem_cache *c, void **objs, unsigned long got, unsigned long step)
{
	for (unsigned long i = 0; i < got; i += step) {
		unsigned long n = MIN(step, got - i);

		if (c)
			cache_free_loop(c, objs + i, n);
		else
			free_loop(objs + i, n);
		if (step < BENCH_OBJECTS)
			cpu_relax();
	}
}

/* The operations per turn of test 3 on this machine: see bench_turn. */
static unsigned long turn_step(void)
{
	return bench_icount && num_online_cpus() > 1 && bench_turn ? bench_turn : BENCH_OBJECTS;
}

static void concurrent_cpu(void *arg)
{
	struct concurrent_run *run = arg;
	unsigned int cpu = smp_processor_id();
	unsigned int order = ptr_array_order();
	void **objs = get_free_pages(order);
	struct kmem_cache *mine = NULL;
	bool work = objs && (!run->alone || cpu == 0);
	/*
	 * -icount, several CPUs: the counter is the machine's, so a tick taken
	 * by any CPU inside a phase would count in it, at a point that depends
	 * on where QEMU switched vCPUs; the phases run with interrupts off.
	 */
	bool quiet = bench_icount && num_online_cpus() > 1;
	unsigned long got = 0, flags = 0;
	uint64_t t0, t1, t2, t3, g[4];

	if (run->private && work) {
		char name[24];

		snprintf(name, sizeof(name), "bench-%zu-cpu%u", run->size, cpu);
		mine = kmem_cache_create(name, run->size, 0, SLAB_NO_DEBUG, NULL);
		work = mine != NULL;
	}
	if (quiet)
		flags = arch_irq_save();
	smp_barrier_wait(&run->barrier);
	g[0] = bench_clock();
	t0 = arch_cycles();
	if (work)
		got = turns_alloc(mine, run->size, objs, turn_step());
	t1 = arch_cycles();
	g[1] = bench_clock();
	smp_barrier_wait(&run->barrier);
	g[2] = bench_clock();
	t2 = arch_cycles();
	if (work)
		turns_free(mine, objs, got, turn_step());
	t3 = arch_cycles();
	g[3] = bench_clock();
	if (quiet)
		arch_irq_restore(flags);
	smp_barrier_wait(&run->barrier);
	if (mine)
		kmem_cache_destroy(mine);
	run->got[cpu] = got;
	for (unsigned int i = 0; i < 4; i++)
		run->stamp[cpu][i] = g[i];
	run->alloc_cost[cpu] = got ? bench_per_op(t1 - t0, got) : 0;
	run->free_cost[cpu] = got ? bench_per_op(t3 - t2, got) : 0;
	if (objs)
		free_pages_addr(objs, order);
}

/* The median of n values (n <= CONCURRENT_ROUNDS); sorts them. */
static uint64_t median(uint64_t *v, unsigned int n)
{
	for (unsigned int i = 1; i < n; i++)
		for (unsigned int k = i; k > 0 && v[k - 1] > v[k]; k--) {
			uint64_t t = v[k];

			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	return v[n / 2];
}

/* One concurrent run; false when some CPU fell short of BENCH_OBJECTS. */
static bool concurrent_once(struct concurrent_run *run, unsigned int ncpus, bool alone,
			    bool private)
{
	uint64_t start[2] = { UINT64_MAX, UINT64_MAX }, end[2] = { 0, 0 };
	unsigned long ops = 0;
	unsigned int cpu;
	bool full = true;

	run->alone = alone;
	run->private = private;
	smp_barrier_init(&run->barrier, ncpus);
	on_each_cpu_wait(concurrent_cpu, run);
	for_each_online_cpu(cpu) {
		if (alone && cpu != 0)
			continue;
		full &= run->got[cpu] == BENCH_OBJECTS;
		ops += run->got[cpu];
		for (unsigned int p = 0; p < 2; p++) {
			start[p] = MIN(start[p], run->stamp[cpu][2 * p]);
			end[p] = MAX(end[p], run->stamp[cpu][2 * p + 1]);
		}
	}
	/* Under -icount the clock is the machine's: a span counts every CPU's instructions. */
	run->span_alloc = ops ? bench_per_op(end[0] - start[0], ops) : 0;
	run->span_free = ops ? bench_per_op(end[1] - start[1], ops) : 0;
	return full;
}

/*
 * SLAB_STATS=1 builds: the kmalloc cache's event counters over the last
 * all-CPU run of a size (slow paths, locks, page cmpxchgs), to divide by
 * its operations. The counters are shared atomics, so such a build's
 * timings are not the allocator's: read its counts, time a plain build.
 */
static void events_begin(size_t size)
{
#if defined(CONFIG_SLAB_STATS) && CONFIG_SLAB_STATS
	struct kmem_cache *c = kmalloc_slab(size);

	if (c)
		kmem_cache_stats_reset(c);
	buddy_lock_stats_reset();
#else
	(void)size;
#endif
}

static void events_end(const struct concurrent_run *run, unsigned int ncpus)
{
#if defined(CONFIG_SLAB_STATS) && CONFIG_SLAB_STATS
	struct kmem_cache *c = kmalloc_slab(run->size);
	struct buddy_stats bs;
	unsigned long ops = 0;
	unsigned int cpu;

	if (!c)
		return;
	for_each_online_cpu(cpu)
		ops += run->got[cpu];
	printk("  events over the last run on %u CPUs, %lu kmallocs and as many kfrees:\n",
	       ncpus, ops);
	kmem_cache_stats_show(c);
	buddy_read_stats(&bs);
	printk("  page allocator: zone lock waited %lu times, %lu turns\n", bs.lock_contended,
	       bs.lock_turns);
	bench_line("concurrent_events", run->size, 2, "cpus", (unsigned long)ncpus, "ops", ops);
#else
	(void)run;
	(void)ncpus;
#endif
}

/* bench_kmalloc_concurrent: see bench.h. */
void bench_kmalloc_concurrent(void)
{
	static struct concurrent_run run;
	unsigned int ncpus = num_online_cpus(), cpu;
	unsigned int rounds = bench_quick ? 1 : CONCURRENT_ROUNDS;

	if (ncpus > 1)
		printk("\n3. Concurrent allocs on %u CPUs, alternating %u times with CPU 0 alone"
		       " (medians)\n", ncpus, rounds);
	else
		printk("\n3. Concurrent allocs on 1 CPU (median of %u)\n", rounds);
	for (unsigned int s = 0; s < ARRAY_SIZE(concurrent_sizes); s++) {
		uint64_t all_a[CONCURRENT_ROUNDS], all_f[CONCURRENT_ROUNDS];
		uint64_t one_a[CONCURRENT_ROUNDS], one_f[CONCURRENT_ROUNDS];
		uint64_t pall[CONCURRENT_ROUNDS], pone[CONCURRENT_ROUNDS];
		uint64_t span_a[CONCURRENT_ROUNDS], span_f[CONCURRENT_ROUNDS];
		uint64_t pspan_a[CONCURRENT_ROUNDS] = { 0 }, pspan_f[CONCURRENT_ROUNDS] = { 0 };
		uint64_t cpu_a[NR_CPUS] = { 0 }, cpu_f[NR_CPUS] = { 0 };
		uint64_t a, f, a1, f1, ratio, pratio;
		bool full = true;

		run.size = concurrent_sizes[s];
		for (unsigned int r = 0; r < rounds; r++) {
			uint64_t asum = 0, fsum = 0;

			if (ncpus > 1) {
				full &= concurrent_once(&run, ncpus, true, true);
				pone[r] = run.alloc_cost[0] + run.free_cost[0];
				full &= concurrent_once(&run, ncpus, false, true);
				pall[r] = 0;
				for_each_online_cpu(cpu)
					pall[r] += run.alloc_cost[cpu] + run.free_cost[cpu];
				pall[r] = bench_per_op(pall[r], ncpus);
				pspan_a[r] = run.span_alloc;
				pspan_f[r] = run.span_free;
				full &= concurrent_once(&run, ncpus, true, false);
				one_a[r] = run.alloc_cost[0];
				one_f[r] = run.free_cost[0];
			}
			if (r == rounds - 1)
				events_begin(run.size);
			full &= concurrent_once(&run, ncpus, false, false);
			if (r == rounds - 1)
				events_end(&run, ncpus);
			span_a[r] = run.span_alloc;
			span_f[r] = run.span_free;
			for_each_online_cpu(cpu) {
				asum += run.alloc_cost[cpu];
				fsum += run.free_cost[cpu];
				/* Per-CPU figures: the last round's. */
				cpu_a[cpu] = run.alloc_cost[cpu];
				cpu_f[cpu] = run.free_cost[cpu];
			}
			all_a[r] = bench_per_op(asum, ncpus);
			all_f[r] = bench_per_op(fsum, ncpus);
		}
		a = median(all_a, rounds);
		f = median(all_f, rounds);
		for_each_online_cpu(cpu)
			printk("  CPU %u: %lu/%lu\n", cpu, (unsigned long)cpu_a[cpu],
			       (unsigned long)cpu_f[cpu]);
		if (!full)
			printk("  (out of memory: some CPUs allocated fewer than %d)\n", BENCH_OBJECTS);
		printk("Kmalloc N*alloc N*free(%zu): Average=%lu/%lu\n", run.size, (unsigned long)a,
		       (unsigned long)f);
		bench_line("concurrent_alloc_free", run.size, 2, "alloc_cost", a, "free_cost", f);
		if (bench_icount) {
			uint64_t sa = median(span_a, rounds), sf = median(span_f, rounds);
			uint64_t pa = median(pspan_a, rounds), pf = median(pspan_f, rounds);

			printk("  -icount, whole machine: %lu/%lu instructions per op per CPU"
			       " (private caches: %lu/%lu)\n", (unsigned long)sa, (unsigned long)sf,
			       (unsigned long)pa, (unsigned long)pf);
			bench_line("concurrent_span", run.size, 4, "alloc_cost", sa, "free_cost", sf,
				   "private_alloc_cost", pa, "private_free_cost", pf);
		}
		for_each_online_cpu(cpu)
			bench_line("concurrent_alloc_free_cpu", run.size, 3, "cpu", (unsigned long)cpu,
				   "alloc_cost", (unsigned long)cpu_a[cpu], "free_cost",
				   (unsigned long)cpu_f[cpu]);
		if (ncpus == 1)
			continue;
		a1 = median(one_a, rounds);
		f1 = median(one_f, rounds);
		ratio = (a + f) * 100 / MAX(a1 + f1, 1);
		pratio = median(pall, rounds) * 100 / MAX(median(pone, rounds), 1);
		printk("  CPU 0 alone: %lu/%lu; all %u CPUs over alone: %lu.%02lu"
		       " (private caches: %lu.%02lu)\n", (unsigned long)a1, (unsigned long)f1, ncpus,
		       (unsigned long)(ratio / 100), (unsigned long)(ratio % 100),
		       (unsigned long)(pratio / 100), (unsigned long)(pratio % 100));
		bench_line("concurrent_alone", run.size, 3, "alloc_cost", a1, "free_cost", f1,
			   "ratio_x100", ratio);
		bench_line("concurrent_private", run.size, 3, "alone_cost", median(pone, rounds),
			   "all_cost", median(pall, rounds), "ratio_x100", pratio);
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
