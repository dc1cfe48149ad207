/*
 * slob_info.c - SLOB's reports (both forms) and kmem_cache_check(), the
 * heap's invariant walk of the tests.
 *
 * slabinfo: Linux's SLOB printed none; Quarry prints the caches in the
 * 2.1 format as far as it means something, then the heap's own table.
 * Per cache: active_objs = num_objs = objects allocated (no cache holds
 * free objects); objsize = the usable bytes (object_size, as SLAB prints
 * kmalloc-32 as 32); objperslab = how many of its blocks a page holds when
 * cut one after another with their alignment (a big cache: 1);
 * pagesperslab = 1 (a big cache: its pages per object); tunables 0 0 0;
 * slabdata active_slabs = num_slabs = the pages its objects would fill at
 * that rate, rounded up (a big cache: its objects), sharedavail 0. The
 * pages are shared, so the rows do not add up to "Slab:": that is the
 * heap's pages (the spare included) and big objects' pages. Then the form's
 * table (slob_heap_show): the three lists' pages, free bytes and free
 * blocks (slob), or each size class's free blocks, bytes and pages
 * (slob-seg).
 *
 * kmem_cache_check holds the heap lock throughout (the heap is shared, so
 * it checks all of it) and verifies: the form's lists (slob_heap_check_lists);
 * every heap page in mem_map: its blocks tile it, each header with its
 * address's tag, prev equal to the block before's units, a live cache id
 * or free (never two free blocks side by side), a poisoned free block's
 * body intact; the form's per-block and per-page checks; the list entries
 * the pages account for equal what the lists hold; nr_pages equal to the
 * heap pages found, the spare one of them; c's objects: blocks with its id
 * (big caches: head pages naming it) and those left in quarantined pages
 * (c->quarantined) equal to c->inuse. Quarantined pages are not walked
 * (mm/slob/slob_quarantine.c); a page that fails the walk is reported, then
 * quarantined itself, so the next check passes unless something else is
 * wrong. The form's list walk checks each link before it follows it.
 * O(mem_map + heap blocks): for tests. Lock order: slab_caches_lock -> heap
 * lock -> console.
 */
#include "mm/slab_impl.h"
#include "kernel/printk.h"
#include "kernel/string.h"

unsigned long slob_big_pages(void);

/* The bytes one of c's blocks takes when cut one after another: units rounded to the alignment. */
static unsigned long stride(const struct kmem_cache *c)
{
	return ALIGN_UP((unsigned long)c->units * SLOB_UNIT, (unsigned long)c->align);
}

/* kmem_cache_slabinfo: see mm/slab_impl.h and above. */
void kmem_cache_slabinfo(struct kmem_cache *cachep, struct slabinfo *si)
{
	struct kmem_cache *c = cachep;
	unsigned long inuse = __atomic_load_n(&c->inuse, __ATOMIC_RELAXED);
	unsigned long per = c->big ? 1 : PAGE_SIZE / stride(c);
	unsigned long slabs = c->big ? inuse : DIV_ROUND_UP(inuse, per);

	*si = (struct slabinfo){ .active_objs = inuse, .num_objs = inuse,
				 .objsize = c->object_size, .objperslab = (unsigned int)per,
				 .pagesperslab = c->big ? 1U << c->order : 1,
				 .active_slabs = slabs, .num_slabs = slabs };
}

/* slab_alloc_tables_show: see mm/slab_impl.h. The heap's table (slob_heap_show). */
void slab_alloc_tables_show(void)
{
	slob_heap_show();
}

/* kmem_cache_usage: see slab.h. The heap's pages are shared: only big objects' count. */
void kmem_cache_usage(struct kmem_cache *cachep, struct slab_usage *u)
{
	u->objs = __atomic_load_n(&cachep->inuse, __ATOMIC_RELAXED);
	u->pages = cachep->big ? u->objs << cachep->order : 0;
	u->internal = false;
}

/* slab_total_pages: see slab.h. The heap's pages, quarantined pages and big objects' pages. */
unsigned long slab_total_pages(void)
{
	return READ_ONCE(slob_heap.nr_pages) + READ_ONCE(slob_heap.quarantined) + slob_big_pages();
}

