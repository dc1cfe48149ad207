/*
 * asm/irqflags.h - disabling and restoring local interrupts on x86_64.
 * arch_irq_save() returns the previous RFLAGS; restore puts IF back as it was.
 * The "memory" clobbers make each one a compiler barrier, so accesses to
 * per-CPU data cannot move out of the interrupts-off section.
 */
#ifndef ASM_IRQFLAGS_H
#define ASM_IRQFLAGS_H

#include <stdbool.h>

static inline unsigned long arch_irq_save(void)
{
	unsigned long flags;
	__asm__ __volatile__("pushfq; popq %0; cli" : "=r"(flags) : : "memory");
	return flags;
}

static inline void arch_irq_restore(unsigned long flags)
{
	if (flags & (1UL << 9))
		__asm__ __volatile__("sti" : : : "memory");
}

static inline void arch_irq_enable(void)
{
	__asm__ __volatile__("sti" : : : "memory");
}

static inline void arch_irq_disable(void)
{
	__asm__ __volatile__("cli" : : : "memory");
}

static inline bool arch_irqs_disabled(void)
{
	unsigned long flags;
	__asm__ __volatile__("pushfq; popq %0" : "=r"(flags) : : "memory");
	return !(flags & (1UL << 9));
}

#endif
