/*
 * slab.c - SLAB caches and their slabs: creation, growing a cache, the
 * node's slab lists, shrinking and destroying, boot.
 *
 * Data structures (mm/slab/slab_def.h): a cache's slabs hang on their home
 * node's lists slabs_full / slabs_partial / slabs_free by their head page's
 * lru link, sorted by page->active (== num, in between, == 0); the home is
 * the CPU that made the slab. Invariants, under that node's list_lock: each
 * slab is on exactly the list its 'active' names, of its home node;
 * total_slabs, free_slabs and free_objects equal what the lists hold;
 * freelist[active..num-1] are the distinct indexes of the slab's free
 * objects; every page of a slab has PG_slab, slab_cache, private = head and
 * the head's s_mem;
 * s_mem is the caller's pointer to object 0 (past its red zone, if any).
 * Objects in per-CPU or shared arrays count as in use from the slab's view.
 *
 * Layout (chosen in mm/slab/slab_layout.c): objects from the slab's first byte,
 * the index array after them, off the slab, or inside a free object
 * (IN_OBJ). For IN_OBJ the array lives in object freelist[num-1]:
 * allocation takes that object last, when the slab becomes full and the
 * array is not needed (page->freelist becomes NULL); the first object freed
 * into a full slab becomes the array's new home and its index is written at
 * freelist[num-1], inside itself.
 *
 * Locking: a node's list_lock is taken with interrupts off, here always with
 * spin_lock() after the caller disabled them or with spin_lock_irqsave().
 * A new slab is private to its maker until cache_grow_end() publishes it.
 * Pages go back to the buddy allocator, and off-slab freelists back to
 * their cache, only after the node lock is dropped (slabs_release()).
 * slab_caches_lock (interrupts off) covers the list of caches; slab_reap()
 * walks it, so a cache leaves the list before its arrays are torn down.
 *
 * Departures from Linux: no slab colouring, alien caches per CPU (mm/slab/slab_def.h),
 * no gfp flags: nothing
 * here sleeps, and allocation runs with interrupts off throughout. Giving
 * objects back to a slab checks each against the top of its free stack
 * (the free mark, mm/slab/slab_def.h, has looked for double frees before).
 */
#include "mm/slab_impl.h"
#include "mm/buddy.h"
#include "kernel/printk.h"
#include "kernel/errno.h"
#include "kernel/string.h"

struct slab_cache_map slab_cache_map;
struct kmem_cache slab_cache_none = { .name = "(no slab)" };	/* obj_bound 0 */

/*
 * slab_cache_map_alloc - slab_cache_map from the buddy allocator, every
 * word &slab_cache_none,
 * a word per page of mem_map, or as many as a MAX_ORDER block holds (4 MiB:
 * 2 GiB of RAM at 4K pages, 32 GiB at 64K); slabs past it are freed by the
 * slow paths. Boot (or a host test's fresh arena) only.
 */
static void slab_cache_map_alloc(void)
{
	unsigned long nr = MIN(mem_map_entries(), (PAGE_SIZE << MAX_ORDER) / sizeof(void *));
	struct page *page = alloc_pages(get_order(nr * sizeof(void *)));

	if (!page)
		panic("slab: no %lu kB for slab_cache_map", nr * sizeof(void *) >> 10);
	slab_cache_map.cache = page_address(page);
	for (unsigned long i = 0; i < nr; i++)
		slab_cache_map.cache[i] = &slab_cache_none;
	slab_cache_map.nr = nr;
}

/* Name cachep (&slab_cache_none: no slab) as the cache of 2^order pages from page on. */
static void slab_cache_map_set(struct page *page, unsigned int order, struct kmem_cache *cachep)
{
	unsigned long idx = page_to_pfn(page) - PFN_OFFSET;

	for (unsigned long i = 0; i < (1UL << order) && idx + i < slab_cache_map.nr; i++)
		WRITE_ONCE(slab_cache_map.cache[idx + i], cachep);
}

