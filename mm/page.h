/*
 * page.h - page size, struct page and the mem_map.
 *
 * PAGE_SHIFT (12, 14 or 16) comes from the build and is the only page-size
 * number; everything else derives from it. The MMU page (MMU_PAGE_SHIFT, from
 * the arch) is separate: on x86_64 a 64K page is 16 consecutive 4K hardware
 * pages; on arm64 the MMU granule is the page (4K, 16K or 64K).
 *
 * There is one struct page per page frame from PFN_OFFSET on, in mem_map[]
 * indexed by PFN - PFN_OFFSET: RAM starts at ARCH_PHYS_OFFSET (asm/memlayout.h;
 * 0 on x86_64, 1 GiB on arm64 virt), and nothing below it gets a struct page.
 * Its fields are shared by the buddy allocator and the object allocator
 * (SLAB or SLUB, whichever the build has: ALLOC in mm/files.mk):
 *   flags        PG_* bits below.
 *   lru          buddy: link on a free list (PG_buddy head pages) or on a
 *                CPU's page list (PG_pcp);
 *                SLAB: link on the node's full/partial/free list;
 *                SLUB: link on the node's or a CPU's partial list.
 *   slab_cache   slab: the owning kmem_cache (every page of the slab).
 *   s_mem        SLAB: address of object 0.
 *   freelist     SLAB: array of freelist_idx_t (on slab, off slab, or in an object).
 *   slub_freelist SLUB: the slab's first free object, or its tagged end
 *                (mm/slub/slub_def.h); in s_mem's place.
 *   counters     SLUB: objects in use, objects, frozen (one word, in freelist's place).
 *   active       SLAB: objects handed out; freelist[active..num-1] are free.
 *   order        buddy: order of the block this page heads (free or allocated).
 *   nid          the NUMA node whose memory range holds the page (0 until
 *                the page allocator learns the topology, buddy_numa_init);
 *                never changed by the page's owners.
 *   private      slab pages: the head struct page; otherwise spare.
 * SLUB updates slub_freelist and counters together with one double-word
 * compare-and-exchange: they are adjacent and 16-byte aligned (mem_map is
 * page-aligned and struct page 64 bytes).
 */
#ifndef MM_PAGE_H
#define MM_PAGE_H

#include "kernel/compiler.h"
#include "kernel/list.h"
#include <asm/memlayout.h>

#ifndef PAGE_SHIFT
#error "PAGE_SHIFT must come from the build (-DPAGE_SHIFT=12, 14 or 16)"
#endif
_Static_assert(PAGE_SHIFT == 12 || PAGE_SHIFT == 14 || PAGE_SHIFT == 16,
	       "PAGE_SHIFT must be 12 (4K), 14 (16K) or 16 (64K)");
_Static_assert(PAGE_SHIFT >= MMU_PAGE_SHIFT, "a page must be whole MMU pages");

#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))
/* The page size as users write it: "4K", "16K" or "64K". */
#define PAGE_SIZE_NAME	(PAGE_SHIFT == 12 ? "4K" : PAGE_SHIFT == 14 ? "16K" : "64K")
#define MMU_PAGES_PER_PAGE (1UL << (PAGE_SHIFT - MMU_PAGE_SHIFT))

/* Page flag bits. */
#define PG_reserved	(1UL << 0)	/* never in the allocator: firmware, kernel, mem_map */
#define PG_buddy	(1UL << 1)	/* heads a free block on a buddy free list */
#define PG_head		(1UL << 2)	/* heads a block handed out by the buddy allocator */
#define PG_slab		(1UL << 3)	/* belongs to a slab (every page of it) */
#define PG_large	(1UL << 4)	/* heads a large kmalloc that went straight to buddy */
#define PG_pcp		(1UL << 5)	/* free order-0 page on a CPU's page list */
/*
 * A zone's free block's node, on its PG_buddy head only, so that a merge
 * (mm/page_alloc/) tests flags and node with one compare; 0 elsewhere.
 */
#define PG_NODE_SHIFT	8
#define PG_node_mask	(0xffUL << PG_NODE_SHIFT)

struct kmem_cache;

struct page {
	unsigned long flags;
	struct list_head lru;
	struct kmem_cache *slab_cache;
	union {				/* 16-byte aligned */
		struct {		/* SLAB (slab_cache and s_mem adjacent: one ldp on arm64) */
			void *s_mem;
			void *freelist;
		};
		struct {		/* SLUB: one double-word compare-and-exchange */
			void *slub_freelist;
			unsigned long counters;
		};
	};
	unsigned int active;
	union {
		struct {
			unsigned short order;
			unsigned short nid;
		};
		unsigned int order_nid;	/* order | nid << 16: one compare for both */
	};
	unsigned long private;
};

_Static_assert(sizeof(struct page) <= 64, "struct page must stay within 64 bytes");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "order_nid is order | nid << 16");
_Static_assert(sizeof(struct page) == 64 && offsetof(struct page, slub_freelist) % 16 == 0 &&
		       offsetof(struct page, counters) == offsetof(struct page, slub_freelist) + 8,
	       "SLUB's (slub_freelist, counters) pair must be adjacent and 16-byte aligned");

/* The first PFN with a struct page (Linux's ARCH_PFN_OFFSET, a constant here). */
#define PFN_OFFSET	((unsigned long)(ARCH_PHYS_OFFSET >> PAGE_SHIFT))

extern struct page *mem_map;	/* one entry per PFN, PFN_OFFSET..max_pfn-1 */
extern unsigned long max_pfn;	/* one past the highest PFN with a struct page */
extern unsigned long mem_map_nr;	/* max_pfn - PFN_OFFSET: mem_map's entries */
/*
 * Where mem_map would start if it began at PFN 0 (mem_map - PFN_OFFSET
 * entries, as an address: it points at no object when PFN_OFFSET > 0), so
 * pfn_to_page is one multiply-add, as in Linux's vmemmap.
 */
extern uintptr_t mem_map_pfn0;

/* How many entries mem_map has. */
static inline unsigned long mem_map_entries(void)
{
	return mem_map_nr;
}

/* Precondition: PFN_OFFSET <= pfn < max_pfn. */
static inline struct page *pfn_to_page(unsigned long pfn)
{
	return (struct page *)(mem_map_pfn0 + pfn * sizeof(struct page));
}

static inline unsigned long page_to_pfn(const struct page *page)
{
	return ((uintptr_t)page - mem_map_pfn0) / sizeof(struct page);
}

static inline void *page_address(const struct page *page)
{
	return PHYS_TO_VIRT((uintptr_t)page_to_pfn(page) << PAGE_SHIFT);
}

/*
 * True when v lies in the direct map of RAM that has a struct page. An
 * address below the first such page wraps round to a huge page number, so
 * one comparison covers both ends (kfree's fast path relies on it).
 */
static inline bool virt_addr_valid(const void *v)
{
	return ((uintptr_t)v - (uintptr_t)PHYS_TO_VIRT(ARCH_PHYS_OFFSET)) >> PAGE_SHIFT <
	       mem_map_entries();
}

/* Precondition: virt_addr_valid(v). */
static inline struct page *virt_to_page(const void *v)
{
	return pfn_to_page(VIRT_TO_PHYS(v) >> PAGE_SHIFT);
}

#endif
