/* setup.c - x86_64's part of boot: console, traps and memory mappings. */
#include "kernel/arch.h"
#include "kernel/bootinfo.h"
#include "arch/x86_64/x86.h"

extern uint64_t direct_map_limit;

/* arch_early_init: see kernel/arch.h. */
void arch_early_init(void)
{
	serial_init();
	gdt_init();
	idt_init();
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
