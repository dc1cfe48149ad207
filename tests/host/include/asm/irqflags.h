/* Host shim: no interrupts in user space; a thread-local flag tracks the "disabled" state. */
#ifndef ASM_IRQFLAGS_H
#define ASM_IRQFLAGS_H
#include <stdbool.h>
extern __thread int host_irqs_off;
static inline unsigned long arch_irq_save(void)
{
	unsigned long f = (unsigned long)host_irqs_off;
	host_irqs_off = 1;
	__asm__ __volatile__("" ::: "memory");
	return f;
}
static inline void arch_irq_restore(unsigned long f)
{
	__asm__ __volatile__("" ::: "memory");
	host_irqs_off = (int)f;
}
static inline void arch_irq_enable(void) { host_irqs_off = 0; }
static inline void arch_irq_disable(void) { host_irqs_off = 1; }
static inline bool arch_irqs_disabled(void) { return host_irqs_off; }
#endif
