/*
 * Host shim for asm/cmpxchg.h: x86_64 Linux user space, cmpxchg16b in
 * inline assembly (no -mcx16 and no libatomic needed; GCC would call
 * libatomic for a 16-byte __atomic compare-exchange).
 *
 * arch_cmpxchg_double is lock cmpxchg16b (atomic against every thread);
 * arch_this_cpu_cmpxchg_double is cmpxchg16b without the lock, as in the
 * kernel: only the thread acting as the CPU writes its per-CPU pair, and a
 * signal handler (the host's "interrupt") lands before or after the one
 * instruction, never inside it. The try forms hand back the current
 * value(s) on failure. See arch/x86_64/include/asm/cmpxchg.h.
 */
#ifndef ASM_CMPXCHG_H
#define ASM_CMPXCHG_H

#include <stdbool.h>
#include <stdint.h>

#define ARCH_CMPXCHG_DOUBLE_NAME "cmpxchg16b (CPUID.1:ECX.CX16)"

static inline bool arch_has_cmpxchg_double(void)
{
	uint32_t eax = 1, ebx, ecx = 0, edx;

	__asm__ __volatile__("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
	return (ecx >> 13) & 1;
}

static __attribute__((always_inline)) inline bool
arch_cmpxchg_double(void *p, unsigned long o1, unsigned long o2, unsigned long n1,
		    unsigned long n2)
{
	bool ok;

	__asm__ __volatile__("lock cmpxchg16b %1"
			     : "=@ccz"(ok), "+m"(*(unsigned __int128 *)p), "+a"(o1), "+d"(o2)
			     : "b"(n1), "c"(n2)
			     : "memory");
	return ok;
}

static __attribute__((always_inline)) inline bool
arch_this_cpu_cmpxchg_double(void *p, unsigned long o1, unsigned long o2, unsigned long n1,
			     unsigned long n2)
{
	bool ok;

	__asm__ __volatile__("cmpxchg16b %1"
			     : "=@ccz"(ok), "+m"(*(unsigned __int128 *)p), "+a"(o1), "+d"(o2)
			     : "b"(n1), "c"(n2)
			     : "memory");
	return ok;
}

/* arch_this_cpu_try_cmpxchg_double - as above; on failure *o1, *o2 get the pair's words. */
static __attribute__((always_inline)) inline bool
arch_this_cpu_try_cmpxchg_double(void *p, unsigned long *o1, unsigned long *o2,
				 unsigned long n1, unsigned long n2)
{
	bool ok;

	__asm__ __volatile__("cmpxchg16b %1"
			     : "=@ccz"(ok), "+m"(*(unsigned __int128 *)p), "+a"(*o1), "+d"(*o2)
			     : "b"(n1), "c"(n2)
			     : "memory");
	return ok;
}

/* arch_this_cpu_try_cmpxchg - one word, no lock; on failure *o gets the word. */
static __attribute__((always_inline)) inline bool
arch_this_cpu_try_cmpxchg(unsigned long *p, unsigned long *o, unsigned long n)
{
	bool ok;

	__asm__ __volatile__("cmpxchg %[n], %[m]"
			     : "=@ccz"(ok), [m] "+m"(*p), "+a"(*o)
			     : [n] "r"(n)
			     : "memory");
	return ok;
}

#endif
