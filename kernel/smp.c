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
 *
 * Every call has one time limit, smp_call_timeout seconds from when the
 * caller starts it, on every CPU that runs it, the caller's own share of
 * on_each_cpu_wait included: while a CPU runs a call its call_since holds
 * when the call started, and the CPU's own tick (smp_call_check, once a
 * second) reports it when the limit has passed; the caller, waiting for
 * the others, reports the first that has not finished by the same limit.
 * (A CPU other than the caller counts from when it took the call, by its
 * own counter: arm64's cycle counters are per CPU and do not agree, so the
 * caller's report comes first for those.)
 * A CPU stuck with interrupts off takes no tick: the timer's watchdog
 * names it instead.
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
/* While this CPU runs a call: when the call started (arch_cycles) and its function. */
static DEFINE_PER_CPU(uint64_t, call_since);
static DEFINE_PER_CPU(void *, call_fn);
/* Set by the first report of a late call: one report, then panic. */
static int call_reported;

unsigned int smp_call_timeout = SMP_CALL_TIMEOUT_SECONDS;

/* fn(arg) as a call on this CPU, started at 'since' (this CPU's arch_cycles). */
static void run_call(void (*fn)(void *arg), void *arg, uint64_t since)
{
	this_cpu_inc(in_call);
	this_cpu_write(call_fn, (void *)fn);
	this_cpu_write(call_since, since ? since : 1);
	fn(arg);
	this_cpu_write(call_since, 0);
	this_cpu_dec(in_call);
}

static uint64_t call_limit(void)
{
	return arch_cycles_khz() * 1000 * READ_ONCE(smp_call_timeout);
}

/* smp_call_check: see smp.h. */
void smp_call_check(void)
{
	uint64_t since = this_cpu_read(call_since), limit = call_limit();
	unsigned int cpu = smp_processor_id();

	if (!since || !limit || arch_cycles() - since <= limit)
		return;
	if (__atomic_exchange_n(&call_reported, 1, __ATOMIC_ACQ_REL))
		return;		/* another CPU is reporting */
	printk("smp: CPU %u has not finished call %p after %u s (reported by its own tick)\n",
	       cpu, this_cpu_read(call_fn), READ_ONCE(smp_call_timeout));
	panic("smp: CPU %u stuck in a call", cpu);
}

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

/* Wait for cpu's call seq, started at 'since': reported once smp_call_timeout has passed. */
static void wait_call(unsigned int cpu, unsigned long seq, void (*fn)(void *), uint64_t since)
{
	struct call_slot *s = &call_slots[cpu];
	uint64_t limit = call_limit();

	while (smp_load_acquire(&s->done) != seq) {
		cpu_relax();
		if (limit && arch_cycles() - since > limit) {
			if (__atomic_exchange_n(&call_reported, 1, __ATOMIC_ACQ_REL)) {
				for (;;)	/* the CPU itself is reporting; panic stops us */
					cpu_relax();
			}
			printk("smp: CPU %u has not finished call %p after %u s\n", cpu,
			       (void *)fn, READ_ONCE(smp_call_timeout));
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
	c->fn(c->arg);
}

/* on_each_cpu_wait: see smp.h. */
void on_each_cpu_wait(void (*fn)(void *arg), void *arg)
{
	struct each_call c = { fn, arg, { 0, 0, 0 } };
	unsigned long seq[NR_CPUS] = { 0 };
	unsigned int self, cpu;
	uint64_t since;

	check_caller("on_each_cpu_wait");
	spin_lock(&call_lock);
	self = smp_processor_id();
	smp_barrier_init(&c.start, num_online_cpus());
	since = arch_cycles();	/* the one start of every CPU's limit, the caller's too */
	for_each_online_cpu(cpu) {
		if (cpu != self)
			seq[cpu] = post_call(cpu, each_cpu_run, &c);
	}
	run_call(each_cpu_run, &c, since);
	for_each_online_cpu(cpu) {
		if (cpu != self)
			wait_call(cpu, seq[cpu], fn, since);
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
		run_call(fn, arg, arch_cycles());
	} else {
		uint64_t since = arch_cycles();

		wait_call(cpu, post_call(cpu, fn, arg), fn, since);
	}
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
		run_call(s->fn, s->arg, arch_cycles());
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