enum slab_state slab_state = SLAB_DOWN;
struct kmem_cache *slab_node_cache;
DEFINE_PER_CPU(unsigned long, slab_cpu_index);
struct list_head slab_caches = LIST_HEAD_INIT(slab_caches);
struct spinlock slab_caches_lock = SPINLOCK_INIT;

/* The cache of struct kmem_cache (and of min-order twins); itself static storage. */
struct kmem_cache kmem_cache_boot;

/*
 * kmem_cache_setup: see mm/slab_common.h. SLAB's: the layout (cache_setup),
 * then the min-order twin; no per-CPU arrays (each CPU makes its own as it
 * first uses the cache).
 */
bool kmem_cache_setup(struct kmem_cache *cachep, const char *name, size_t size, size_t align,
		      unsigned int flags, void (*ctor)(void *))
{
	if (!cache_setup(cachep, name, size, align, flags, ctor))
		return false;
	if (!slab_min_cache_make(cachep)) {
		printk("slab: %s: no memory for the twin of its min-order slabs\n", cachep->name);
		return false;
	}
	return true;
}

/*
 * Write the identity stack fl[from..num) = from..num-1, a word at a time
 * (eight one-byte or four two-byte indexes per store: no lane carries into
 * the next, every index being below num <= SLAB_OBJ_MAX_NUM): a new slab's
 * stack costs about a third of an instruction per object instead of three.
 */
static void slab_freelist_fill(freelist_idx_t *fl, unsigned int from, unsigned int num)
{
	const unsigned int per = sizeof(uint64_t) / sizeof(freelist_idx_t);
	unsigned int i = from;

	if (per > 1 && i + per <= num) {
		uint64_t v = 0, step = 0;

		for (unsigned int k = 0; k < per; k++) {
			v |= (uint64_t)(i + k) << (8 * sizeof(freelist_idx_t) * k);
			step |= (uint64_t)per << (8 * sizeof(freelist_idx_t) * k);
		}
		for (; i + per <= num; i += per, v += step)
			__builtin_memcpy(&fl[i], &v, sizeof(v));
	}
	for (; i < num; i++)
		fl[i] = (freelist_idx_t)i;
}

/* The pages of a new slab (see below); none free: other caches' shared arrays give back first. */
static struct page *grow_pages(struct kmem_cache *cachep, unsigned int *nid)
{
	for (unsigned int tries = 0; tries < 2; tries++) {
		struct page *page = unlikely(slab_numa_on()) ? slab_numa_grow_pages(cachep, nid) :
							       alloc_pages(cachep->order);

		if (page || !slab_shared_trim(cachep))
			return page;
	}
	return NULL;
}

/*
 * cache_grow_take - make a new slab for node nid (the calling CPU's, or the
 * one kmem_cache_alloc_node asks): pages from the buddy allocator, of that
 * memory node or the nearest with a free block, the slab homed at the
 * node of its pages (slab_numa_grow_pages), the freelist placed, every object
 * initialised; then hand its first objects (up to max, into out[], *got
 * says how many) to the caller. The slab is on no list and belongs to the
 * caller until cache_grow_end(). Objects taken from a new slab are simply
 * the first ones in address order (a shuffled slab's come off its stack),
 * and only the indexes still free are written. When no block is free,
 * the other caches' shared arrays give back (slab_shared_trim) and the
 * page allocator is asked again. Returns NULL (and *got 0) when out of
 * memory. No lock held; interrupts may be on or off.
 */
