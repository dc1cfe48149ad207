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

#endif
