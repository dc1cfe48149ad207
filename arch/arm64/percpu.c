/*
 * percpu.c - the per-CPU areas behind kernel/percpu.h (see asm/percpu.h).
 *
 * The linker gathers every per-CPU variable into the template
 * [__percpu_start, __percpu_end). Before anything writes a per-CPU variable,
 * percpu_init_areas() copies the template into one static area per possible
 * CPU and records each area's offset; each CPU then puts its area's
 * address in TPIDR_EL1 (percpu_load). The template itself is only the boot
 * CPU's copy until percpu_load(0), for code that runs before.
 */
#include "arch/arm64/arm64.h"
#include "kernel/percpu.h"
#include "kernel/string.h"

extern char __percpu_start[], __percpu_end[];

static uint8_t percpu_areas[NR_CPUS][PERCPU_AREA_SIZE] __aligned(PERCPU_AREA_SIZE);
/* CPUs' areas share no cache line (SLAB_CACHE_LINE, 64 bytes): each is whole lines. */
_Static_assert(PERCPU_AREA_SIZE % 64 == 0, "per-CPU areas must be whole cache lines");

unsigned long __per_cpu_offset[NR_CPUS];
DEFINE_PER_CPU(unsigned int, cpu_number);

/*
 * percpu_init_areas - fill every CPU's area from the template and set its
 * cpu_number. Once, on the boot CPU, before any per-CPU variable is written.
 */
void percpu_init_areas(void)
{
	size_t size = (size_t)(__percpu_end - __percpu_start);

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		__per_cpu_offset[cpu] = (unsigned long)percpu_areas[cpu] -
					(unsigned long)__percpu_start;
		memcpy(percpu_areas[cpu], __percpu_start, size);
		per_cpu(cpu_number, cpu) = cpu;
	}
}

/* percpu_load - point this CPU's TPIDR_EL1 at cpu's area. */
void percpu_load(unsigned int cpu)
{
	write_sysreg(tpidr_el1, (unsigned long)percpu_areas[cpu]);
	isb();
}
