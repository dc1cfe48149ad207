/*
 * slab_layout.c - how a cache's slabs are laid out: object geometry, where
 * the freelist lives, objects per slab and slab order, and the per-CPU
 * array tunables that follow from the object size.
 *
 * Objects start at the slab's first byte (no colouring) and are 'size'
 * bytes apart; 'size' is the caller's size raised to SLAB_OBJ_MIN_SIZE,
 * rounded to the alignment, plus the red zones for debug caches, or a word
 * for the free mark (mm/slab/slab_def.h) after the object for caches with a
 * ctor (their free objects stay constructed). The
 * freelist is an array of num freelist_idx_t, placed by least waste:
 *  - IN_OBJ: inside the free object handed out last (mm/slab/slab.c explains the
 *    mechanics). Costs nothing; needs no ctor, no poison, and the whole
 *    array within one object's usable bytes;
 *  - ON_SLAB: right after the objects; costs its index bytes in the slab;
 *  - OFF_SLAB: in an object of the kmalloc cache that fits the array; costs
 *    that object. Only from a kmalloc cache that is itself not OFF_SLAB and
 *    exists already (kmalloc caches are made smallest first), so making a
 *    slab never needs a slab of its own cache.
 * Ties go to IN_OBJ, then ON_SLAB. The order is the first whose leftover
 * (bytes holding neither objects nor on-slab indexes, as Linux counts it)
 * is at most 1/8 of the slab; failing that the least waste fraction
 * (freelist cost included) up to slab_max_order_soft (SLAB_MAX_ORDER_SOFT,
 * or 0 on machines of SLAB_SMALL_MEMORY or less); failing that the
 * first order that holds one object. Then, while a slab holds fewer than
 * SLAB_MIN_OBJS objects, the next soft order is taken if its bytes per
 * object are within 1/32 of the current choice's (a slab made and freed
 * every few objects costs more than the objects' own work: test 1 of
 * 4096-byte objects, Documentation/benchmarks.md). Every choice keeps
 * num <= SLAB_OBJ_MAX_NUM, the freelist index's range, and cache setup
 * asserts it.
 *
 * Tunables: the per-CPU array limit by object size as Linux's SLAB sets it
 * (but 16, not 8, above a page: a refill or flush of 8 KiB objects moved
 * 4 at a time), batchcount half of it, a shared array of SLAB_SHARED_FACTOR batches for
 * objects up to a page. cache_setup also precomputes what the fast paths
 * need: obj_magic and obj_bound, which turn the object-boundary test and
 * the index computation into multiplications (mm/slab/slab_def.h).
 *
 * Runs at cache creation only, on data no other CPU can see yet: no locks.
 * Departure from Linux: Linux prefers off-slab by object size; Quarry
 * compares the bytes each placement costs.
 */
#include "mm/slab_impl.h"
#include "mm/buddy.h"
#include "kernel/printk.h"

struct layout_choice {
	unsigned int order;
	unsigned int num;
	unsigned long waste;		/* bytes holding no object, freelist cost included */
	unsigned long leftover;		/* bytes holding neither objects nor on-slab indexes */
	enum slab_layout layout;
	struct kmem_cache *freelist_cache;
};

/*
 * Cost of one layout at one order; false when it cannot be used. The
 * slots take num * size bytes, then the tail (debug caches with large
 * alignment), then an on-slab freelist.
 */
static bool layout_try(const struct kmem_cache *cachep, unsigned int order,
		       enum slab_layout layout, struct layout_choice *out)
{
	unsigned long slab = PAGE_SIZE << order, room = slab - cachep->tail;
	unsigned long num, waste, leftover;
	struct kmem_cache *fc = NULL;

