/*
 * Host shim: "physical memory" is an mmap'd arena; phys 0 maps to host_phys_offset.
 */
#ifndef ASM_MEMLAYOUT_H
#define ASM_MEMLAYOUT_H
#include <stdint.h>
/* Where RAM starts: the first PFN with a struct page (mm/page.h). */
#define ARCH_PHYS_OFFSET	0
#define MMU_PAGE_SHIFT 12
extern uintptr_t host_phys_offset;
#define PHYS_TO_VIRT(p)	((void *)((uintptr_t)(p) + host_phys_offset))
#define VIRT_TO_PHYS(v)	((uintptr_t)(v) - host_phys_offset)
#endif
