/*
 * slob_seg_check.c - SLOB-seg's consistency checks: kmem_cache_check's walk
 * of the class lists (each node a free block of its class in a heap page,
 * linked both ways, on one list only), the debug builds' check of a block's
 * links before it is taken off its list (with the lists rebuilt from the
 * pages after a report), and the heap's table for slabinfo. Everything
 * runs under the heap lock (slob_heap_show takes it); the layout and
 * invariants are mm/slob_seg.c's.
 */
#include "mm/slob_seg.h"
#include "kernel/printk.h"
#include "kernel/string.h"

#if CONFIG_SLAB_DEBUG
/*
 * Debug builds: l is a node of class c's list: its head, or the links of
 * a free block of class c in a heap page (checked before it is followed).
 */
static bool cls_node_valid(const struct list_head *l, unsigned int c)
{
	const struct slob_hdr *h = link_blk((struct list_head *)l);
	const struct page *page;

	if (l == &slob_heap.cls[c])
		return true;
	if (((uintptr_t)h & (SLOB_UNIT - 1)) || !virt_addr_valid(h))
		return false;
	page = virt_to_page(h);
	return (page->flags & PG_slab) && !page->slab_cache && h->tag == slob_tag(h) &&
	       slob_is_free(h) && cls_of(h) == c;
}

/*
 * Debug builds: what is wrong with free block h's place on list c (NULL:
 * nothing), and the offset from the block's body of the bad link.
 */
static const char *cls_node_fault(struct slob_hdr *h, unsigned int c, unsigned int *off)
{
	struct list_head *l = blk_link(h);

	*off = 0;
	if (!cls_node_valid(l, c))
		return "the block on the list is not a free block of its class";
	if (!cls_node_valid(l->next, c) || l->next->prev != l)
		return "its next link does not lead to a free block of its class";
	*off = sizeof(void *);
	if (!cls_node_valid(l->prev, c) || l->prev->next != l)
		return "its prev link does not lead back to it";
	return NULL;
}

/* Debug builds: every class list rebuilt from the heap pages' blocks (they tile each page). */
static void cls_rebuild(void)
{
	for (unsigned int c = 0; c < SLOB_NR_CLASSES; c++)
		INIT_LIST_HEAD(&slob_heap.cls[c]);
	for (unsigned int w = 0; w < SLOB_MAP_WORDS; w++)
		slob_heap.map[w] = 0;
	for (struct page *page = slob_next_heap_page(NULL); page; page = slob_next_heap_page(page)) {
		for (struct slob_hdr *h = slob_page_first(page); slob_in_page(h, page) && h->units &&
		     h->tag == slob_tag(h); h = slob_next(h)) {
			unsigned int nc = slob_class(h->units);

			if (!slob_is_free(h))
				continue;
			h->info = (uint16_t)(SLOB_FREE | (h->info & SLOB_POISONED) | nc);
			cls_add(h, nc);
		}
	}
}

/*
 * slob_seg_cls_check: see slob_seg.h. A broken link is mostly a write after
 * free into the block's first 16 bytes, which hold it (the poison check
 * skips them).
 */
bool slob_seg_cls_check(struct kmem_cache *c, const char *fn, struct slob_hdr *h, unsigned int cls)
{
	unsigned int off;
	const char *fault = cls_node_fault(h, cls, &off);
	char what[160];

	if (likely(!fault))
		return false;
	snprintf(what, sizeof(what), "freelist corrupt at offset %u: %s (class %u); lists rebuilt "
		 "from the heap pages", off, fault, cls);
	slob_corrupt(c, fn, h + 1, what);
	cls_rebuild();
	return true;
}
#endif

