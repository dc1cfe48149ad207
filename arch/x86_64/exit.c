/*
 * exit.c - leaving the machine. Under QEMU an isa-debug-exit device at port
 * 0xf4 ends QEMU: writing v makes QEMU exit with status (v << 1) | 1, so the
 * run scripts read 1 as success and 3 as failure. On real hardware (no such
 * device) we halt.
 */
#include "kernel/arch.h"
#include "arch/x86_64/io.h"
#include <asm/irqflags.h>

#define DEBUG_EXIT_PORT 0xf4

const char arch_name[] = "x86_64";

/* arch_exit: see kernel/arch.h. */
void arch_exit(int status)
{
	arch_irq_disable();
	arch_stop_other_cpus();
	outl(DEBUG_EXIT_PORT, status ? 1 : 0);
	for (;;)
		__asm__ __volatile__("hlt");
}

/*
 * arch_stop_other_cpus: see kernel/arch.h. Only the boot CPU runs until SMP
 * bring-up lands (issue 4), so there is nothing to stop yet.
 */
void arch_stop_other_cpus(void)
{
}

/* smp_processor_id: see asm/processor.h. The boot CPU only, for now. */
unsigned int smp_processor_id(void)
{
	return 0;
}
