/*
 * slab_check.c - kmem_cache_check(): the invariant walk the tests lean on.
 *
 * Under the cache's node lock it visits every slab on the three lists and
 * every entry of every CPU's array, and checks what mm/slab.c and
 * mm/slab_cpu.c promise:
 *  - each slab is on the list its 'active' names, every page of it has
 *    PG_slab, slab_cache == the cache and private == the head page, and
 *    s_mem is the first page's address;
 *  - the freelist is where the cache's layout says (after the objects, in
 *    an object of the freelist cache, or in the object freelist[num-1],
 *    NULL when full), and freelist[active..num-1] are distinct indexes < num;
 *  - node counters equal what the lists hold; num fits the index type;
 *  - each array has avail <= limit and holds distinct objects of this
 *    cache, on object boundaries, that their slabs count as in use;
 *  - with debugging, every free object (on a slab or in an array) has free
 *    red zones and intact poison.
 * The caller guarantees no other CPU uses the cache meanwhile (arrays are
 * read without their owners' cooperation). A static bitmap, under
 * check_lock, marks the free indexes of one slab at a time.
 */
#include "mm/slab_def.h"
#include "kernel/printk.h"
#include "kernel/string.h"

static struct spinlock check_lock = SPINLOCK_INIT;
static uint8_t check_map[SLAB_OBJ_MAX_NUM / 8];

#define CHECK(cond, fmt, ...)                                                           \
	do {                                                                            \
		if (unlikely(!(cond))) {                                                \
			printk("slab: %s: check failed: " fmt "\n", cachep->name,       \
			       ##__VA_ARGS__);                                          \
			return -1;                                                      \
		}                                                                       \
	} while (0)

static int check_freelist_place(struct kmem_cache *cachep, struct page *page)
{
	freelist_idx_t *fl = slab_freelist(page);

	switch (cachep->layout) {
	case SLAB_LAYOUT_ON_SLAB:
		CHECK((char *)fl == (char *)page->s_mem + (size_t)cachep->num * cachep->size,
		      "slab %p: on-slab freelist at %p", page->s_mem, (void *)fl);
		break;
	case SLAB_LAYOUT_OFF_SLAB:
		CHECK(fl && virt_addr_valid(fl) && (virt_to_page(fl)->flags & PG_slab) &&
			      slab_head_page(fl)->slab_cache == cachep->freelist_cache,
		      "slab %p: off-slab freelist %p not in %s", page->s_mem, (void *)fl,
		      cachep->freelist_cache->name);
		break;
	case SLAB_LAYOUT_IN_OBJ:
		if (page->active == cachep->num) {
			CHECK(fl == NULL, "slab %p: full but freelist %p", page->s_mem, (void *)fl);
		} else {
			CHECK(fl[cachep->num - 1] < cachep->num &&
				      (void *)fl == slab_obj(cachep, page, fl[cachep->num - 1]),
			      "slab %p: freelist %p is not in the object taken last", page->s_mem,
			      (void *)fl);
		}
		break;
	}
	return 0;
}

/* One slab found on list 'want' (0 full, 1 partial, 2 free). */
static int check_slab(struct kmem_cache *cachep, struct page *page, int want,
		      unsigned long *free_objs)
{
	static const char *const lists[] = { "full", "partial", "free" };
	int is = page->active == cachep->num ? 0 : page->active == 0 ? 2 : 1;
	freelist_idx_t *fl = slab_freelist(page);

	CHECK(page->active <= cachep->num, "slab %p: active %u > num %u", page->s_mem,
	      page->active, cachep->num);
	CHECK(is == want, "slab %p with active %u on the %s list", page->s_mem, page->active,
	      lists[want]);
	CHECK(page->s_mem == page_address(page), "slab at %p: s_mem %p", page_address(page),
	      page->s_mem);
	for (unsigned long i = 0; i < (1UL << cachep->order); i++)
		CHECK((page[i].flags & PG_slab) && page[i].private == (unsigned long)page &&
			      page[i].slab_cache == cachep,
		      "slab %p: page %lu not marked as part of it", page->s_mem, i);
	if (check_freelist_place(cachep, page))
		return -1;
	memset(check_map, 0, (cachep->num + 7) / 8);
	for (unsigned int i = page->active; i < cachep->num; i++) {
		unsigned int idx = fl[i];

		CHECK(idx < cachep->num, "slab %p: freelist[%u] = %u >= num", page->s_mem, i, idx);
		CHECK(!(check_map[idx / 8] & (1U << (idx % 8))),
		      "slab %p: index %u twice on the freelist", page->s_mem, idx);
		check_map[idx / 8] |= (uint8_t)(1U << (idx % 8));
		if (slab_debug_on(cachep) &&
		    slab_debug_verify_free(cachep, slab_obj(cachep, page, idx)))
			return -1;
	}
	*free_objs += cachep->num - page->active;
	return 0;
}

/* One object found in a CPU's array. */
static int check_array_obj(struct kmem_cache *cachep, unsigned int cpu, void *objp)
{
	struct page *page;
	uintptr_t off;
	unsigned int idx;

	CHECK(virt_addr_valid(objp) && (virt_to_page(objp)->flags & PG_slab),
	      "cpu %u array holds %p, not a slab object", cpu, objp);
	page = slab_head_page(objp);
	CHECK(page->slab_cache == cachep, "cpu %u array holds %p of another cache", cpu, objp);
	off = (uintptr_t)objp - (uintptr_t)page->s_mem - cachep->obj_offset;
	CHECK(off < (uintptr_t)cachep->num * cachep->size && off % cachep->size == 0,
	      "cpu %u array holds %p, not on an object boundary", cpu, objp);
	idx = slab_obj_index(cachep, page, objp);
	for (unsigned int i = page->active; i < cachep->num; i++)
		CHECK(slab_freelist(page)[i] != idx,
		      "cpu %u array holds %p, which is also free on its slab", cpu, objp);
	if (slab_debug_on(cachep) && slab_debug_verify_free(cachep, objp))
		return -1;
	return 0;
}

static int check_arrays(struct kmem_cache *cachep)
{
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct array_cache *ac = cachep->cpu_array[cpu];

		if (!ac) {
			CHECK(slab_state < SLAB_UP, "cpu %u has no array", cpu);
			continue;
		}
		CHECK(ac->avail <= ac->limit && ac->limit == cachep->limit &&
			      ac->batchcount == cachep->batchcount && ac->batchcount <= ac->limit,
		      "cpu %u array: avail %u limit %u batchcount %u", cpu, ac->avail, ac->limit,
		      ac->batchcount);
		for (unsigned int i = 0; i < ac->avail; i++) {
			if (check_array_obj(cachep, cpu, ac->entry[i]))
				return -1;
			/* Distinct from every entry after it, in any array. */
			for (unsigned int c2 = cpu; c2 < NR_CPUS; c2++) {
				struct array_cache *ac2 = cachep->cpu_array[c2];

				if (!ac2)
					continue;
				for (unsigned int j = c2 == cpu ? i + 1 : 0; j < ac2->avail; j++)
					CHECK(ac2->entry[j] != ac->entry[i],
					      "object %p in the arrays twice (cpu %u and %u)",
					      ac->entry[i], cpu, c2);
			}
		}
	}
	return 0;
}

