/*
 * slob_seg_check.c - SLOB-seg's consistency checks: kmem_cache_check's walk
 * of the class lists (each node a free block of its class in a heap page,
 * linked both ways, on one list only; each link checked before it is
 * followed), the report of a damaged block (a broken link, a size that
 * disagrees) and the quarantine of its page with the lists rebuilt from
 * the other pages, the debug builds' full check of a block's links before
 * it is taken off its list, and the heap's table for slabinfo. Everything
 * runs under the heap lock (slob_heap_show takes it); the layout and
 * invariants are mm/slob/slob_seg.c's.
 */
#include "mm/slob/slob_seg.h"
#include "kernel/printk.h"
#include "kernel/string.h"

/*
 * l is a node of class c's list: its head, or the links of a free block of
 * class c in a heap page (not a quarantined one), each word of it in RAM.
 * Safe on any pointer: nothing is read before the address is checked.
 */
static bool cls_node_valid(const struct list_head *l, unsigned int c)
{
	const struct slob_hdr *h = link_blk((struct list_head *)l);
	const struct page *page;

	if (l == &slob_heap.cls[c])
		return true;
	if (((uintptr_t)h & (SLOB_UNIT - 1)) || !virt_addr_valid(h) ||
	    !virt_addr_valid((const char *)l + sizeof(*l) - 1))
		return false;
	page = virt_to_page(h);
	return (page->flags & PG_slab) && !page->slab_cache && h->tag == slob_tag(h) &&
	       slob_is_free(h) && cls_of(h) == c;
}

/* slob_seg_rebuild: see slob_seg.h. Each page's blocks as far as they tile it. */
void slob_seg_rebuild(void)
{
	for (unsigned int c = 0; c < SLOB_NR_CLASSES; c++)
		INIT_LIST_HEAD(&slob_heap.cls[c]);
	for (unsigned int w = 0; w < SLOB_MAP_WORDS; w++)
		slob_heap.map[w] = 0;
	for (struct page *page = slob_next_heap_page(NULL); page; page = slob_next_heap_page(page)) {
		for (struct slob_hdr *h = slob_page_first(page); slob_in_page(h, page) && h->units &&
		     slob_off(h) + h->units <= SLOB_PAGE_UNITS && h->tag == slob_tag(h);
		     h = slob_next(h)) {
			unsigned int nc = slob_class(h->units);

			if (!slob_is_free(h) || h->units < SLOB_MIN_FREE_UNITS)
				continue;
			h->info = (uint16_t)(SLOB_FREE | (h->info & SLOB_POISONED) | nc);
			cls_add(h, nc);
		}
	}
}

/*
 * What is wrong with free block h's place on list c (NULL: nothing), and
 * the offset from the block's body of the bad link: debug builds check
 * both neighbours in full, others that each link leads back.
 */
static const char *cls_node_fault(struct slob_hdr *h, unsigned int c, unsigned int *off)
{
	struct list_head *head = &slob_heap.cls[c], *l = blk_link(h);

	*off = 0;
	if (CONFIG_SLAB_DEBUG && !cls_node_valid(l, c))
		return "the block on the list is not a free block of its class";
	if (!next_ok(l->next, l, head) || (CONFIG_SLAB_DEBUG && !cls_node_valid(l->next, c)))
		return "its next link does not lead to a free block of its class that links back";
	*off = sizeof(void *);
	if (!prev_ok(l->prev, l, head) || (CONFIG_SLAB_DEBUG && !cls_node_valid(l->prev, c)))
		return "its prev link does not lead back to it";
	return NULL;
}

/* Node n of list c (not its head) is linked both ways with the node its prev (next: 'fwd') names. */
static bool linked(struct list_head *n, unsigned int c, bool fwd)
{
	struct list_head *head = &slob_heap.cls[c], *o = fwd ? n->next : n->prev;

	return (fwd ? next_ok(o, n, head) : prev_ok(o, n, head)) && cls_node_valid(o, c);
}

/*
 * slob_seg_damaged: see slob_seg.h. A broken link is mostly a write after
 * free into a block's first 16 bytes, which hold it (the poison check
 * skips them). When h's next (prev) link leads to a free block of the
 * class that is linked right on its other side, that block's prev (next)
 * link is the broken one, and its page is quarantined. Else h's size, or
 * the block left of it that a cut gives a sliver to.
 */
