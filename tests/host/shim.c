/*
 * shim.c - the host's stand-in for arch/: console on stdout, exit(), a CPU id
 * per thread, and "physical memory" as an mmap'd arena (see host_shim.h).
 */
#include "host_shim.h"
#include "kernel/arch.h"
#include "kernel/nmi.h"
#include "kernel/smp.h"
#include "mm/page.h"
#include <asm/memlayout.h>
#include <asm/processor.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#define ARENA_ALIGN	(4UL << 20)

uintptr_t host_phys_offset;
__thread unsigned int host_cpu_id;
__thread unsigned long host_cpu_off;
__thread int host_irqs_off;
__thread unsigned int host_spins;
unsigned int host_spins_per_yield = HOST_SPINS_PER_YIELD;
const char arch_name[] = "host";
struct host_arena host_arena;
unsigned int host_nodes;
unsigned int host_node_cpus;

static char console_buf[16384];
static size_t console_len;

/* arch_console_write: see kernel/arch.h. Host: stdout as is, and the capture buffer. */
void arch_console_write(const char *s, size_t n)
{
	fwrite(s, 1, n, stdout);
	fflush(stdout);
	if (n >= sizeof(console_buf)) {
		s += n - (sizeof(console_buf) - 1);
		n = sizeof(console_buf) - 1;
	}
	if (console_len + n >= sizeof(console_buf)) {
		size_t keep = sizeof(console_buf) / 2 > n ? sizeof(console_buf) / 2 - n : 0;

		memmove(console_buf, console_buf + console_len - keep, keep);
		console_len = keep;
	}
	memcpy(console_buf + console_len, s, n);
	console_len += n;
	console_buf[console_len] = '\0';
}

/* host_console_clear: see host_shim.h. */
void host_console_clear(void)
{
	console_len = 0;
	console_buf[0] = '\0';
}

/* host_console_contains: see host_shim.h. */
bool host_console_contains(const char *needle)
{
	return strstr(console_buf, needle) != NULL;
}