	if (cachep->tail >= slab)
		return false;
	switch (layout) {
	case SLAB_LAYOUT_ON_SLAB:
		num = room / (cachep->size + sizeof(freelist_idx_t));
		waste = slab - num * cachep->size;
		leftover = waste - num * sizeof(freelist_idx_t);
		break;
	case SLAB_LAYOUT_IN_OBJ:
		if (cachep->ctor || (cachep->flags & SLAB_POISON))
			return false;
		num = room / cachep->size;
		if (num * sizeof(freelist_idx_t) > cachep->object_size)
			return false;
		waste = leftover = slab - num * cachep->size;
		break;
	case SLAB_LAYOUT_OFF_SLAB:
		num = room / cachep->size;
		if (slab_state < SLAB_PARTIAL || num > SLAB_OBJ_MAX_NUM)
			return false;
		fc = kmalloc_slab(num * sizeof(freelist_idx_t));
		if (!fc || fc->layout == SLAB_LAYOUT_OFF_SLAB)
			return false;
		leftover = slab - num * cachep->size;
		waste = leftover + fc->size;
		break;
	default:
		return false;
	}
	if (num == 0 || num > SLAB_OBJ_MAX_NUM)
		return false;
	out->order = order;
	out->num = (unsigned int)num;
	out->waste = waste;
	out->leftover = leftover;
	out->layout = layout;
	out->freelist_cache = fc;
	return true;
}

/* The least wasteful layout at one order (ties: IN_OBJ, ON_SLAB, OFF_SLAB). */
static bool layout_best(const struct kmem_cache *cachep, unsigned int order,
			struct layout_choice *best)
{
	static const enum slab_layout pref[] = { SLAB_LAYOUT_IN_OBJ, SLAB_LAYOUT_ON_SLAB,
						 SLAB_LAYOUT_OFF_SLAB };
	struct layout_choice c = { 0 };
	bool found = false;

	for (unsigned int i = 0; i < ARRAY_SIZE(pref); i++) {
		if (!layout_try(cachep, order, pref[i], &c))
			continue;
		if (!found || c.waste < best->waste)
			*best = c;
		found = true;
	}
	return found;
}

/* The soft order bound in force: see slab_def.h and slab_set_max_order_soft. */
unsigned int slab_max_order_soft = SLAB_MAX_ORDER_SOFT;

/* slab_set_max_order_soft: see slab_impl.h. */
void slab_set_max_order_soft(void)
{
	struct buddy_stats st;

	buddy_read_stats(&st);
	slab_max_order_soft = st.managed_pages > (SLAB_SMALL_MEMORY >> PAGE_SHIFT) ?
				      SLAB_MAX_ORDER_SOFT : 0;
}

/*
 * calculate_slab_order - choose order, objects per slab and freelist place:
 * the first order whose leftover is at most 1/8 of the slab; failing that
 * the smallest waste fraction among the soft orders; failing that (the object
 * does not fit) the first order that holds one object. False if none does.
 */
static bool calculate_slab_order(struct kmem_cache *cachep)
{
	struct layout_choice best = { 0 }, c = { 0 };
	bool found = false;

	for (unsigned int order = 0; order <= MAX_ORDER; order++) {
		unsigned long slab = PAGE_SIZE << order;

		if (found && order > slab_max_order_soft)
			break;
		if (!layout_best(cachep, order, &c))
			continue;
		if (!found || (uint64_t)c.waste * (PAGE_SIZE << best.order) <
				      (uint64_t)best.waste * slab)
			best = c;
		found = true;
		if (c.leftover * 8 <= slab)
			break;
	}
	if (!found)
		return false;
	/*
	 * Fewer objects than SLAB_MIN_OBJS per slab: a larger soft order,
	 * if it costs no more memory per object (within 1/32). Every slab
	 * made and given back costs a page allocation and free and its setup
	 * (about 300 instructions at 4K pages), paid by its objects.
	 */
	for (unsigned int order = best.order + 1;
	     best.num < SLAB_MIN_OBJS && order <= slab_max_order_soft; order++) {
		unsigned long size = cachep->size;

		if (!layout_best(cachep, order, &c))
			continue;
		if ((c.num * size + c.waste) * best.num * 32 <=
		    (best.num * size + best.waste) * c.num * 33)
			best = c;
	}
	cachep->order = best.order;
	cachep->num = best.num;
	cachep->layout = best.layout;
	cachep->freelist_cache = best.freelist_cache;
	cachep->waste = (unsigned int)best.waste;
	cachep->freelist_size = best.num * (unsigned int)sizeof(freelist_idx_t);
	/* The index's range, checked for every cache made (see slab_def.h). */
	BUG_ON(cachep->num == 0 || cachep->num > SLAB_OBJ_MAX_NUM);
	return true;
}

