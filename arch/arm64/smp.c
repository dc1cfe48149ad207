/*
 * smp.c - starting the secondary CPUs on arm64 through PSCI, and the arch
 * side of kernel/smp.c: wake-up SGIs, idling, hardware IDs.
 *
 * Logical CPU numbers: the boot CPU is 0; the other CPUs of the device
 * tree's /cpus follow in tree order, up to NR_CPUS. cpu_mpidr[] maps a
 * logical number to the MPIDR affinity that SGIs and PSCI address.
 *
 * Bring-up of one CPU (arch_cpu_start), one at a time: give it a stack
 * (16 KiB from the buddy allocator) in secondary_stack_top[cpu], then PSCI
 * CPU_ON(mpidr, secondary_entry, cpu) through the conduit the tree names
 * (hvc or smc). The CPU starts at secondary_entry (boot/arm64/entry.S) with
 * the MMU off, turns it on with the boot CPU's tables and enters
 * arm64_secondary_start, which claims its start (start_state) and goes on to
 * smp_secondary_main. A CPU that claims too late (the boot CPU gave up
 * after AP_START_TIMEOUT_MS) parks itself instead.
 */
#include "arch/arm64/arm64.h"
#include "boot/dtb.h"
#include "kernel/arch.h"
#include "kernel/printk.h"
#include "kernel/bug.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "mm/buddy.h"
#include <asm/irqflags.h>

#define AP_STACK_SIZE		(16 * 1024)
#define AP_STACK_ORDER		(AP_STACK_SIZE > PAGE_SIZE ? 14 - PAGE_SHIFT : 0)
#define AP_START_TIMEOUT_MS	5000

#define PSCI_CPU_ON		0xc4000003
#define PSCI_SYSTEM_OFF		0x84000008

enum { START_WAITING, START_CLAIMED, START_ABANDONED };

static uint64_t cpu_mpidr[NR_CPUS];
static int start_state[NR_CPUS];
uint64_t secondary_stack_top[NR_CPUS];

/*
 * psci_call - a PSCI function through the device tree's conduit; returns
 * x0 (0 or a negative PSCI error). -1 (NOT_SUPPORTED) when there is none.
 */
static long psci_call(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
	register uint64_t x0 __asm__("x0") = fn;
	register uint64_t x1 __asm__("x1") = a1;
	register uint64_t x2 __asm__("x2") = a2;
	register uint64_t x3 __asm__("x3") = a3;

	if (dt_platform.psci_method == DT_PSCI_HVC)
		__asm__ __volatile__("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) : :
				     "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12",
				     "x13", "x14", "x15", "x16", "x17", "memory");
	else if (dt_platform.psci_method == DT_PSCI_SMC)
		__asm__ __volatile__("smc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) : :
				     "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12",
				     "x13", "x14", "x15", "x16", "x17", "memory");
	else
		return -1;
	return (long)x0;
}

/* psci_system_off - power off through PSCI (QEMU then exits with status 0). */
void psci_system_off(void)
{
	psci_call(PSCI_SYSTEM_OFF, 0, 0, 0);
}

/* arm64_cpu_mpidr - the MPIDR affinity of logical CPU cpu. */
uint64_t arm64_cpu_mpidr(unsigned int cpu)
{
	return cpu_mpidr[cpu];
}

/* arch_cpu_hw_id: see kernel/arch.h (the MPIDR's Aff2.Aff1.Aff0). */
uint32_t arch_cpu_hw_id(unsigned int cpu)
{
	return (uint32_t)(cpu_mpidr[cpu] & 0xffffff);
}

/* arch_this_cpu_hw_id: see kernel/arch.h. */
uint32_t arch_this_cpu_hw_id(void)
{
	return (uint32_t)(read_sysreg(mpidr_el1) & 0xffffff);
}

