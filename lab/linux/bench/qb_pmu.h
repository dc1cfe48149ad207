/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qb_pmu.h - arm64's cycle counter for Quarry's Linux modules (the benchmark
 * module here and lab/linux/replay/, whose replay.sh copies this file beside
 * it): PMCCNTR_EL0 on, counting at EL0 and EL1, 64 bits wide, from zero.
 * Under QEMU -icount it counts guest instructions. Nothing on other arches.
 */
#ifndef QB_PMU_H
#define QB_PMU_H

#ifdef CONFIG_ARM64
/* Start this CPU's cycle counter; run on every CPU (on_each_cpu). */
static inline void qb_pmu_enable_cpu(void *unused)
{
	u64 pmcr;

	asm volatile("msr pmccfiltr_el0, xzr");
	asm volatile("msr pmcntenset_el0, %0" : : "r"(1UL << 31));
	asm volatile("mrs %0, pmcr_el0" : "=r"(pmcr));
	pmcr |= 1 /* E */ | 1 << 2 /* C: reset */ | 1 << 6 /* LC: 64 bits */;
	asm volatile("msr pmcr_el0, %0\n\tisb" : : "r"(pmcr));
}
#endif

#endif
