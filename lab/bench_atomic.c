/*
 * bench_atomic.c - what the machine charges for the compare-and-exchanges
 * the allocators are built on, with nothing shared (test 3a).
 *
 * Every CPU updates a pair of words on a cache line of its own, with each of:
 *   cmpxchg         one word, atomic against all CPUs (__atomic CAS: x86
 *                   lock cmpxchg; arm64 a load/store-exclusive loop);
 *   cmpxchg_double  arch_cmpxchg_double: two words, atomic against all CPUs
 *                   (x86 lock cmpxchg16b; arm64 LDXP/STLXP), the update of
 *                   a slab's (freelist, counters) in SLUB's slow paths;
 *   this_cpu_double arch_this_cpu_cmpxchg_double: two words, atomic against
 *                   this CPU only (x86 cmpxchg16b without lock; arm64
 *                   LDXP/STXP), SLUB's fast-path commit of its per-CPU pair.
 * each first on CPU 0 alone (the others wait at the barrier), then on all
 * CPUs at once. On hardware the two agree: no line moves between CPUs. Under
 * QEMU's multi-threaded TCG a guest atomic the host cannot do in one host
 * atomic runs with every other vCPU stopped (an "exclusive" step), so its
 * cost grows with the vCPUs although nothing is shared: the all/alone ratio
 * of an operation says how much of an allocator's slowdown on many vCPUs
 * is the emulator's, to be set against the events per operation test 3
 * counts in SLAB_STATS=1 builds. Real time only (under -icount the CPUs
 * take turns, and the figures would be instructions).
 */
#include "lab/bench.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include <asm/cmpxchg.h>
#include <asm/irqflags.h>
#include <asm/processor.h>

#define ATOMIC_OPS	4096	/* operations per CPU per measurement */

enum atomic_kind { ATOMIC_CAS, ATOMIC_DOUBLE, ATOMIC_THIS_CPU_DOUBLE, ATOMIC_KINDS };

static const char *const atomic_names[ATOMIC_KINDS] = {
	"cmpxchg", "cmpxchg_double", "this_cpu_double",
};

/* A CPU's own pair, alone on its line. */
struct atomic_line {
	unsigned long w[2];
} __attribute__((aligned(64)));

struct atomic_run {
	enum atomic_kind kind;
	bool alone;
	struct smp_barrier barrier;
	uint64_t cost[NR_CPUS];		/* arch_cycles per operation */
};

static struct atomic_line atomic_lines[NR_CPUS];

static uint64_t atomic_loop(enum atomic_kind kind, struct atomic_line *l)
{
	uint64_t t0 = arch_cycles();

	for (unsigned long i = 0; i < ATOMIC_OPS; i++) {
		unsigned long a = l->w[0], b = l->w[1];

		switch (kind) {
		case ATOMIC_CAS:
			__atomic_compare_exchange_n(&l->w[0], &a, a + 1, false, __ATOMIC_SEQ_CST,
						    __ATOMIC_RELAXED);
			break;
		case ATOMIC_DOUBLE:
			arch_cmpxchg_double(l->w, a, b, a + 1, b + 1);
			break;
		default:
			arch_this_cpu_cmpxchg_double(l->w, a, b, a + 1, b + 1);
			break;
		}
	}
	return arch_cycles() - t0;
}

static void atomic_cpu(void *arg)
{
	struct atomic_run *run = arg;
	unsigned int cpu = smp_processor_id();
	unsigned long flags = arch_irq_save();	/* no tick inside the loop */
	uint64_t t = 0;

	smp_barrier_wait(&run->barrier);
	if (!run->alone || cpu == 0)
		t = atomic_loop(run->kind, &atomic_lines[cpu]);
	smp_barrier_wait(&run->barrier);
	arch_irq_restore(flags);
	run->cost[cpu] = bench_per_op(t, ATOMIC_OPS);
}

static uint64_t atomic_measure(struct atomic_run *run, enum atomic_kind kind, bool alone)
{
	unsigned int ncpus = num_online_cpus(), cpu;
	uint64_t sum = 0;

	run->kind = kind;
	run->alone = alone;
	smp_barrier_init(&run->barrier, ncpus);
	on_each_cpu_wait(atomic_cpu, run);
	if (alone)
		return run->cost[0];
	for_each_online_cpu(cpu)
		sum += run->cost[cpu];
	return bench_per_op(sum, ncpus);
}

/* bench_atomics: see bench.h. */
void bench_atomics(void)
{
	static struct atomic_run run;
	unsigned int ncpus = num_online_cpus();

	if (bench_icount)
		return;
	printk("\n3a. Compare-and-exchange on each CPU's own line, %u CPU(s): cycles per op,"
	       " CPU 0 alone / all CPUs at once (nothing shared: a ratio above 1 is the"
	       " machine's)\n", ncpus);
	for (unsigned int k = 0; k < ATOMIC_KINDS; k++) {
		uint64_t one, all, ratio;

		atomic_measure(&run, k, false);	/* untimed: the code translated, lines warm */
		one = atomic_measure(&run, k, true);
		all = atomic_measure(&run, k, false);
		ratio = all * 100 / (one ? one : 1);

		printk("  %-16s %6lu / %6lu  (x%lu.%02lu)\n", atomic_names[k], (unsigned long)one,
		       (unsigned long)all, (unsigned long)(ratio / 100),
		       (unsigned long)(ratio % 100));
		bench_line("atomic_probe", k, 4, "cpus", (unsigned long)ncpus, "alone_cost", one,
			   "all_cost", all, "ratio_x100", ratio);
	}
}
