/*
 * traps.c - what happens when an exception arrives at EL1 (vectors.S calls
 * arm64_trap). Synchronous exceptions and SErrors are fatal: the report
 * names the exception class, ESR, FAR, ELR and every register, then panic
 * ends the run with a failure status. IRQs (GICv3 Group 1) go to the timer
 * or wake an idle CPU; FIQs (Group 0) are Quarry's NMIs: stop or report,
 * sent on purpose by another CPU (exit.c).
 */
#include "arch/arm64/arm64.h"
#include "kernel/restart.h"
#include "kernel/printk.h"
#include "kernel/bug.h"
#include <asm/processor.h>

static const char *ec_name(unsigned int ec)
{
	switch (ec) {
	case 0x00: return "undefined instruction";
	case 0x01: return "WFI/WFE trap";
	case 0x07: return "FP/SIMD access";
	case 0x0e: return "illegal execution state";
	case 0x15: return "SVC";
	case 0x18: return "system register access";
	case 0x20: return "instruction abort from EL0";
	case 0x21: return "instruction abort";
	case 0x22: return "PC alignment fault";
	case 0x24: return "data abort from EL0";
	case 0x25: return "data abort";
	case 0x26: return "SP alignment fault";
	case 0x2f: return "SError";
	case 0x30: case 0x31: return "breakpoint";
	case 0x32: case 0x33: return "software step";
	case 0x34: case 0x35: return "watchpoint";
	case 0x3c: return "BRK instruction";
	default: return "unknown exception class";
	}
}

/* arm64_print_frame - print a trap frame's ELR, SPSR, SP and x0-x30. */
void arm64_print_frame(const struct trap_frame *tf)
{
	printk("  elr %016lx spsr %016lx sp  %016lx\n", tf->elr, tf->spsr, tf->sp);
	for (int i = 0; i < 28; i += 4)
		printk("  x%-2d %016lx x%-2d %016lx x%-2d %016lx x%-2d %016lx\n", i, tf->x[i],
		       i + 1, tf->x[i + 1], i + 2, tf->x[i + 2], i + 3, tf->x[i + 3]);
	printk("  x28 %016lx x29 %016lx x30 %016lx\n", tf->x[28], tf->x[29], tf->x[30]);
}

static __noreturn void fatal(const struct trap_frame *tf, unsigned long kind)
{
	static const char *const kinds[4] = { "sync", "IRQ", "FIQ", "SError" };
	unsigned int ec = (unsigned int)(tf->esr >> 26) & 0x3f;
	const char *what = kind == TRAP_EL1_SERROR ? "SError" : ec_name(ec);

	if (kind == TRAP_EL1_SYNC || kind == TRAP_EL1_SERROR)
		printk("EXCEPTION %s on CPU %u: %s (EC 0x%02x) ESR 0x%08lx FAR 0x%016lx\n",
		       kinds[kind & 3], smp_processor_id(), what, ec, tf->esr, tf->far);
	else
		printk("EXCEPTION %s from %s on CPU %u: ESR 0x%08lx\n", kinds[kind & 3],
		       kind < 4 ? "EL1 on SP_EL0" : "a lower EL", smp_processor_id(), tf->esr);
	arm64_print_frame(tf);
	panic("unhandled exception: %s at elr %016lx", what, tf->elr);
}

/* arm64_trap - called by vectors.S for every exception, with IRQs masked. */
void arm64_trap(struct trap_frame *tf, unsigned long kind)
{
	unsigned int intid;

	switch (kind) {
	case TRAP_EL1_IRQ:
		/* an interrupt inside a restartable sequence resumes at its start */
		tf->elr = restart_fixup_pc(tf->elr);
		intid = gic_ack_irq();
		if (intid >= 1020)
			return;		/* spurious: nothing to acknowledge */
		if (intid == timer_intid())
			timer_irq();
		else if (intid != SGI_WAKEUP)
			printk("spurious interrupt %u on CPU %u\n", intid, smp_processor_id());
		gic_eoi_irq(intid);
		return;
	case TRAP_EL1_FIQ:
		if (arm64_fiq(tf))
			return;
		break;
	case TRAP_EL1_SYNC:
		arm64_exit_trapped();	/* no semihosting: power off instead */
		break;
	}
	fatal(tf, kind);
}
