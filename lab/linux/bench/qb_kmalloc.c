// SPDX-License-Identifier: GPL-2.0
/*
 * qb_kmalloc.c - quarry_bench.ko's kmalloc tests and its init: Quarry's
 * boot-time benchmarks (lab/bench_kmalloc.c, bench_msg.c, bench_pages.c) as a
 * Linux module, so Linux's SLAB/SLUB/SLOB can be timed the same way and read
 * by lab/bench/parse.py. It runs while loading (insmod), then stays loaded
 * until rmmod. Printed: Quarry's "== counter:" header and BENCH lines with
 * alloc=linux<VER>-<allocator> (e.g. linux61-slub), for
 *   1. kmalloc_then_free: BENCH_OBJECTS kmallocs of a size, then as many kfrees;
 *   2. kmalloc_free_pair: kmalloc then kfree at once, BENCH_OBJECTS times;
 *   3. concurrent_alloc_free (+ _cpu, and under -icount concurrent_span): test 1
 *      on every CPU at once through barriers, CONCURRENT_ROUNDS rounds, medians;
 *      on 2+ CPUs alternating with CPU 0 alone and with private caches
 *      (concurrent_alone, concurrent_private), as Quarry's;
 *   4. remote_free (2+ CPUs): CPU 0 allocates, CPU 1 frees;
 *   5. messaging (qb_msg.c) and 6. pages_* (qb_pages.c), in that order after
 *      test 4, as Quarry's bench runs them;
 * and memory_boot / memory_end: Slab: in kB at load (after Linux's boot, a
 * larger workload than Quarry's) and after the benchmarks.
 * Same sizes and counts as Quarry's; each object has one byte touched.
 * Interrupts: like Quarry's bench, the single-CPU timed loops run with local
 * interrupts off (so no tick lands in them and -icount figures repeat), and
 * so do test 3's phases when there is more than one CPU under -icount. With
 * interrupts off the allocations use GFP_NOWAIT (nothing may sleep).
 * Cache model: the single-CPU loops are marked as Quarry's are
 * (tools/cachemodel/marker.h's regions, inside the two counter reads: one
 * no-op instruction each), so `make bench MODEL=1` pairs them alike.
 * Counter: get_cycles() (RDTSC) on x86_64; PMCCNTR_EL0 on arm64 (enabled at
 * load on every CPU; CNTVCT is too coarse under -icount). The reads are kept
 * in the figures, as in Quarry (4 instructions per 10,000 operations).
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/sort.h>
#include <linux/smp.h>
#include <linux/cpumask.h>
#include <linux/workqueue.h>
#include <linux/version.h>
#include <linux/timex.h>
#include <linux/math64.h>
#include <linux/irqflags.h>
#include <linux/stdarg.h>
#ifdef CONFIG_X86
#include <asm/tsc.h>
#endif
#include "marker.h"	/* tools/cachemodel/marker.h, copied beside this file by build.sh */
#include "qb.h"

#define BENCH_OBJECTS		10000
#define CONCURRENT_ROUNDS	5
#ifdef CONFIG_ARM64
#define QB_COUNTER "PMCCNTR_EL0"
#else
#define QB_COUNTER "rdtsc"
#endif

static const size_t single_sizes[] = { 8, 16, 32, 64, 96, 128, 192, 256, 512,
				       1024, 2048, 4096, 8192, 16384 };
static const size_t concurrent_sizes[] = { 32, 64, 128, 256, 512, 1024, 2048, 4096 };

#if defined(CONFIG_SLAB)
#define QB_ALLOC "slab"
#elif defined(CONFIG_SLOB)
#define QB_ALLOC "slob"
#else
#define QB_ALLOC "slub"
#endif
char qb_alloc_name[32];
static char *name;
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "the alloc= of the BENCH lines (default linux<VER>-<allocator>, e.g. linux61-slub)");

static unsigned long alloc_loop(void **objs, unsigned long n, size_t size, gfp_t gfp)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		void *p = kmalloc(size, gfp);

		if (unlikely(!p))
			return i;
		*(volatile char *)p = 1;
		objs[i] = p;
	}
	return n;
}

static void free_loop(void **objs, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		kfree(objs[i]);
}

#define PTR_ORDER get_order(BENCH_OBJECTS * sizeof(void *))

