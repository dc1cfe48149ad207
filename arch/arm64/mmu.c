/*
 * mmu.c - the kernel's translation tables: an identity map (TTBR0) of RAM
 * and of the device windows, with the granule = PAGE_SIZE (4K, 16K or 64K).
 *
 * Tables come from a static pool in .bss. map_range() walks from the start
 * level and writes the largest entry that fits: a block at level 1 (4K
 * granule only: 1 GiB) or level 2 (2 MiB, 32 MiB or 512 MiB), a page at
 * level 3; it only ever fills invalid entries (an entry already valid maps
 * the same identity range) so live tables never need break-before-make.
 *
 *   granule  levels   start level (48-bit VA)  level-2 block
 *   4K       0-3      0 (512 entries)          2 MiB (and 1 GiB at level 1)
 *   16K      0-3      0 (2 entries)            32 MiB
 *   64K      1-3      1 (64 entries)           512 MiB
 *
 * arm64_mmu_boot() runs with the MMU off (so this file is built with
 * -mstrict-align and calls nothing else): it maps the kernel's part of RAM
 * and the device window, and fills mmu_regs for entry.S's mmu_on. After
 * platform discovery arch_memory_init() maps the rest of RAM. Nothing below
 * the device window is mapped, so NULL dereferences fault.
 */
#include "arch/arm64/arm64.h"
#include "kernel/arch.h"
#include "kernel/bootinfo.h"
#include "kernel/printk.h"
#include "mm/page.h"

#define VA_BITS		48
#define PT_SHIFT	(PAGE_SHIFT - 3)		/* index bits per level */
#define PT_ENTRIES	(1UL << PT_SHIFT)
#define LEVEL_SHIFT(l)	(PAGE_SHIFT + (3 - (l)) * PT_SHIFT)
#define START_LEVEL	(LEVEL_SHIFT(0) < VA_BITS ? 0 : 1)
#define PT_POOL		(PAGE_SHIFT == 16 ? 6 : 10)

#define PTE_VALID	(1ULL << 0)
#define PTE_TABLE	(1ULL << 1)	/* levels 0-2: next table; level 3: a page */
#define PTE_ATTR(i)	((uint64_t)(i) << 2)
#define PTE_SH_INNER	(3ULL << 8)
#define PTE_AF		(1ULL << 10)
#define PTE_PXN		(1ULL << 53)
#define PTE_UXN		(1ULL << 54)
#define PTE_ADDR_MASK	(((1ULL << VA_BITS) - 1) & ~((1ULL << PAGE_SHIFT) - 1))

/* MAIR_EL1 attribute slots */
#define ATTR_DEVICE	0	/* Device-nGnRnE */
#define ATTR_NORMAL	1	/* Normal, write-back, read/write-allocate */
#define MAIR_VALUE	0x44ff00ULL

#define PROT_NORMAL	(PTE_ATTR(ATTR_NORMAL) | PTE_SH_INNER | PTE_AF | PTE_UXN)
#define PROT_DEVICE	(PTE_ATTR(ATTR_DEVICE) | PTE_AF | PTE_PXN | PTE_UXN)

/* QEMU virt's devices: GICv3 (0x08000000..), PL011 UART (0x09000000). */
#define DEVICE_BASE	0x08000000ULL
#define DEVICE_SIZE	0x02000000ULL

/* TCR_EL1 fields */
#define TCR_T0SZ	(64 - VA_BITS)
#define TCR_IRGN0_WB	(1ULL << 8)
#define TCR_ORGN0_WB	(1ULL << 10)
#define TCR_SH0_INNER	(3ULL << 12)
#define TCR_TG0		(PAGE_SHIFT == 12 ? 0ULL : PAGE_SHIFT == 14 ? 2ULL << 14 : 1ULL << 14)
#define TCR_EPD1	(1ULL << 23)	/* no walks through TTBR1: the upper half faults */
#define TCR_T1SZ	((uint64_t)(64 - VA_BITS) << 16)
#define TCR_TG1_4K	(2ULL << 30)	/* TG1 encodes granules differently from TG0 */
#define TCR_IPS_SHIFT	32

