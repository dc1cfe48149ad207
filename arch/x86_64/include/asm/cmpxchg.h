/*
 * asm/cmpxchg.h - double-word compare-and-exchange on x86_64 (cmpxchg16b).
 *
 * Both forms work on a pair of unsigned longs at a 16-byte aligned address
 * p: if p[0] == o1 and p[1] == o2 they store n1, n2 there and return true,
 * else they change nothing and return false.
 *
 *  - arch_cmpxchg_double: lock cmpxchg16b, atomic against every CPU and a
 *    full barrier (a locked instruction orders everything on x86).
 *  - arch_this_cpu_cmpxchg_double: for the running CPU's copy of a per-CPU
 *    pair (from this_cpu_ptr; Quarry never migrates, so the pointer stays
 *    this CPU's). One instruction with no lock prefix: an interrupt on this
 *    CPU lands before or after it, never inside, and no other CPU writes
 *    the pair, so it is atomic where it needs to be and costs no bus lock.
 *    A compiler barrier, nothing more.
 *
 *  - arch_this_cpu_try_cmpxchg_double: the same for a pair reached
 *    %gs-relative (a PERCPU_SEG pointer, kernel/percpu.h); on failure *o1
 *    and *o2 receive the pair as it is (one snapshot), on success they
 *    keep what was compared: the caller's variables stay in rax and rdx,
 *    with no copy around the instruction, and a retry reads nothing.
 *  - arch_this_cpu_try_cmpxchg: one word of the running CPU's per-CPU data
 *    (a PERCPU_SEG pointer), cmpxchg without a lock (same reasoning); *o
 *    as above.
 *
 * cmpxchg16b takes the new value in rcx:rbx. rbx is callee-saved, and a
 * function that gives it to the compiler must save and restore it, which
 * with frame pointers costs a whole frame (five instructions on a fast
 * path of twenty): instead the asm swaps the new low word into rbx and
 * swaps it back after (two instructions), so rbx and the n1 register both
 * leave the asm as they came in. Every operand has a register of its own
 * (n1 in rdi, the pair's address in rsi): with a free choice the compiler
 * may hand n1 the register of an equal operand (o1 in rax, when n1 == o1),
 * which the swap would break, or address the pair through rbx.
 *
 * cmpxchg16b exists on every x86_64 CPU with CPUID.1:ECX bit 13 (CX16); the
 * first AMD64 CPUs lacked it. arch_has_cmpxchg_double() tells, and a user
 * that needs it (SLUB's kmem_cache_init) refuses to run without it.
 */
#ifndef ASM_CMPXCHG_H
#define ASM_CMPXCHG_H

#include <stdbool.h>
#include <stdint.h>

/* The name users print when the instruction is missing. */
#define ARCH_CMPXCHG_DOUBLE_NAME "cmpxchg16b (CPUID.1:ECX.CX16)"

/* arch_has_cmpxchg_double - true when this CPU has cmpxchg16b (CPUID.1:ECX bit 13). */
static inline bool arch_has_cmpxchg_double(void)
{
	uint32_t eax = 1, ebx, ecx = 0, edx;

	__asm__ __volatile__("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
	return (ecx >> 13) & 1;
}

/* arch_cmpxchg_double - see above: atomic against all CPUs, a full barrier. */
static __attribute__((always_inline)) inline bool
arch_cmpxchg_double(void *p, unsigned long o1, unsigned long o2, unsigned long n1,
		    unsigned long n2)
{
	bool ok;

	__asm__ __volatile__("xchg %[n1], %%rbx\n\t"
			     "lock cmpxchg16b (%[p])\n\t"
			     "xchg %[n1], %%rbx"
			     : "=@ccz"(ok), "+a"(o1), "+d"(o2)
			     : [n1] "D"(n1), [p] "S"(p), "c"(n2)
			     : "memory");
	return ok;
}

/* arch_this_cpu_cmpxchg_double - see above: the running CPU's per-CPU pair only. */
static __attribute__((always_inline)) inline bool
arch_this_cpu_cmpxchg_double(void *p, unsigned long o1, unsigned long o2, unsigned long n1,
			     unsigned long n2)
{
	bool ok;

	__asm__ __volatile__("xchg %[n1], %%rbx\n\t"
			     "cmpxchg16b (%[p])\n\t"
			     "xchg %[n1], %%rbx"
			     : "=@ccz"(ok), "+a"(o1), "+d"(o2)
			     : [n1] "D"(n1), [p] "S"(p), "c"(n2)
			     : "memory");
	return ok;
}

/* arch_this_cpu_try_cmpxchg_double - see above: the running CPU's pair; *o1, *o2 updated. */
static __attribute__((always_inline)) inline bool
arch_this_cpu_try_cmpxchg_double(void __seg_gs *p, unsigned long *o1, unsigned long *o2,
				 unsigned long n1, unsigned long n2)
{
	bool ok;

	__asm__ __volatile__("xchg %[n1], %%rbx\n\t"
			     "cmpxchg16b %%gs:(%[p])\n\t"
			     "xchg %[n1], %%rbx"
			     : "=@ccz"(ok), "+a"(*o1), "+d"(*o2)
			     : [n1] "D"(n1), [p] "S"(p), "c"(n2)
			     : "memory");
	return ok;
}

/* arch_this_cpu_try_cmpxchg - see above: one word of the running CPU's data; *o updated. */
static __attribute__((always_inline)) inline bool
arch_this_cpu_try_cmpxchg(unsigned long __seg_gs *p, unsigned long *o, unsigned long n)
{
	bool ok;

	__asm__ __volatile__("cmpxchg %[n], %[m]"
			     : "=@ccz"(ok), [m] "+m"(*p), "+a"(*o)
			     : [n] "r"(n)
			     : "memory");
	return ok;
}

#endif
