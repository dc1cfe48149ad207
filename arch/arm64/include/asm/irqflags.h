/*
 * asm/irqflags.h - disabling and restoring local interrupts on arm64.
 *
 * "Interrupts off" is PSTATE.I set (IRQs masked). FIQs stay enabled: Quarry
 * uses them as its NMI (GICv3 Group 0 SGIs, which arrive as FIQs), so that
 * panic can stop and the watchdog can question a CPU that spins with
 * interrupts off. arch_irq_save() returns the previous DAIF; restore writes
 * it back. The "memory" clobbers make each one a compiler barrier.
 */
#ifndef ASM_IRQFLAGS_H
#define ASM_IRQFLAGS_H

#include <stdbool.h>

#define DAIF_I	(1UL << 7)

static inline unsigned long arch_irq_save(void)
{
	unsigned long flags;
	__asm__ __volatile__("mrs %0, daif\n\tmsr daifset, #2" : "=r"(flags) : : "memory");
	return flags;
}

static inline void arch_irq_restore(unsigned long flags)
{
	__asm__ __volatile__("msr daif, %0" : : "r"(flags) : "memory");
}

static inline void arch_irq_enable(void)
{
	__asm__ __volatile__("msr daifclr, #2" : : : "memory");
}

static inline void arch_irq_disable(void)
{
	__asm__ __volatile__("msr daifset, #2" : : : "memory");
}

static inline bool arch_irqs_disabled(void)
{
	unsigned long flags;
	__asm__ __volatile__("mrs %0, daif" : "=r"(flags) : : "memory");
	return flags & DAIF_I;
}

#endif
