/*
 * asm/percpu.h - per-CPU variables on x86_64, reached through the GS base.
 *
 * Every per-CPU variable is defined once, in the section .data..percpu: the
 * template. At boot each CPU gets its own copy of the whole section
 * (arch/x86_64/percpu.c), and its GS base is set to (its copy - template
 * start). The variable's link-time address, used with a %gs: prefix, then
 * lands in the running CPU's copy: this_cpu_read(x) is a single
 * "mov %gs:per_cpu__x, reg", with no CPU number lookup. __per_cpu_offset[cpu]
 * holds the same difference for every CPU, to reach another CPU's copy.
 *
 * The read-modify-write forms (add) are one instruction, so they are atomic
 * against interrupts on this CPU, but not against other CPUs.
 *
 * Include kernel/percpu.h, which documents the API; this header is its x86
 * implementation (tests/host/include/asm/percpu.h is the host's).
 */
#ifndef ASM_PERCPU_H
#define ASM_PERCPU_H

#include <asm/processor.h>

/*
 * Room for one CPU's copy of .data..percpu; linker.ld checks the template
 * fits. One page: the template is 512 bytes, and the areas are static, one
 * per NR_CPUS (16 KiB each made 1 MiB of .bss at NR_CPUS=64).
 */
#define PERCPU_AREA_SIZE	4096

#define ARCH_DEFINE_PER_CPU(type, name) \
	__attribute__((section(".data..percpu"))) __typeof__(type) per_cpu__##name
#define ARCH_DECLARE_PER_CPU(type, name) extern __typeof__(type) per_cpu__##name

/* __per_cpu_offset[cpu] - what to add to a template address to reach cpu's copy. */
extern unsigned long __per_cpu_offset[NR_CPUS];

/* Each copy knows its own offset, so this_cpu_ptr() is one %gs load and an add. */
ARCH_DECLARE_PER_CPU(unsigned long, this_cpu_off);

#define arch_this_cpu_read(name)                                                  \
	({                                                                        \
		__typeof__(per_cpu__##name) __v;                                  \
		__asm__ __volatile__("mov %%gs:%1, %0"                            \
				     : "=r"(__v)                                  \
				     : "m"(per_cpu__##name));                     \
		__v;                                                              \
	})

/* A plain access in GCC's %gs address space: the compiler may fold it into its user. */
#define arch___this_cpu_read(name) \
	(*(__typeof__(per_cpu__##name) __seg_gs *)(uintptr_t)&per_cpu__##name)

#define arch_this_cpu_write(name, val)                                            \
	do {                                                                      \
		__typeof__(per_cpu__##name) __v = (val);                          \
		__asm__ __volatile__("mov %1, %%gs:%0"                            \
				     : "=m"(per_cpu__##name)                      \
				     : "r"(__v));                                 \
	} while (0)

#define arch_this_cpu_add(name, val)                                              \
	do {                                                                      \
		__typeof__(per_cpu__##name) __v = (val);                          \
		__asm__ __volatile__("add %1, %%gs:%0"                            \
				     : "+m"(per_cpu__##name)                      \
				     : "r"(__v));                                 \
	} while (0)

#define arch_per_cpu_ptr(name, cpu)                                               \
	((__typeof__(&per_cpu__##name))((unsigned long)&per_cpu__##name +       \
					 __per_cpu_offset[(cpu)]))

#define arch_this_cpu_ptr(name)                                                   \
	((__typeof__(&per_cpu__##name))((unsigned long)&per_cpu__##name +       \
					 arch_this_cpu_read(this_cpu_off)))

/*
 * Per-CPU keys (kernel/percpu.h): the key of byte 'off' of a per-CPU
 * variable is its template address; used %gs-relative (GCC's __seg_gs
 * address space) it reaches the running CPU's copy, with no load of
 * this_cpu_off and no add.
 */
#define ARCH_PERCPU_SEG __seg_gs
#define arch_per_cpu_key(name, off)	((unsigned long)&per_cpu__##name + (off))
#define arch_this_cpu_key_ptr(type, name, key)	((type __seg_gs *)(key))

#endif
