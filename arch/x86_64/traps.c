/*
 * traps.c - what happens when an interrupt or exception arrives. Exceptions
 * are fatal: the report names the vector, the error code, CR2 and every
 * register, then panic ends the run with a failure status; an NMI another
 * CPU sent on purpose (stop, report) goes to x86_nmi instead. Device
 * interrupts (vectors 32 and up) go to the handler registered for them.
 */
#include "arch/x86_64/x86.h"
#include "kernel/printk.h"
#include "kernel/bug.h"
#include "kernel/irq.h"
#include "kernel/restart.h"
#include <asm/processor.h>

static const char *const exception_names[32] = {
	"#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow",
	"#BR bound range", "#UD invalid opcode", "#NM device not available",
	"#DF double fault", "coprocessor overrun", "#TS invalid TSS", "#NP segment not present",
	"#SS stack fault", "#GP general protection", "#PF page fault", "reserved 15",
	"#MF x87 error", "#AC alignment check", "#MC machine check", "#XM SIMD error",
	"#VE virtualization", "#CP control protection", "reserved 22", "reserved 23",
	"reserved 24", "reserved 25", "reserved 26", "reserved 27",
	"#HV hypervisor injection", "#VC VMM communication", "#SX security", "reserved 31",
};

static irq_handler_t irq_handlers[256];

/* irq_register: see kernel/irq.h. */
void irq_register(unsigned int vector, irq_handler_t fn)
{
	ASSERT(vector >= 32 && vector < 256);
	irq_handlers[vector] = fn;
}

/* x86_print_frame - print a trap frame's instruction pointer and registers. */
void x86_print_frame(const struct trap_frame *tf)
{
	printk("  rip %016lx cs %04lx rflags %016lx rsp %016lx ss %04lx\n", tf->rip, tf->cs,
	       tf->rflags, tf->rsp, tf->ss);
	printk("  rax %016lx rbx %016lx rcx %016lx rdx %016lx\n", tf->rax, tf->rbx, tf->rcx,
	       tf->rdx);
	printk("  rsi %016lx rdi %016lx rbp %016lx r8  %016lx\n", tf->rsi, tf->rdi, tf->rbp,
	       tf->r8);
	printk("  r9  %016lx r10 %016lx r11 %016lx r12 %016lx\n", tf->r9, tf->r10, tf->r11,
	       tf->r12);
	printk("  r13 %016lx r14 %016lx r15 %016lx\n", tf->r13, tf->r14, tf->r15);
}

static void report_exception(const struct trap_frame *tf)
{
	printk("EXCEPTION %lu (%s) on CPU %u: error 0x%lx cr2 0x%lx\n", tf->vector,
	       exception_names[tf->vector], smp_processor_id(), tf->error, read_cr2());
	x86_print_frame(tf);
}

/* x86_trap - called by isr.asm for every vector, interrupts off. */
void x86_trap(struct trap_frame *tf)
{
	if (tf->vector == 2 && x86_nmi(tf))
		return;
	if (tf->vector < 32) {
		report_exception(tf);
		panic("unhandled exception %lu at rip %016lx", tf->vector, tf->rip);
	}
	/* an interrupt inside a restartable sequence resumes at its start */
	tf->rip = restart_fixup_pc(tf->rip);
	if (irq_handlers[tf->vector]) {
		irq_handlers[tf->vector](tf->vector);
		return;
	}
	printk("spurious interrupt %lu on CPU %u\n", tf->vector, smp_processor_id());
}
