/*
 * slub_cache.c - SLUB caches: layout and slab order, per-CPU slots,
 * kmem_cache_create/destroy, the accessors, and boot.
 *
 * Object layout, from the slab's first byte, 'size' bytes apart:
 *	plain:	[object_size bytes]                  free pointer at 0
 *	ctor:	[object][free pointer]               (the object stays constructed)
 *	ctor, no room past the object in a MAX_ORDER slab (SLUB_CTOR_AT_ALLOC):
 *		[object] free pointer at 0, the ctor run again at each allocation
 *	debug:	[red zone 1][object][red zone 2][free pointer]
 * Red zone 1 is at least 8 bytes and pads the caller's pointer to the
 * alignment; red zone 2 is 8 bytes; the free pointer moves out of the
 * object when a ctor or poisoning needs the object intact. 'size' is a
 * multiple of the alignment, so every object is aligned.
 *
 * Order (Linux's rule): the smallest order holding at least min_objects =
 * 4 * (log2 NR_CPUS + 1) objects whose leftover is at most 1/16 of the
 * slab, then 1/8, 1/4; then fewer objects (halving); up to SLUB_MAX_ORDER,
 * beyond it only for an object that needs it. min_partial follows the
 * object size as in Linux; cpu_partial too, as slabs = 2 * objects / num,
 * from four times Linux's object counts (24, 96, 208, 480 for sizes from
 * PAGE_SIZE, 1024, 256, and smaller; Linux: 6, 24, 52, 120); reuse_free
 * (not in Linux) is num / 4. Why: mm/slub/slub_partial.c.
 *
 * Minimum order (as Linux's): the smallest order that holds one object,
 * layout and guards included. When it is below the cache's order the cache
 * gets its min-order twin (min_cache_make; what it is for: mm/slub/slub_def.h),
 * a struct from the kmem_cache cache like the cache's own, freed with it;
 * the kmem_cache cache makes its own once it can allocate. A twin copies
 * the object layout, has the minimum order's num, slab_mask and waste,
 * obj_bound 0 (every fast-path free test fails), no sheaves, no per-CPU
 * slot, and is on no list.
 *
 * Each cache owns one of SLUB_CPU_SLOTS slots in the per-CPU area for its
 * pair (struct kmem_cache_cpu); slots are handed out under
 * slab_caches_lock, and a new cache's pair is set to SLUB_NO_SLAB on
 * every CPU before anyone can see the cache (tids continue).
 *
 * Each cache also gets its sheaf capacity and every CPU's main sheaf set
 * to none (slub_sheaf_setup); the slub_sheaf cache, which sheaves come
 * from, is made at boot after the kmalloc caches and cannot be destroyed;
 * kmem_cache_destroy gives every CPU's sheaves and the barn back before it
 * flushes the CPUs' slabs and counts live objects.
 *
 * kmem_cache_init refuses to run on a CPU without a double-word
 * compare-and-exchange (asm/cmpxchg.h), naming the instruction.
 * Departures from Linux: slab orders capped lower at 16K and 64K pages;
 * a destroyed cache with live objects is kept (as SLAB does); cpu_partial
 * and reuse_free as said.
 */
#include "mm/slab_impl.h"
#include "kernel/printk.h"
#include "kernel/errno.h"
#include "kernel/string.h"

enum slab_state slab_state = SLAB_DOWN;
struct list_head slab_caches = LIST_HEAD_INIT(slab_caches);
struct spinlock slab_caches_lock = SPINLOCK_INIT;
/* The cache of struct kmem_cache; itself static, since nothing can allocate it. */
struct kmem_cache kmem_cache_boot;

static unsigned long slot_map[SLUB_CPU_SLOTS / 64];	/* under slab_caches_lock */

static unsigned int ilog2(unsigned long v)
{
	return 63 - (unsigned int)__builtin_clzl(v);
}