_Static_assert(LEVEL_SHIFT(START_LEVEL) < VA_BITS && LEVEL_SHIFT(START_LEVEL) + PT_SHIFT >= VA_BITS,
	       "start level covers the VA");

static uint64_t pt_pool[PT_POOL][PT_ENTRIES] __aligned(1UL << PAGE_SHIFT);
static unsigned int pt_used;
struct mmu_regs mmu_regs;

/* RAM ranges mapped so far (arch_phys_mapped). */
#define MAX_MAPPED	(BOOT_MAX_RANGES + 1)
static struct mem_range mapped[MAX_MAPPED];
static unsigned int n_mapped;

static bool block_ok(int level)
{
	return level == 2 || (level == 1 && PAGE_SHIFT == 12);
}

static uint64_t *pt_alloc(void)
{
	return pt_used < PT_POOL ? pt_pool[pt_used++] : NULL;
}

/*
 * map_range - identity-map [pa, pa + size) (granule-aligned) with prot.
 * Returns 0, or -1 when the table pool ran out (the part mapped stays).
 */
static int map_range(uint64_t pa, uint64_t size, uint64_t prot)
{
	uint64_t end = pa + size;

	while (pa < end) {
		uint64_t *table = pt_pool[0];
		int level = START_LEVEL;

		for (;;) {
			unsigned int shift = LEVEL_SHIFT(level);
			uint64_t len = 1ULL << shift;
			uint64_t *e = &table[(pa >> shift) & (PT_ENTRIES - 1)];

			if (*e & PTE_VALID) {
				if (level == 3 || !(*e & PTE_TABLE)) {
					pa = (pa & ~(len - 1)) + len;	/* already mapped */
					break;
				}
				table = (uint64_t *)(uintptr_t)(*e & PTE_ADDR_MASK);
				level++;
				continue;
			}
			if (level == 3 || (block_ok(level) && !(pa & (len - 1)) && end - pa >= len)) {
				*e = pa | prot | PTE_VALID | (level == 3 ? PTE_TABLE : 0);
				pa += len;
				break;
			}
			uint64_t *next = pt_alloc();
			if (!next)
				return -1;
			*e = (uintptr_t)next | PTE_TABLE | PTE_VALID;
			table = next;
			level++;
		}
	}
	return 0;
}

static void note_mapped(uint64_t start, uint64_t end)
{
	if (n_mapped < MAX_MAPPED)
		mapped[n_mapped++] = (struct mem_range){ start, end };
}

/* The granule's field in ID_AA64MMFR0_EL1, and the values that mean "supported". */
static bool granule_supported(uint64_t mmfr0)
{
	if (PAGE_SHIFT == 12)
		return ((mmfr0 >> 28) & 0xf) != 0xf;	/* TGran4: 0xf = none */
	if (PAGE_SHIFT == 14)
		return ((mmfr0 >> 20) & 0xf) != 0;	/* TGran16: 0 = none */
	return ((mmfr0 >> 24) & 0xf) != 0xf;		/* TGran64: 0xf = none */
}

/* Say why we stop, straight to the UART (nothing else is up), and leave with a failure. */
static __noreturn void early_fail(const char *msg)
{
	volatile uint32_t *uart = (volatile uint32_t *)0x09000000UL;

	for (; *msg; msg++) {
		if (*msg == '\n')
			*uart = '\r';
		*uart = (uint8_t)*msg;
	}
	arch_exit(1);
}

/*
 * arm64_mmu_boot - called by entry.S with the MMU off: map RAM from its
 * start to the end of the kernel image (the device tree, the image, its
 * .bss) and the device window, and fill mmu_regs. Booted as an ELF, the
 * device tree is at the start of RAM, inside that first mapping; booted as
 * an Image, QEMU puts it above its initrd, and dtb (where the entry found
 * it) is mapped too, for the header's totalsize. A CPU without the
 * granule, or a pool too small
 * for this (PT_POOL), ends the run with a message on the UART.
 */
