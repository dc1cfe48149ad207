/*
 * panic.c - the end of the line: panic(), BUG_ON() and WARN_ON() reports.
 * panic stops the other CPUs first, then takes the console even if a dead
 * CPU held its lock, so the message always gets out, then exits with status 1.
 */
#include "kernel/bug.h"
#include "kernel/printk.h"
#include "kernel/arch.h"
#include "kernel/nmi.h"
#include <asm/irqflags.h>
#include <asm/processor.h>
#include <stdarg.h>

void printk_take_console(void);

static int panicking;

/* panic: see bug.h. */
void panic(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	arch_irq_disable();
	if (__atomic_exchange_n(&panicking, 1, __ATOMIC_ACQ_REL)) {
		/* Another CPU is already panicking; it will end the machine. */
		for (;;)
			cpu_relax();
	}
	stop_other_cpus();
	printk_take_console();
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printk("PANIC on CPU %u: %s\n", smp_processor_id(), buf);
	arch_exit(1);
}

/* __bug: the target of BUG_ON/ASSERT. */
void __bug(const char *file, int line, const char *expr)
{
	panic("BUG at %s:%d: %s", file, line, expr);
}

/* __warn: the target of WARN_ON. */
void __warn(const char *file, int line, const char *expr)
{
	printk("WARNING on CPU %u at %s:%d: %s\n", smp_processor_id(), file, line, expr);
}
