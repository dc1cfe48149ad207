/*
 * asm/memlayout.h - x86_64 virtual memory layout.
 *
 *   0xffff800000000000  direct map of all RAM (phys 0 maps here), 2 MiB pages
 *   0xffffffff80000000  kernel image (linked at KERNEL_VMA + 1 MiB)
 *
 * The MMU page is 4 KiB; Quarry's PAGE_SIZE (4K or 64K) is a software page
 * made of 1 or 16 consecutive MMU pages, always inside one 2 MiB mapping.
 */
#ifndef ASM_MEMLAYOUT_H
#define ASM_MEMLAYOUT_H

/* Where RAM starts: the first PFN with a struct page (mm/page.h). */
#define ARCH_PHYS_OFFSET	0
#define MMU_PAGE_SHIFT	12
#define KERNEL_VMA	0xffffffff80000000
#define DIRECT_MAP_BASE	0xffff800000000000

#ifndef __ASSEMBLER__
#include <stdint.h>
#define PHYS_TO_VIRT(p)	((void *)((uintptr_t)(p) + DIRECT_MAP_BASE))
#define VIRT_TO_PHYS(v)	((uintptr_t)(v) - DIRECT_MAP_BASE)
/* Physical address of a symbol in the kernel image. */
#define KERNEL_TO_PHYS(v) ((uintptr_t)(v) - KERNEL_VMA)
#endif

#endif
