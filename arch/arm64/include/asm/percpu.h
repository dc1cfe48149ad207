/*
 * asm/percpu.h - per-CPU variables on arm64, reached through TPIDR_EL1.
 *
 * As on x86_64, every per-CPU variable lives in the template section
 * .data..percpu, each CPU gets its own copy of the whole section at boot
 * (arch/arm64/percpu.c), and TPIDR_EL1 holds (its copy - template start).
 * A variable's copy is its link address plus that offset: mrs, then a load
 * or store at the sum. arm64 has no segment-relative access, so this is two
 * instructions plus the address, not one.
 *
 * this_cpu_add must be atomic against an interrupt handler on this CPU that
 * updates the same variable: it is a load-exclusive/store-exclusive loop (an
 * exception between the two clears the monitor and the loop retries), as
 * Linux does for this_cpu_add on arm64. Reads and writes are single
 * accesses.
 *
 * Include kernel/percpu.h, which documents the API.
 */
#ifndef ASM_PERCPU_H
#define ASM_PERCPU_H

#include <asm/processor.h>

/* Room for one CPU's copy of .data..percpu; the linker script checks the template fits. */
#define PERCPU_AREA_SIZE	(16 * 1024)

#define ARCH_DEFINE_PER_CPU(type, name) \
	__attribute__((section(".data..percpu"))) __typeof__(type) per_cpu__##name
#define ARCH_DECLARE_PER_CPU(type, name) extern __typeof__(type) per_cpu__##name

/* __per_cpu_offset[cpu] - what to add to a template address to reach cpu's copy. */
extern unsigned long __per_cpu_offset[NR_CPUS];

#define arch_this_cpu_ptr(name)                                                   \
	((__typeof__(&per_cpu__##name))((unsigned long)&per_cpu__##name +       \
					 __my_cpu_offset()))

#define arch_per_cpu_ptr(name, cpu)                                               \
	((__typeof__(&per_cpu__##name))((unsigned long)&per_cpu__##name +       \
					 __per_cpu_offset[(cpu)]))

#define arch_this_cpu_read(name) (*(volatile __typeof__(per_cpu__##name) *)arch_this_cpu_ptr(name))

/* For callers with interrupts off: a plain load the compiler may merge or reuse. */
#define arch___this_cpu_read(name) (*arch_this_cpu_ptr(name))

#define arch_this_cpu_write(name, val)                                            \
	do {                                                                      \
		*(volatile __typeof__(per_cpu__##name) *)arch_this_cpu_ptr(name) = (val); \
	} while (0)

#define arch_this_cpu_add(name, val) \
	((void)__atomic_fetch_add(arch_this_cpu_ptr(name), (val), __ATOMIC_RELAXED))

#endif
