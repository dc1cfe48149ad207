/*
 * timer.c - the per-CPU tick: counting, the tick hook, and the watchdog that
 * turns a CPU stuck with interrupts off into a report naming it.
 */
#include "kernel/timer.h"
#ifndef CONFIG_ALLOC_NONE
#include "mm/slab.h"
#endif
#include "kernel/arch.h"
#include "kernel/atomic.h"
#include "kernel/bug.h"
#include "kernel/nmi.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include <asm/irqflags.h>
#include <asm/processor.h>

static DEFINE_PER_CPU(unsigned long, ticks);
/* timer_reaping: see timer.h. */
DEFINE_PER_CPU(bool, timer_reaping);

static void (*tick_hook)(unsigned int cpu);
static bool reap_paused;
static bool watchdog_on;
static int watchdog_fired;
unsigned int watchdog_seconds = WATCHDOG_SECONDS;

/*
 * What checker CPU c last saw of target CPU t: t's tick count, and c's own
 * tick count when t's last changed. Row c is only touched by CPU c.
 */
struct watch {
	unsigned long seen;
	unsigned long since;
};
static struct watch watch[NR_CPUS][NR_CPUS];

static void watchdog_check(unsigned int cpu, unsigned long now)
{
	for (unsigned int t = 0; t < NR_CPUS; t++) {
		struct watch *w = &watch[cpu][t];
		unsigned long theirs;

		if (t == cpu || !cpu_online(t))
			continue;
		theirs = READ_ONCE(per_cpu(ticks, t));
		if (theirs != w->seen || !w->since) {
			w->seen = theirs;
			w->since = now;
			continue;
		}
		if (now - w->since < (unsigned long)READ_ONCE(watchdog_seconds) * HZ)
			continue;
		if (__atomic_exchange_n(&watchdog_fired, 1, __ATOMIC_ACQ_REL))
			return;		/* another CPU is reporting */
		printk("watchdog: CPU %u has taken no timer tick for %u s (seen by CPU %u): "
		       "stuck with interrupts off?\n", t, READ_ONCE(watchdog_seconds), cpu);
		cpu_report(t);
		panic("watchdog: CPU %u stuck", t);
	}
}

/* timer_tick: see timer.h. */
void timer_tick(unsigned int cpu)
{
	void (*hook)(unsigned int) = READ_ONCE(tick_hook);
	unsigned long now;

	this_cpu_inc(ticks);
	now = this_cpu_read(ticks);
	/*
	 * Periodic per-CPU housekeeping is a direct call; the hook below is
	 * for tests, which replace it freely. The slab reap runs every
	 * SLAB_REAP_TICKS on each CPU, the CPUs spread over the period so
	 * they do not all reap on the same tick.
	 */
#ifndef CONFIG_ALLOC_NONE
	if ((now + cpu * (SLAB_REAP_TICKS / NR_CPUS)) % SLAB_REAP_TICKS == 0 &&
	    !READ_ONCE(reap_paused)) {
		/*
		 * The flag is set before the pause is read again: a pauser that
		 * set the pause and then saw no flag knows this reap will not
		 * start (both sides store, fence, then load).
		 */
		this_cpu_write(timer_reaping, true);
		smp_mb();
		if (!READ_ONCE(reap_paused))
			slab_reap();
		smp_store_release(this_cpu_ptr(timer_reaping), false);
	}
#endif
	if (hook)
		hook(cpu);
	if (READ_ONCE(watchdog_on) && now % HZ == 0) {
		watchdog_check(cpu, now);
		smp_call_check();
	}
}

/* timer_ticks: see timer.h. */
unsigned long timer_ticks(unsigned int cpu)
{
	return READ_ONCE(per_cpu(ticks, cpu));
}

/* timer_set_hook: see timer.h. */
void (*timer_set_hook(void (*fn)(unsigned int cpu)))(unsigned int cpu)
{
	return __atomic_exchange_n(&tick_hook, fn, __ATOMIC_ACQ_REL);
}

/* timer_wait_all_cpus: see timer.h. */
int timer_wait_all_cpus(unsigned int n)
{
	unsigned long start[NR_CPUS];
	unsigned int self = smp_processor_id();
	unsigned long my_start = timer_ticks(self);
	bool all;

	for (unsigned int c = 0; c < NR_CPUS; c++)
		start[c] = timer_ticks(c);
	do {
		all = true;
		for (unsigned int c = 0; c < NR_CPUS; c++) {
			if (cpu_online(c) && timer_ticks(c) - start[c] < n)
				all = false;
		}
		if (all)
			return 0;
		cpu_relax();
	} while (timer_ticks(self) - my_start < (unsigned long)READ_ONCE(watchdog_seconds) * HZ + n);
	return -1;
}

/* timer_idle_until_tick: see timer.h. */
void timer_idle_until_tick(void)
{
	unsigned int self = smp_processor_id();
	unsigned long start = timer_ticks(self);

	ASSERT(!arch_irqs_disabled());
	for (;;) {
		/* Look with interrupts off, so the tick cannot slip in before the halt. */
		arch_irq_disable();
		if (timer_ticks(self) != start)
			break;
		arch_cpu_idle();	/* returns with interrupts on, the interrupt taken */
	}
	arch_irq_enable();
}

/* timer_reap_pause: see timer.h. */
void timer_reap_pause(bool paused)
{
	unsigned int me = smp_processor_id();

	WRITE_ONCE(reap_paused, paused);
	if (!paused)
		return;
	smp_mb();
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		while (cpu != me && smp_load_acquire(&per_cpu(timer_reaping, cpu)))
			cpu_relax();
}

/* timer_watchdog_start: see timer.h. */
void timer_watchdog_start(void)
{
	WRITE_ONCE(watchdog_on, true);
}