/* Per-CPU array sizes by object size, as Linux's SLAB tunes them. */
static void cache_set_tunables(struct kmem_cache *cachep)
{
	unsigned int limit;

	if (cachep->size > 131072)
		limit = 1;
	else if (cachep->size > PAGE_SIZE)
		limit = 16;
	else if (cachep->size > 1024)
		limit = 24;
	else if (cachep->size > 256)
		limit = 54;
	else
		limit = 120;
	cachep->limit = limit;
	cachep->batchcount = (limit + 1) / 2;
	cachep->shared = cachep->size <= PAGE_SIZE && NR_CPUS > 1 ? SLAB_SHARED_FACTOR : 0;
}

/*
 * Red zone geometry for objects of 'usable' bytes aligned to ralign:
 * [pad][red zone 1][usable] in a slot of *size bytes, the caller's part at
 * *obj_offset. Red zone 2 follows the object; with an alignment of 16 or
 * more it lies in the pad at the start of the next slot (whose red zone 1
 * is at that pad's end), so a slot is usable + 16 rounded up to the
 * alignment, not a whole alignment unit more; the last object's red zone
 * 2 then reaches *tail bytes past the slots.
 */
static void red_zone_geometry(size_t usable, size_t ralign, size_t *obj_offset, size_t *size,
			      size_t *tail)
{
	size_t end;

	*obj_offset = ALIGN_UP((size_t)8, ralign);
	*size = ALIGN_UP(usable + 16, ralign);
	end = *obj_offset + usable + 8;
	*tail = end > *size ? end - *size : 0;
}

/*
 * cache_setup - fill in a zeroed cache: object geometry (guards, alignment),
 * layout and order, tunables, an empty node. Returns false (reported) when
 * no slab can hold such an object.
 */
bool cache_setup(struct kmem_cache *cachep, const char *name, size_t size, size_t align,
		 unsigned int flags, void (*ctor)(void *))
{
	size_t ralign = slab_cache_align(size, align, flags, sizeof(unsigned long long));
	size_t usable, obj_offset, rsize, tail;

	usable = ALIGN_UP(MAX(size, (size_t)SLAB_OBJ_MIN_SIZE), sizeof(unsigned long long));
	if (CONFIG_SLAB_DEBUG && !(flags & SLAB_NO_DEBUG))
		flags |= SLAB_DEBUG;
	/*
	 * Red zones go only where they fit, so that every build and every
	 * flag accepts the same caches (objects up to KMEM_CACHE_MAX_SIZE),
	 * whether CONFIG_SLAB_DEBUG added them or the caller asked; poisoning
	 * needs no room. A ctor cache whose free mark does not fit past the
	 * object is poisoned instead: the mark's word is in the object then,
	 * and the ctor runs again at each allocation.
	 */
	if (flags & SLAB_RED_ZONE) {
		red_zone_geometry(usable, ralign, &obj_offset, &rsize, &tail);
		if (rsize + tail > KMEM_CACHE_MAX_SIZE) {
			flags &= ~SLAB_RED_ZONE;
			printk("slab: %s: %zu-byte objects leave no room for red zones: %s\n", name,
			       size, flags & SLAB_POISON ? "poison only" : "none");
		}
	}
	if (ctor && !(flags & SLAB_DEBUG) &&
	    ALIGN_UP(usable + sizeof(uintptr_t), ralign) > KMEM_CACHE_MAX_SIZE) {
		flags |= SLAB_POISON;
		printk("slab: %s: %zu-byte objects leave no room for a free mark past them: "
		       "poisoned, and the ctor runs at each allocation\n", name, size);
	}

	cachep->flags = flags;
	cachep->align = (unsigned int)ralign;
	cachep->ctor = ctor;
	if (flags & SLAB_RED_ZONE) {
		red_zone_geometry(usable, ralign, &obj_offset, &rsize, &tail);
		cachep->obj_offset = (unsigned int)obj_offset;
		cachep->object_size = (unsigned int)usable;
		cachep->size = (unsigned int)rsize;
		cachep->tail = (unsigned int)tail;
	} else if (ctor && !(flags & SLAB_POISON)) {
		/* [usable][free mark][pad]: the mark leaves the constructed state alone. */
		cachep->obj_offset = 0;
		cachep->object_size = (unsigned int)usable;
		cachep->mark_off = (unsigned int)usable;
		cachep->size = (unsigned int)ALIGN_UP(usable + sizeof(uintptr_t), ralign);
	} else {
		cachep->obj_offset = 0;
		cachep->size = (unsigned int)ALIGN_UP(usable, ralign);
		cachep->object_size = cachep->size;
	}
	snprintf(cachep->name, sizeof(cachep->name), "%s", name);
	if (!calculate_slab_order(cachep)) {
		printk("slab: %s: objects of %u bytes fit in no slab\n", cachep->name,
		       cachep->size);
		return false;
	}
	cache_set_tunables(cachep);
	cachep->span = cachep->num * cachep->size;
	cachep->obj_magic = UINT64_MAX / cachep->size + 2;
	cachep->slab_mask = (PAGE_SIZE << cachep->order) - 1;
	cachep->obj_start = cachep->obj_offset;
	cachep->obj_bound = (uint64_t)cachep->num * (cachep->size * cachep->obj_magic);
	for (unsigned int cpu = 0; cpu <= SLAB_CPU_FAILSLAB; cpu++)
		cachep->cpu_array[cpu] = &slab_no_array;

	cache_node_init(cachep, &cachep->node0);
	cachep->node[0] = &cachep->node0;
	INIT_LIST_HEAD(&cachep->list);
	slab_numa_refresh();	/* a topology known since the last cache: taken up */
	return true;
}

