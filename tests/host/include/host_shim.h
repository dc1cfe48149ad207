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
#include "kernel/numa.h"

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
	unsigned int nodes;	/* NUMA nodes host_numa_setup gave it (1: none) */
};
extern struct host_arena host_arena;

/*
 * host_mm_setup - map a fresh arena of bytes (a multiple of 1 MiB, at least
 * 2 MiB) at physical HOST_PHYS_BASE and mm_init() it with the default layout:
 * RAM given as three out-of-order, overlapping ranges with a one-page hole
 * in the middle, a "kernel image" reserved at the start (unaligned end) and a
 * tiny reserved range three quarters in. Everything allocated before is
 * forgotten; the previous arena is unmapped unless pinned. Then the host's
 * NUMA topology (host_nodes nodes, host_numa_setup). Returns the host
 * address of physical HOST_PHYS_BASE. Exits the process if mmap fails.
 */
void *host_mm_setup(size_t bytes);

/*
 * host_mm_setup_nodes - host_mm_setup with nodes NUMA nodes (1 to
 * MAX_NUMNODES) instead of host_nodes: for a test whose model is of one
 * zone (the per-CPU list marks sized from a zone's pages, say).
 */
void *host_mm_setup_nodes(size_t bytes, unsigned int nodes);

/*
 * host_mm_setup_layout - the same with a caller's layout: the arena covers
 * physical [phys_base, phys_base + bytes), and every range given must lie
 * inside it (reserved ranges may also lie below it). One node always: a
 * caller wanting more gives its own topology (numa_init, buddy_numa_init).
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
 * page list (drain_all_pages); slab caches must be idle or drained. restore
 * also gives the restored arena its topology again (host_numa_setup with
 * the node count it had), whatever a test set in between.
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

/*
 * The host's NUMA nodes, as make run NODES=N gives QEMU: the arena's
 * physical span [phys_base, phys_base + bytes) split evenly (page aligned,
 * the last node takes the remainder), CPU c on node c * nodes /
 * host_node_cpus, distances 10 local and 20 remote. host_nodes is 0 until
 * the first host_mm_setup reads QUARRY_NODES from the environment (unset:
 * 1); a program may set it (1 to MAX_NUMNODES) before that to override.
 * host_node_cpus is NR_CPUS unless set (1 to NR_CPUS) before host_mm_setup:
 * the fuzzer sets it to its CPU count so its CPUs spread over the nodes.
 */
extern unsigned int host_nodes;
extern unsigned int host_node_cpus;

/*
 * host_nodes_parse - a node count from text (QUARRY_NODES, --nodes): returns
 * 1 to MAX_NUMNODES, or 0 with a message naming what (the value) and
 * where (from, e.g. "QUARRY_NODES") in msg[0..len).
 */
unsigned int host_nodes_parse(const char *val, const char *from, char *msg, size_t len);

/*
 * host_numa_record - fill *fw with a firmware record of 'nodes' nodes (2 to
 * MAX_NUMNODES): node n < nr_mem has the memory [cut[n], cut[n + 1]), the
 * others none; CPU c < cpus is on node c * nodes / cpus, its hardware ID c
 * (also written to hwid[c]); the distance from a to b is dist[a * nodes +
 * b], or 10 and 20 when dist is NULL. The tests' own layouts (unequal
 * distances, memory-less nodes) and host_numa_firmware build theirs with
 * it. Never fails; fw is overwritten whole.
 */
void host_numa_record(struct numa_firmware *fw, uint64_t *hwid, unsigned int nodes,
		      const uint64_t *cut, unsigned int nr_mem, unsigned int cpus,
		      const uint32_t *dist);

/*
 * host_numa_firmware - fill *fw with the record of nodes nodes over the
 * current arena, as above (nodes 2 to MAX_NUMNODES; the arena at least a
 * page per node). hwid[0..host_node_cpus) gets each CPU's hardware ID
 * (host_node_cpus 0: NR_CPUS).
 */
void host_numa_firmware(struct numa_firmware *fw, unsigned int nodes, uint64_t *hwid);

/*
 * host_numa_setup - give the current arena nodes NUMA nodes: numa_init of
 * host_numa_firmware's record, then buddy_numa_init; nodes 1 makes the
 * topology one node again (numa_init without a record) and leaves the page
 * allocator alone, which must then be on one zone. Call with every CPU
 * idle, on an arena whose page allocator has one zone (just set up or
 * restored). Exits the process with a message if nodes is above
 * MAX_NUMNODES or the topology is refused (an arena too small for its
 * nodes).
 */
void host_numa_setup(unsigned int nodes);

/*
 * host_numa_reset - the topology of the current arena again (numa_init
 * only), for a test that called numa_init with a record of its own and
 * left the page allocator alone.
 */
void host_numa_reset(void);

/* Console capture: everything printk wrote since the last clear (last 16 KiB). */
void host_console_clear(void);
bool host_console_contains(const char *needle);
/* host_console_count - how many times needle appears in the capture. */
unsigned int host_console_count(const char *needle);

#endif
