/* Host shim: no interrupts in user space; a thread-local flag tracks the "disabled" state. */
#ifndef ASM_IRQFLAGS_H
#define ASM_IRQFLAGS_H
#include <stdbool.h>
extern __thread int host_irqs_off;

#ifdef HOST_IRQS_UNTRACKED
/*
 * The benchmark build (lab/bench/host): a thread is never interrupted by
 * an allocating handler, so there is nothing to disable and nothing to
 * track; "disabled" always holds. The kernel pays pushf/cli/sti here; the
 * host tests keep the tracking below, which is what checks mm/'s
 * assert_irqs_disabled() preconditions.
 */
static inline unsigned long arch_irq_save(void) { return 0; }
static inline void arch_irq_restore(unsigned long f) { (void)f; }
static inline void arch_irq_enable(void) { }
static inline void arch_irq_disable(void) { }
static inline bool arch_irqs_disabled(void) { return true; }
#else
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
#endif
