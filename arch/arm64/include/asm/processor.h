/*
 * asm/processor.h - per-CPU identity, spinning hint, cycle counter and an addressing hint (ARCH_WORD_AT) on arm64.
 */
#ifndef ASM_PROCESSOR_H
#define ASM_PROCESSOR_H

#include <stdint.h>

/*
 * NR_CPUS: the most CPUs Quarry brings up; per-CPU arrays in mm/ and kernel/
 * are sized by it. A build option (NR_CPUS=, 1-64, default 8), passed as
 * -DNR_CPUS by mm/files.mk.
 */
#ifndef NR_CPUS
#error "NR_CPUS is a build option: mm/files.mk passes -DNR_CPUS=N"
#endif

/* What arch_cycles() reads, for the benchmark header. */
#define ARCH_CYCLE_COUNTER "PMCCNTR_EL0"

/* Hint to the CPU that we are spinning on a lock. */
static inline void cpu_relax(void)
{
	__asm__ __volatile__("yield" : : : "memory");
}

/*
 * arch_cycles - the PMU cycle counter (PMCCNTR_EL0, enabled on every CPU at
 * boot). Under QEMU TCG with -icount shift=0 it counts guest instructions
 * exactly; otherwise QEMU runs it at 1 GHz of host time. The isb keeps it
 * from being read ahead of the code it measures.
 */
static inline uint64_t arch_cycles(void)
{
	uint64_t v;
	__asm__ __volatile__("isb\n\tmrs %0, pmccntr_el0" : "=r"(v) : : "memory");
	return v;
}

/*
 * arch_random_seed - 64 bits to seed the allocators' hardening (freelist
 * order, pointer secrets): RNDR when ID_AA64ISAR0_EL1 says the CPU has it
 * (QEMU: -cpu max), else the generic timer's count mixed with the cycle
 * counter. Under -icount both repeat from boot to boot, and so does a seed
 * taken from them. Any context.
 */
static inline uint64_t arch_random_seed(void)
{
	uint64_t isar0, v, cnt;
	uint32_t nzcv;

	__asm__ __volatile__("mrs %0, id_aa64isar0_el1" : "=r"(isar0));
	if ((isar0 >> 60) & 0xf) {	/* FEAT_RNG */
		for (int tries = 0; tries < 10; tries++) {
			/* RNDR is s3_3_c2_c4_0; it sets Z (and returns 0) when it has nothing */
			__asm__ __volatile__("mrs %0, s3_3_c2_c4_0\n\tmrs %1, nzcv"
					     : "=r"(v), "=r"(nzcv));
			if (!(nzcv & (1U << 30)))
				return v;
		}
	}
	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(cnt));
	return (cnt ^ (arch_cycles() << 32)) * 0x9e3779b97f4a7c15ULL;
}

/* The running CPU's number, in its per-CPU area (see asm/percpu.h). */
extern unsigned int per_cpu__cpu_number;

/*
 * __my_cpu_base - TPIDR_EL1: the running CPU's per-CPU area, whose layout
 * is the template's (see asm/percpu.h). Not volatile, so the compiler may
 * reuse it (a CPU's area never changes once set); the dummy memory input
 * ties it to the stack so a "memory" clobber (the write that sets it)
 * forces a fresh read.
 */
static inline unsigned long __my_cpu_base(void)
{
	unsigned long base;
	register unsigned long sp __asm__("sp");

	__asm__("mrs %0, tpidr_el1" : "=r"(base) : "Q"(*(const unsigned long *)sp));
	return base;
}

/*
 * smp_processor_id - the running CPU's number, 0..NR_CPUS-1: mrs and one
 * load from its per-CPU area. Code never moves between CPUs in Quarry, so
 * it stays right for as long as the caller runs. entry.S points the boot
 * CPU's TPIDR_EL1 at the template (cpu_number 0) before any C runs.
 */
static inline unsigned int smp_processor_id(void)
{
	unsigned int id;

	__asm__("ldr %w0, [%1, #:lo12:%2]"
		: "=r"(id)
		: "r"(__my_cpu_base()), "S"(&per_cpu__cpu_number));
	return id;
}

/*
 * arch_shared_counter - a count every CPU shares, and its rate in *hz: the
 * generic timer (PMCCNTR starts at each CPU's own boot, so spans across CPUs
 * need this one). Any context.
 */
static inline uint64_t arch_shared_counter(uint64_t *hz)
{
	uint64_t cnt, f;

	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tmrs %1, cntfrq_el0"
			     : "=r"(cnt), "=r"(f) : : "memory");
	*hz = f;
	return cnt;
}

/*
 * ARCH_WORD_AT(s, member, n, k) - s->member[n + k], member an array of
 * pointers in *s and k a constant, as a fast path that reaches two words
 * near s->member[n] wants it formed: arm64 keeps s + n words opaque to the
 * compiler, so that the sum is formed once and each access takes the
 * member's offset and k as an immediate (GCC otherwise forms each address
 * apart: two instructions more on SLUB's sheaf free path).
 */
static __always_inline void **arch_word_base(void *base, unsigned long n)
{
	void **p = (void **)base + n;

	__asm__("" : "+r"(p));
	return p;
}
#define ARCH_WORD_AT(s, member, n, k) \
	(arch_word_base((s), (n))[offsetof(__typeof__(*(s)), member) / sizeof(void *) + (k)])

#endif