static int check_node(struct kmem_cache *cachep)
{
	struct kmem_cache_node *n = &cachep->node;
	struct list_head *lists[] = { &n->slabs_full, &n->slabs_partial, &n->slabs_free };
	unsigned long slabs = 0, free_slabs = 0, free_objs = 0;
	struct page *page;

	CHECK(cachep->num >= 1 && cachep->num <= SLAB_OBJ_MAX_NUM,
	      "num %u outside the index range", cachep->num);
	CHECK(cachep->freelist_size == cachep->num * sizeof(freelist_idx_t), "freelist_size %u",
	      cachep->freelist_size);
	for (int l = 0; l < 3; l++) {
		list_for_each_entry(page, lists[l], lru) {
			if (check_slab(cachep, page, l, &free_objs))
				return -1;
			slabs++;
			free_slabs += l == 2;
		}
	}
	CHECK(slabs == n->total_slabs && free_slabs == n->free_slabs &&
		      free_objs == n->free_objects,
	      "counters say %lu slabs, %lu free, %lu free objects; lists hold %lu, %lu, %lu",
	      n->total_slabs, n->free_slabs, n->free_objects, slabs, free_slabs, free_objs);
	return check_arrays(cachep);
}

/* kmem_cache_check: see slab.h. */
int kmem_cache_check(struct kmem_cache *cachep)
{
	unsigned long flags;
	int ret;

	flags = spin_lock_irqsave(&check_lock);
	spin_lock(&cachep->node.list_lock);
	ret = check_node(cachep);
	spin_unlock(&cachep->node.list_lock);
	spin_unlock_irqrestore(&check_lock, flags);
	return ret;
}
