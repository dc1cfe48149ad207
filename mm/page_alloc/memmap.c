/*
 * memmap.c - building mem_map and handing free RAM to the buddy allocator.
 *
 * Data structures. mem_map is one struct page per PFN from PFN_OFFSET (the
 * arch's first RAM address, asm/memlayout.h) to max_pfn - 1, where max_pfn is
 * one past the last page that holds any available RAM; RAM below PFN_OFFSET
 * is left out. It
 * lives in RAM itself: the first page-aligned stretch of available RAM big
 * enough for it that no reserved range touches, reached through the direct
 * map. Holes between RAM ranges get struct pages too; they are simply never
 * handed out.
 *
 * mm_init() works in three passes:
 *  1. copy the available ranges, sort them and merge overlapping or touching
 *     ones (so a page split across two adjacent ranges still counts as RAM,
 *     and a page listed twice is not handed out twice);
 *  2. place mem_map and mark every struct page PG_reserved;
 *  3. for each RAM range, take the pages wholly inside it, cut out every page
 *     that a reserved range or mem_map touches even partly, and give what is
 *     left to the buddy allocator in the largest naturally aligned blocks that
 *     fit (buddy_add_block() merges blocks that turn out to be buddies).
 *
 * Invariants afterwards: a page is PG_reserved exactly when it is not wholly
 * inside available RAM, or overlaps a reserved range or mem_map; every other
 * page belongs to the buddy allocator, which counts them as managed pages.
 *
 * Locking: none. mm_init() runs once on the boot CPU before anything can
 * allocate (on the host, a test may call it again for a fresh arena; all
 * earlier allocator state is forgotten). The working arrays are static so as
 * not to put kilobytes on the boot stack.
 *
 * Where we depart from Linux: there is no memblock allocator and no separate
 * early-boot phase; mem_map is one flat array (no sparse sections), placed at
 * the lowest fitting address rather than top-down.
 */
#include "mm/mm.h"
#include "mm/buddy.h"
#include "kernel/bug.h"
#include "kernel/printk.h"

_Static_assert(PAGE_SHIFT >= 10, "mm_report converts pages to kB by shifting");

#define MM_MAX_RANGES	128	/* available or reserved ranges mm_init accepts */

struct page *mem_map;
unsigned long max_pfn;
unsigned long mem_map_nr;
uintptr_t mem_map_pfn0;

/* A PFN range [start, end). */
struct pfn_range {
	unsigned long start;
	unsigned long end;
};

static struct mem_range ram[MM_MAX_RANGES];		/* sorted, merged avail */
static unsigned int n_ram;
static struct pfn_range excl[MM_MAX_RANGES + 1];	/* reserved pages and mem_map */
static unsigned int n_excl;

/* merge_ram - fill ram[] with avail sorted by start, overlaps and neighbours merged. */
static void merge_ram(const struct mem_range *avail, unsigned int n_avail)
{
	unsigned int out = 0;

	if (n_avail > MM_MAX_RANGES)
		panic("mm: %u available ranges, at most %d supported", n_avail, MM_MAX_RANGES);
	n_ram = 0;
	for (unsigned int i = 0; i < n_avail; i++) {
		unsigned int j;

		if (avail[i].end <= avail[i].start)
			continue;
		for (j = n_ram++; j > 0 && ram[j - 1].start > avail[i].start; j--)
			ram[j] = ram[j - 1];
		ram[j] = avail[i];
	}
	if (!n_ram)
		return;
	for (unsigned int i = 1; i < n_ram; i++) {
		if (ram[i].start <= ram[out].end)
			ram[out].end = MAX(ram[out].end, ram[i].end);
		else
			ram[++out] = ram[i];
	}
	n_ram = out + 1;
}

/* overlaps_reserved - does [start, end) touch a reserved range? *past gets that range's end. */
static bool overlaps_reserved(uint64_t start, uint64_t end, const struct mem_range *reserved,
			      unsigned int n_reserved, uint64_t *past)
{
	for (unsigned int i = 0; i < n_reserved; i++) {
		if (reserved[i].start < end && reserved[i].end > start &&
		    reserved[i].end > reserved[i].start) {
			*past = reserved[i].end;
			return true;
		}
	}
	return false;
}

