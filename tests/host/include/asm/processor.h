/* Host shim: threads stand in for CPUs; each sets host_cpu_id before using mm/. */
#ifndef ASM_PROCESSOR_H
#define ASM_PROCESSOR_H
#include <stdint.h>
#define NR_CPUS 8
extern __thread unsigned int host_cpu_id;
static inline void cpu_relax(void) { __asm__ __volatile__("pause" ::: "memory"); }
static inline uint64_t arch_cycles(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
static inline unsigned int smp_processor_id(void) { return host_cpu_id; }
#endif
