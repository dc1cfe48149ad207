/*
 * asm/percpu.h - per-CPU variables on arm64, reached through TPIDR_EL1.
 *
 * As on x86_64, every per-CPU variable lives in the template section
 * .data..percpu and each CPU gets its own copy of the whole section at boot
 * (arch/arm64/percpu.c). Here TPIDR_EL1 holds the address of the running
 * CPU's copy. The template and every copy are 4 KiB aligned and the template
 * is smaller than 4 KiB (linker.ld checks), so a variable's offset inside a
 * copy is the low 12 bits of its link address, which the assembler's
 * :lo12: relocation puts straight into a load or store:
 *
 *	mrs  x1, tpidr_el1			(once per function, reused)
 *	ldr  x0, [x1, #:lo12:per_cpu__var]	this_cpu_read(var)
 *
 * arm64 has no segment-relative access, so that is the shortest form.
 * this_cpu_add must be atomic against an interrupt handler on this CPU that
 * updates the same variable: it is a load-exclusive/store-exclusive loop (an
 * exception between the two clears the monitor and the loop retries), as
 * Linux does for this_cpu_add on arm64.
 *
 * The loads take a dummy memory operand at the CPU's area (a register the
 * code has anyway, so it costs nothing): a compiler barrier then makes them
 * read again. The stores clobber "memory".
 *
 * Include kernel/percpu.h, which documents the API.
 */
#ifndef ASM_PERCPU_H
#define ASM_PERCPU_H

#include <asm/processor.h>

/* Room for one CPU's copy of .data..percpu; linker.ld checks the template fits in 4 KiB. */
#define PERCPU_AREA_SIZE	4096

#define ARCH_DEFINE_PER_CPU(type, name) \
	__attribute__((section(".data..percpu"))) __typeof__(type) per_cpu__##name
#define ARCH_DECLARE_PER_CPU(type, name) extern __typeof__(type) per_cpu__##name

/* __per_cpu_offset[cpu] - what to add to a template address to reach cpu's copy. */
extern unsigned long __per_cpu_offset[NR_CPUS];

#define arch_per_cpu_ptr(name, cpu)                                               \
	((__typeof__(&per_cpu__##name))((unsigned long)&per_cpu__##name +       \
					 __per_cpu_offset[(cpu)]))

#define arch_this_cpu_ptr(name)                                                   \
	({                                                                        \
		__typeof__(&per_cpu__##name) __p;                                 \
		__asm__("add %0, %1, #:lo12:%2"                                   \
			: "=r"(__p)                                               \
			: "r"(__my_cpu_base()), "S"(&per_cpu__##name));           \
		__p;                                                              \
	})

/* One load of the right width; V: "volatile" or nothing. */
#define __pcpu_load(V, name)                                                      \
	({                                                                        \
		__typeof__(per_cpu__##name) __v;                                  \
		unsigned long __b = __my_cpu_base();                              \
		_Static_assert(sizeof(__v) == 1 || sizeof(__v) == 2 ||            \
			       sizeof(__v) == 4 || sizeof(__v) == 8, "scalar");   \
		if (sizeof(__v) == 1)                                             \
			__asm__ V("ldrb %w0, [%1, #:lo12:%2]" : "=r"(__v)         \
				  : "r"(__b), "S"(&per_cpu__##name), "Q"(*(const char *)__b)); \
		else if (sizeof(__v) == 2)                                        \
			__asm__ V("ldrh %w0, [%1, #:lo12:%2]" : "=r"(__v)         \
				  : "r"(__b), "S"(&per_cpu__##name), "Q"(*(const char *)__b)); \
		else if (sizeof(__v) == 4)                                        \
			__asm__ V("ldr %w0, [%1, #:lo12:%2]" : "=r"(__v)          \
				  : "r"(__b), "S"(&per_cpu__##name), "Q"(*(const char *)__b)); \
		else                                                              \
			__asm__ V("ldr %x0, [%1, #:lo12:%2]" : "=r"(__v)          \
				  : "r"(__b), "S"(&per_cpu__##name), "Q"(*(const char *)__b)); \
		__v;                                                              \
	})

#define arch_this_cpu_read(name)	__pcpu_load(__volatile__, name)
/* For callers with interrupts off: the compiler may reuse an earlier read. */
#define arch___this_cpu_read(name)	__pcpu_load(, name)

#define arch_this_cpu_write(name, val)                                            \
	do {                                                                      \
		__typeof__(per_cpu__##name) __v = (val);                          \
		unsigned long __b = __my_cpu_base();                              \
		if (sizeof(__v) == 1)                                             \
			__asm__ __volatile__("strb %w0, [%1, #:lo12:%2]"          \
				:                                                 \
				: "r"(__v), "r"(__b), "S"(&per_cpu__##name)       \
				: "memory");                                      \
		else if (sizeof(__v) == 2)                                        \
			__asm__ __volatile__("strh %w0, [%1, #:lo12:%2]"          \
				:                                                 \
				: "r"(__v), "r"(__b), "S"(&per_cpu__##name)       \
				: "memory");                                      \
		else if (sizeof(__v) == 4)                                        \
			__asm__ __volatile__("str %w0, [%1, #:lo12:%2]"           \
				:                                                 \
				: "r"(__v), "r"(__b), "S"(&per_cpu__##name)       \
				: "memory");                                      \
		else                                                              \
			__asm__ __volatile__("str %x0, [%1, #:lo12:%2]"           \
				:                                                 \
				: "r"(__v), "r"(__b), "S"(&per_cpu__##name)       \
				: "memory");                                      \
	} while (0)

#define arch_this_cpu_add(name, val) \
	((void)__atomic_fetch_add(arch_this_cpu_ptr(name), (val), __ATOMIC_RELAXED))

/*
 * Per-CPU keys (kernel/percpu.h): the key is the offset of the object in a
 * CPU's area, so this CPU's copy is TPIDR_EL1 plus the key (mrs, add).
 */
#define ARCH_PERCPU_SEG
#define arch_per_cpu_key(name, off) \
	((unsigned long)arch_this_cpu_ptr(name) - __my_cpu_base() + (unsigned long)(off))
#define arch_this_cpu_key_ptr(type, name, key)	((type *)(__my_cpu_base() + (key)))

#endif
