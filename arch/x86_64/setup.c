/* setup.c - x86_64's part of boot: per-CPU areas, console, traps and memory mappings. */
#include "kernel/arch.h"
#include "kernel/bootinfo.h"
#include "arch/x86_64/x86.h"

extern uint64_t direct_map_limit;

/* arch_early_init: see kernel/arch.h. Per-CPU areas first: printk's lock reads them. */
void arch_early_init(void)
{
	percpu_init_areas();
	percpu_load(0);
	serial_init();
	gdt_init(0);
	idt_init();
}

/* arch_phys_mapped: see kernel/arch.h. */
bool arch_phys_mapped(uint64_t phys, uint64_t len)
{
	return phys + len >= phys && phys + len <= direct_map_limit;
}

/* arch_memory_init: see kernel/arch.h. */
void arch_memory_init(struct boot_info *bi)
{
	uint64_t top = 0;

	for (unsigned int i = 0; i < bi->n_avail; i++)
		top = MAX(top, bi->avail[i].end);
	paging_init(top);
	for (unsigned int i = 0; i < bi->n_avail; i++) {
		if (bi->avail[i].end > direct_map_limit)
			bi->avail[i].end = MAX(bi->avail[i].start, direct_map_limit);
	}
}