/* host_console_count: see host_shim.h. */
unsigned int host_console_count(const char *needle)
{
	unsigned int n = 0;

	for (const char *p = console_buf; *needle && (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/*
 * arch_phys_mapped: see kernel/arch.h. Host: every "physical" address is a
 * host address less host_phys_offset, so a test's tables are always mapped.
 */
bool arch_phys_mapped(uint64_t phys, uint64_t len)
{
	(void)phys;
	(void)len;
	return true;
}

/* arch_exit: see kernel/arch.h. */
void arch_exit(int status)
{
	fflush(stdout);
	exit(status);
}

/* stop_other_cpus: see kernel/nmi.h (panic). Host threads are left running. */
void stop_other_cpus(void)
{
}

/*
 * on_each_cpu_wait: see kernel/smp.h. The host has no other CPUs to send the
 * call to: the calling thread runs fn once as each CPU in turn (host_cpu_id
 * set to it, "interrupts" on), so it may drain what threads left on their
 * per-CPU lists. Only while no other thread uses mm/.
 */
void on_each_cpu_wait(void (*fn)(void *arg), void *arg)
{
	unsigned int self = host_cpu_id;
	int irqs = host_irqs_off;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		host_set_cpu(cpu);
		host_irqs_off = 0;
		fn(arg);
	}
	host_set_cpu(self);
	host_irqs_off = irqs;
}

/* arch_cycles_per_sec - the rdtsc rate, measured once against CLOCK_MONOTONIC. */
uint64_t arch_cycles_per_sec(void)
{
	static uint64_t rate;
	struct timespec t0, t1;
	uint64_t c0, c1, ns;

	if (rate)
		return rate;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	c0 = arch_cycles();
	do {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u +
		     (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
	} while (ns < 10000000);
	c1 = arch_cycles();
	rate = (c1 - c0) * 1000000000u / ns;
	return rate;
}

static void arena_unmap(void)
{
	if (host_arena.map && !host_arena.pinned)
		munmap(host_arena.map, host_arena.map_bytes);
	host_arena.map = NULL;
}

/* host_mm_setup_layout: see host_shim.h. */
void *host_mm_setup_layout(size_t bytes, uint64_t phys_base, const struct mem_range *avail,
			   unsigned int n_avail, const struct mem_range *reserved,
			   unsigned int n_reserved)
{
	size_t map_bytes = bytes + ARENA_ALIGN;
	uintptr_t raw, mem;
	void *p;

	if (n_avail > HOST_MAX_RANGES || n_reserved > HOST_MAX_RANGES) {
		fprintf(stderr, "host_mm_setup: too many ranges\n");
		exit(2);
	}
	for (unsigned int i = 0; i < n_avail; i++) {
		if (avail[i].start < phys_base || avail[i].end > phys_base + bytes) {
			fprintf(stderr, "host_mm_setup: RAM range %u outside the arena\n", i);
			exit(2);
		}
	}
	arena_unmap();
#ifdef HOST_FIXED_PHYS_OFFSET
	/* Physical 0 at HOST_FIXED_PHYS_OFFSET (4 MiB aligned): mem is then the mapping's start. */
	_Static_assert(((uintptr_t)(HOST_FIXED_PHYS_OFFSET) & (ARENA_ALIGN - 1)) == 0,
		       "HOST_FIXED_PHYS_OFFSET must be 4 MiB aligned");
	raw = (uintptr_t)(HOST_FIXED_PHYS_OFFSET) + phys_base;
	p = mmap((void *)raw, map_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != MAP_FAILED && (uintptr_t)p != raw) {
		munmap(p, map_bytes);
		p = MAP_FAILED;
		errno = EEXIST;
	}
	if (p == MAP_FAILED) {
		fprintf(stderr, "host_mm_setup: cannot map %zu bytes at 0x%lx (HOST_FIXED_PHYS_OFFSET "
			"0x%lx + physical 0x%lx): %s\n", map_bytes, (unsigned long)raw,
			(unsigned long)(HOST_FIXED_PHYS_OFFSET), (unsigned long)phys_base,
			strerror(errno));
		exit(2);
	}
#else
	p = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		perror("host_mm_setup: mmap");
		exit(2);
	}
#endif
	/* Pick mem inside the mapping with mem - phys_base a multiple of 4 MiB. */
	raw = (uintptr_t)p;
	mem = raw + ((phys_base - raw) & (ARENA_ALIGN - 1));

	host_arena = (struct host_arena){ .map = p, .map_bytes = map_bytes, .phys_base = phys_base,
					  .bytes = bytes, .n_avail = n_avail,
					  .n_reserved = n_reserved, .nodes = 1 };
	for (unsigned int i = 0; i < n_avail; i++)
		host_arena.avail[i] = avail[i];
	for (unsigned int i = 0; i < n_reserved; i++)
		host_arena.reserved[i] = reserved[i];
	host_phys_offset = mem - phys_base;
	mm_init(avail, n_avail, reserved, n_reserved);
	return (void *)mem;
}

/* host_nodes_parse: see host_shim.h. */
unsigned int host_nodes_parse(const char *val, const char *from, char *msg, size_t len)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(val, &end, 10);
	if (*val < '0' || *val > '9' || *end || errno || n < 1 || n > MAX_NUMNODES) {
		snprintf(msg, len, "%s=%s: not a NUMA node count from 1 to %d", from, val,
			 MAX_NUMNODES);
		return 0;
	}
	return (unsigned int)n;
}

/*
 * host_nodes_default - host_nodes, read from QUARRY_NODES the first time
 * (unset or empty: 1); a bad value exits the process with its message.
 */
static unsigned int host_nodes_default(void)
{
	const char *val = getenv("QUARRY_NODES");
	char msg[128];

	if (host_nodes)
		return host_nodes;
	if (!val || !*val)
		return host_nodes = 1;
	host_nodes = host_nodes_parse(val, "QUARRY_NODES", msg, sizeof(msg));
	if (!host_nodes) {
		fprintf(stderr, "host: %s\n", msg);
		exit(2);
	}
	return host_nodes;
}

static unsigned int node_cpus(void)
{
	return host_node_cpus && host_node_cpus <= NR_CPUS ? host_node_cpus : NR_CPUS;
}

/* host_numa_record: see host_shim.h. */
void host_numa_record(struct numa_firmware *fw, uint64_t *hwid, unsigned int nodes,
		      const uint64_t *cut, unsigned int nr_mem, unsigned int cpus,
		      const uint32_t *dist)
{
	memset(fw, 0, sizeof(*fw));
	fw->present = true;
	fw->source = "host";
	fw->dist_source = "host distances";
	fw->hwid_name = "host CPU";
	fw->bad_dist_node = NUMA_NO_NODE;
	for (unsigned int n = 0; n < nr_mem; n++)
		fw->mem[fw->n_mem++] = (struct numa_fw_mem){ cut[n], cut[n + 1], n };
	for (unsigned int c = 0; c < cpus; c++) {
		hwid[c] = c;
		fw->cpu[fw->n_cpu++] = (struct numa_fw_cpu){ c, c * nodes / cpus };
	}
	fw->has_distance = true;
	fw->dist_nodes = nodes;
	for (unsigned int a = 0; a < nodes; a++)
		for (unsigned int b = 0; b < nodes; b++)
			fw->distance[a][b] = dist ? dist[a * nodes + b] :
				a == b ? NUMA_LOCAL_DISTANCE : NUMA_REMOTE_DISTANCE;
}

/* host_numa_firmware: see host_shim.h. */
void host_numa_firmware(struct numa_firmware *fw, unsigned int nodes, uint64_t *hwid)
{
	uint64_t base = host_arena.phys_base;
	uint64_t per = ALIGN_DOWN((uint64_t)host_arena.bytes / nodes, (uint64_t)PAGE_SIZE);
	uint64_t cut[MAX_NUMNODES + 1];

	for (unsigned int n = 0; n < nodes; n++)
		cut[n] = base + n * per;
	cut[nodes] = base + host_arena.bytes;
	host_numa_record(fw, hwid, nodes, cut, nodes, node_cpus(), NULL);
}

/* host_numa_setup: see host_shim.h. */
void host_numa_setup(unsigned int nodes)
{
	static struct numa_firmware fw;
	static uint64_t hwid[NR_CPUS];

	if (nodes > MAX_NUMNODES) {
		fprintf(stderr, "host: %u NUMA nodes asked of the host arena: at most %d\n", nodes,
			MAX_NUMNODES);
		exit(2);
	}
	if (nodes <= 1) {
		host_arena.nodes = 1;
		if (numa_num_nodes() != 1)
			host_numa_reset();
		return;
	}
	host_numa_firmware(&fw, nodes, hwid);
	numa_init(&fw, host_arena.avail, host_arena.n_avail, hwid, node_cpus());
	if (numa_topology()->fallback || numa_num_nodes() != nodes) {
		fprintf(stderr, "host: %u NUMA nodes on a %zu KiB arena refused (see the numa: "
			"line above)\n", nodes, host_arena.bytes >> 10);
		exit(2);
	}
	host_arena.nodes = nodes;
	buddy_numa_init();
}

/* host_numa_reset: see host_shim.h. */
void host_numa_reset(void)
{
	static struct numa_firmware fw;
	static uint64_t hwid[NR_CPUS];

	if (host_arena.nodes <= 1) {
		for (unsigned int c = 0; c < node_cpus(); c++)
			hwid[c] = c;
		numa_init(NULL, host_arena.avail, host_arena.n_avail, hwid, node_cpus());
		return;
	}
	host_numa_firmware(&fw, host_arena.nodes, hwid);
	numa_init(&fw, host_arena.avail, host_arena.n_avail, hwid, node_cpus());
}

/* host_mm_setup: see host_shim.h. */
void *host_mm_setup(size_t bytes)
{
	return host_mm_setup_nodes(bytes, host_nodes_default());
}

/* host_mm_setup_nodes: see host_shim.h. */
void *host_mm_setup_nodes(size_t bytes, unsigned int nodes)
{
	uint64_t b = HOST_PHYS_BASE, half = b + bytes / 2, q3 = b + bytes / 4 * 3;
	const struct mem_range avail[] = {
		{ half, b + bytes },
		{ half + 3 * PAGE_SIZE + 5, half + 8 * PAGE_SIZE },	/* overlaps the above */
		{ b, half - PAGE_SIZE / 2 },	/* last page partial: with the gap, a hole */
	};
	const struct mem_range reserved[] = {
		{ b, b + (64 << 10) + 100 },	/* "kernel image", end not page-aligned */
		{ q3 + 10, q3 + 20 },		/* tiny: takes one whole page */
		{ 0, 4096 },			/* below RAM: ignored */
		{ q3, q3 },			/* empty: ignored */
	};

	void *mem = host_mm_setup_layout(bytes, b, avail, ARRAY_SIZE(avail), reserved,
					 ARRAY_SIZE(reserved));

	host_numa_setup(nodes);
	return mem;
}

/* host_mm_setup_bench: see host_shim.h. */
void *host_mm_setup_bench(size_t bytes, bool prefault)
{
	const struct mem_range avail[] = { { HOST_PHYS_BASE, HOST_PHYS_BASE + bytes } };
	const struct mem_range reserved[] = { { HOST_PHYS_BASE, HOST_PHYS_BASE + (1UL << 20) } };
	char *mem = host_mm_setup_layout(bytes, HOST_PHYS_BASE, avail, 1, reserved, 1);

	if (!prefault)
		return mem;
#ifdef MADV_POPULATE_WRITE
	if (madvise((void *)ALIGN_DOWN((uintptr_t)mem, 4096), bytes, MADV_POPULATE_WRITE))
#endif
		for (size_t off = 0; off < bytes; off += 4096)
			__atomic_fetch_add((volatile char *)mem + off, 0, __ATOMIC_RELAXED);
	return mem;
}

/* host_mm_save: see host_shim.h. */
void host_mm_save(struct host_mm_saved *s)
{
	drain_all_pages();
	s->arena = host_arena;
	s->phys_offset = host_phys_offset;
	s->mem_map = mem_map;
	s->max_pfn = max_pfn;
	buddy_read_stats(&s->stats);
	host_arena.pinned = true;
}

/*
 * host_mm_restore: see host_shim.h. The free lists are private to buddy.c, so
 * they are rebuilt from the saved mem_map: each free block is turned back
 * into reserved pages and handed over again. The saved state was fully
 * coalesced (the save drained every CPU's page list), so nothing merges;
 * then the saved managed count and event counters are put back.
 */
void host_mm_restore(const struct host_mm_saved *s)
{
	unsigned long *heads, n = 0;

	if (host_arena.map != s->arena.map) {
		host_arena.pinned = false;
		arena_unmap();
	}
	host_arena = s->arena;
	host_phys_offset = s->phys_offset;
	mem_map = s->mem_map;
	max_pfn = s->max_pfn;
	mem_map_nr = max_pfn - PFN_OFFSET;
	mem_map_pfn0 = (uintptr_t)mem_map - PFN_OFFSET * sizeof(struct page);

	heads = calloc(s->stats.free_pages + 1, sizeof(*heads));
	if (!heads) {
		perror("host_mm_restore");
		exit(2);
	}
	for (unsigned long pfn = 0; pfn < max_pfn; pfn++)
		pfn_to_page(pfn)->nid = 0;	/* one zone until host_numa_setup below */
	for (unsigned long pfn = 0; pfn < max_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);

		if (!(page->flags & PG_buddy))
			continue;
		page->flags &= ~(PG_buddy | PG_node_mask);
		for (unsigned long i = 0; i < 1UL << page->order; i++)
			page[i].flags |= PG_reserved;
		heads[n++] = pfn;
		pfn += (1UL << page->order) - 1;
	}
	buddy_init();
	for (unsigned long i = 0; i < n; i++)
		buddy_add_block(heads[i], pfn_to_page(heads[i])->order);
	free(heads);
	buddy_restore_stats(&s->stats);
	host_numa_setup(s->arena.nodes);
}
