/* setup.c - arm64's part of boot: per-CPU areas, console, PMU. */
#include "kernel/arch.h"
#include "arch/arm64/arm64.h"

const char arch_name[] = "arm64";

/*
 * arch_early_init: see kernel/arch.h. The exception vectors and the MMU are
 * already on (entry.S). Per-CPU areas first: printk's lock reads them.
 */
void arch_early_init(void)
{
	percpu_init_areas();
	percpu_load(0);
	serial_init();
	pmu_init();
}

/*
 * pmu_init - start the PMU's cycle counter on the running CPU, counting at
 * EL1 (PMCCFILTR_EL0 = 0), so arch_cycles() can read it. Every CPU, once.
 */
void pmu_init(void)
{
	write_sysreg(pmccfiltr_el0, 0);
	write_sysreg(pmcntenset_el0, 1UL << 31);
	write_sysreg(pmcr_el0, read_sysreg(pmcr_el0) | (1 << 0) | (1 << 2) | (1 << 6)); /* E, C, LC */
	isb();
}
