/*
 * asm/processor.h - per-CPU identity, spinning hint and cycle counter on x86_64.
 */
#ifndef ASM_PROCESSOR_H
#define ASM_PROCESSOR_H

#include <stdint.h>

/* Most CPUs Quarry brings up; per-CPU arrays in mm/ are sized by it. */
#define NR_CPUS 8

/* Hint to the CPU that we are spinning on a lock. */
static inline void cpu_relax(void)
{
	__asm__ __volatile__("pause" : : : "memory");
}

/*
 * arch_cycles - the cycle counter (rdtsc). Under QEMU TCG with -icount
 * shift=0 it counts guest instructions exactly.
 */
static inline uint64_t arch_cycles(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/*
 * smp_processor_id - the running CPU's number, 0..NR_CPUS-1. Stable only
 * while interrupts are off (or preemption is impossible, as in Quarry).
 */
unsigned int smp_processor_id(void);

#endif