/* slab_layout_show: see slab.h. */
void slab_layout_show(void)
{
	struct kmem_cache *c;
	unsigned long flags;

	printk(SLOB_NAME ": one heap of %s pages, blocks with an 8-byte header; %s\n",
	       PAGE_SIZE_NAME, SLOB_SEG ? "free blocks on 96 size-class lists" :
					  "sequential fit, small/medium/large page lists");
	printk(SLOB_NAME ": %-17s %6s %6s %5s %6s %6s %s\n", "cache", "size", "block", "align",
	       SLOB_SEG ? "class" : "list", "per-pg", "flags");
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(c, &slab_caches, list) {
		if (c->big)
			printk(SLOB_NAME ": %-17s %6u %6s %5u %6s %6s big order %u%s\n", c->name,
			       c->object_size, "-", c->align, "-", "-", c->order,
			       c->dead ? " dead" : "");
		else
			printk(SLOB_NAME ": %-17s %6u %6u %5u %6u %6lu%s%s%s%s\n", c->name,
			       c->object_size, c->units * SLOB_UNIT, c->align, c->start,
			       PAGE_SIZE / stride(c), c->flags & SLAB_RED_ZONE ? " redzone" : "",
			       c->flags & SLAB_POISON ? " poison" : "", c->ctor ? " ctor" : "",
			       c->dead ? " dead" : "");
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

/* kmem_cache_locks_reset: see mm/slab_impl.h. the heap lock is not a kernel spinlock: nothing to zero. */
void kmem_cache_locks_reset(struct kmem_cache *c)
{
	(void)c;
}

/* kmem_cache_stats_own: see mm/slab_impl.h. */
void kmem_cache_stats_own(struct kmem_cache *c, char *buf, size_t len)
{
	const struct kmem_cache_stats *t = &c->stats;

	snprintf(buf, len, "scanned pages %lu blocks %lu; split %lu merge %lu", t->pages_scanned,
		 t->blocks_scanned, t->splits, t->merges);
}

/* slob_next_heap_page: see slob_def.h. */
struct page *slob_next_heap_page(struct page *after)
{
	unsigned long pfn = after ? page_to_pfn(after) + 1 : PFN_OFFSET;

	for (; pfn < max_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);

		if ((READ_ONCE(page->flags) & PG_slab) && !READ_ONCE(page->slab_cache))
			return page;
	}
	return NULL;
}

/* The whole body of a poisoned free block but its header (and links): poison. */
static int check_poison(struct slob_hdr *h)
{
	char *from = (char *)(h + 1) + (SLOB_SEG ? sizeof(struct list_head) : 0);
	long at = slob_poison_broken(from, slob_next(h));

	SLOB_CHECK(at < 0,
		   "poisoned free block %p (%u units): poison broken at byte %ld of it "
		   "(a write after free)",
		   (void *)h, h->units, at + (from - (char *)h));
	return 0;
}

/* One heap page: its blocks (see above); adds its blocks of c and its list entries. */
static int check_page(struct page *page, struct kmem_cache *c, unsigned long *mine,
		      long *entries)
{
	struct slob_hdr *h = slob_page_first(page);
	unsigned long free_units = 0, free_blocks = 0, alloc_blocks = 0, sum = 0;
	unsigned int prev = 0;
	bool prev_free = false;
	long e;

	SLOB_CHECK(!(page->flags & (PG_buddy | PG_pcp | PG_reserved | PG_large)) &&
		       (page->flags & PG_head) && page->order == 0,
		   "heap page %p: flags 0x%lx order %u", (void *)h, page->flags, page->order);
	while (slob_in_page(h, page)) {
		SLOB_CHECK(h->tag == slob_tag(h),
			   "page %p: header at +%u has a bad tag (not where a "
			   "block starts, or overwritten)",
			   (void *)page_address(page), slob_off(h) * SLOB_UNIT);
		SLOB_CHECK(h->units >= (slob_is_free(h) ? SLOB_MIN_FREE_UNITS :
					h->info == SLOB_PAGE_HDR ? 2 : SLOB_MIN_UNITS) &&
			       slob_off(h) + h->units <= SLOB_PAGE_UNITS,
			   "block %p: %u units at unit %u of the page", (void *)h, h->units,
			   slob_off(h));
		SLOB_CHECK(h->prev == prev, "block %p: prev %u, the block before has %u units",
			   (void *)h, h->prev, prev);
		if (slob_is_free(h)) {
			SLOB_CHECK(!prev_free || SLOB_SEG,
				   "free blocks side by side at %p (not "
				   "coalesced)",
				   (void *)h);
			if ((h->info & SLOB_POISONED) && check_poison(h))
				return -1;
			if (slob_heap_check_block(page, h))
				return -1;
			free_units += h->units;
			free_blocks++;
		} else if (SLOB_SEG && h == slob_page_first(page)) {
			SLOB_CHECK(h->info == SLOB_PAGE_HDR,
				   "page %p starts with info 0x%x, not its "
				   "page header",
				   (void *)h, h->info);
		} else {
			SLOB_CHECK(h->info - 1U < SLOB_MAX_CACHES - 1 && slob_cache_of[h->info],
				   "block %p: info 0x%x is no live cache", (void *)h, h->info);
			*mine += h->info == c->id;
			alloc_blocks++;
		}
		prev_free = slob_is_free(h);
		prev = h->units;
		sum += h->units;
		h = slob_next(h);
	}
	SLOB_CHECK(sum == SLOB_PAGE_UNITS, "page %p: blocks of %lu units", page_address(page), sum);
	e = slob_heap_check_page(page, free_units, free_blocks, alloc_blocks);
	if (e < 0)
		return -1;
	*entries += e;
	return 0;
}

/* The whole heap (see above). Heap lock held. */
static int check_heap(struct kmem_cache *c, unsigned long *mine)
{
	unsigned long listed, pages = 0;
	bool spare_found = !slob_heap.spare;
	long entries = 0;

	if (slob_heap_check_lists(&listed))
		return -1;
	for (struct page *page = slob_next_heap_page(NULL); page;
	     page = slob_next_heap_page(page)) {
		if (check_page(page, c, mine, &entries)) {
			slob_quarantine(page, NULL, "kmem_cache_check", page_address(page),
					"the page failed the heap check", NULL);
			return -1;
		}
		pages++;
		spare_found |= page == slob_heap.spare;
	}
	SLOB_CHECK((unsigned long)entries == listed, "the lists hold %lu entries, the pages %ld",
		   listed, entries);
	SLOB_CHECK(pages == slob_heap.nr_pages, "%lu heap pages in mem_map, nr_pages %lu", pages,
		   slob_heap.nr_pages);
	SLOB_CHECK(spare_found, "the spare %p is no heap page", (void *)slob_heap.spare);
	return 0;
}

/* A big cache: its head pages in mem_map. */
static int check_big(struct kmem_cache *c, unsigned long *mine)
{
	for (unsigned long pfn = PFN_OFFSET; pfn < max_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);

		if (!(page->flags & PG_slab) || page->slab_cache != c)
			continue;
		SLOB_CHECK((page->flags & PG_head) && page->order == c->order,
			   "%s: big object %p: flags 0x%lx order %u", c->name, page_address(page),
			   page->flags, page->order);
		(*mine)++;
	}
	return 0;
}