/* Take a free slot and give it SLUB_NO_SLAB on every CPU; false when all are taken. */
static bool slot_get(struct kmem_cache *s)
{
	unsigned long flags = spin_lock_irqsave(&slab_caches_lock);
	unsigned int i;

	for (i = 0; i < SLUB_CPU_SLOTS; i++)
		if (!(slot_map[i / 64] & (1UL << (i % 64))))
			break;
	if (i < SLUB_CPU_SLOTS)
		slot_map[i / 64] |= 1UL << (i % 64);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	if (i == SLUB_CPU_SLOTS)
		return false;
	s->slot = i;
	s->cpu_off = offsetof(struct slub_cpu_slots, slot) + i * sizeof(struct kmem_cache_cpu);
	s->cpu_key = per_cpu_key(slub_cpu, s->cpu_off);
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		WRITE_ONCE(slub_cpu_of(s, cpu)->freelist, SLUB_NO_SLAB);
		s->cpu[cpu].reap_tid = READ_ONCE(slub_cpu_of(s, cpu)->tid);
		s->cpu[cpu].reap_freelist = SLUB_NO_SLAB;
	}
	return true;
}

static void slot_put(struct kmem_cache *s)
{
	unsigned long flags = spin_lock_irqsave(&slab_caches_lock);

	slot_map[s->slot / 64] &= ~(1UL << (s->slot % 64));
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

/* Objects of a slab of 2^order pages, and whether its leftover is within 1/frac. */
static unsigned int order_fits(unsigned int size, unsigned int order, unsigned int frac)
{
	unsigned long slab = PAGE_SIZE << order, num = slab / size;

	return (slab - num * size) * frac <= slab ? (unsigned int)num : 0;
}

/* Choose order and objects per slab (see above); false if no slab holds one object. */
static bool calculate_order(struct kmem_cache *s)
{
	unsigned int min_objects = 4 * (ilog2(NR_CPUS) + 1);

	for (unsigned int min = min_objects; min >= 1; min /= 2) {
		for (unsigned int frac = 16; frac >= 4; frac /= 2) {
			for (unsigned int order = 0; order <= SLUB_MAX_ORDER; order++) {
				unsigned int num = order_fits(s->size, order, frac);

				if (num >= min && num <= SLUB_MAX_OBJS) {
					s->order = order;
					s->num = num;
					return true;
				}
			}
		}
	}
	for (unsigned int order = 0; order <= MAX_ORDER; order++) {
		if ((PAGE_SIZE << order) >= s->size) {
			s->order = order;
			s->num = (unsigned int)((PAGE_SIZE << order) / s->size);
			return s->num <= SLUB_MAX_OBJS;
		}
	}
	return false;
}

/* Object geometry (see above) for a zeroed cache. */
static void calculate_sizes(struct kmem_cache *s, size_t size, size_t align, unsigned int flags)
{
	size_t ralign = slab_cache_align(size, align, flags, sizeof(unsigned long long));
	size_t usable, end;

	s->obj_offset = 0;
	s->offset = 0;
	usable = ALIGN_UP(MAX(size, (size_t)SLUB_MIN_SIZE), sizeof(unsigned long long));
	s->align = (unsigned int)ralign;
	if (flags & SLAB_RED_ZONE) {
		s->obj_offset = (unsigned int)ALIGN_UP((size_t)8, ralign);
		s->object_size = (unsigned int)usable;
		end = s->obj_offset + usable + 8;
	} else if (flags & SLAB_POISON || (s->ctor && !(flags & SLUB_CTOR_AT_ALLOC))) {
		s->object_size = (unsigned int)usable;
		end = usable;
	} else {
		s->object_size = (unsigned int)ALIGN_UP(usable, ralign);
		end = s->object_size;
	}
	if (flags & SLAB_POISON || (s->ctor && !(flags & SLUB_CTOR_AT_ALLOC))) {
		s->offset = (unsigned int)(end - s->obj_offset);	/* past the object */
		end += sizeof(void *);
	}
	s->size = (unsigned int)ALIGN_UP(end, ralign);
}

/* Every node's lists and lock of a cache being made (its barns: slub_sheaf_setup). */
static void slub_nodes_init(struct kmem_cache *s)
{
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
		spin_lock_init(&s->node[nid].list_lock);
		INIT_LIST_HEAD(&s->node[nid].partial);
		INIT_LIST_HEAD(&s->node[nid].min_slabs);
	}
}

/*
 * Give s its min-order twin if a smaller slab than s's holds an object
 * (see above). False when the twin cannot be allocated. slab_state is
 * SLAB_PARTIAL or later.
 */
