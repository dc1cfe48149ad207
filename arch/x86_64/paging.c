/*
 * paging.c - the kernel's page tables after boot. entry.asm mapped phys
 * 0..4 GiB into the direct map with 2 MiB pages (plus an identity map for the
 * jump). paging_init extends the direct map to cover all RAM, using page
 * directories from a static pool (one per GiB, up to DIRECT_MAP_MAX_GIB),
 * and removes the identity map so that NULL and other low addresses fault.
 */
#include "arch/x86_64/x86.h"
#include "kernel/printk.h"
#include "kernel/bug.h"
#include <asm/memlayout.h>

#define PTE_P	0x1ULL
#define PTE_W	0x2ULL
#define PTE_PS	0x80ULL
#define DIRECT_MAP_MAX_GIB 64
#define BOOT_MAPPED_GIB	4
#define GIB	(1ULL << 30)

extern uint64_t boot_pml4[512];	/* linked at its physical address */
static uint64_t extra_pd[DIRECT_MAP_MAX_GIB - BOOT_MAPPED_GIB][512] __aligned(4096);

static uint64_t *phys_table(uint64_t entry)
{
	return PHYS_TO_VIRT(entry & 0x000ffffffffff000ULL);
}

/* direct_map_limit: RAM at or above this is not mapped and must be ignored. */
uint64_t direct_map_limit = BOOT_MAPPED_GIB * GIB;

/*
 * paging_init - map phys [4 GiB, max_phys) into the direct map (up to
 * DIRECT_MAP_MAX_GIB; RAM beyond is reported and left out via
 * direct_map_limit), then drop the identity map. Call once at boot.
 */
void paging_init(uint64_t max_phys)
{
	uint64_t *pml4 = PHYS_TO_VIRT((uintptr_t)boot_pml4);
	uint64_t *pdpt = phys_table(pml4[256]);
	uint64_t gib = DIV_ROUND_UP(max_phys, GIB);

	if (gib > DIRECT_MAP_MAX_GIB) {
		printk("paging: RAM above %d GiB is not mapped and will not be used\n",
		       DIRECT_MAP_MAX_GIB);
		gib = DIRECT_MAP_MAX_GIB;
	}
	for (uint64_t g = BOOT_MAPPED_GIB; g < gib; g++) {
		uint64_t *pd = extra_pd[g - BOOT_MAPPED_GIB];
		for (int i = 0; i < 512; i++)
			pd[i] = (g * GIB + ((uint64_t)i << 21)) | PTE_P | PTE_W | PTE_PS;
		pdpt[g] = KERNEL_TO_PHYS(pd) | PTE_P | PTE_W;
	}
	if (gib > BOOT_MAPPED_GIB)
		direct_map_limit = gib * GIB;
	pml4[0] = 0;
	write_cr3(read_cr3());	/* flush the TLB of the identity map */
}
