/*
 * asm/memlayout.h - arm64 virtual memory layout (QEMU virt).
 *
 * The kernel runs identity-mapped through TTBR0: virtual address ==
 * physical address for all RAM (from 0x40000000 on virt) and the few device
 * windows the kernel uses (GIC, UART), mapped Device-nGnRnE. Nothing else is
 * mapped, so NULL and the first GiB fault. TTBR1 (the upper half) is unused.
 *
 * The MMU granule is the page: PAGE_SIZE 4K, 16K or 64K is the translation
 * granule itself (on x86_64 a 64K page is 16 hardware pages).
 */
#ifndef ASM_MEMLAYOUT_H
#define ASM_MEMLAYOUT_H

/* Where RAM starts on QEMU virt: the first PFN with a struct page (mm/page.h). */
#define ARCH_PHYS_OFFSET	0x40000000
#define MMU_PAGE_SHIFT		PAGE_SHIFT
#define KERNEL_VMA		0
#define DIRECT_MAP_BASE		0

#ifndef __ASSEMBLER__
#include <stdint.h>
#define PHYS_TO_VIRT(p)	((void *)(uintptr_t)(p))
#define VIRT_TO_PHYS(v)	((uintptr_t)(v))
/* Physical address of a symbol in the kernel image. */
#define KERNEL_TO_PHYS(v) ((uintptr_t)(v))
#endif

#endif
