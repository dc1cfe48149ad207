/* bootinfo.c - the parts of struct boot_info that every boot protocol shares. */
#include "kernel/bootinfo.h"
#include "kernel/bug.h"

/* boot_reserve: see kernel/bootinfo.h. */
void boot_reserve(struct boot_info *bi, uint64_t start, uint64_t end)
{
	if (bi->n_reserved == BOOT_MAX_RANGES)
		panic("boot: more than %d reserved ranges", BOOT_MAX_RANGES);
	bi->reserved[bi->n_reserved++] = (struct mem_range){ start, end };
}