/* Tests 1 and 2. */
static void bench_single(void)
{
	void **objs = (void **)__get_free_pages(GFP_KERNEL, PTR_ORDER);
	unsigned int s;

	if (!objs) {
		pr_info("bench: no memory for the pointer array; kmalloc tests skipped\n");
		return;
	}
	pr_info("\nSingle thread testing\n1. Kmalloc: Repeatedly allocate then free test\n");
	for (s = 0; s < ARRAY_SIZE(single_sizes); s++) {
		size_t size = single_sizes[s];
		unsigned long flags, got;
		u64 t0, t1, t2;

		kfree(kmalloc(size, GFP_KERNEL));	/* warm-up */
		local_irq_save(flags);
		t0 = qb_cycles();
		MODEL_BEGIN(MODEL_R_KMALLOC_ALLOC);
		got = alloc_loop(objs, BENCH_OBJECTS, size, GFP_NOWAIT);
		MODEL_END(MODEL_R_KMALLOC_ALLOC);
		t1 = qb_cycles();
		MODEL_BEGIN(MODEL_R_KMALLOC_FREE);
		free_loop(objs, got);
		MODEL_END(MODEL_R_KMALLOC_FREE);
		t2 = qb_cycles();
		local_irq_restore(flags);
		if (got < BENCH_OBJECTS) {
			pr_info("%d times kmalloc(%zu): out of memory after %lu\n", BENCH_OBJECTS, size, got);
			continue;
		}
		pr_info("%d times kmalloc(%zu) -> %lu cycles kfree -> %lu cycles\n", BENCH_OBJECTS,
			size, per_op(t1 - t0, got), per_op(t2 - t1, got));
		bench_line("kmalloc_then_free", size, 2, "alloc_cost", per_op(t1 - t0, got),
			   "free_cost", per_op(t2 - t1, got));
	}

	pr_info("2. Kmalloc: alloc/free test\n");
	for (s = 0; s < ARRAY_SIZE(single_sizes); s++) {
		size_t size = single_sizes[s];
		unsigned long flags, i;
		bool failed = false;
		u64 t0, t1;

		kfree(kmalloc(size, GFP_KERNEL));	/* warm-up */
		local_irq_save(flags);
		t0 = qb_cycles();
		MODEL_BEGIN(MODEL_R_KMALLOC_PAIR);
		for (i = 0; i < BENCH_OBJECTS; i++) {
			void *p = kmalloc(size, GFP_NOWAIT);

			if (unlikely(!p)) {
				failed = true;
				break;
			}
			*(volatile char *)p = 1;
			kfree(p);
		}
		MODEL_END(MODEL_R_KMALLOC_PAIR);
		t1 = qb_cycles();
		local_irq_restore(flags);
		if (failed) {
			pr_info("%d times kmalloc(%zu)/kfree: out of memory\n", BENCH_OBJECTS, size);
			continue;
		}
		pr_info("%d times kmalloc(%zu)/kfree -> %lu cycles\n", BENCH_OBJECTS, size,
			per_op(t1 - t0, BENCH_OBJECTS));
		bench_line("kmalloc_free_pair", size, 1, "pair_cost", per_op(t1 - t0, BENCH_OBJECTS));
	}
	free_pages((unsigned long)objs, PTR_ORDER);
}

/* Test 3: one run of test 1 on every CPU (or CPU 0 alone), through barriers. */
struct conc_run {
	size_t size;
	bool alone, private;
	unsigned int ncpus;
	struct qb_barrier barrier;
	u64 alloc_cost[QB_MAX_CPUS], free_cost[QB_MAX_CPUS];
	unsigned long got[QB_MAX_CPUS];
	u64 stamp[QB_MAX_CPUS][4];
	u64 span_alloc, span_free;
};

static unsigned long step_of(void)
{
	return qb_quiet() && qb_turn ? qb_turn : BENCH_OBJECTS;
}

static unsigned long turns_alloc(struct kmem_cache *c, size_t size, void **objs, unsigned long step)
{
	unsigned long got = 0, i, k, n;

	for (i = 0; i < BENCH_OBJECTS; i += step) {
		n = min(step, BENCH_OBJECTS - i);
		if (c) {
			for (k = 0; k < n; k++) {
				void *p = kmem_cache_alloc(c, GFP_NOWAIT);

				if (unlikely(!p))
					break;
				*(volatile char *)p = 1;
				objs[i + k] = p;
			}
		} else {
			k = alloc_loop(objs + i, n, size, GFP_NOWAIT);
		}
		got += k;
		if (k < n)
			break;
		if (step < BENCH_OBJECTS)
			cpu_relax();
	}
	return got;
}

