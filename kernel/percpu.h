/*
 * percpu.h - per-CPU variables, for kernel/ and mm/ code that must not know
 * the architecture.
 *
 *	DEFINE_PER_CPU(struct pcp_list, pcp);		(file scope; may be static)
 *	DECLARE_PER_CPU(struct pcp_list, pcp);		(in a header)
 *
 *	struct pcp_list *l = this_cpu_ptr(pcp);		this CPU's copy
 *	struct pcp_list *r = per_cpu_ptr(pcp, cpu);	another CPU's copy
 *	this_cpu_inc(nr_events);			one-instruction update
 *
 * Every CPU has its own copy of each variable, zeroed at boot: per-CPU
 * variables take no initialiser. The variable's name is mangled
 * (per_cpu__name), so a plain access that would hit no CPU's copy does not
 * compile; always go through these macros, with the variable's name (not an
 * expression) as their argument.
 *
 * Rules of use:
 *  - Quarry never moves running code to another CPU, so this_cpu_ptr() stays
 *    valid for as long as the caller runs.
 *  - this_cpu_read/write/add/inc/dec are single instructions: safe against an
 *    interrupt handler on this CPU updating the same variable, with no need
 *    to disable interrupts. They are not atomic against other CPUs.
 *  - A longer read-modify-write through this_cpu_ptr() that an interrupt
 *    handler could also do needs interrupts off around it (arch_irq_save).
 *  - Another CPU's copy (per_cpu_ptr) is shared data: protect it with a lock
 *    or atomics like any other.
 *
 * On x86_64 a copy is reached through the GS base (asm/percpu.h); on the host
 * build, per-CPU variables are arrays of copies a cache line or more apart,
 * one per CPU a thread may act as (tests/host/include/asm/percpu.h).
 */
#ifndef QUARRY_PERCPU_H
#define QUARRY_PERCPU_H

#include "kernel/compiler.h"
#include <asm/percpu.h>

#define DEFINE_PER_CPU(type, name)	ARCH_DEFINE_PER_CPU(type, name)
#define DECLARE_PER_CPU(type, name)	ARCH_DECLARE_PER_CPU(type, name)

/* Pointer to this CPU's copy of the per-CPU variable name. */
#define this_cpu_ptr(name)		arch_this_cpu_ptr(name)
/* Pointer to the copy of cpu (0..NR_CPUS-1). */
#define per_cpu_ptr(name, cpu)		arch_per_cpu_ptr(name, cpu)
/* cpu's copy as an lvalue. */
#define per_cpu(name, cpu)		(*per_cpu_ptr(name, cpu))

/* Scalar (1, 2, 4 or 8 byte) variables only; each is one instruction. */
#define this_cpu_read(name)		arch_this_cpu_read(name)
/*
 * __this_cpu_read - the same read for a caller with interrupts off, where
 * nothing else on this CPU can change the variable: the compiler may merge
 * it into the instruction that uses it (x86: cmp %gs:var, reg) or reuse an
 * earlier read. A compiler barrier (arch_irq_save is one) orders it.
 */
#define __this_cpu_read(name)		arch___this_cpu_read(name)
#define this_cpu_write(name, val)	arch_this_cpu_write(name, val)
#define this_cpu_add(name, val)		arch_this_cpu_add(name, val)
#define this_cpu_sub(name, val)		arch_this_cpu_add(name, -(val))
#define this_cpu_inc(name)		this_cpu_add(name, 1)
#define this_cpu_dec(name)		this_cpu_sub(name, 1)

/*
 * Per-CPU keys, for an object found by a run-time offset 'off' into the
 * per-CPU variable name (SLUB's per-cache pairs in one array):
 * per_cpu_key(name, off) computes, once, a key naming that object in every
 * CPU's copy; this_cpu_key_ptr(type, name, key) is the running CPU's copy,
 * as a 'type PERCPU_SEG *'. PERCPU_SEG is the address space of this CPU's
 * copies: on x86_64 GCC's __seg_gs (the key is the template address, and
 * every access through the pointer is %gs-relative, with no CPU offset to
 * load or add), elsewhere nothing (the key is off, added to this_cpu_ptr).
 * Such a pointer converts to no plain pointer: use this_cpu_ptr for those.
 */
#define PERCPU_SEG				ARCH_PERCPU_SEG
#define per_cpu_key(name, off)			arch_per_cpu_key(name, off)
#define this_cpu_key_ptr(type, name, key)	arch_this_cpu_key_ptr(type, name, key)

#endif