static bool min_cache_make(struct kmem_cache *s)
{
	unsigned int order = get_order(s->size);
	struct kmem_cache *t;

	if (order >= s->order)
		return true;
	t = kmem_cache_alloc(&kmem_cache_boot);
	if (!t)
		return false;
	memset(t, 0, sizeof(*t));
	memcpy(t->name, s->name, sizeof(t->name));
	t->size = s->size;
	t->object_size = s->object_size;
	t->obj_offset = s->obj_offset;
	t->offset = s->offset;
	t->align = s->align;
	t->flags = s->flags;
	t->ctor = s->ctor;
	t->fp_secret = s->fp_secret;
	t->order = order;
	t->num = (unsigned int)((PAGE_SIZE << order) / s->size);
	t->slab_mask = (PAGE_SIZE << order) - 1;
	t->waste = (unsigned int)((PAGE_SIZE << order) - (size_t)t->num * s->size);
	t->obj_magic = s->obj_magic;
	t->obj_bound = 0;
	t->slab_bound = 0;
	t->min_of = s;
	slub_nodes_init(t);
	INIT_LIST_HEAD(&t->list);
	s->min_cache = t;
	return true;
}

static void min_cache_free(struct kmem_cache *s)
{
	if (s->min_cache)
		kmem_cache_free(&kmem_cache_boot, s->min_cache);
	s->min_cache = NULL;
}

/*
 * kmem_cache_setup: see mm/slab_common.h. SLUB's: false (reported) when no
 * slab holds such an object, no min-order twin could be had, or no per-CPU
 * slot is left.
 */
bool kmem_cache_setup(struct kmem_cache *s, const char *name, size_t size, size_t align,
			unsigned int flags, void (*ctor)(void *))
{
	if (CONFIG_SLAB_DEBUG && !(flags & SLAB_NO_DEBUG))
		flags |= SLAB_DEBUG;
	s->ctor = ctor;
	snprintf(s->name, sizeof(s->name), "%s", name);
	calculate_sizes(s, size, align, flags);
	/*
	 * Guards go only where they fit, so that every build and every flag
	 * accepts the same caches (objects up to KMEM_CACHE_MAX_SIZE): red
	 * zones first, then the poison's out-of-object free pointer, whether
	 * CONFIG_SLAB_DEBUG added them or the caller asked. A ctor cache's
	 * free pointer then moves into the object (SLUB_CTOR_AT_ALLOC).
	 */
	while ((flags & SLAB_DEBUG) && s->size > KMEM_CACHE_MAX_SIZE) {
		flags &= ~(flags & SLAB_RED_ZONE ? SLAB_RED_ZONE : SLAB_POISON);
		calculate_sizes(s, size, align, flags);
		printk("slub: %s: %zu-byte objects leave no room for debug guards: %s\n", s->name,
		       size, flags & SLAB_POISON ? "poison only" : "none");
	}
	if (ctor && s->size > KMEM_CACHE_MAX_SIZE) {
		flags |= SLUB_CTOR_AT_ALLOC;
		calculate_sizes(s, size, align, flags);
		printk("slub: %s: %zu-byte objects leave no room for a free pointer past them: "
		       "it goes inside, and the ctor runs at each allocation\n", s->name, size);
	}
	s->flags = flags;
	if (!calculate_order(s)) {
		printk("slub: %s: objects of %u bytes fit in no slab\n", s->name, s->size);
		return false;
	}
	s->slab_mask = (PAGE_SIZE << s->order) - 1;
	s->waste = (unsigned int)((PAGE_SIZE << s->order) - (size_t)s->num * s->size);
	s->obj_magic = UINT64_MAX / s->size + 2;
	s->slab_bound = (uint64_t)s->num * (s->size * s->obj_magic);
	s->obj_bound = s->slab_bound;	/* node_check: slub_sheaf_setup */
	s->min_partial = MIN(10U, MAX(5U, ilog2(s->size) / 2));
	/* Top bits 01: no pointer, small or negative number decodes near a slab (slub_def.h). */
	s->fp_secret = (slab_random() & ~(3UL << 62)) | (1UL << 62);
	if (slub_debug_on(s)) {
		s->cpu_partial = 0;
	} else {
		unsigned int objs = s->size >= PAGE_SIZE ? 24 : s->size >= 1024 ? 96 :
				    s->size >= 256 ? 208 : 480;

		s->cpu_partial = DIV_ROUND_UP(objs * 2, s->num);
	}
	s->reuse_free = MAX(1U, s->num / 4);
	slub_nodes_init(s);
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		INIT_LIST_HEAD(&s->cpu[cpu].partial);
	INIT_LIST_HEAD(&s->list);
	if (slab_state != SLAB_DOWN && !min_cache_make(s)) {	/* kmem_cache's: at boot */
		printk("slub: %s: no memory for the twin of its min-order slabs\n", s->name);
		return false;
	}
	if (!slot_get(s)) {
		printk("slub: %s: all %d per-CPU slots taken (too many caches)\n", s->name,
		       SLUB_CPU_SLOTS);
		min_cache_free(s);
		return false;
	}
	slub_sheaf_setup(s);
	return true;
}

