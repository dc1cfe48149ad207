/*
 * Host shim for kernel/percpu.h: threads stand in for CPUs, so a per-CPU
 * variable is an array of NR_CPUS copies, one per CPU the thread may act as
 * (host_set_cpu() sets host_cpu_id and host_cpu_off, which pick the copy).
 * There are no interrupts on the host, so plain accesses are as safe as the
 * kernel's single-instruction ones.
 */
#ifndef ASM_PERCPU_H
#define ASM_PERCPU_H

#include <asm/processor.h>

/*
 * Each CPU's copy is a row of at least its size plus 63 bytes, so that no
 * two CPUs' copies share a cache line: the kernel's per-CPU areas are apart,
 * and threads writing neighbouring copies would slow each other down in a
 * way the kernel never does. A variable of up to 64 bytes whose size divides
 * HOST_PER_CPU_STRIDE gets rows of exactly that stride, so this CPU's copy is
 * one add of the thread's host_cpu_off away, as the kernel's is one %gs.
 */
#define HOST_PER_CPU_FAST(size)	((size) <= 64 && HOST_PER_CPU_STRIDE % (size) == 0)
#define HOST_PER_CPU_ROW(type)                                                            \
	(HOST_PER_CPU_FAST(sizeof(type)) ? HOST_PER_CPU_STRIDE / sizeof(type)             \
					 : (sizeof(type) + 63 + sizeof(type) - 1) / sizeof(type))
#define ARCH_DEFINE_PER_CPU(type, name) \
	__typeof__(type) per_cpu__##name[NR_CPUS][HOST_PER_CPU_ROW(__typeof__(type))] \
		__attribute__((aligned(64)))
#define ARCH_DECLARE_PER_CPU(type, name) \
	extern __typeof__(type) per_cpu__##name[NR_CPUS][HOST_PER_CPU_ROW(__typeof__(type))]

#define arch_per_cpu_ptr(name, cpu)	(&per_cpu__##name[(cpu)][0])
#define arch_this_cpu_ptr(name)                                                           \
	(HOST_PER_CPU_FAST(sizeof(per_cpu__##name[0][0]))                                 \
		 ? (__typeof__(&per_cpu__##name[0][0]))((char *)per_cpu__##name + host_cpu_off) \
		 : arch_per_cpu_ptr(name, host_cpu_id))
#define arch_this_cpu_read(name)	(*arch_this_cpu_ptr(name))
#define arch___this_cpu_read(name)	(*arch_this_cpu_ptr(name))
#define arch_this_cpu_write(name, val)	((void)(*arch_this_cpu_ptr(name) = (val)))
#define arch_this_cpu_add(name, val)	((void)(*arch_this_cpu_ptr(name) += (val)))

/* Per-CPU keys (kernel/percpu.h): the key is the offset into the variable. */
#define ARCH_PERCPU_SEG
#define arch_per_cpu_key(name, off)	((unsigned long)(off))
#define arch_this_cpu_key_ptr(type, name, key) \
	((type *)((char *)arch_this_cpu_ptr(name) + (key)))

#endif
