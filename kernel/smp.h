/*
 * smp.h - the CPUs: which are online, running a function on all of them at
 * once, and a barrier to line them up.
 *
 * CPU 0 boots the kernel and runs kmain; smp_init() brings up the others,
 * which then idle (halted, interrupts on: their timers tick) and run the
 * functions handed to them. Kernel code is never preempted or migrated, so
 * work handed to a CPU runs there until it returns.
 */
#ifndef QUARRY_SMP_H
#define QUARRY_SMP_H

#include "kernel/compiler.h"
#include <asm/processor.h>

/*
 * smp_init - bring up every CPU the firmware lists (up to NR_CPUS), print
 * "smp: N CPUs online", start the timer watchdog, and return with
 * interrupts on, this CPU's timer ticking. Once, from kmain on the boot
 * CPU, after mm_init (AP stacks come from the page allocator) and acpi_init.
 */
void smp_init(void);

/*
 * num_possible_cpus - how many CPUs the firmware (ACPI MADT, device tree)
 * lists that Quarry can start, up to NR_CPUS: what smp_init tried to bring
 * up. 1 before smp_init.
 */
unsigned int num_possible_cpus(void);

/* num_online_cpus - how many CPUs are online (1 before smp_init). */
unsigned int num_online_cpus(void);

/* cpu_online - true when cpu has come up and takes work. */
bool cpu_online(unsigned int cpu);

#define for_each_online_cpu(cpu)                                          \
	for ((cpu) = 0; (cpu) < NR_CPUS; (cpu)++)                         \
		if (!cpu_online(cpu)) {                                   \
		} else

/*
 * on_each_cpu_wait - run fn(arg) on every online CPU, the caller's
 * included, all at once: every CPU passes a common start barrier before
 * calling fn, so the calls really overlap. Returns when every call has
 * returned; their effects are then visible to the caller. fn runs with
 * interrupts on (unless it disables them), not in interrupt context.
 *
 * One caller at a time (others wait their turn); never from inside a call
 * (fn or anything it calls), an interrupt handler, or with interrupts off:
 * the first two would wait for themselves, so both panic at once, naming
 * the CPU. A CPU, the caller included, that has not finished within
 * smp_call_timeout seconds of the call's start is reported with its number
 * (by the caller, with where it is, or by the CPU's own tick, with the
 * function), then the kernel panics.
 */
void on_each_cpu_wait(void (*fn)(void *arg), void *arg);

/*
 * smp_call_on_cpu - run fn(arg) on cpu (directly if it is the caller's)
 * and wait for it to return, under the rules of on_each_cpu_wait. Returns
 * 0, or -1 if cpu is not online.
 */
int smp_call_on_cpu(unsigned int cpu, void (*fn)(void *arg), void *arg);

#define SMP_CALL_TIMEOUT_SECONDS 120

/*
 * smp_call_timeout - seconds a call may run, counted from when its caller
 * started it, on every CPU that runs it (on_each_cpu_wait's caller's own
 * share included); SMP_CALL_TIMEOUT_SECONDS unless a test shortens it.
 */
extern unsigned int smp_call_timeout;

/*
 * smp_call_check - from this CPU's timer tick (interrupt context), once a
 * second: if this CPU has been running one call for longer than
 * smp_call_timeout, report it (CPU, function) and panic.
 */
void smp_call_check(void);

/*
 * A reusable barrier for a fixed number of CPUs. Every memory access a CPU
 * makes before smp_barrier_wait() is visible to every CPU after it leaves
 * the same round.
 */
struct smp_barrier {
	unsigned int n;		/* CPUs taking part */
	unsigned int arrived;	/* how many reached this round */
	unsigned int round;	/* bumped by the last arrival, releasing the others */
};

/* smp_barrier_init - a barrier for n CPUs; before any CPU uses it. */
void smp_barrier_init(struct smp_barrier *b, unsigned int n);

/* smp_barrier_wait - wait until all n CPUs have called it in this round. */
void smp_barrier_wait(struct smp_barrier *b);

/*
 * smp_secondary_main - a secondary CPU's life once its arch setup is done:
 * mark it online, then idle and run the work handed to it. Called by arch
 * code on that CPU, interrupts off; never returns.
 */
void smp_secondary_main(unsigned int cpu) __noreturn;

#endif