struct page *cache_grow_take(struct kmem_cache *cachep, unsigned int nid, void **out,
			     unsigned int max, unsigned int *got)
{
	/* Of node nid (nearest first after it) and homed where its pages are, by node. */
	struct page *page = grow_pages(cachep, &nid);
	unsigned int num = cachep->num, take = 0;
	freelist_idx_t *fl;
	char *addr;

	*got = 0;
	if (!page) {
		stat(cachep, grow_failed, 1);
		return NULL;
	}
	addr = page_address(page);
	if (cachep->layout == SLAB_LAYOUT_OFF_SLAB) {
		fl = kmem_cache_alloc(cachep->freelist_cache);
		if (!fl) {
			free_pages(page, cachep->order);
			stat(cachep, grow_failed, 1);
			return NULL;
		}
	} else if (cachep->layout == SLAB_LAYOUT_ON_SLAB) {
		fl = (freelist_idx_t *)(addr + (size_t)num * cachep->size + cachep->tail);
	} else {
		fl = (freelist_idx_t *)(addr + (size_t)(num - 1) * cachep->size +
					cachep->obj_offset);
	}
	for (unsigned long i = 0; i < (1UL << cachep->order); i++) {
		page[i].flags |= PG_slab;
		page[i].private = (unsigned long)page;
		page[i].slab_cache = cachep;
		page[i].s_mem = addr + cachep->obj_offset;	/* slab_find_head reads any page */
	}
	slab_cache_map_set(page, cachep->order, cachep);
	page->flags = (page->flags & ~SLAB_NODE_MASK) | ((unsigned long)nid << SLAB_NODE_SHIFT);
	page->active = 0;
	INIT_LIST_HEAD(&page->lru);

	/* Objects first: for IN_OBJ the array is written over the last one. */
	if (unlikely(slab_debug_on(cachep) || cachep->ctor)) {
		for (unsigned int i = 0; i < num; i++) {
			void *objp = slab_obj(cachep, page, i);

			if (slab_debug_on(cachep))
				slab_debug_init_obj(cachep, objp);
			if (cachep->ctor && !(cachep->flags & SLAB_POISON))
				cachep->ctor(objp);
		}
	}
	if (!CONFIG_SLAB_FREELIST_RANDOM) {
		char *p = page->s_mem;
		size_t size = cachep->size;

		take = MIN(max, num);
		for (unsigned int i = 0; i < take; i++, p += size)
			out[i] = p;
		page->active = take;
	}
	stat(cachep, shared.slabs_made, 1);
	if (unlikely(cachep->min_of))
		stat(cachep->min_of, grown_min, 1);
	if (take == num && cachep->layout == SLAB_LAYOUT_IN_OBJ) {
		page->freelist = NULL;	/* full: the array's home was handed out */
		*got = take;
		return page;
	}
	slab_freelist_fill(fl, take, num);
	page->freelist = fl;
	if (CONFIG_SLAB_FREELIST_RANDOM) {
		slab_shuffle_freelist(cachep, fl);
		take = slab_take_objs(cachep, page, out, max);
	}
	*got = take;
	return page;
}

/* cache_grow_begin - cache_grow_take without taking objects: see slab_def.h. */
struct page *cache_grow_begin(struct kmem_cache *cachep, unsigned int nid)
{
	unsigned int got;

	return cache_grow_take(cachep, nid, NULL, 0, &got);
}

/*
 * slab_shuffle_freelist - SLAB_FREELIST_RANDOM: a new slab's index stack in
 * random order (Fisher-Yates), so which object comes next cannot be told
 * from the last one. One slab_random() per slab seeds a local xorshift64*
 * whose draws are scaled to [0, i) by a multiply (no division): about ten
 * instructions per object, paid once per slab. IN_OBJ keeps
 * freelist[num-1] = num-1: the array lives in that object, handed out last.
 */
void slab_shuffle_freelist(struct kmem_cache *cachep, freelist_idx_t *fl)
{
	unsigned int n = cachep->num - (cachep->layout == SLAB_LAYOUT_IN_OBJ);
	uint64_t x = slab_random() | 1;

	for (unsigned int i = n; i > 1; i--) {
		unsigned int j;
		freelist_idx_t t;

		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		j = (unsigned int)(((x * 0x2545f4914f6cdd1dULL) >> 32) * i >> 32);
		t = fl[i - 1];

		fl[i - 1] = fl[j];
		fl[j] = t;
	}
}

/* Put a slab on the list its 'active' count names. Its node's lock held. */
static void slab_list_fix(struct kmem_cache *cachep, struct page *page)
{
	struct kmem_cache_node *n = slab_node(cachep, page);

	if (page->active == cachep->num)
		list_move(&page->lru, &n->slabs_full);
	else if (page->active == 0)
		list_move(&page->lru, &n->slabs_free);
	else
		list_move(&page->lru, &n->slabs_partial);
}

