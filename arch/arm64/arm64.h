/* arm64.h - declarations shared inside arch/arm64 only. */
#ifndef ARM64_ARM64_H
#define ARM64_ARM64_H

#include "kernel/compiler.h"
#include <asm/processor.h>

/* Saved by vectors.S; the layout must match its offsets. */
struct trap_frame {
	uint64_t x[31];
	uint64_t sp;		/* before the exception */
	uint64_t elr, spsr, esr, far;
};

/* Vector kinds (index in the table) that Quarry expects; the rest are fatal. */
#define TRAP_EL1_SYNC	4
#define TRAP_EL1_IRQ	5
#define TRAP_EL1_FIQ	6
#define TRAP_EL1_SERROR	7

#define read_sysreg(r)                                                   \
	({                                                               \
		uint64_t __v;                                            \
		__asm__ __volatile__("mrs %0, " #r : "=r"(__v));         \
		__v;                                                     \
	})
#define write_sysreg(r, v) \
	__asm__ __volatile__("msr " #r ", %0" : : "r"((uint64_t)(v)) : "memory")
#define isb()	__asm__ __volatile__("isb" : : : "memory")
#define dsb(opt) __asm__ __volatile__("dsb " #opt : : : "memory")

/* MPIDR_EL1's affinity fields (Aff3 in 39:32, Aff2-Aff0 in 23:0). */
#define MPIDR_AFF_MASK	0xff00ffffffULL

/* What mmu_on (entry.S) loads on every CPU; arm64_mmu_boot fills it. */
struct mmu_regs {
	uint64_t mair, tcr, ttbr0;
};
extern struct mmu_regs mmu_regs;
extern uint64_t secondary_stack_top[NR_CPUS];
void secondary_entry(void);

void serial_init(void);
void pmu_init(void);
void percpu_init_areas(void);
void percpu_load(unsigned int cpu);
void arm64_print_frame(const struct trap_frame *tf);
bool arm64_fiq(const struct trap_frame *tf);
bool arm64_exit_trapped(void);
void arm64_secondary_start(unsigned int cpu) __noreturn;

/* gic.c: GICv3 distributor, redistributors and CPU interface. */
#define SGI_WAKEUP	0	/* Group 1 (IRQ): wake an idle CPU to look for work */
#define SGI_NMI		1	/* Group 0 (FIQ): stop or report (kernel/nmi.c) */
void gic_init(void);
void gic_cpu_init(void);
bool gic_ready(void);
void gic_enable_ppi(unsigned int intid);
void gic_send_sgi(uint64_t mpidr, unsigned int sgi);
unsigned int gic_ack_irq(void);
void gic_eoi_irq(unsigned int intid);
unsigned int gic_ack_fiq(void);
void gic_eoi_fiq(unsigned int intid);

/* timer.c: the generic timer's virtual timer at HZ, and delays. */
void timer_cpu_start(void);
void timer_irq(void);
unsigned int timer_intid(void);
void udelay(unsigned long us);
void cycles_calibrate(void);

/* smp.c */
uint64_t arm64_cpu_mpidr(unsigned int cpu);
void psci_system_off(void);

#endif