void slob_seg_damaged(struct kmem_cache *c, const char *fn, struct slob_hdr *h, unsigned int cls)
{
	struct list_head *head = &slob_heap.cls[cls], *l = blk_link(h);
	const struct slob_hdr *left;
	unsigned int off, end;
	const char *fault;
	char what[176];

	if (!next_ok(l->next, l, head) && l->next != head && cls_node_valid(l->next, cls) &&
	    !linked(l->next, cls, false)) {
		h = link_blk(l->next);
		off = sizeof(void *);
		fault = "its prev link does not lead back to the block before it";
	} else if (!prev_ok(l->prev, l, head) && l->prev != head && cls_node_valid(l->prev, cls) &&
		   !linked(l->prev, cls, true)) {
		h = link_blk(l->prev);
		off = 0;
		fault = "its next link does not lead to the block after it";
	} else {
		fault = cls_node_fault(h, cls, &off);
	}
	left = slob_prev(h);
	end = slob_off(h) + h->units;

	if (fault)
		snprintf(what, sizeof(what), "freelist corrupt at offset %u: %s (class %u)", off,
			 fault, cls);
	else if (end > SLOB_PAGE_UNITS || (end < SLOB_PAGE_UNITS && slob_next(h)->prev != h->units))
		snprintf(what, sizeof(what), "heap corrupt: the free block's size (%u units) "
			 "disagrees with its page or the block after it (its header overwritten)",
			 h->units);
	else if (h->prev && h->prev <= slob_off(h) && left->units == h->prev && slob_is_free(left))
		snprintf(what, sizeof(what), "freelist corrupt: the free block before it (%p) "
			 "has a broken link", (const void *)left);
	else
		snprintf(what, sizeof(what), "heap corrupt: the free block's boundary tag (%u "
			 "units) disagrees with the block before it", h->prev);
	slob_quarantine(virt_to_page(h), c, fn, h + 1, what, NULL);
}

#if CONFIG_SLAB_DEBUG
/* slob_seg_cls_check: see slob_seg.h. */
bool slob_seg_cls_check(struct kmem_cache *c, const char *fn, struct slob_hdr *h, unsigned int cls)
{
	unsigned int off;

	if (likely(!cls_node_fault(h, cls, &off)))
		return false;
	slob_seg_damaged(c, fn, h, cls);
	return true;
}
#endif

/*
 * A check of free block h (in a heap page) on a class list: on failure,
 * reported, h's page quarantined (the lists rebuilt without it: the marks
 * go too), -1.
 */