/*
 * cache_grow_end - publish a slab from cache_grow_begin() (NULL: nothing to
 * do): put it on its home node's lists and count it. Interrupts must be off.
 */
void cache_grow_end(struct kmem_cache *cachep, struct page *page)
{
	struct kmem_cache_node *n;

	if (!page)
		return;
	n = slab_node(cachep, page);
	assert_irqs_disabled();
	spin_lock(&n->list_lock);
	slab_list_fix(cachep, page);
	n->total_slabs++;
	if (page->active == 0)
		n->free_slabs++;
	n->free_objects += cachep->num - page->active;
	spin_unlock(&n->list_lock);
}

/*
 * slab_take_objs - move up to max free objects of a slab to out[], popping
 * the freelist stack. The caller holds the node lock or owns the slab (new,
 * unpublished). Does not touch the lists or counters. Returns the count.
 */
unsigned int slab_take_objs(struct kmem_cache *cachep, struct page *page, void **out,
			    unsigned int max)
{
	const freelist_idx_t *fl = slab_freelist(page);
	char *s_mem = page->s_mem;
	unsigned int num = cachep->num, size = cachep->size, active = page->active;
	unsigned int n = MIN(max, num - active);

	for (unsigned int i = 0; i < n; i++)
		out[i] = s_mem + (size_t)fl[active + i] * size;
	page->active = active + n;
	/* IN_OBJ: the array's home was just handed out; a full slab needs none. */
	if (cachep->layout == SLAB_LAYOUT_IN_OBJ && page->active == num)
		page->freelist = NULL;
	return n;
}

/*
 * cache_take_from_lists - take up to max objects from node nid's slabs,
 * partial ones first, then free ones, into out[]. That node's lock held.
 * Returns the count (0 when the node has no free object).
 */
unsigned int cache_take_from_lists(struct kmem_cache *cachep, unsigned int nid, void **out,
				   unsigned int max)
{
	struct kmem_cache_node *n = cachep->node[nid];
	unsigned int got = 0;

	assert_spin_locked(&n->list_lock);
	while (got < max) {
		struct list_head *head = !list_empty(&n->slabs_partial) ? &n->slabs_partial :
					 &n->slabs_free;
		struct page *page;
		unsigned int took;

		if (list_empty(head))
			break;
		page = list_first_entry(head, struct page, lru);
		BUG_ON(page->active >= cachep->num);
		if (unlikely(slab_debug_on(cachep))) {
			unsigned int was = page->active;

			if (!slab_debug_check_freelist(cachep, page)) {
				/* Repaired: recount its free objects and look again. */
				n->free_objects = n->free_objects + was - page->active;
				n->free_slabs = n->free_slabs - (was == 0) + (page->active == 0);
				slab_list_fix(cachep, page);
				continue;
			}
		}
		if (page->active == 0) {
			n->free_slabs--;
			n->free_touched = 1;	/* the reserve of free slabs was needed */
		}
		took = slab_take_objs(cachep, page, out + got, max - got);
		got += took;
		n->free_objects -= took;
		slab_list_fix(cachep, page);
	}
	return got;
}

/*
 * slab_put_obj_slow - push object idx back on its slab when the quick case
 * does not apply: refuse (report, return false) a free the stack shows to
 * be a double free (the slab has no object in use, or idx is on top of its
 * free stack), or make objp the home of an IN_OBJ slab's array when the
 * slab was full. Node lock held.
 */