void arm64_mmu_boot(uint64_t dtb)
{
	const volatile uint8_t *d = (const volatile uint8_t *)(uintptr_t)dtb;
	uint64_t dtb_size = 0, dtb_start = ALIGN_DOWN(dtb, 1ULL << PAGE_SHIFT);
	extern char __kernel_phys_end[];
	uint64_t kend = ALIGN_UP((uintptr_t)__kernel_phys_end, 1ULL << PAGE_SHIFT);
	uint64_t mmfr0 = read_sysreg(id_aa64mmfr0_el1);
	uint64_t parange = mmfr0 & 0xf;

	if (!granule_supported(mmfr0))
		early_fail(PAGE_SHIFT == 14 ? "Quarry: this CPU has no 16K translation granule "
					      "(QEMU: -cpu max; cortex-a57/a72 have none)\n"
					    : "Quarry: this CPU lacks the kernel's translation granule\n");
	pt_used = 1;	/* pt_pool[0] is the start-level table */
	if (map_range(ARCH_PHYS_OFFSET, kend - ARCH_PHYS_OFFSET, PROT_NORMAL) ||
	    map_range(DEVICE_BASE, DEVICE_SIZE, PROT_DEVICE))
		early_fail("Quarry: the boot page-table pool is too small (PT_POOL in mmu.c)\n");
	note_mapped(ARCH_PHYS_OFFSET, kend);
	if (dtb >= kend) {	/* an Image boot: the tree's totalsize, big-endian at +4 */
		dtb_size = (uint64_t)d[4] << 24 | (uint64_t)d[5] << 16 | (uint64_t)d[6] << 8 | d[7];
		if (dtb_size > (16ULL << 20))
			dtb_size = 16ULL << 20;	/* not a tree: the discovery says so */
		dtb_size = ALIGN_UP(dtb + (dtb_size ? dtb_size : 1), 1ULL << PAGE_SHIFT) - dtb_start;
		if (map_range(dtb_start, dtb_size, PROT_NORMAL))
			early_fail("Quarry: the boot page-table pool is too small (PT_POOL in mmu.c)\n");
		note_mapped(dtb_start, dtb_start + dtb_size);
	}
	mmu_regs.mair = MAIR_VALUE;
	mmu_regs.tcr = TCR_T0SZ | TCR_IRGN0_WB | TCR_ORGN0_WB | TCR_SH0_INNER | TCR_TG0 |
		       TCR_EPD1 | TCR_T1SZ | TCR_TG1_4K |
		       ((parange > 5 ? 5 : parange) << TCR_IPS_SHIFT);
	mmu_regs.ttbr0 = (uintptr_t)pt_pool[0];
	dsb(sy);
}

/* arch_memory_init: see kernel/arch.h. Maps every available range; trims what could not be. */
void arch_memory_init(struct boot_info *bi)
{
	for (unsigned int i = 0; i < bi->n_avail; i++) {
		struct mem_range *r = &bi->avail[i];
		uint64_t start = ALIGN_UP(r->start, 1ULL << PAGE_SHIFT);
		uint64_t end = ALIGN_DOWN(r->end, 1ULL << PAGE_SHIFT);

		if (end <= start)
			continue;
		if (start < ARCH_PHYS_OFFSET || map_range(start, end - start, PROT_NORMAL)) {
			printk("mmu: RAM [%016llx-%016llx] could not be mapped and will not be used\n",
			       (unsigned long long)r->start, (unsigned long long)r->end);
			r->end = r->start;
			continue;
		}
		note_mapped(start, end);
	}
	dsb(ishst);
	isb();
}

/* arch_phys_mapped: see kernel/arch.h. */
bool arch_phys_mapped(uint64_t phys, uint64_t len)
{
	if (phys + len < phys)
		return false;
	for (unsigned int i = 0; i < n_mapped; i++)
		if (phys >= mapped[i].start && phys + len <= mapped[i].end)
			return true;
	return false;
}