static void turns_free(struct kmem_cache *c, void **objs, unsigned long got, unsigned long step)
{
	unsigned long i, k, n;

	for (i = 0; i < got; i += step) {
		n = min(step, got - i);
		if (c) {
			for (k = 0; k < n; k++)
				kmem_cache_free(c, objs[i + k]);
		} else {
			free_loop(objs + i, n);
		}
		if (step < BENCH_OBJECTS)
			cpu_relax();
	}
}

static int conc_cpu(void *arg)
{
	struct conc_run *run = arg;
	unsigned int cpu = smp_processor_id();
	void **objs = (void **)__get_free_pages(GFP_KERNEL, PTR_ORDER);
	struct kmem_cache *mine = NULL;
	bool work = objs && (!run->alone || cpu == 0);
	unsigned long got = 0, flags = 0;
	u64 t0, t1, t2, t3, g[4];
	char name[24];
	int i;

	if (run->private && work) {
		snprintf(name, sizeof(name), "qbench-%zu-cpu%u", run->size, cpu);
		/* SLAB_NOLEAKTRACE (no kmemleak here anyway) keeps it from being merged. */
		mine = kmem_cache_create(name, run->size, 0, SLAB_NOLEAKTRACE, NULL);
		work = mine != NULL;
	}
	if (qb_quiet())
		local_irq_save(flags);
	qb_barrier_wait(&run->barrier);
	g[0] = qb_cycles();
	t0 = qb_cycles();
	if (work)
		got = turns_alloc(mine, run->size, objs, step_of());
	t1 = qb_cycles();
	g[1] = qb_cycles();
	qb_barrier_wait(&run->barrier);
	g[2] = qb_cycles();
	t2 = qb_cycles();
	if (work)
		turns_free(mine, objs, got, step_of());
	t3 = qb_cycles();
	g[3] = qb_cycles();
	if (qb_quiet())
		local_irq_restore(flags);
	qb_barrier_wait(&run->barrier);
	if (mine)
		kmem_cache_destroy(mine);
	run->got[cpu] = got;
	for (i = 0; i < 4; i++)
		run->stamp[cpu][i] = g[i];
	run->alloc_cost[cpu] = got ? per_op(t1 - t0, got) : 0;
	run->free_cost[cpu] = got ? per_op(t3 - t2, got) : 0;
	if (objs)
		free_pages((unsigned long)objs, PTR_ORDER);
	return 0;
}