static bool slab_put_obj_slow(struct kmem_cache *cachep, struct page *page, void *objp,
			      unsigned int idx)
{
	freelist_idx_t *fl = slab_freelist(page);

	if (page->active == 0) {
		slab_bad_free(cachep, "free", objp, "double free (its slab has no object in use)");
		return false;
	}
	if (fl && page->active < cachep->num && fl[page->active] == idx) {
		slab_bad_free(cachep, "free", objp, "double free (already on its slab's freelist)");
		return false;
	}
	if (!fl) {
		/* IN_OBJ and the slab was full: this object becomes the array's home. */
		BUG_ON(cachep->layout != SLAB_LAYOUT_IN_OBJ || page->active != cachep->num);
		fl = objp;
		page->freelist = fl;
	}
	fl[--page->active] = (freelist_idx_t)idx;
	return true;
}

/*
 * slab_put_run - push back the objects from objs on that lie in the slab
 * headed by page (an array's oldest objects mostly come from one slab),
 * up to end or the first that does not; returns where it stopped. An
 * object on top of the slab's free stack, or any object of an empty slab,
 * is refused (slab_put_obj_slow). Node lock held.
 */
static void *const *slab_put_run(struct kmem_cache *cachep, struct page *page,
				 void *const *objs, void *const *end)
{
	uintptr_t s_mem = (uintptr_t)page->s_mem, span = cachep->span;
	unsigned long active = page->active, below_num = cachep->num - 1UL;
	freelist_idx_t *fl = slab_freelist(page);
	uint64_t magic = cachep->obj_magic;

	for (; objs < end; objs++) {
		uintptr_t off = (uintptr_t)*objs - s_mem;
		unsigned long idx;

		if (off >= span)
			break;		/* the run ends: another slab */
		idx = (unsigned long)(((unsigned __int128)magic * (uint32_t)off) >> 64);
		/* 0 < active < num (so the freelist exists) and idx not on top: push. */
		if (likely(active - 1 < below_num && fl[active] != idx)) {
			fl[--active] = (freelist_idx_t)idx;
			continue;
		}
		page->active = (unsigned int)active;
		slab_put_obj_slow(cachep, page, *objs, (unsigned int)idx);
		active = page->active;
		fl = slab_freelist(page);
	}
	page->active = (unsigned int)active;
	return objs;
}

/*
 * cache_free_objs - give objects from objs[0..n) (from an array) back to
 * their slabs, a run of one slab's objects at a time, for as long as the
 * slabs are homed at node nid; fix the lists, and move empty slabs beyond
 * the node's free_limit to 'release' for slabs_release() once the lock is
 * dropped. Returns how many objects it took (up to the first of another
 * home). Node nid's lock held. Each object must be on an object boundary
 * of one of this cache's slabs; a double free the slab's stack shows (see
 * slab_put_obj_slow) is reported and skipped.
 */
unsigned int cache_free_objs(struct kmem_cache *cachep, unsigned int nid, void *const *objs,
			     unsigned int n, struct list_head *release)
{
	struct kmem_cache_node *node = cachep->node[nid];
	void *const *start = objs, *const *end = objs + n;
	unsigned int num = cachep->num;
	unsigned long freed = 0;

	assert_spin_locked(&node->list_lock);
	while (objs < end) {
		struct page *page = slab_head_page(*objs);
		unsigned int was;

		BUG_ON(page->slab_cache != cachep);
		if (slab_node_id(page) != nid)
			break;		/* another node's slab: not ours to read */
		was = page->active;
		objs = slab_put_run(cachep, page, objs, end);
		freed += was - page->active;
		if (page->active == 0 && was != 0) {
			node->free_slabs++;
			list_move(&page->lru, &node->slabs_free);
		} else if (was == num && page->active != num) {
			list_move(&page->lru, &node->slabs_partial);
		}
	}
	node->free_objects += freed;
	while (node->free_objects > node->free_limit && !list_empty(&node->slabs_free)) {
		struct page *page = list_entry(node->slabs_free.prev, struct page, lru);

		list_move(&page->lru, release);
		node->total_slabs--;
		node->free_slabs--;
		node->free_objects -= num;
	}
	return (unsigned int)(objs - start);
}

