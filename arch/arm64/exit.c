/*
 * exit.c - leaving the machine, and stopping or questioning other CPUs.
 *
 * Under QEMU, semihosting's SYS_EXIT_EXTENDED ends QEMU with the status we
 * give it (QEMU runs with -semihosting-config enable=on,target=native). We
 * give the codes x86_64's isa-debug-exit produces, QEMU_EXIT_SUCCESS (33)
 * and QEMU_EXIT_FAILURE (35) from kernel/arch.h, so the run scripts read both
 * arches alike and a QEMU that stops on its own (status 0, or 1 on an
 * error) is never taken for the kernel's success. Without
 * semihosting the hlt traps; then PSCI SYSTEM_OFF (status 0) ends the run.
 *
 * Other CPUs are reached with a Group 0 SGI, which arrives as an FIQ even
 * when the target has IRQs masked or spins on a lock; kernel/nmi.c says
 * what it means (stop for good, or report where you are).
 */
#include "arch/arm64/arm64.h"
#include "kernel/arch.h"
#include "kernel/nmi.h"
#include "kernel/printk.h"
#include <asm/irqflags.h>
#include <asm/processor.h>

#define SEMIHOST_EXIT_EXTENDED	0x20
#define ADP_STOPPED_APP_EXIT	0x20026

static bool exiting;

/* arch_halt: see kernel/arch.h. */
void arch_halt(void)
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
	stop_other_cpus();
	exiting = true;
	semihost_exit(status ? QEMU_EXIT_FAILURE : QEMU_EXIT_SUCCESS);
	psci_system_off();
	arch_halt();
}

/* arm64_exit_trapped - the exception came from arch_exit's semihosting call: power off. */
bool arm64_exit_trapped(void)
{
	if (!exiting)
		return false;
	psci_system_off();
	arch_halt();
}

/* arch_nmi_ready: see kernel/arch.h. */
bool arch_nmi_ready(void)
{
	return gic_ready();
}

/* arch_send_nmi: see kernel/arch.h. */
void arch_send_nmi(unsigned int cpu)
{
	gic_send_sgi(arm64_cpu_mpidr(cpu), SGI_NMI);
}

static void print_frame(const void *frame)
{
	arm64_print_frame(frame);
}

/*
 * arm64_fiq - the FIQ handler (Group 0 SGIs), called from arm64_trap.
 * Returns false for an FIQ nobody asked for (reported as an exception).
 */
bool arm64_fiq(const struct trap_frame *tf)
{
	unsigned int intid = gic_ack_fiq();

	if (intid >= 1020)
		return true;	/* spurious */
	gic_eoi_fiq(intid);
	if (intid == SGI_NMI && nmi_handle("FIQ", print_frame, tf))
		return true;
	printk("unexpected FIQ %u on CPU %u\n", intid, smp_processor_id());
	return false;
}
