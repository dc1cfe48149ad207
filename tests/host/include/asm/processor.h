/*
 * Host shim: threads stand in for CPUs; each calls host_set_cpu() before using mm/.
 * Unlike CPUs, threads get descheduled: a spinner yields now and then (see
 * cpu_relax), so that a ticket lock's next owner, preempted, does not hold
 * up every waiter behind it when there are more threads than host cores.
 */
#ifndef ASM_PROCESSOR_H
#define ASM_PROCESSOR_H
#include <sched.h>
#include <stdint.h>
/*
 * NR_CPUS: the most CPUs the host tests act as (threads); per-CPU
 * arrays in mm/ and kernel/ are sized by it. A build option (NR_CPUS=, 1-64,
 * default 8), passed as -DNR_CPUS by mm/files.mk.
 */
#ifndef NR_CPUS
#error "NR_CPUS is a build option: mm/files.mk passes -DNR_CPUS=N"
#endif
extern __thread unsigned int host_cpu_id;
/* host_cpu_id * HOST_PER_CPU_STRIDE: where this CPU's copy of a per-CPU variable starts. */
extern __thread unsigned long host_cpu_off;
#define HOST_PER_CPU_STRIDE	128UL
_Static_assert(HOST_PER_CPU_STRIDE % 64 == 0, "a CPU's row of a per-CPU variable is whole lines");

/* host_set_cpu - the calling thread acts as CPU cpu from now on (both thread-locals). */
static inline void host_set_cpu(unsigned int cpu)
{
	host_cpu_id = cpu;
	host_cpu_off = cpu * HOST_PER_CPU_STRIDE;
}
/*
 * cpu_relax - one turn of a spin-wait: a pause, and every host_spins_per_yield
 * turns of this thread a sched_yield. A CPU waiting for a lock in the kernel
 * only pauses, so the host's spinning should too, or the workloads measure
 * the shim: a yield on every turn put a system call into each wait, so a
 * ticket lock's next owner noticed its turn only when the call returned, and
 * a waiter rarely looked at the lock, which hid what looking costs (SLOB's
 * heap lock shared its cache line with the heap's lists, see mm/slob/slob_def.h).
 * The yields that remain still let a preempted lock holder or next owner run
 * when threads outnumber cores. The count is the thread's over all its waits,
 * so a long wait yields at least every host_spins_per_yield turns
 * (HOST_SPINS_PER_YIELD; a program may set another, 1 being a yield on every
 * turn, as the host workloads do for WL_SPINS_PER_YIELD). host_spins counts
 * the thread's turns (the workloads report them as lock contention).
 */
#define HOST_SPINS_PER_YIELD	64
extern __thread unsigned int host_spins;
extern unsigned int host_spins_per_yield;
static inline void cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
	if (++host_spins % host_spins_per_yield == 0)
		sched_yield();
}
static inline uint64_t arch_cycles(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
static inline unsigned int smp_processor_id(void) { return host_cpu_id; }
/* arch_random_seed - the host's seed for mm/'s hardening: the TSC, mixed. */
static inline uint64_t arch_random_seed(void)
{
	return arch_cycles() * 0x9e3779b97f4a7c15ULL;
}
/* ARCH_WORD_AT(s, member, n, k) - s->member[n + k] (see the kernel arches'). */
#define ARCH_WORD_AT(s, member, n, k)	((s)->member[(long)(n) + (k)])
#endif