/* Undo cache_grow_begin() for an empty slab on no list. */
static void slab_destroy(struct kmem_cache *cachep, struct page *page)
{
	void *fl = page->freelist;

	BUG_ON(page->active != 0);
	for (unsigned long i = 0; i < (1UL << cachep->order); i++) {
		page[i].flags &= ~PG_slab;
		page[i].private = 0;
		page[i].slab_cache = NULL;
		page[i].s_mem = NULL;
	}
	slab_cache_map_set(page, cachep->order, &slab_cache_none);
	page->flags &= ~SLAB_NODE_MASK;
	page->freelist = NULL;
	if (cachep->layout == SLAB_LAYOUT_OFF_SLAB)
		kmem_cache_free(cachep->freelist_cache, fl);
	free_pages(page, cachep->order);
	stat(cachep, reaped, 1);
}

/*
 * slabs_release - return the empty slabs on 'release' (already off the
 * node's lists and counts) to the buddy allocator. No node lock held.
 */
void slabs_release(struct kmem_cache *cachep, struct list_head *release)
{
	struct page *page, *tmp;

	list_for_each_entry_safe(page, tmp, release, lru) {
		list_del(&page->lru);
		slab_destroy(cachep, page);
	}
}

/*
 * cache_release_node_free_slabs - take up to max empty slabs off node nid
 * (which must exist) and give them back to the buddy allocator. Returns how
 * many it took. Interrupts on or off, no lock held.
 */
unsigned long cache_release_node_free_slabs(struct kmem_cache *cachep, unsigned int nid,
					    unsigned long max)
{
	struct kmem_cache_node *n = cachep->node[nid];
	struct list_head release = LIST_HEAD_INIT(release);
	unsigned long flags, took = 0;

	flags = spin_lock_irqsave(&n->list_lock);
	while (took < max && !list_empty(&n->slabs_free)) {
		list_move(n->slabs_free.prev, &release);
		n->total_slabs--;
		n->free_slabs--;
		n->free_objects -= cachep->num;
		took++;
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	slabs_release(cachep, &release);
	return took;
}

/*
 * cache_release_free_slabs - give every empty slab of every node back to
 * the buddy allocator. Returns the slabs left on all nodes (with objects in
 * use or in arrays). Interrupts on or off, no lock held.
 */
unsigned long cache_release_free_slabs(struct kmem_cache *cachep)
{
	struct slab_counts c;

	for (unsigned int nid = 0; nid < SLAB_NODES; nid++)
		if (READ_ONCE(cachep->node[nid]))
			cache_release_node_free_slabs(cachep, nid, ~0UL);
	cache_counts_sum(cachep, &c);
	return c.total_slabs;
}

/*
 * cache_counts_sum - the counters of all nodes added up into *c, each node
 * read under its lock (so the sum is of consistent parts, not a snapshot).
 */
void cache_counts_sum(struct kmem_cache *cachep, struct slab_counts *c)
{
	*c = (struct slab_counts){ 0 };
	for (unsigned int i = 0; i < SLAB_NODES; i++) {
		struct kmem_cache_node *n = READ_ONCE(cachep->node[i]);
		unsigned long flags;

		if (!n)
			continue;
		flags = spin_lock_irqsave(&n->list_lock);
		c->total_slabs += n->total_slabs;
		c->free_slabs += n->free_slabs;
		c->free_objects += n->free_objects;
		c->shared_avail += n->shared ? n->shared->avail : 0;
		spin_unlock_irqrestore(&n->list_lock, flags);
	}
}

/* kmem_cache_shrink: see slab.h. */
int kmem_cache_shrink(struct kmem_cache *cachep)
{
	unsigned long left;

	if (slab_cache_refused(cachep, "kmem_cache_shrink", CONFIG_SLAB_DEBUG))
		return -EINVAL;
	kmem_cache_drain_local(cachep);
	for (unsigned int i = 0; i < SLAB_NODES; i++)
		cache_release_shared(cachep, i);
	left = cache_release_free_slabs(cachep);
	if (cachep->min_cache)
		left += cache_release_free_slabs(cachep->min_cache);
	return left ? 1 : 0;
}

/* kmem_cache_destroy: see slab.h. */
int kmem_cache_destroy(struct kmem_cache *cachep)
{
	struct slab_counts c;
	unsigned long flags, live;

	if (!cachep)
		return 0;
	if (!slab_cache_live(cachep)) {
		printk("slab: kmem_cache_destroy(%p): not a live cache (destroyed already, or "
		       "never made by kmem_cache_create); nothing done\n", (void *)cachep);
		return -EINVAL;
	}
	if (slab_merge_put(cachep))
		return 0;	/* another create still uses it */
	if (cachep == &kmem_cache_boot || cachep == slab_node_cache ||
	    cachep == kmalloc_slab(cachep->object_size)) {
		printk("slab: kmem_cache_destroy(%s): a boot cache cannot be destroyed\n",
		       cachep->name);
		return -EINVAL;
	}
	/* Off the list first, so that no CPU's slab_reap() can reach its arrays. */
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_del(&cachep->list);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	/* The caller guarantees no CPU uses the cache: all arrays may be drained here. */
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		flags = arch_irq_save();
		cache_drain_array(cachep, cachep->cpu_array[cpu], ~0U);
		cache_drain_aliens(cachep, cpu, false);
		arch_irq_restore(flags);
	}
	for (unsigned int i = 0; i < SLAB_NODES; i++)
		cache_drain_shared(cachep, i, ~0U);
	cache_release_free_slabs(cachep);
	cache_counts_sum(cachep, &c);
	live = c.total_slabs * cachep->num - c.free_objects;
	if (cachep->min_cache) {
		struct slab_counts m;

		cache_release_free_slabs(cachep->min_cache);
		cache_counts_sum(cachep->min_cache, &m);
		live += m.total_slabs * cachep->min_cache->num - m.free_objects;
		c.total_slabs += m.total_slabs;
	}
	if (live) {
		printk("slab: kmem_cache_destroy(%s): %lu objects still allocated; cache kept "
		       "with its %lu slabs, so that they can still be freed\n", cachep->name, live,
		       c.total_slabs);
		cachep->dead = true;
		slab_caches_add(cachep);
		return -EBUSY;
	}
	cache_free_arrays(cachep);
	cache_free_nodes(cachep);
	slab_min_cache_free(cachep);
	kmem_cache_free(&kmem_cache_boot, cachep);
	return 0;
}

