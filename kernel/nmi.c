/*
 * nmi.c - reaching other CPUs whatever they are doing: stopping them for
 * good (panic, exit) and making one print where it is (watchdog, stuck
 * calls). The architecture delivers an interrupt that arrives even with
 * interrupts off (x86_64: an NMI; arm64: a Group 0 SGI, an FIQ) through
 * arch_send_nmi, and its handler calls nmi_handle with the interrupted
 * register frame; this file is the protocol around it.
 *
 * State: stop_all is 0, or 1 + the CPU that stops everyone (set once, by
 * compare-and-swap, so of two CPUs stopping each other one wins and the
 * other is stopped); nr_stopped counts CPUs that took the stop;
 * report_request[cpu] is 1 while cpu is asked to report and 2 once it has.
 * The waits are bounded by the cycle counter: a CPU that never answers is
 * named and left.
 */
#include "kernel/arch.h"
#include "kernel/nmi.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include <asm/processor.h>

#define STOP_WAIT_MS	1000
#define REPORT_WAIT_MS	1000

static int stop_all;
static int nr_stopped;
static int report_request[NR_CPUS];

/* True while fewer than ms milliseconds passed since start (false if the rate is unknown yet). */
static bool within(uint64_t start, unsigned int ms)
{
	uint64_t khz = arch_cycles_khz();

	return khz && arch_cycles() - start < khz * ms;
}

/* stop_other_cpus: see nmi.h. */
void stop_other_cpus(void)
{
	unsigned int self = smp_processor_id(), sent = 0;
	uint64_t start;
	int none = 0;

	if (!__atomic_compare_exchange_n(&stop_all, &none, (int)self + 1, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		if (none == (int)self + 1)
			return;		/* we did it already (panic, then arch_exit) */
		arch_halt();		/* another CPU is stopping everyone, us too */
	}
	if (!arch_nmi_ready())
		return;		/* before SMP bring-up: nobody else runs */
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (cpu != self && cpu_online(cpu)) {
			arch_send_nmi(cpu);
			sent++;
		}
	}
	for (start = arch_cycles(); within(start, STOP_WAIT_MS);) {
		if (__atomic_load_n(&nr_stopped, __ATOMIC_ACQUIRE) >= (int)sent)
			return;
		cpu_relax();
	}
	if (__atomic_load_n(&nr_stopped, __ATOMIC_ACQUIRE) < (int)sent)
		printk("stop: only %d of %u other CPUs stopped\n",
		       __atomic_load_n(&nr_stopped, __ATOMIC_RELAXED), sent);
}

/* cpu_report: see nmi.h. */
void cpu_report(unsigned int cpu)
{
	uint64_t start;

	if (!arch_nmi_ready() || !cpu_online(cpu))
		return;
	if (cpu == smp_processor_id()) {
		printk("CPU %u: reporting itself\n", cpu);
		return;
	}
	__atomic_store_n(&report_request[cpu], 1, __ATOMIC_RELEASE);
	arch_send_nmi(cpu);
	for (start = arch_cycles(); within(start, REPORT_WAIT_MS);) {
		if (__atomic_load_n(&report_request[cpu], __ATOMIC_ACQUIRE) == 2)
			break;
		cpu_relax();
	}
	__atomic_store_n(&report_request[cpu], 0, __ATOMIC_RELEASE);
}

/* nmi_handle: see nmi.h. */
bool nmi_handle(const char *kind, void (*print_frame)(const void *frame), const void *frame)
{
	unsigned int cpu = smp_processor_id();

	if (__atomic_load_n(&stop_all, __ATOMIC_ACQUIRE)) {
		__atomic_fetch_add(&nr_stopped, 1, __ATOMIC_RELEASE);
		arch_halt();
	}
	if (__atomic_load_n(&report_request[cpu], __ATOMIC_ACQUIRE) == 1) {
		printk("CPU %u was interrupted here (%s):\n", cpu, kind);
		print_frame(frame);
		__atomic_store_n(&report_request[cpu], 2, __ATOMIC_RELEASE);
		return true;
	}
	return false;
}
