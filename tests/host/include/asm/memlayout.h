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
#ifdef HOST_FIXED_PHYS_OFFSET
/*
 * The host benchmarks (lab/bench/host/bench-host.mk): one arena at a
 * fixed address, so that the direct map's offset is a constant, as the
 * kernel's is (a variable costs kfree a load and the longer index form).
 */
#define PHYS_TO_VIRT(p)	((void *)((uintptr_t)(p) + (uintptr_t)(HOST_FIXED_PHYS_OFFSET)))
#define VIRT_TO_PHYS(v)	((uintptr_t)(v) - (uintptr_t)(HOST_FIXED_PHYS_OFFSET))
#else
#define PHYS_TO_VIRT(p)	((void *)((uintptr_t)(p) + host_phys_offset))
#define VIRT_TO_PHYS(v)	((uintptr_t)(v) - host_phys_offset)
#endif
#endif