/* kmem_cache_init: see slab.h. */
void kmem_cache_init(void)
{
	ASSERT(slab_state == SLAB_DOWN);
	slab_cache_map_alloc();
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		per_cpu(slab_cpu_index, cpu) = fault_attr_on(&failslab) ? SLAB_CPU_FAILSLAB : cpu;
	slab_set_max_order_soft();
	/* Aligned to a cache line, as the nodes inside a kmem_cache are. */
	if (!cache_setup(&kmem_cache_boot, "kmem_cache", sizeof(struct kmem_cache),
			 __alignof__(struct kmem_cache), 0, NULL))
		panic("slab: cannot lay out the kmem_cache cache");
	slab_caches_add(&kmem_cache_boot);
	slab_state = SLAB_PARTIAL;
	if (!slab_min_cache_make(&kmem_cache_boot))
		panic("slab: cannot make the kmem_cache cache's min-order twin");

	kmalloc_caches_init();
	/* kmalloc's fast path clears the free mark at offset 0 (slab_kmalloc_alloc_fi). */
	for (unsigned int i = 0; i <= KMALLOC_SHIFT_HIGH; i++)
		BUG_ON(kmalloc_caches[i] && kmalloc_caches[i]->mark_off != 0);
	slab_node_cache = __kmem_cache_create("kmem_cache_node", sizeof(struct kmem_cache_node),
					      __alignof__(struct kmem_cache_node), 0, NULL);
	if (!slab_node_cache)
		panic("slab: cannot make the kmem_cache_node cache");
	slab_caches_add(slab_node_cache);
	slab_state = SLAB_KMALLOC;

	/* Now kmalloc works: each CPU makes its arrays as it uses a cache. */
	slab_state = SLAB_UP;
	slab_layout_show();
}
