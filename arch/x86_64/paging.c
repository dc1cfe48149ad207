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
#define PTE_PWT	0x8ULL
#define PTE_PCD	0x10ULL
#define PTE_PS	0x80ULL
#define PMD_SIZE (1ULL << 21)
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

/* paging_kernel_pml4_phys - physical address of the kernel's PML4 (what CR3 holds). */
uint64_t paging_kernel_pml4_phys(void)
{
	return (uintptr_t)boot_pml4;
}

/*
 * paging_map_uncached - make the direct map of device registers at
 * [phys, phys + size) uncached (PCD|PWT: UC with the reset PAT) and return
 * their direct-map address. The direct map uses 2 MiB pages, so the whole
 * 2 MiB pages around the range change type: call it only for device ranges
 * that share no 2 MiB page with RAM (the local and I/O APICs near 4 GiB).
 * Call at boot, before other CPUs run: only this CPU's TLB is flushed.
 */
void *paging_map_uncached(uint64_t phys, uint64_t size)
{
	uint64_t *pml4 = PHYS_TO_VIRT((uintptr_t)boot_pml4);
	uint64_t *pdpt = phys_table(pml4[256]);

	if (phys + size > direct_map_limit || phys + size < phys)
		panic("paging: device range %016llx+%llx is outside the direct map",
		      (unsigned long long)phys, (unsigned long long)size);
	for (uint64_t a = ALIGN_DOWN(phys, PMD_SIZE); a < phys + size; a += PMD_SIZE) {
		uint64_t *pd = phys_table(pdpt[a / GIB]);
		uint64_t *pde = &pd[(a / PMD_SIZE) % 512];

		*pde |= PTE_PCD | PTE_PWT;
		invlpg(PHYS_TO_VIRT(a));
	}
	return PHYS_TO_VIRT(phys);
}