/*
 * slab_min_cache_make - give cachep its min-order twin (see slab_def.h) if
 * a slab of a lower order than cachep's holds an object with cachep's
 * layout. Precondition: cachep set up by cache_setup, slab_state at least
 * SLAB_PARTIAL (the twin comes from the kmem_cache cache), cachep has no
 * twin yet. Returns false when the twin could not be allocated (cachep is
 * unchanged); the caller frees it with slab_min_cache_free.
 */
bool slab_min_cache_make(struct kmem_cache *cachep)
{
	struct layout_choice c = { 0 };
	struct kmem_cache *t;
	unsigned int order;

	ASSERT(slab_state >= SLAB_PARTIAL && !cachep->min_cache && !cachep->min_of);
	for (order = 0; order < cachep->order; order++)
		if (layout_try(cachep, order, cachep->layout, &c))
			break;
	if (order >= cachep->order)
		return true;
	t = kmem_cache_alloc(&kmem_cache_boot);
	if (!t)
		return false;
	*t = (struct kmem_cache){ 0 };
	snprintf(t->name, sizeof(t->name), "%s", cachep->name);
	t->size = cachep->size;
	t->object_size = cachep->object_size;
	t->obj_offset = cachep->obj_offset;
	t->mark_off = cachep->mark_off;
	t->tail = cachep->tail;
	t->flags = cachep->flags;
	t->align = cachep->align;
	t->ctor = cachep->ctor;
	t->obj_magic = cachep->obj_magic;
	t->obj_start = cachep->obj_start;
	t->order = c.order;
	t->num = c.num;
	t->layout = c.layout;
	t->freelist_cache = c.freelist_cache;
	t->waste = (unsigned int)c.waste;
	t->freelist_size = c.num * (unsigned int)sizeof(freelist_idx_t);
	t->span = t->num * t->size;
	t->slab_mask = (PAGE_SIZE << t->order) - 1;
	t->obj_bound = (uint64_t)t->num * (t->size * t->obj_magic);
	t->min_of = cachep;
	for (unsigned int cpu = 0; cpu <= SLAB_CPU_FAILSLAB; cpu++)
		t->cpu_array[cpu] = &slab_no_array;
	cache_node_init(t, &t->node0);
	t->node[0] = &t->node0;
	INIT_LIST_HEAD(&t->list);
	cachep->min_cache = t;
	return true;
}

/*
 * slab_min_cache_free - free cachep's twin, if it has one. Precondition:
 * the twin has no slab left.
 */
void slab_min_cache_free(struct kmem_cache *cachep)
{
	struct kmem_cache *t = cachep->min_cache;

	if (!t)
		return;
	BUG_ON(t->node0.total_slabs != 0);
	cachep->min_cache = NULL;
	kmem_cache_free(&kmem_cache_boot, t);
}

/* slab_layout_name - "on-slab", "off-slab" or "in-object", for reports. */
const char *slab_layout_name(const struct kmem_cache *cachep)
{
	switch (cachep->layout) {
	case SLAB_LAYOUT_ON_SLAB:
		return "on-slab";
	case SLAB_LAYOUT_OFF_SLAB:
		return "off-slab";
	default:
		return "in-object";
	}
}
