/*
 * slob_cache.c - SLOB's caches (both forms): their geometry and ids,
 * kmem_cache_create/destroy/shrink, big objects, the slow allocation and
 * free paths, heap pages in and out, the spare, reap and drain, and boot.
 *
 * Geometry: a cache's object is its size rounded up to 8 bytes (16 in the
 * segregated form, whose free blocks need room for their links), followed
 * by an 8-byte red zone with SLAB_RED_ZONE; its block is a header and
 * that, 'units' units, and the caller's pointer is aligned to 'align' (8,
 * the requested alignment, or a cache line's share with SLAB_HWCACHE_ALIGN
 * as SLUB does). Cut from a page with its alignment, a block may need up
 * to align / 8 - 1 units more; that worst case picks the first segregated
 * class a search may use. A cache whose aligned block would not fit a
 * page is big: each object is a buddy block of its own.
 *
 * Ids: each cache takes an id 1..SLOB_MAX_CACHES-1 under slab_caches_lock
 * and keeps it until destroyed; slob_cache_of[id] is read by frees under
 * the heap lock, and changes only while no object of the cache exists.
 *
 * The slow paths: allocations of big, ctor and debug caches (SLOB runs a
 * constructor on every allocation, as Linux's did: a block has no
 * constructed state to keep, its memory may have been any cache's), and
 * every free the fast path did not take: big objects, debug caches (red
 * zone check and poison before the block goes back), objects of a
 * quarantined page (its page->slab_cache is &slob_quarantine_mark: freed
 * from their cache's counts, their memory kept out of use), and anything
 * that is not a live block, which slab_find_head reports and refuses.
 *
 * The spare: one empty heap page kept on the heap (mm/slob/slob_def.h). It goes
 * back to the buddy allocator with kmem_cache_shrink (any cache: the heap
 * is shared), slab_drain_all, and CPU 0's slab_reap when two passes in a
 * row found it empty. Nothing is per CPU, so kmem_cache_drain_local and
 * slab_drain_local_all have nothing to do: they are no-ops. slab_cpu_events
 * counts, per CPU, the page events of the heap (a page made, emptied, given
 * back; a big object's pages) and refused frees.
 *
 * Locks: slab_caches_lock -> heap lock -> zone lock (mm/slob/slob_def.h).
 */
#include "mm/slab_impl.h"
#include "mm/buddy.h"
#include "kernel/printk.h"
#include "kernel/errno.h"
#include "kernel/string.h"
#include "mm/fault_inject.h"

enum slab_state slab_state = SLAB_DOWN;
struct list_head slab_caches = LIST_HEAD_INIT(slab_caches);
struct spinlock slab_caches_lock = SPINLOCK_INIT;
/* The cache of struct kmem_cache; itself static, since nothing can allocate it. */
struct kmem_cache kmem_cache_boot;
struct slob_heap slob_heap;
struct kmem_cache *slob_cache_of[SLOB_MAX_CACHES];
DEFINE_PER_CPU(unsigned long, slob_events);

static unsigned int next_id = 1;	/* where the id search starts; slab_caches_lock */
static unsigned long big_pages;		/* pages of big objects (atomic) */
static unsigned long reap_events;	/* reap passes that gave a page back */

/* slab_cpu_events: see slab.h. */
unsigned long slab_cpu_events(unsigned int cpu)
{
	return __atomic_load_n(per_cpu_ptr(slob_events, cpu), __ATOMIC_RELAXED);
}

/* slab_reap_events: see slab.h. */
unsigned long slab_reap_events(void)
{
	return __atomic_load_n(&reap_events, __ATOMIC_RELAXED);
}

/* slob_big_pages - pages now held by big objects. */
unsigned long slob_big_pages(void)
{
	return __atomic_load_n(&big_pages, __ATOMIC_RELAXED);
}