/* kmem_cache_check: see slab.h and above. */
int kmem_cache_check(struct kmem_cache *cachep)
{
	struct kmem_cache *c = cachep;
	unsigned long flags, hflags, mine = 0;
	int ret;

	flags = spin_lock_irqsave(&slab_caches_lock);
	hflags = slob_lock();
	ret = check_heap(c, &mine);
	if (ret)
		slob_heap_check_unmark();
	if (!ret && c->big) {
		mine = 0;
		ret = check_big(c, &mine);
	}
	if (!ret && (mine + c->quarantined != c->inuse || slob_cache_of[c->id] != c)) {
		printk(SLOB_NAME ": %s: check failed: %lu objects found, %lu in quarantined pages, "
		       "inuse %lu (id %u%s)\n", c->name, mine, c->quarantined, c->inuse, c->id,
		       slob_cache_of[c->id] == c ? "" : " not its own");
		ret = -1;
	}
	slob_unlock(hflags);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return ret;
}

/* kmem_cache_slabinfo_node: see mm/slab_impl.h. SLOB's heap is one for every node: no account. */
bool kmem_cache_slabinfo_node(struct kmem_cache *cachep, unsigned int node, struct slabinfo *si)
{
	(void)cachep;
	(void)node;
	(void)si;
	return false;
}
