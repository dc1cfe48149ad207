/*
 * exit.c - leaving the machine, and the NMI that reaches other CPUs.
 *
 * Under QEMU an isa-debug-exit device at port 0xf4 ends QEMU: writing v
 * makes QEMU exit with status (v << 1) | 1. We write 0x10 for success and
 * 0x11 for failure, so QEMU exits with 33 or 35 (QEMU_EXIT_SUCCESS and
 * QEMU_EXIT_FAILURE in kernel/arch.h): never 0 or 1, which QEMU returns by
 * itself (a shutdown, a bad option), so a QEMU that failed on its own is
 * never read as the kernel's success. On real hardware (no such device) we
 * halt.
 *
 * Other CPUs are reached with NMIs, which arrive even when the target has
 * its interrupts off or is spinning on a lock; kernel/nmi.c says what they
 * mean (stop for good, or report where you are).
 */
#include "kernel/arch.h"
#include "kernel/nmi.h"
#include "arch/x86_64/io.h"
#include "arch/x86_64/x86.h"
#include <asm/irqflags.h>

#define DEBUG_EXIT_PORT	0xf4

const char arch_name[] = "x86_64";

/* arch_halt: see kernel/arch.h. In an NMI handler that never irets, NMIs stay blocked too. */
void arch_halt(void)
{
	for (;;)
		__asm__ __volatile__("cli; hlt");
}

/* arch_exit: see kernel/arch.h. */
void arch_exit(int status)
{
	arch_irq_disable();
	stop_other_cpus();
	outl(DEBUG_EXIT_PORT, (status ? QEMU_EXIT_FAILURE : QEMU_EXIT_SUCCESS) >> 1);
	arch_halt();
}

/* arch_nmi_ready: see kernel/arch.h. */
bool arch_nmi_ready(void)
{
	return lapic_ready();
}

/* arch_send_nmi: see kernel/arch.h. */
void arch_send_nmi(unsigned int cpu)
{
	lapic_send_nmi(x86_cpu_apic_id(cpu));
}

static void print_frame(const void *frame)
{
	x86_print_frame(frame);
}

/*
 * x86_nmi - the NMI handler, called from x86_trap on the NMI stack. Returns
 * false for an NMI nobody asked for (traps.c reports it as an exception).
 */
bool x86_nmi(const struct trap_frame *tf)
{
	return nmi_handle("NMI", print_frame, tf);
}
