/*
 * host_shim.h - what the host test harness (tests/host/shim.c) offers tests.
 *
 * On the host, "physical memory" is an mmap'd arena: physical address P lives
 * at host address host_phys_offset + P. host_phys_offset is 4 MiB aligned, so
 * a block's virtual alignment matches its physical alignment as in the kernel.
 * Tests include this header only under #ifdef QUARRY_HOST.
 */
#ifndef HOST_SHIM_H
#define HOST_SHIM_H

#include "kernel/compiler.h"
#include "mm/mm.h"
#include "mm/buddy.h"

#define HOST_PHYS_BASE		(1UL << 20)	/* first physical address of an arena */
#define HOST_DEFAULT_ARENA	(64UL << 20)	/* what main.c sets up */
#define HOST_MAX_RANGES		8

/* The layout mm_init() was last given by host_mm_setup*(). */
struct host_arena {
	void *map;		/* the mmap'd region (NULL if none) */
	size_t map_bytes;
	bool pinned;		/* held by a host_mm_save(): not unmapped on re-setup */
	uint64_t phys_base;	/* RAM is [phys_base, phys_base + bytes) */
	size_t bytes;
	struct mem_range avail[HOST_MAX_RANGES];
	unsigned int n_avail;
	struct mem_range reserved[HOST_MAX_RANGES];
	unsigned int n_reserved;
};
extern struct host_arena host_arena;

/*
 * host_mm_setup - map a fresh arena of bytes (a multiple of 1 MiB, at least
 * 2 MiB) at physical HOST_PHYS_BASE and mm_init() it with the default layout:
 * RAM given as three out-of-order, overlapping ranges with a one-page hole
 * in the middle, a "kernel image" reserved at the start (unaligned end) and a
 * tiny reserved range three quarters in. Everything allocated before is
 * forgotten; the previous arena is unmapped unless pinned. Returns the host
 * address of physical HOST_PHYS_BASE. Exits the process if mmap fails.
 */
void *host_mm_setup(size_t bytes);

/*
 * host_mm_setup_layout - the same with a caller's layout: the arena covers
 * physical [phys_base, phys_base + bytes), and every range given must lie
 * inside it (reserved ranges may also lie below it).
 */
void *host_mm_setup_layout(size_t bytes, uint64_t phys_base, const struct mem_range *avail,
			   unsigned int n_avail, const struct mem_range *reserved,
			   unsigned int n_reserved);

/*
 * host_mm_setup_bench - a benchmark's arena: bytes of RAM at physical
 * HOST_PHYS_BASE in one range, its first MiB reserved as a kernel image would
 * be; with prefault, every page is faulted in now (contents unchanged), so that
 * no timed run pays a page fault. Returns the host address of HOST_PHYS_BASE.
 * Exits the process if mmap fails. The caller then runs kmem_cache_init().
 */
void *host_mm_setup_bench(size_t bytes, bool prefault);

/*
 * host_mm_save/host_mm_restore - keep the current mm state (arena, mem_map,
 * max_pfn, buddy lists and stats) across a test that re-initialises mm/ on a
 * private arena, so later tests find the allocator as they left it. Pairs
 * nest (LIFO). restore unmaps the private arena. The save drains every CPU's
 * page list (drain_all_pages); slab caches must be idle or drained.
 */
struct host_mm_saved {
	struct host_arena arena;
	uintptr_t phys_offset;
	struct page *mem_map;
	unsigned long max_pfn;
	struct buddy_stats stats;
};
void host_mm_save(struct host_mm_saved *s);
void host_mm_restore(const struct host_mm_saved *s);

/* Console capture: everything printk wrote since the last clear (last 16 KiB). */
void host_console_clear(void);
bool host_console_contains(const char *needle);
/* host_console_count - how many times needle appears in the capture. */
unsigned int host_console_count(const char *needle);

#endif
