/*
 * exit.c - leaving the machine, and stopping or questioning other CPUs.
 *
 * Under QEMU an isa-debug-exit device at port 0xf4 ends QEMU: writing v
 * makes QEMU exit with status (v << 1) | 1, so the run scripts read 1 as
 * success and 3 as failure. On real hardware (no such device) we halt.
 *
 * Other CPUs are reached with NMIs, which arrive even when the target has
 * its interrupts off or is spinning on a lock: the NMI handler (x86_nmi,
 * from traps.c) either halts the CPU for good (stop) or prints where it was
 * and returns (report).
 */
#include "kernel/arch.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "arch/x86_64/io.h"
#include "arch/x86_64/x86.h"
#include <asm/irqflags.h>
#include <asm/processor.h>

#define DEBUG_EXIT_PORT	0xf4
#define STOP_WAIT_US	1000000
#define REPORT_WAIT_US	1000000

const char arch_name[] = "x86_64";

static int stop_all;			/* 1 + the CPU that stops the others; 0: none */
static int nr_stopped;			/* CPUs halted by its NMI */
static int report_request[NR_CPUS];	/* 1: print where you are; 2: done */

static __noreturn void halt_forever(void)
{
	for (;;)
		__asm__ __volatile__("cli; hlt");
}

/* arch_exit: see kernel/arch.h. */
void arch_exit(int status)
{
	arch_irq_disable();
	arch_stop_other_cpus();
	outl(DEBUG_EXIT_PORT, status ? 1 : 0);
	halt_forever();
}

/* arch_stop_other_cpus: see kernel/arch.h. */
void arch_stop_other_cpus(void)
{
	unsigned int self = smp_processor_id(), sent = 0;
	int none = 0;

	if (!__atomic_compare_exchange_n(&stop_all, &none, (int)self + 1, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		if (none == (int)self + 1)
			return;		/* we did it already (panic, then arch_exit) */
		/* Another CPU is stopping everyone; its NMI will halt us too. */
		halt_forever();
	}
	if (!lapic_ready())
		return;		/* before SMP bring-up: nobody else runs */
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (cpu != self && cpu_online(cpu)) {
			lapic_send_nmi(x86_cpu_apic_id(cpu));
			sent++;
		}
	}
	for (unsigned int us = 0; us < STOP_WAIT_US; us += 10) {
		if (__atomic_load_n(&nr_stopped, __ATOMIC_ACQUIRE) >= (int)sent)
			return;
		udelay(10);
	}
	printk("stop: only %d of %u other CPUs stopped\n",
	       __atomic_load_n(&nr_stopped, __ATOMIC_RELAXED), sent);
}

/* arch_cpu_report: see kernel/arch.h. */
void arch_cpu_report(unsigned int cpu)
{
	if (!lapic_ready() || !cpu_online(cpu))
		return;
	if (cpu == smp_processor_id()) {
		printk("CPU %u: reporting itself\n", cpu);
		return;
	}
	__atomic_store_n(&report_request[cpu], 1, __ATOMIC_RELEASE);
	lapic_send_nmi(x86_cpu_apic_id(cpu));
	for (unsigned int us = 0; us < REPORT_WAIT_US; us += 10) {
		if (__atomic_load_n(&report_request[cpu], __ATOMIC_ACQUIRE) == 2)
			break;
		udelay(10);
	}
	__atomic_store_n(&report_request[cpu], 0, __ATOMIC_RELEASE);
}

/*
 * x86_nmi - the NMI handler, called from x86_trap on the NMI stack. Returns
 * false for an NMI nobody asked for (traps.c reports it as an exception).
 */
bool x86_nmi(const struct trap_frame *tf)
{
	unsigned int cpu = smp_processor_id();

	if (__atomic_load_n(&stop_all, __ATOMIC_ACQUIRE)) {
		/* No iret ever: further NMIs stay blocked and hlt is final. */
		__atomic_fetch_add(&nr_stopped, 1, __ATOMIC_RELEASE);
		halt_forever();
	}
	if (__atomic_load_n(&report_request[cpu], __ATOMIC_ACQUIRE) == 1) {
		printk("CPU %u was interrupted here (NMI):\n", cpu);
		x86_print_frame(tf);
		__atomic_store_n(&report_request[cpu], 2, __ATOMIC_RELEASE);
		return true;
	}
	return false;
}
