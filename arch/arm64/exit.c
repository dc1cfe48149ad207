/*
 * exit.c - leaving the machine, and stopping or questioning other CPUs.
 *
 * Under QEMU, semihosting's SYS_EXIT_EXTENDED ends QEMU with the status we
 * give it (QEMU runs with -semihosting-config enable=on,target=native). We
 * give the codes x86_64's isa-debug-exit produces, 1 for success and 3 for
 * failure, so the run scripts read both arches alike and a QEMU that stops
 * on its own (status 0) is never taken for the kernel's success. Without
 * semihosting the hlt traps; then PSCI SYSTEM_OFF (status 0) ends the run.
 *
 * Other CPUs are reached with Group 0 SGIs, which arrive as FIQs even when
 * the target has IRQs masked or spins on a lock: the FIQ handler
 * (arm64_fiq) either halts the CPU for good (stop) or prints where it was
 * and returns (report).
 */
#include "arch/arm64/arm64.h"
#include "kernel/arch.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include <asm/irqflags.h>
#include <asm/processor.h>

#define SEMIHOST_EXIT_EXTENDED	0x20
#define ADP_STOPPED_APP_EXIT	0x20026
#define STOP_WAIT_US		1000000
#define REPORT_WAIT_US		1000000

static int stop_all;			/* 1 + the CPU that stops the others; 0: none */
static int nr_stopped;			/* CPUs halted by its FIQ */
static int report_request[NR_CPUS];	/* 1: print where you are; 2: done */
static bool exiting;

static __noreturn void halt_forever(void)
{
	__asm__ __volatile__("msr daifset, #0xf" : : : "memory");
	for (;;)
		__asm__ __volatile__("wfi");
}

/* Semihosting SYS_EXIT_EXTENDED: QEMU exits with code. Returns if semihosting is off. */
static void semihost_exit(uint64_t code)
{
	uint64_t block[2] = { ADP_STOPPED_APP_EXIT, code };
	register uint64_t x0 __asm__("x0") = SEMIHOST_EXIT_EXTENDED;
	register uint64_t x1 __asm__("x1") = (uintptr_t)block;

	__asm__ __volatile__("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
}

/* arch_exit: see kernel/arch.h. */
void arch_exit(int status)
{
	arch_irq_disable();
	arch_stop_other_cpus();
	exiting = true;
	semihost_exit(status ? 3 : 1);
	psci_system_off();
	halt_forever();
}

/* arm64_exit_trapped - the exception came from arch_exit's semihosting call: power off. */
bool arm64_exit_trapped(void)
{
	if (!exiting)
		return false;
	psci_system_off();
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
		halt_forever();		/* another CPU is stopping everyone */
	}
	if (!gic_ready())
		return;		/* before SMP bring-up: nobody else runs */
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (cpu != self && cpu_online(cpu)) {
			gic_send_sgi(arm64_cpu_mpidr(cpu), SGI_STOP);
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
	if (!gic_ready() || !cpu_online(cpu))
		return;
	if (cpu == smp_processor_id()) {
		printk("CPU %u: reporting itself\n", cpu);
		return;
	}
	__atomic_store_n(&report_request[cpu], 1, __ATOMIC_RELEASE);
	gic_send_sgi(arm64_cpu_mpidr(cpu), SGI_REPORT);
	for (unsigned int us = 0; us < REPORT_WAIT_US; us += 10) {
		if (__atomic_load_n(&report_request[cpu], __ATOMIC_ACQUIRE) == 2)
			break;
		udelay(10);
	}
	__atomic_store_n(&report_request[cpu], 0, __ATOMIC_RELEASE);
}

/*
 * arm64_fiq - the FIQ handler (Group 0 SGIs), called from arm64_trap.
 * Returns false for an FIQ nobody asked for (reported as an exception).
 */
bool arm64_fiq(const struct trap_frame *tf)
{
	unsigned int cpu = smp_processor_id();
	unsigned int intid = gic_ack_fiq();

	if (intid >= 1020)
		return true;	/* spurious */
	if (__atomic_load_n(&stop_all, __ATOMIC_ACQUIRE)) {
		gic_eoi_fiq(intid);
		__atomic_fetch_add(&nr_stopped, 1, __ATOMIC_RELEASE);
		halt_forever();
	}
	gic_eoi_fiq(intid);
	if (intid == SGI_REPORT &&
	    __atomic_load_n(&report_request[cpu], __ATOMIC_ACQUIRE) == 1) {
		printk("CPU %u was interrupted here (FIQ):\n", cpu);
		arm64_print_frame(tf);
		__atomic_store_n(&report_request[cpu], 2, __ATOMIC_RELEASE);
		return true;
	}
	printk("unexpected FIQ %u on CPU %u\n", intid, cpu);
	return false;
}
