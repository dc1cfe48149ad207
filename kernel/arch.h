/*
 * arch.h - what kernel/ asks of the architecture (arch/<arch>/ implements it).
 * mm/ needs only the asm/ headers; kernel/ needs these functions as well.
 */
#ifndef QUARRY_ARCH_H
#define QUARRY_ARCH_H

#include "kernel/compiler.h"

struct boot_info;

/* arch_early_init - console, descriptor tables, exception handlers. First thing in kmain. */
void arch_early_init(void);

/*
 * arch_memory_init - after platform discovery: map all RAM in bi->avail into
 * the direct map, drop boot-only mappings, and trim from bi->avail any RAM
 * that could not be mapped.
 */
void arch_memory_init(struct boot_info *bi);

/* arch_console_write - write n bytes to the console; '\n' goes out as "\r\n". */
void arch_console_write(const char *s, size_t n);

/*
 * arch_exit - leave the machine with a status: 0 success, non-zero failure.
 * Under QEMU this ends QEMU with status QEMU_EXIT_SUCCESS or
 * QEMU_EXIT_FAILURE on both arches: odd (x86's isa-debug-exit can only give
 * (v << 1) | 1) and neither 0 nor 1, which QEMU returns by itself.
 * tests/qemu/run.sh turns them into 0 and 1. Never returns.
 */
#define QEMU_EXIT_SUCCESS	33
#define QEMU_EXIT_FAILURE	35
void arch_exit(int status) __noreturn;

/*
 * arch_send_nmi - send cpu the interrupt that arrives even with its
 * interrupts off (x86: an NMI; arm64: a Group 0 SGI, taken as an FIQ); its
 * handler calls nmi_handle (kernel/nmi.h). arch_nmi_ready - true once it
 * can be sent (the interrupt controller is up).
 */
void arch_send_nmi(unsigned int cpu);
bool arch_nmi_ready(void);

/* arch_halt - stop this CPU for good: every interrupt masked, waiting forever. */
void arch_halt(void) __noreturn;

/*
 * arch_phys_mapped - true when [phys, phys + len) is in the direct map, so
 * PHYS_TO_VIRT(phys) may be read (firmware tables, boot data).
 */
bool arch_phys_mapped(uint64_t phys, uint64_t len);

/*
 * arch_cycles_khz - how fast arch_cycles() counts, in kHz, as measured at
 * boot against a reference clock; 0 before that or if it could not be.
 */
unsigned long arch_cycles_khz(void);

/*
 * SMP (kernel/smp.c drives these):
 *
 * arch_smp_prepare - find the CPUs (from the ACPI MADT, acpi_init first),
 * give them logical numbers (the boot CPU is 0), set up the boot CPU's
 * interrupt controller and its timer at HZ (calling timer_tick), and
 * prepare the secondaries' start code. Returns how many CPUs can be
 * started, the boot CPU included (1..NR_CPUS). Boot CPU, once, interrupts off.
 */
unsigned int arch_smp_prepare(void);

/*
 * arch_cpu_start - start secondary CPU cpu (1 .. arch_smp_prepare()-1) and
 * wait until it has called smp_secondary_main() and is online. Returns 0,
 * or -1 after printing why the CPU did not come up (then it never will).
 */
int arch_cpu_start(unsigned int cpu);

/* arch_send_wakeup - interrupt cpu so that it leaves arch_cpu_idle(). */
void arch_send_wakeup(unsigned int cpu);

/*
 * arch_cpu_idle - called with interrupts off: enable them and wait for the
 * next interrupt, with no window in which one could arrive before the wait
 * starts. Returns with interrupts on.
 */
void arch_cpu_idle(void);

/*
 * arch_cpu_hw_id - the hardware ID (x86: local APIC ID) that logical CPU
 * cpu was started with; arch_this_cpu_hw_id - the running CPU's, read from
 * the hardware itself. Tests compare the two.
 */
uint32_t arch_cpu_hw_id(unsigned int cpu);
uint32_t arch_this_cpu_hw_id(void);

/* arch_name - "x86_64" or "arm64". */
extern const char arch_name[];

#endif