/* place_mem_map - lowest page-aligned physical address for bytes of mem_map. */
static uint64_t place_mem_map(uint64_t bytes, const struct mem_range *reserved,
			      unsigned int n_reserved)
{
	for (unsigned int i = 0; i < n_ram; i++) {
		uint64_t at = ALIGN_UP(ram[i].start, (uint64_t)PAGE_SIZE);
		uint64_t past;

		while (at + bytes <= ram[i].end) {
			if (!overlaps_reserved(at, at + bytes, reserved, n_reserved, &past))
				return at;
			at = ALIGN_UP(past, (uint64_t)PAGE_SIZE);
		}
	}
	panic("mm: no room for mem_map (%lu bytes for %lu pages)", (unsigned long)bytes, max_pfn);
}

/* skip_excluded - the first PFN >= pfn that no exclusion covers. */
static unsigned long skip_excluded(unsigned long pfn)
{
	bool moved = true;

	while (moved) {
		moved = false;
		for (unsigned int i = 0; i < n_excl; i++) {
			if (excl[i].start <= pfn && pfn < excl[i].end) {
				pfn = excl[i].end;
				moved = true;
			}
		}
	}
	return pfn;
}

/* next_excluded - the first excluded PFN in (pfn, limit), or limit. */
static unsigned long next_excluded(unsigned long pfn, unsigned long limit)
{
	for (unsigned int i = 0; i < n_excl; i++)
		if (excl[i].start > pfn && excl[i].start < limit)
			limit = excl[i].start;
	return limit;
}

/* add_free_pfns - give [start, end) to the buddy allocator in the largest aligned blocks. */
static void add_free_pfns(unsigned long start, unsigned long end)
{
	while (start < end) {
		unsigned int order = MAX_ORDER;

		while (order && (!IS_ALIGNED(start, 1UL << order) || start + (1UL << order) > end))
			order--;
		buddy_add_block(start, order);
		start += 1UL << order;
	}
}

/* mm_init: see mm.h. */
void mm_init(const struct mem_range *avail, unsigned int n_avail,
	     const struct mem_range *reserved, unsigned int n_reserved)
{
	uint64_t map_phys, map_bytes;

	merge_ram(avail, n_avail);
	if (!n_ram)
		panic("mm: no available RAM");
	if (n_reserved > MM_MAX_RANGES)
		panic("mm: %u reserved ranges, at most %d supported", n_reserved, MM_MAX_RANGES);
	max_pfn = (unsigned long)DIV_ROUND_UP(ram[n_ram - 1].end, (uint64_t)PAGE_SIZE);

	if (max_pfn <= PFN_OFFSET)
		panic("mm: no RAM at or above 0x%llx", (unsigned long long)ARCH_PHYS_OFFSET);
	mem_map_nr = max_pfn - PFN_OFFSET;
	map_bytes = ALIGN_UP((uint64_t)mem_map_entries() * sizeof(struct page), (uint64_t)PAGE_SIZE);
	map_phys = place_mem_map(map_bytes, reserved, n_reserved);
	mem_map = PHYS_TO_VIRT(map_phys);
	mem_map_pfn0 = (uintptr_t)mem_map - PFN_OFFSET * sizeof(struct page);
	for (unsigned long i = 0; i < mem_map_entries(); i++) {
		mem_map[i] = (struct page){ .flags = PG_reserved };
		INIT_LIST_HEAD(&mem_map[i].lru);
	}
	buddy_init();

	n_excl = 0;
	for (unsigned int i = 0; i < n_reserved; i++) {
		if (reserved[i].end <= reserved[i].start)
			continue;
		excl[n_excl++] = (struct pfn_range){
			(unsigned long)(reserved[i].start >> PAGE_SHIFT),
			(unsigned long)DIV_ROUND_UP(reserved[i].end, (uint64_t)PAGE_SIZE) };
	}
	excl[n_excl++] = (struct pfn_range){
		(unsigned long)(map_phys >> PAGE_SHIFT),
		(unsigned long)((map_phys + map_bytes) >> PAGE_SHIFT) };

	for (unsigned int i = 0; i < n_ram; i++) {
		unsigned long pfn = (unsigned long)DIV_ROUND_UP(ram[i].start, (uint64_t)PAGE_SIZE);
		unsigned long end = (unsigned long)(ram[i].end >> PAGE_SHIFT);

		pfn = MAX(pfn, PFN_OFFSET);	/* RAM below it has no struct page */
		for (pfn = skip_excluded(pfn); pfn < end; pfn = skip_excluded(pfn)) {
			unsigned long stop = next_excluded(pfn, end);

			add_free_pfns(pfn, stop);
			pfn = stop;
		}
	}
}

/* mm_report: see mm.h. */
void mm_report(void)
{
	printk("Memory: %lu kB available\n", nr_free_pages() << (PAGE_SHIFT - 10));
	buddy_print_info();
}