#define CHECK(cond, fmt, ...)                                                        \
	do {                                                                         \
		if (unlikely(!(cond))) {                                             \
			printk(SLOB_NAME ": check failed: " fmt "\n", ##__VA_ARGS__); \
			return -1;                                                   \
		}                                                                    \
	} while (0)

/*
 * slob_heap_check_lists: see slob_def.h. Walks every list (each
 * node a free block of a heap page with that class, linked both ways,
 * none twice: marked SLOB_SEEN) and sets 'listed' to the nodes found;
 * slob_heap_check_block then finds each free block marked, and unmarks it.
 */
int slob_heap_check_lists(unsigned long *listed)
{
	unsigned long n = 0;

	for (unsigned int c = 0; c < SLOB_NR_CLASSES; c++) {
		struct list_head *head = &slob_heap.cls[c], *l;
		bool bit = slob_heap.map[c / 64] & (1ULL << (c % 64));

		CHECK(bit == !list_empty(head), "class %u: map bit %d, list %s", c, bit,
		      list_empty(head) ? "empty" : "not empty");
		for (l = head->next; l != head; l = l->next) {
			struct slob_hdr *h = link_blk(l);
			struct page *page;

			CHECK(virt_addr_valid(h), "class %u: node %p outside RAM", c, (void *)h);
			page = virt_to_page(h);
			CHECK((page->flags & PG_slab) && !page->slab_cache,
			      "class %u: node %p not in a heap page", c, (void *)h);
			CHECK(l->next->prev == l && l->prev->next == l,
			      "class %u: node %p badly linked", c, (void *)h);
			CHECK(h->tag == slob_tag(h) && slob_is_free(h) && !(h->info & SLOB_SEEN),
			      "class %u: node %p: header info 0x%x tag %s%s", c, (void *)h, h->info,
			      h->tag == slob_tag(h) ? "ok" : "bad",
			      h->info & SLOB_SEEN ? " (on a list twice)" : "");
			CHECK((h->info & SLOB_CLASS_MASK) == c && slob_class(h->units) == c,
			      "free block %p of %u units (class %u) on list %u, its info says %u",
			      (void *)h, h->units, slob_class(h->units), c, h->info & SLOB_CLASS_MASK);
			h->info |= SLOB_SEEN;
			n++;
		}
	}
	*listed = n;
	return 0;
}

/* One free block of a page walk: on a list (marked), then unmarked. Heap lock held. */
int slob_heap_check_block(struct page *page, struct slob_hdr *h)
{
	(void)page;
	CHECK(h->info & SLOB_SEEN, "free block %p (%u units) is on no list", (void *)h, h->units);
	h->info &= (uint16_t)~SLOB_SEEN;
	CHECK(h->units >= SLOB_MIN_UNITS, "free block %p of %u units", (void *)h, h->units);
	return 0;
}

/*
 * One page's totals after its walk: its header counts its allocated
 * blocks, it is not empty unless it is the spare; returns the list entries
 * it accounts for (its free blocks).
 */
long slob_heap_check_page(struct page *page, unsigned long free_units, unsigned long free_blocks,
			  unsigned long alloc_blocks)
{
	struct slob_page_hdr *ph = (struct slob_page_hdr *)slob_page_first(page);

	(void)free_units;
	CHECK(ph->hdr.info == SLOB_PAGE_HDR && ph->hdr.units >= SLOB_HDR_UNITS,
	      "page %p: no page header block (info 0x%x, %u units)", (void *)ph, ph->hdr.info,
	      ph->hdr.units);
	CHECK(ph->nr_alloc == alloc_blocks, "page %p: its header counts %u allocated blocks, it "
	      "holds %lu", (void *)ph, ph->nr_alloc, alloc_blocks);
	CHECK(alloc_blocks || page == slob_heap.spare, "page %p: empty, and not the spare",
	      (void *)ph);
	return (long)free_blocks;
}

/* Undo the marks after a failed check (a walk that stopped early). Heap lock held. */
void slob_heap_check_unmark(void)
{
	for (unsigned int c = 0; c < SLOB_NR_CLASSES; c++) {
		struct list_head *head = &slob_heap.cls[c], *l;
		unsigned int n = 0;

		for (l = head->next; l != head && n++ < SLOB_PAGE_UNITS * 1024; l = l->next)
			link_blk(l)->info &= (uint16_t)~SLOB_SEEN;
	}
}

/* slob_heap_show: see slob_def.h. Per class: free blocks, their bytes, the pages holding them. */
void slob_heap_show(void)
{
	static unsigned long blocks[SLOB_NR_CLASSES], bytes[SLOB_NR_CLASSES];
	static unsigned long pages[SLOB_NR_CLASSES];
	static struct page *last[SLOB_NR_CLASSES];
	unsigned long flags = slob_lock(), nr_pages = slob_heap.nr_pages;
	bool spare = slob_heap.spare != NULL;

	for (unsigned int c = 0; c < SLOB_NR_CLASSES; c++) {
		blocks[c] = bytes[c] = pages[c] = 0;
		last[c] = NULL;
	}
	for (struct page *page = slob_next_heap_page(NULL); page; page = slob_next_heap_page(page)) {
		for (struct slob_hdr *h = slob_page_first(page); slob_in_page(h, page);
		     h = slob_next(h)) {
			unsigned int c = h->info & SLOB_CLASS_MASK;

			if (!h->units)
				break;		/* corrupt: kmem_cache_check says more */
			if (!slob_is_free(h))
				continue;
			blocks[c]++;
			bytes[c] += (unsigned long)h->units * SLOB_UNIT;
			pages[c] += last[c] != page;
			last[c] = page;
		}
	}
	slob_unlock(flags);
	printk(SLOB_NAME ": %lu heap pages (%lu kB)%s; free blocks by size class:\n", nr_pages,
	       nr_pages * (PAGE_SIZE / 1024), spare ? ", one kept empty" : "");
	printk(SLOB_NAME ": %5s %13s %8s %10s %6s\n", "class", "block bytes", "blocks",
	       "free bytes", "pages");
	for (unsigned int c = 0; c < SLOB_NR_CLASSES; c++) {
		unsigned long lo = slob_class_lo(c) * SLOB_UNIT, hi = lo;

		if (c >= SLOB_EXACT_CLASSES)
			hi = (c + 1 < SLOB_NR_CLASSES ? slob_class_lo(c + 1) * SLOB_UNIT : lo * 5 / 4) -
			     SLOB_UNIT;
		if (blocks[c])
			printk(SLOB_NAME ": %5u %6lu-%-6lu %8lu %10lu %6lu\n", c, lo, hi, blocks[c],
			       bytes[c], pages[c]);
	}
}
