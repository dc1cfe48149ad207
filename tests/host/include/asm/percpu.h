/*
 * Host shim for kernel/percpu.h: threads stand in for CPUs, so a per-CPU
 * variable is an array of NR_CPUS copies indexed by the thread's host_cpu_id.
 * There are no interrupts on the host, so plain accesses are as safe as the
 * kernel's single-instruction ones.
 */
#ifndef ASM_PERCPU_H
#define ASM_PERCPU_H

#include <asm/processor.h>

#define ARCH_DEFINE_PER_CPU(type, name)	__typeof__(type) per_cpu__##name[NR_CPUS]
#define ARCH_DECLARE_PER_CPU(type, name) extern __typeof__(type) per_cpu__##name[NR_CPUS]

#define arch_per_cpu_ptr(name, cpu)	(&per_cpu__##name[(cpu)])
#define arch_this_cpu_ptr(name)		arch_per_cpu_ptr(name, host_cpu_id)
#define arch_this_cpu_read(name)	(*arch_this_cpu_ptr(name))
#define arch___this_cpu_read(name)	(*arch_this_cpu_ptr(name))
#define arch_this_cpu_write(name, val)	((void)(*arch_this_cpu_ptr(name) = (val)))
#define arch_this_cpu_add(name, val)	((void)(*arch_this_cpu_ptr(name) += (val)))

#endif