/* arch_smp_prepare: see kernel/arch.h. The CPUs come from the device tree. */
unsigned int arch_smp_prepare(void)
{
	unsigned int n = 1, skipped = 0;

	cpu_mpidr[0] = read_sysreg(mpidr_el1) & MPIDR_AFF_MASK;
	gic_init();
	gic_cpu_init();
	__asm__ __volatile__("msr daifclr, #1" : : : "memory");	/* FIQs: our NMI */
	cycles_calibrate();
	timer_cpu_start();
	if (dt_platform.psci_method == DT_PSCI_NONE) {
		printk("smp: no PSCI in the device tree; only the boot CPU runs\n");
		return 1;
	}
	for (unsigned int i = 0; i < dt_platform.n_cpus; i++) {
		uint64_t mpidr = dt_platform.cpu_mpidr[i] & MPIDR_AFF_MASK;

		if (mpidr == cpu_mpidr[0])
			continue;
		if (n == NR_CPUS)
			skipped++;
		else
			cpu_mpidr[n++] = mpidr;
	}
	skipped += dt_platform.n_cpus_dropped;
	if (skipped)
		printk("smp: %u more CPUs in the device tree not started: NR_CPUS is %d\n", skipped,
		       NR_CPUS);
	return n;
}

/* Clean a variable to memory: the CPU we start reads it with its MMU and caches off. */
static void clean_to_poc(const void *p, size_t len)
{
	for (uintptr_t a = (uintptr_t)p & ~63UL; a < (uintptr_t)p + len; a += 64)
		__asm__ __volatile__("dc cvac, %0" : : "r"(a) : "memory");
	dsb(sy);
}

/* arch_cpu_start: see kernel/arch.h. */
int arch_cpu_start(unsigned int cpu)
{
	uint8_t *stack;
	long r;
	int expect;

	ASSERT(cpu > 0 && cpu < NR_CPUS);
	stack = get_free_pages(AP_STACK_ORDER);
	if (!stack) {
		printk("smp: no memory for CPU %u's stack\n", cpu);
		return -1;
	}
	memset(stack, 0, PAGE_SIZE << AP_STACK_ORDER);
	secondary_stack_top[cpu] = (uint64_t)(uintptr_t)(stack + AP_STACK_SIZE);
	__atomic_store_n(&start_state[cpu], START_WAITING, __ATOMIC_RELEASE);
	clean_to_poc(&secondary_stack_top[cpu], sizeof(uint64_t));
	clean_to_poc(&mmu_regs, sizeof(mmu_regs));

	r = psci_call(PSCI_CPU_ON, cpu_mpidr[cpu], (uintptr_t)secondary_entry, cpu);
	if (r) {
		printk("smp: PSCI CPU_ON for CPU %u (MPIDR %lx) failed: %ld\n", cpu,
		       (unsigned long)cpu_mpidr[cpu], r);
		return -1;
	}
	for (unsigned int ms = 0; ms < AP_START_TIMEOUT_MS; ms++) {
		if (__atomic_load_n(&start_state[cpu], __ATOMIC_ACQUIRE) != START_WAITING)
			break;
		udelay(1000);
	}
	expect = START_WAITING;
	if (__atomic_compare_exchange_n(&start_state[cpu], &expect, START_ABANDONED, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		printk("smp: CPU %u (MPIDR %lx) did not start within %d ms\n", cpu,
		       (unsigned long)cpu_mpidr[cpu], AP_START_TIMEOUT_MS);
		return -1;	/* its stack stays: it might still come */
	}
	while (!cpu_online(cpu))
		cpu_relax();
	return 0;
}

/*
 * arm64_secondary_start - a secondary CPU's first C code, from entry.S on
 * its own stack with the MMU on and every exception masked. Sets up this
 * CPU and never returns.
 */
void arm64_secondary_start(unsigned int cpu)
{
	int expect = START_WAITING;

	percpu_load(cpu);	/* from here smp_processor_id() == cpu */
	if (!__atomic_compare_exchange_n(&start_state[cpu], &expect, START_CLAIMED, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		for (;;)	/* the boot CPU gave up on us: stay out of the way */
			__asm__ __volatile__("wfi");
	}
	__asm__ __volatile__("msr daifclr, #1" : : : "memory");	/* FIQs: our NMI */
	pmu_init();
	gic_cpu_init();
	timer_cpu_start();
	smp_secondary_main(cpu);
	for (;;)
		;
}

/* arch_send_wakeup: see kernel/arch.h. */
void arch_send_wakeup(unsigned int cpu)
{
	gic_send_sgi(cpu_mpidr[cpu], SGI_WAKEUP);
}

/* arch_cpu_idle: see kernel/arch.h. */
void arch_cpu_idle(void)
{
	/* WFI wakes for a pending IRQ even while IRQs are masked: nothing is missed. */
	__asm__ __volatile__("wfi\n\tmsr daifclr, #2" : : : "memory");
}