#define NODE_CHECK(h, cond, fmt, ...)                                                \
	do {                                                                         \
		if (unlikely(!(cond))) {                                             \
			printk(SLOB_NAME ": check failed: " fmt "\n", ##__VA_ARGS__); \
			slob_quarantine(virt_to_page(h), NULL, "kmem_cache_check",   \
					(h) + 1, "a free block's header failed the heap " \
					"check", NULL);                              \
			return -1;                                                   \
		}                                                                    \
	} while (0)

/*
 * A broken link of free block h (class c) in the check: reported, and h's
 * page quarantined (the lists rebuilt without it); -1.
 */
static int link_fault(struct slob_hdr *h, unsigned int c, const char *which)
{
	char what[128];

	printk(SLOB_NAME ": check failed: class %u: free block %p: its %s link does not lead to "
	       "a free block of its class that links back\n", c, (void *)h, which);
	snprintf(what, sizeof(what), "freelist corrupt at offset %u: its %s link is broken "
		 "(class %u)", which[0] == 'n' ? 0U : (unsigned int)sizeof(void *), which, c);
	slob_quarantine(virt_to_page(h), NULL, "kmem_cache_check", h + 1, what, NULL);
	return -1;
}

/*
 * slob_heap_check_lists: see slob_def.h. Walks every list (each
 * node a free block of a heap page with that class, linked both ways,
 * none twice: marked SLOB_SEEN) and sets 'listed' to the nodes found;
 * slob_heap_check_block then finds each free block marked, and unmarks it.
 * Each link is checked (cls_node_valid, and that it leads back) before it
 * is followed: a broken one quarantines its block's page.
 */
int slob_heap_check_lists(unsigned long *listed)
{
	unsigned long n = 0;

	for (unsigned int c = 0; c < SLOB_NR_CLASSES; c++) {
		struct list_head *head = &slob_heap.cls[c], *l;
		bool bit = slob_heap.map[c / 64] & (1ULL << (c % 64));

		SLOB_CHECK(bit == !list_empty(head), "class %u: map bit %d, list %s", c, bit,
			   list_empty(head) ? "empty" : "not empty");
		for (l = head->next; l != head; l = l->next) {
			struct slob_hdr *h = link_blk(l);
			struct page *page;

			/* the list's first node comes from its head; each next one passed below */
			SLOB_CHECK(virt_addr_valid(h), "class %u: node %p outside RAM", c, (void *)h);
			page = virt_to_page(h);
			SLOB_CHECK((page->flags & PG_slab) && !page->slab_cache,
				   "class %u: node %p not in a heap page", c, (void *)h);
			NODE_CHECK(h, h->tag == slob_tag(h) && slob_is_free(h) && !(h->info & SLOB_SEEN),
				   "class %u: node %p: header info 0x%x tag %s%s", c, (void *)h, h->info,
				   h->tag == slob_tag(h) ? "ok" : "bad",
				   h->info & SLOB_SEEN ? " (on a list twice)" : "");
			NODE_CHECK(h, (h->info & SLOB_CLASS_MASK) == c && slob_class(h->units) == c,
				   "free block %p of %u units (class %u) on list %u, its info says %u",
				   (void *)h, h->units, slob_class(h->units), c,
				   h->info & SLOB_CLASS_MASK);
			if (!next_ok(l->next, l, head) || !cls_node_valid(l->next, c))
				return link_fault(h, c, "next");
			if (!prev_ok(l->prev, l, head) || !cls_node_valid(l->prev, c))
				return link_fault(h, c, "prev");
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
	SLOB_CHECK(h->info & SLOB_SEEN, "free block %p (%u units) is on no list", (void *)h, h->units);
	h->info &= (uint16_t)~SLOB_SEEN;
	SLOB_CHECK(h->units >= SLOB_MIN_UNITS, "free block %p of %u units", (void *)h, h->units);
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
	SLOB_CHECK(ph->hdr.info == SLOB_PAGE_HDR && ph->hdr.units >= SLOB_HDR_UNITS,
		   "page %p: no page header block (info 0x%x, %u units)", (void *)ph, ph->hdr.info,
		   ph->hdr.units);
	SLOB_CHECK(ph->nr_alloc == alloc_blocks,
		   "page %p: its header counts %u allocated blocks, it "
		   "holds %lu",
		   (void *)ph, ph->nr_alloc, alloc_blocks);
	SLOB_CHECK(alloc_blocks || page == slob_heap.spare, "page %p: empty, and not the spare",
		   (void *)ph);
	return (long)free_blocks;
}

/*
 * Undo the marks after a failed check (a walk that stopped early): every
 * free block of the heap pages, as far as they tile them (no link
 * followed). Heap lock held.
 */
void slob_heap_check_unmark(void)
{
	for (struct page *page = slob_next_heap_page(NULL); page; page = slob_next_heap_page(page))
		for (struct slob_hdr *h = slob_page_first(page); slob_in_page(h, page) && h->units &&
		     slob_off(h) + h->units <= SLOB_PAGE_UNITS; h = slob_next(h))
			if (slob_is_free(h))
				h->info &= (uint16_t)~SLOB_SEEN;
}

/* slob_heap_show: see slob_def.h. Per class: free blocks, their bytes, the pages holding them. */
void slob_heap_show(void)
{
	static unsigned long blocks[SLOB_NR_CLASSES], bytes[SLOB_NR_CLASSES];
	static unsigned long pages[SLOB_NR_CLASSES];
	static struct page *last[SLOB_NR_CLASSES];
	unsigned long flags = slob_lock(), nr_pages = slob_heap.nr_pages;
	unsigned long quarantined = slob_heap.quarantined;
	bool spare = slob_heap.spare != NULL;

	for (unsigned int c = 0; c < SLOB_NR_CLASSES; c++) {
		blocks[c] = bytes[c] = pages[c] = 0;
		last[c] = NULL;
	}
	for (struct page *page = slob_next_heap_page(NULL); page; page = slob_next_heap_page(page)) {
		for (struct slob_hdr *h = slob_page_first(page); slob_in_page(h, page);
		     h = slob_next(h)) {
			unsigned int c = h->info & SLOB_CLASS_MASK;

			if (!h->units || slob_off(h) + h->units > SLOB_PAGE_UNITS)
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
	if (quarantined)
		printk(SLOB_NAME ": %lu damaged pages quarantined (out of the heap, not reused)\n",
		       quarantined);
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