/* Objects still allocated: every slab's objects less the free ones on the node's lists. */
static unsigned long cache_live_objects(struct kmem_cache *s)
{
	unsigned long free = slub_count_free(s, NUMA_NO_NODE, NULL);

	return slub_total_objects(s) - free;
}

/* kmem_cache_destroy: see slab.h. */
int kmem_cache_destroy(struct kmem_cache *cachep)
{
	unsigned long flags, live;

	if (!cachep)
		return 0;
	if (!slab_cache_live(cachep)) {
		printk("slub: kmem_cache_destroy(%p): not a live cache (destroyed already, or "
		       "never made by kmem_cache_create); nothing done\n", (void *)cachep);
		return -EINVAL;
	}
	if (slab_merge_put(cachep))
		return 0;	/* another create still uses it */
	if (cachep == &kmem_cache_boot || cachep == kmalloc_slab(cachep->object_size) ||
	    cachep == slub_sheaf_cache) {
		printk("slub: kmem_cache_destroy(%s): a boot cache cannot be destroyed\n",
		       cachep->name);
		return -EINVAL;
	}
	/* Off the list first, so that no CPU's slab_reap() can reach it. */
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_del(&cachep->list);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	/*
	 * The caller guarantees no CPU uses the cache: every CPU's sheaves and
	 * slabs may be flushed here. Sheaves first, all of them: their objects
	 * go through this CPU's slabs, flushed after.
	 */
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		slub_sheaves_release_cpu(cachep, cpu);
	slub_barn_flush(cachep);
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		slub_flush_cpu(cachep, cpu);
	slub_node_release_empty(cachep);
	live = cache_live_objects(cachep);
	if (live) {
		printk("slub: kmem_cache_destroy(%s): %lu objects still allocated; cache kept "
		       "with its %ld slabs, so that they can still be freed\n", cachep->name, live,
		       slub_nr_slabs(cachep, false));
		cachep->dead = true;
		slab_caches_add(cachep);
		return -EBUSY;
	}
	BUG_ON(slub_nr_slabs(cachep, false) != 0);
	slot_put(cachep);
	min_cache_free(cachep);
	kmem_cache_free(&kmem_cache_boot, cachep);
	return 0;
}

/* kmem_cache_init: see slab.h. */
void kmem_cache_init(void)
{
	ASSERT(slab_state == SLAB_DOWN);
	if (!arch_has_cmpxchg_double())
		panic("slub: this CPU lacks %s, which SLUB's lockless fast paths need "
		      "(QEMU x86_64: -cpu max or -cpu qemu64,+cx16; or build ALLOC=slab)",
		      ARCH_CMPXCHG_DOUBLE_NAME);
	BUG_ON(!IS_ALIGNED((uintptr_t)this_cpu_ptr(slub_cpu), 16));
	if (!kmem_cache_setup(&kmem_cache_boot, "kmem_cache", sizeof(struct kmem_cache),
			 __alignof__(struct kmem_cache), 0, NULL))
		panic("slub: cannot lay out the kmem_cache cache");
	slab_caches_add(&kmem_cache_boot);
	slab_state = SLAB_PARTIAL;
	if (!min_cache_make(&kmem_cache_boot))
		panic("slub: cannot make the kmem_cache cache's min-order twin");
	kmalloc_caches_init();
	slub_sheaves_init();
	/* kmalloc's fast path reads the free pointer at offset 0 (slab_kmalloc_alloc). */
	for (unsigned int i = 0; i <= KMALLOC_SHIFT_HIGH; i++)
		BUG_ON(kmalloc_caches[i] && !slub_debug_on(kmalloc_caches[i]) &&
		       kmalloc_caches[i]->offset != 0);
	slab_state = SLAB_KMALLOC;
	slab_state = SLAB_UP;
	slab_layout_show();
}