/* One run on every online CPU (a kthread bound to each); false when some CPU fell short. */
static bool conc_once(struct conc_run *run, bool alone, bool private)
{
	u64 start[2] = { U64_MAX, U64_MAX }, end[2] = { 0, 0 };
	unsigned long ops = 0;
	unsigned int cpu, p;
	bool full = true;

	run->alone = alone;
	run->private = private;
	run->ncpus = num_online_cpus();
	qb_barrier_init(&run->barrier, run->ncpus);
	memset(run->got, 0, sizeof(run->got));
	if (qb_run_on_cpus(conc_cpu, run))
		return false;
	for_each_online_cpu(cpu) {
		if (alone && cpu != 0)
			continue;
		full &= run->got[cpu] == BENCH_OBJECTS;
		ops += run->got[cpu];
		for (p = 0; p < 2; p++) {
			start[p] = min(start[p], run->stamp[cpu][2 * p]);
			end[p] = max(end[p], run->stamp[cpu][2 * p + 1]);
		}
	}
	run->span_alloc = ops ? per_op(end[0] - start[0], ops) : 0;
	run->span_free = ops ? per_op(end[1] - start[1], ops) : 0;
	return full;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 median(u64 *v, unsigned int n)
{
	sort(v, n, sizeof(*v), cmp_u64, NULL);
	return v[n / 2];
}

static void bench_concurrent(void)
{
	static struct conc_run run;
	unsigned int ncpus = num_online_cpus(), cpu, s, r;

	if (ncpus > QB_MAX_CPUS) {
		pr_info("\n3. Concurrent allocs: more than %d CPUs; skipped\n", QB_MAX_CPUS);
		return;
	}
	if (ncpus > 1)
		pr_info("\n3. Concurrent allocs on %u CPUs, alternating %u times with CPU 0 alone (medians)\n",
			ncpus, CONCURRENT_ROUNDS);
	else
		pr_info("\n3. Concurrent allocs on 1 CPU (median of %u)\n", CONCURRENT_ROUNDS);
	for (s = 0; s < ARRAY_SIZE(concurrent_sizes); s++) {
		u64 all_a[CONCURRENT_ROUNDS], all_f[CONCURRENT_ROUNDS];
		u64 one_a[CONCURRENT_ROUNDS] = { 0 }, one_f[CONCURRENT_ROUNDS] = { 0 };
		u64 pall[CONCURRENT_ROUNDS] = { 0 }, pone[CONCURRENT_ROUNDS] = { 0 };
		u64 span_a[CONCURRENT_ROUNDS], span_f[CONCURRENT_ROUNDS];
		u64 pspan_a[CONCURRENT_ROUNDS] = { 0 }, pspan_f[CONCURRENT_ROUNDS] = { 0 };
		u64 cpu_a[QB_MAX_CPUS] = { 0 }, cpu_f[QB_MAX_CPUS] = { 0 };
		u64 a, f, a1, f1, ratio, pratio;
		bool full = true;

		run.size = concurrent_sizes[s];
		for (r = 0; r < CONCURRENT_ROUNDS; r++) {
			u64 asum = 0, fsum = 0;

			if (ncpus > 1) {
				full &= conc_once(&run, true, true);
				pone[r] = run.alloc_cost[0] + run.free_cost[0];
				full &= conc_once(&run, false, true);
				for_each_online_cpu(cpu)
					pall[r] += run.alloc_cost[cpu] + run.free_cost[cpu];
				pall[r] = per_op(pall[r], ncpus);
				pspan_a[r] = run.span_alloc;
				pspan_f[r] = run.span_free;
				full &= conc_once(&run, true, false);
				one_a[r] = run.alloc_cost[0];
				one_f[r] = run.free_cost[0];
			}
			full &= conc_once(&run, false, false);
			span_a[r] = run.span_alloc;
			span_f[r] = run.span_free;
			for_each_online_cpu(cpu) {
				asum += run.alloc_cost[cpu];
				fsum += run.free_cost[cpu];
				cpu_a[cpu] = run.alloc_cost[cpu];
				cpu_f[cpu] = run.free_cost[cpu];
			}
			all_a[r] = per_op(asum, ncpus);
			all_f[r] = per_op(fsum, ncpus);
		}
		a = median(all_a, CONCURRENT_ROUNDS);
		f = median(all_f, CONCURRENT_ROUNDS);
		for_each_online_cpu(cpu)
			pr_info("  CPU %u: %llu/%llu\n", cpu, cpu_a[cpu], cpu_f[cpu]);
		if (!full)
			pr_info("  (out of memory: some CPUs allocated fewer than %d)\n", BENCH_OBJECTS);
		pr_info("Kmalloc N*alloc N*free(%zu): Average=%llu/%llu\n", run.size, a, f);
		bench_line("concurrent_alloc_free", run.size, 2, "alloc_cost", (unsigned long)a,
			   "free_cost", (unsigned long)f);
#ifdef CONFIG_X86
		/* The TSC is the machine's clock under -icount; arm64's PMCCNTR is per CPU. */
		if (qb_icount)
			bench_line("concurrent_span", run.size, 4,
				   "alloc_cost", (unsigned long)median(span_a, CONCURRENT_ROUNDS),
				   "free_cost", (unsigned long)median(span_f, CONCURRENT_ROUNDS),
				   "private_alloc_cost", (unsigned long)median(pspan_a, CONCURRENT_ROUNDS),
				   "private_free_cost", (unsigned long)median(pspan_f, CONCURRENT_ROUNDS));
#endif
		for_each_online_cpu(cpu)
			bench_line("concurrent_alloc_free_cpu", run.size, 3, "cpu", (unsigned long)cpu,
				   "alloc_cost", (unsigned long)cpu_a[cpu], "free_cost",
				   (unsigned long)cpu_f[cpu]);
		if (ncpus == 1)
			continue;
		a1 = median(one_a, CONCURRENT_ROUNDS);
		f1 = median(one_f, CONCURRENT_ROUNDS);
		ratio = div64_u64((a + f) * 100, max(a1 + f1, 1ULL));
		pratio = div64_u64(median(pall, CONCURRENT_ROUNDS) * 100,
				   max(median(pone, CONCURRENT_ROUNDS), 1ULL));
		bench_line("concurrent_alone", run.size, 3, "alloc_cost", (unsigned long)a1,
			   "free_cost", (unsigned long)f1, "ratio_x100", (unsigned long)ratio);
		bench_line("concurrent_private", run.size, 3, "alone_cost",
			   (unsigned long)median(pone, CONCURRENT_ROUNDS), "all_cost",
			   (unsigned long)median(pall, CONCURRENT_ROUNDS), "ratio_x100",
			   (unsigned long)pratio);
	}
}

/* Test 4: CPU 0 allocates, CPU 1 frees (in a kworker bound to CPU 1). */
struct remote_run {
	void **objs;
	unsigned long n;
	u64 cycles;
};

static long remote_free_cpu(void *arg)
{
	struct remote_run *r = arg;
	u64 t0 = qb_cycles();

	free_loop(r->objs, r->n);
	r->cycles = qb_cycles() - t0;
	return 0;
}

static void bench_remote_free(void)
{
	struct remote_run r;
	unsigned int s;

	pr_info("\n4. Remote free: CPU 0 allocates, CPU 1 frees\n");
	if (num_online_cpus() < 2 || !cpu_online(1)) {
		pr_info("  needs 2 CPUs; skipped\n");
		return;
	}
	r.objs = (void **)__get_free_pages(GFP_KERNEL, PTR_ORDER);
	if (!r.objs)
		return;
	for (s = 0; s < ARRAY_SIZE(concurrent_sizes); s++) {
		size_t size = concurrent_sizes[s];
		u64 t0 = qb_cycles();

		r.n = alloc_loop(r.objs, BENCH_OBJECTS, size, GFP_KERNEL);
		t0 = qb_cycles() - t0;
		if (work_on_cpu(1, remote_free_cpu, &r) || !r.n)
			break;
		bench_line("remote_free", size, 2, "alloc_cost", per_op(t0, r.n),
			   "remote_free_cost", per_op(r.cycles, r.n));
	}
	free_pages((unsigned long)r.objs, PTR_ORDER);
}

static int __init quarry_bench_init(void)
{
	unsigned long khz = 0;

	if (name && *name)
		strscpy(qb_alloc_name, name, sizeof(qb_alloc_name));
	else
		snprintf(qb_alloc_name, sizeof(qb_alloc_name), "linux%d%d-%s", LINUX_VERSION_CODE >> 16,
			 (LINUX_VERSION_CODE >> 8) & 0xff, QB_ALLOC);
	qb_pmu_enable_all();
#ifdef CONFIG_X86
	khz = tsc_khz;
#endif
	/* The seed test runs as one task pinned to CPU 0. */
	set_cpus_allowed_ptr(current, cpumask_of(0));
	pr_info("\n== Quarry benchmarks: arch %s, page size %luK, allocator %s, %u CPU(s)\n",
		QB_ARCH, PAGE_SIZE >> 10, qb_alloc_name, num_online_cpus());
	if (qb_icount)
		pr_info("== counter: %s under QEMU -icount shift=0: figures are guest instructions, "
			"not cycles, and repeat exactly\n", QB_COUNTER);
	else
		pr_info("== counter: %s at %lu.%03lu MHz: figures are cycles\n", QB_COUNTER,
			khz / 1000, khz % 1000);
	bench_line("header", 0, 3, "counter_khz", khz, "quick", 0UL,
		   "turn", (unsigned long)(qb_quiet() ? qb_turn : 0));
	bench_line("memory_boot", 0, 1, "slab_kb", qb_slab_kb());
	bench_single();
	bench_concurrent();
	bench_remote_free();
	bench_messaging();
	bench_pages();
	bench_line("memory_end", 0, 1, "slab_kb", qb_slab_kb());
	pr_info("BENCH done\n");
	return 0;
}

static void __exit quarry_bench_exit(void)
{
}

module_init(quarry_bench_init);
module_exit(quarry_bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Quarry's kmalloc benchmarks (BENCH lines for lab/bench/parse.py)");