/* A free id for c, published in slob_cache_of; false when all are taken. */
static bool id_get(struct kmem_cache *c)
{
	unsigned long flags = spin_lock_irqsave(&slab_caches_lock);
	unsigned int id = 0;

	for (unsigned int k = 0; k < SLOB_MAX_CACHES - 1; k++) {
		unsigned int i = 1 + (next_id - 1 + k) % (SLOB_MAX_CACHES - 1);

		if (!slob_cache_of[i]) {
			id = i;
			break;
		}
	}
	if (id) {
		c->id = (uint16_t)id;
		next_id = id % (SLOB_MAX_CACHES - 1) + 1;
		__atomic_store_n(&slob_cache_of[id], c, __ATOMIC_RELEASE);
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return id != 0;
}

static void id_put(struct kmem_cache *c)
{
	unsigned long flags = spin_lock_irqsave(&slab_caches_lock);

	__atomic_store_n(&slob_cache_of[c->id], NULL, __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

/*
 * True when a block of 'size' bytes after its header, aligned to align,
 * fits a fresh page: its one free block starts after the page's header
 * units (slob-seg's page header block), and the object's pointer comes at
 * the first multiple of align with room for the block's header before it.
 * A lead of fewer units before that header is harmless in either form
 * (sequential fit keeps it as a free block, slob-seg gives one or two
 * units to the page header block and keeps three or more free).
 */
static bool fits_page(size_t size, size_t align)
{
	size_t first = ALIGN_UP((size_t)(SLOB_HDR_UNITS + 1) * SLOB_UNIT, align);

	return align < PAGE_SIZE && first + size <= PAGE_SIZE;
}

/* kmem_cache_setup: see mm/slab_common.h. SLOB's (see above): false (reported) on no room. */
bool kmem_cache_setup(struct kmem_cache *c, const char *name, size_t size, size_t align,
		      unsigned int flags, void (*ctor)(void *))
{
	size_t ralign = slab_cache_align(size, align, flags, SLOB_UNIT), usable;

	if (CONFIG_SLAB_DEBUG && !(flags & SLAB_NO_DEBUG))
		flags |= SLAB_DEBUG;
	usable = ALIGN_UP(MAX(size, (size_t)SLOB_UNIT), (size_t)SLOB_UNIT);
	if (SLOB_SEG)
		usable = MAX(usable, (size_t)(SLOB_MIN_UNITS - 1) * SLOB_UNIT);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->ctor = ctor;
	c->align = (unsigned int)ralign;
	c->object_size = (unsigned int)usable;
	c->size = (unsigned int)(usable + (flags & SLAB_RED_ZONE ? SLOB_UNIT : 0));
	c->big = !fits_page(c->size, ralign);
	if (c->big) {
		flags &= ~SLAB_DEBUG;	/* a big object's pages go straight back: nothing to check */
		c->size = c->object_size;
		c->order = get_order(usable);
		if (c->order > MAX_ORDER) {
			printk(SLOB_NAME ": %s: objects of %zu bytes are above the largest block\n",
			       c->name, usable);
			return false;
		}
	} else {
		c->units = 1 + c->size / SLOB_UNIT;
		c->start = slob_heap_start(c->units,
					   c->units + (unsigned int)(ralign / SLOB_UNIT) - 1, &c->fit,
					   &c->exact);
#if SLOB_SEG
		c->exact_head = &slob_heap.cls[c->exact];
		c->exact_word = &slob_heap.map[c->exact / 64];
		c->exact_bit = 1ULL << (c->exact % 64);
		c->free_info = (uint16_t)(SLOB_FREE | c->exact);
#endif
	}
	c->flags = flags;
	c->debug = flags & SLAB_DEBUG;
	c->slow = c->big || c->ctor || c->debug || c->fit;
	c->align_mask = c->align - 1;
#if SLOB_SEG
	c->alloc_head = c->slow ? &slob_no_list : c->exact_head;
#endif
	INIT_LIST_HEAD(&c->list);
	if (!id_get(c)) {
		printk(SLOB_NAME ": %s: all %d cache ids taken (too many caches)\n", c->name,
		       SLOB_MAX_CACHES - 1);
		return false;
	}
	return true;
}

/* The objects of c allocated now. */
static unsigned long cache_inuse(struct kmem_cache *c)
{
	return __atomic_load_n(&c->inuse, __ATOMIC_RELAXED);
}

/* kmem_cache_destroy: see slab.h. */
int kmem_cache_destroy(struct kmem_cache *cachep)
{
	unsigned long flags, live;

	if (!cachep)
		return 0;
	if (!slab_cache_live(cachep)) {
		printk(SLOB_NAME ": kmem_cache_destroy(%p): not a live cache (destroyed already, "
		       "or never made by kmem_cache_create); nothing done\n", (void *)cachep);
		return -EINVAL;
	}
	if (slab_merge_put(cachep))
		return 0;	/* another create still uses it */
	if (cachep == &kmem_cache_boot || cachep == kmalloc_slab(cachep->object_size)) {
		printk(SLOB_NAME ": kmem_cache_destroy(%s): a boot cache cannot be destroyed\n",
		       cachep->name);
		return -EINVAL;
	}
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_del(&cachep->list);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	live = cache_inuse(cachep);
	if (live) {
		printk(SLOB_NAME ": kmem_cache_destroy(%s): %lu objects still allocated; "
		       "cache kept\n", cachep->name, live);
		cachep->dead = true;
		slab_caches_add(cachep);
		return -EBUSY;
	}
	id_put(cachep);
	kmem_cache_free(&kmem_cache_boot, cachep);
	return 0;
}

/* slob_new_page: see slob_def.h. A heap page as one free block (poisoned in debug heaps). */
struct page *slob_new_page(void)
{
	struct page *page = alloc_pages(0);
	struct slob_hdr *h;

	if (!page)
		return NULL;
	page->flags |= PG_slab;
	page->slab_cache = NULL;
	page->private = 0;
	page->freelist = NULL;
	page->active = 0;
	h = page_address(page);
	if (slob_heap.poison)
		slob_poison(h + 1, (char *)h + PAGE_SIZE);
	slob_set_hdr(h, SLOB_PAGE_UNITS, 0, SLOB_FREE | (slob_heap.poison ? SLOB_POISONED : 0));
	slob_heap.nr_pages++;
	this_cpu_inc(slob_events);
	return page;
}

/*
 * slob_release_page - give a page the heap no longer holds (its counters
 * already say so) back to the buddy allocator. No header stays valid in it.
 */
void slob_release_page(struct page *page)
{
	struct slob_hdr *h = page_address(page);

	h->info = SLOB_DEAD;
	h->tag = (uint16_t)~slob_tag(h);
	page->slab_cache = NULL;
	page->private = 0;
	page->freelist = NULL;
	page->active = 0;
	page->flags &= ~PG_slab;	/* free_pages refuses a live slab page */
	this_cpu_inc(slob_events);
	free_pages(page, 0);
}

/* A big object: its own buddy block, the head page naming the cache. */
static void *big_alloc(struct kmem_cache *c)
{
	struct page *page = alloc_pages(c->order);

	if (!page)
		return NULL;
	page->flags |= PG_slab;
	page->slab_cache = c;
	page->private = 0;
	__atomic_fetch_add(&c->inuse, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&big_pages, 1UL << c->order, __ATOMIC_RELAXED);
	this_cpu_inc(slob_events);
	return page_address(page);
}

static void big_free(struct kmem_cache *c, struct page *page)
{
	page->slab_cache = NULL;
	page->flags &= ~PG_slab;	/* free_pages refuses a live slab page */
	__atomic_fetch_sub(&c->inuse, 1, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&big_pages, 1UL << c->order, __ATOMIC_RELAXED);
	this_cpu_inc(slob_events);
	stat(c, shared.frees, 1);
	free_pages(page, c->order);
}

/* slob_alloc_slow: see slob_def.h. Big, ctor and debug caches. */
void *slob_alloc_slow(struct kmem_cache *c)
{
	unsigned int skip = 0;
	bool pois = false;
	void *p;

	if (c->big) {
		p = big_alloc(c);
	} else {
		unsigned long flags = slob_lock();

		p = slob_heap_alloc(c);
		if (p) {
			pois = slob_heap.last_poisoned;
			skip = slob_heap.last_skip;
		}
		slob_unlock(flags);
		if (p && c->debug)
			slob_debug_alloc(c, p, pois, skip);
	}
	if (!p)
		return NULL;
	stat(c, shared.allocs, 1);
	if (c->ctor)
		c->ctor(p);
	return p;
}

/*
 * slob_free_slow: see slob_def.h. Checks p in full; reports and refuses a
 * bad one. Damage found on the way quarantines p's page (slab_find_head, or
 * slob_heap_free here); a live object of a quarantined page is freed from
 * its cache's counts, its memory kept out of use (mm/slob/slob_quarantine.c).
 */
void slob_free_slow(struct kmem_cache *c, void *p, const char *fn)
{
	struct kmem_cache *owner;
	const char *what = NULL;
	unsigned long flags;
	struct slob_hdr *b;
	struct page *page;

	if (unlikely(!p))
		return;
	page = slab_find_head(c, p, fn);
	if (!page)
		return;
	if (page->slab_cache && !slob_page_quarantined(page)) {
		big_free(page->slab_cache, page);
		return;
	}
	b = (struct slob_hdr *)p - 1;
	flags = slob_lock();
	if (slob_page_quarantined(page)) {
		owner = slob_quarantined_owner(p, &what);
	} else {
		owner = b->info - 1U < SLOB_MAX_CACHES - 1 ? slob_cache_of[b->info] : NULL;
		if (b->tag != slob_tag(b) || !owner)
			what = "double free (freed meanwhile)";
	}
	if (unlikely(!owner || (c && c != owner))) {
		slob_unlock(flags);
		slab_bad_free(c, fn, p, what ? what : "double free (freed meanwhile)");
		return;
	}
	if (slob_page_quarantined(page)) {
		slob_quarantined_free(owner, p);
	} else {
		if (owner->debug)
			slob_debug_free(owner, p, fn);	/* red zone checked, body poisoned */
		/*
		 * Freed here unless the block is damaged. A page that emptied
		 * may still be quarantined by it (a broken link met as its
		 * blocks leave the lists): p is freed already then.
		 */
		what = slob_heap_free(page, b, owner);
		if (unlikely(what)) {		/* nothing freed: the page is damaged */
			slob_quarantine(page, owner, fn, p, what, b);
			slob_quarantined_free(owner, p);
		}
	}
	slob_unlock(flags);
	stat(owner, shared.frees, 1);
}

/* slab_obj_size: see slob_def.h. p was checked by slab_find_head. */
size_t slab_obj_size(const struct page *page, const void *p)
{
	return slab_obj_cache(page, p)->object_size;
}

/*
 * slab_obj_cache: see slob_def.h. p was checked by slab_find_head: a big
 * object, or a heap block whose header names its cache (a quarantined
 * page's live object too, its id marked).
 */
struct kmem_cache *slab_obj_cache(const struct page *page, const void *p)
{
	if (page->slab_cache && !slob_page_quarantined(page))
		return page->slab_cache;
	return slob_cache_of[((const struct slob_hdr *)p - 1)->info & SLOB_ID_MASK];
}

/* kmem_cache_alloc: see slab.h. */
void *kmem_cache_alloc(struct kmem_cache *cachep)
{
	if (CONFIG_SLAB_DEBUG && unlikely(slab_cache_refused(cachep, "kmem_cache_alloc", true)))
		return NULL;
	if (unlikely(fault_attr_on(&failslab)))
		return slab_alloc_failslab(cachep);
	return slob_alloc(cachep);
}

/*
 * kmem_cache_alloc_node: see slab.h. SLOB's heap serves every node, as
 * Linux's SLOB did: the node is checked, then not used.
 */
void *kmem_cache_alloc_node(struct kmem_cache *cachep, unsigned int node)
{
	(void)slab_node_arg(cachep, node, "kmem_cache_alloc_node");
	return kmem_cache_alloc(cachep);
}

/* kmem_cache_free: see slab.h. */
void kmem_cache_free(struct kmem_cache *cachep, void *objp)
{
	if (CONFIG_SLAB_DEBUG && unlikely(slab_free_cache_refused(cachep, objp)))
		return;
	if (unlikely(!cachep && objp))
		kmem_cache_free_no_cache(objp);	/* reported, kept */
	else if (objp)
		slob_free(cachep, objp, "kmem_cache_free");
}

/* Give the spare back if it is still empty; true if a page went. */
static bool release_spare(void)
{
	unsigned long flags = slob_lock();
	struct page *spare = slob_heap_take_spare();

	slob_unlock(flags);
	if (spare)
		slob_release_page(spare);
	return spare != NULL;
}

/* kmem_cache_shrink: see slab.h. The heap is shared: any cache's shrink frees the spare. */
int kmem_cache_shrink(struct kmem_cache *cachep)
{
	if (slab_cache_refused(cachep, "kmem_cache_shrink", CONFIG_SLAB_DEBUG))
		return -EINVAL;
	release_spare();
	return cache_inuse(cachep) ? 1 : 0;
}

/* kmem_cache_drain_local: see slab.h. SLOB caches nothing per CPU: only the cache is checked. */
void kmem_cache_drain_local(struct kmem_cache *cachep)
{
	slab_cache_refused(cachep, "kmem_cache_drain_local", CONFIG_SLAB_DEBUG);
}

/* slab_drain_local_all: see slab.h. Nothing per CPU: nothing to do. */
void slab_drain_local_all(void)
{
}

/* slab_reap: see slab.h. CPU 0's passes age the spare; the second in a row frees it. */
void slab_reap(void)
{
	unsigned long flags = arch_irq_save();
	struct page *spare = NULL;

	if (slab_state == SLAB_UP && smp_processor_id() == 0 &&
	    slob_trylock()) {
		if (slob_heap.spare && ++slob_heap.spare_age >= 2)
			spare = slob_heap_take_spare();
		__atomic_store_n(&slob_heap.locked, 0, __ATOMIC_RELEASE);
	}
	if (spare) {
		slob_release_page(spare);
		__atomic_fetch_add(&reap_events, 1, __ATOMIC_RELAXED);
	}
	arch_irq_restore(flags);
}

/* slab_drain_all: see slab.h. The spare goes, then every CPU's page list. */
void slab_drain_all(void)
{
	release_spare();
	drain_all_pages();
}

/* kmem_cache_init: see slab.h. */
void kmem_cache_init(void)
{
	ASSERT(slab_state == SLAB_DOWN);
	slob_heap_init();
	slob_heap.poison = CONFIG_SLAB_DEBUG;
	if (!kmem_cache_setup(&kmem_cache_boot, "kmem_cache", sizeof(struct kmem_cache),
			      __alignof__(struct kmem_cache), 0, NULL))
		panic(SLOB_NAME ": cannot lay out the kmem_cache cache");
	slab_caches_add(&kmem_cache_boot);
	slab_state = SLAB_PARTIAL;
	kmalloc_caches_init();
	slab_state = SLAB_KMALLOC;
	slab_state = SLAB_UP;
	slab_layout_show();
}
