/*
 * asm/processor.h - per-CPU identity, spinning hint, cycle counter and an addressing hint (ARCH_WORD_AT) on x86_64.
 */
#ifndef ASM_PROCESSOR_H
#define ASM_PROCESSOR_H

#include <stdint.h>

/*
 * NR_CPUS: the most CPUs Quarry brings up; per-CPU
 * arrays in mm/ and kernel/ are sized by it. A build option (NR_CPUS=, 1-64,
 * default 8), passed as -DNR_CPUS by mm/files.mk.
 */
#ifndef NR_CPUS
#error "NR_CPUS is a build option: mm/files.mk passes -DNR_CPUS=N"
#endif

/* What arch_cycles() reads, for the benchmark header. */
#define ARCH_CYCLE_COUNTER "rdtsc"

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
 * arch_random_seed - 64 bits to seed the allocators' hardening (freelist
 * order, pointer secrets): RDRAND when CPUID says the CPU has it (QEMU:
 * -cpu max), else the TSC. Under -icount the TSC repeats from boot to boot,
 * and so does a seed taken from it. Any context.
 */
static inline uint64_t arch_random_seed(void)
{
	uint32_t a = 1, b, c = 0, d;
	uint64_t v;
	uint8_t ok = 0;

	__asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	if (c & (1U << 30)) {	/* CPUID.1:ECX.RDRAND */
		for (int tries = 0; tries < 10 && !ok; tries++)
			__asm__ __volatile__("rdrand %0; setc %1" : "=r"(v), "=qm"(ok));
		if (ok)
			return v;
	}
	return arch_cycles() * 0x9e3779b97f4a7c15ULL;
}

/* The running CPU's number, in its per-CPU area (see asm/percpu.h). */
extern unsigned int per_cpu__cpu_number;

/*
 * smp_processor_id - the running CPU's number, 0..NR_CPUS-1: one load through
 * the GS base, which arch/x86_64/percpu.c points at this CPU's per-CPU area.
 * Code never moves between CPUs in Quarry (no preemption, no migration), so
 * the value stays right for as long as the caller runs. Before the boot CPU's
 * GS base is set, GS is 0 and the load reads the template's 0: still right.
 * Not volatile: the compiler may reuse an earlier result, since a CPU's
 * number never changes once its GS base is set (a "memory" clobber, as in
 * the MSR write that sets it, forces a fresh load).
 */
static inline unsigned int smp_processor_id(void)
{
	unsigned int id;

	__asm__("movl %%gs:%1, %0" : "=r"(id) : "m"(per_cpu__cpu_number));
	return id;
}

/*
 * arch_shared_counter - a count every CPU shares, and its rate in *hz; 0 Hz
 * here: the TSC itself (arch_cycles) is one clock for all CPUs. Any context.
 */
static inline uint64_t arch_shared_counter(uint64_t *hz)
{
	*hz = 0;
	return 0;
}

/*
 * ARCH_WORD_AT(s, member, n, k) - s->member[n + k] for a constant k (see
 * arm64's): x86_64 addressing takes s + n * 8 + a displacement in each
 * operand, so each access is left to the compiler as a plain index.
 */
#define ARCH_WORD_AT(s, member, n, k)	((s)->member[(long)(n) + (k)])

#endif
