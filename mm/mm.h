/*
 * mm.h - bringing physical memory under the allocators.
 */
#ifndef MM_MM_H
#define MM_MM_H

#include "kernel/compiler.h"

/* A physical address range [start, end). */
struct mem_range {
	uint64_t start;
	uint64_t end;
};

/*
 * mm_init - build mem_map and hand free RAM to the buddy allocator.
 * avail: RAM the firmware says is usable; reserved: ranges inside it that are
 * taken (kernel image, boot modules, multiboot info). mem_map itself is
 * placed in available, unreserved RAM and reserved. Pages only partly inside
 * an available range are reserved. Panics if no room for mem_map.
 * Call once, before any allocation.
 */
void mm_init(const struct mem_range *avail, unsigned int n_avail,
	     const struct mem_range *reserved, unsigned int n_reserved);

/* mm_report - print "Memory: N kB available" and the buddyinfo line. */
void mm_report(void);

/*
 * What a debugger reading mm/ from memory needs and cannot get from the
 * types: the build's macros (scripts/gdb reads this, never calls code).
 * Constant; the version changes when a field's meaning does.
 */
struct mm_debug_info {
	unsigned int version;		/* MM_DEBUG_INFO_VERSION */
	unsigned int page_shift;	/* PAGE_SHIFT */
	uint64_t phys_offset;		/* ARCH_PHYS_OFFSET: the PFN_OFFSET page's address */
	uint64_t direct_map;		/* PHYS_TO_VIRT(0): direct map = phys + this */
	uint64_t kernel_vma;		/* KERNEL_TO_PHYS(v) = v - this, for v in the image */
	char allocator[16];		/* "slab", "slub", "slob", "slob-seg" or "none" */
};

#define MM_DEBUG_INFO_VERSION	1
extern const struct mm_debug_info mm_debug_info;

#endif
