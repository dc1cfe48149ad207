/*
 * smp.c - bringing up the CPUs and handing them work.
 *
 * Each CPU has a call slot: the caller writes fn and arg, then publishes a
 * new sequence number (release) and sends a wake-up interrupt; the target,
 * idling in smp_secondary_main, sees the number (acquire), so it also sees
 * fn and arg, runs the call, and publishes the same number as done
 * (release); the caller's acquire load of done makes everything the call
 * wrote visible to it. A slot is rewritten only after its previous call is
 * done, and call_lock lets one caller at a time use the slots.
 */
#include "kernel/smp.h"
#include "kernel/arch.h"
#include "kernel/atomic.h"
#include "kernel/bug.h"
#include "kernel/nmi.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "kernel/timer.h"
#include <asm/irqflags.h>

/* Bit n: CPU n is online. Set with release, read with acquire. */
static unsigned long online_mask = 1;
static unsigned int nr_possible = 1;

struct call_slot {
	void (*fn)(void *arg);
	void *arg;
	unsigned long seq;	/* last call posted (written by the caller) */
	unsigned long done;	/* last call finished (written by the target) */
} __aligned(64);

static struct call_slot call_slots[NR_CPUS];
static struct spinlock call_lock = SPINLOCK_INIT;

/* Non-zero while this CPU runs a handed-over call: it must not hand out another. */
static DEFINE_PER_CPU(unsigned int, in_call);

static void check_caller(const char *what)
{
	if (arch_irqs_disabled())
		panic("%s called with interrupts off", what);
	if (this_cpu_read(in_call))
		panic("%s called from inside a call on CPU %u: it would wait for itself",
		      what, smp_processor_id());
}

BUILD_BUG_ON(NR_CPUS > 8 * sizeof(unsigned long));

/* cpu_online: see smp.h. */
bool cpu_online(unsigned int cpu)
{
	return cpu < NR_CPUS && (smp_load_acquire(&online_mask) >> cpu) & 1;
}

/* num_possible_cpus: see smp.h. */
unsigned int num_possible_cpus(void)
{
	return nr_possible;
}

/* num_online_cpus: see smp.h. */
unsigned int num_online_cpus(void)
{
	unsigned long m = smp_load_acquire(&online_mask);
	unsigned int n = 0;

	for (; m; m &= m - 1)
		n++;
	return n;
}

/* smp_barrier_init: see smp.h. */
void smp_barrier_init(struct smp_barrier *b, unsigned int n)
{
	b->n = n;
	b->arrived = 0;
	b->round = 0;
}

/* smp_barrier_wait: see smp.h. */
void smp_barrier_wait(struct smp_barrier *b)
{
	/* Read the round before arriving: the last arrival bumps it. */
	unsigned int round = smp_load_acquire(&b->round);

	/* acq_rel: our earlier accesses go with the arrival; others' come back with it. */
	if (__atomic_add_fetch(&b->arrived, 1, __ATOMIC_ACQ_REL) == b->n) {
		/* Last in: reset for the next round before releasing this one. */
		__atomic_store_n(&b->arrived, 0, __ATOMIC_RELAXED);
		smp_store_release(&b->round, round + 1);
		return;
	}
	while (smp_load_acquire(&b->round) == round)
		cpu_relax();
}

static unsigned long post_call(unsigned int cpu, void (*fn)(void *), void *arg)
{
	struct call_slot *s = &call_slots[cpu];
	unsigned long seq = s->seq + 1;

	s->fn = fn;
	s->arg = arg;
	smp_store_release(&s->seq, seq);	/* fn and arg before the number */
	arch_send_wakeup(cpu);
	return seq;
}

static void wait_call(unsigned int cpu, unsigned long seq, void (*fn)(void *))
{
	struct call_slot *s = &call_slots[cpu];
	uint64_t khz = arch_cycles_khz();
	uint64_t start = arch_cycles();
	uint64_t limit = khz * 1000 * SMP_CALL_TIMEOUT_SECONDS;

	while (smp_load_acquire(&s->done) != seq) {
		cpu_relax();
		if (khz && arch_cycles() - start > limit) {
			printk("smp: CPU %u has not finished call %p after %d s\n", cpu,
			       (void *)fn, SMP_CALL_TIMEOUT_SECONDS);
			cpu_report(cpu);
			panic("smp: CPU %u stuck in a call", cpu);
		}
	}
}

struct each_call {
	void (*fn)(void *arg);
	void *arg;
	struct smp_barrier start;
};

static void each_cpu_run(void *p)
{
	struct each_call *c = p;

	smp_barrier_wait(&c->start);
	this_cpu_inc(in_call);
	c->fn(c->arg);
	this_cpu_dec(in_call);
}

/* on_each_cpu_wait: see smp.h. */
void on_each_cpu_wait(void (*fn)(void *arg), void *arg)
{
	struct each_call c = { fn, arg, { 0, 0, 0 } };
	unsigned long seq[NR_CPUS] = { 0 };
	unsigned int self, cpu;

	check_caller("on_each_cpu_wait");
	spin_lock(&call_lock);
	self = smp_processor_id();
	smp_barrier_init(&c.start, num_online_cpus());
	for_each_online_cpu(cpu) {
		if (cpu != self)
			seq[cpu] = post_call(cpu, each_cpu_run, &c);
	}
	each_cpu_run(&c);
	for_each_online_cpu(cpu) {
		if (cpu != self)
			wait_call(cpu, seq[cpu], fn);
	}
	spin_unlock(&call_lock);
}

/* smp_call_on_cpu: see smp.h. */
int smp_call_on_cpu(unsigned int cpu, void (*fn)(void *arg), void *arg)
{
	check_caller("smp_call_on_cpu");
	if (!cpu_online(cpu))
		return -1;
	spin_lock(&call_lock);
	if (cpu == smp_processor_id()) {
		this_cpu_inc(in_call);
		fn(arg);
		this_cpu_dec(in_call);
	} else
		wait_call(cpu, post_call(cpu, fn, arg), fn);
	spin_unlock(&call_lock);
	return 0;
}

/* smp_secondary_main: see smp.h. */
void smp_secondary_main(unsigned int cpu)
{
	struct call_slot *s = &call_slots[cpu];
	unsigned long seen = 0;

	__atomic_fetch_or(&online_mask, 1UL << cpu, __ATOMIC_RELEASE);
	for (;;) {
		unsigned long seq;

		/* Check for work with interrupts off, so a wake-up cannot slip in before hlt. */
		arch_irq_disable();
		seq = smp_load_acquire(&s->seq);
		if (seq == seen) {
			arch_cpu_idle();
			continue;
		}
		arch_irq_enable();
		seen = seq;
		this_cpu_inc(in_call);
		s->fn(s->arg);
		this_cpu_dec(in_call);
		smp_store_release(&s->done, seq);
	}
}

/* smp_init: see smp.h. */
void smp_init(void)
{
	unsigned int n = arch_smp_prepare();

	nr_possible = n;
	for (unsigned int cpu = 1; cpu < n; cpu++)
		arch_cpu_start(cpu);
	printk("smp: %u CPUs online\n", num_online_cpus());
	timer_watchdog_start();
	arch_irq_enable();
}
