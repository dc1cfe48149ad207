/*
 * debug_info.c - mm_debug_info (mm/mm.h): the build's page size, memory
 * layout and object allocator as data, for debuggers that read a stopped
 * kernel's memory (scripts/gdb/). Nothing in the kernel reads it.
 */
#include "mm/mm.h"
#include "mm/page.h"

#if defined(CONFIG_ALLOC_SLAB)
#define MM_ALLOC_NAME "slab"
#elif defined(CONFIG_ALLOC_SLUB)
#define MM_ALLOC_NAME "slub"
#elif defined(CONFIG_ALLOC_SLOB)
#define MM_ALLOC_NAME "slob"
#elif defined(CONFIG_ALLOC_SLOB_SEG)
#define MM_ALLOC_NAME "slob-seg"
#else
#define MM_ALLOC_NAME "none"
#endif

/* The host build (tests/host) maps RAM at run time and has no kernel image. */
#ifndef DIRECT_MAP_BASE
#define DIRECT_MAP_BASE 0
#endif
#ifndef KERNEL_VMA
#define KERNEL_VMA 0
#endif

const struct mm_debug_info mm_debug_info = {
	.version = MM_DEBUG_INFO_VERSION,
	.page_shift = PAGE_SHIFT,
	.phys_offset = ARCH_PHYS_OFFSET,
	.direct_map = DIRECT_MAP_BASE,
	.kernel_vma = KERNEL_VMA,
	.allocator = MM_ALLOC_NAME,
};
