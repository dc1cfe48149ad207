/*
 * slab_check.c - kmem_cache_check(): the invariant walk the tests lean on.
 *
 * Under every node lock of the cache (taken in index order) it visits every
 * slab on each node's three lists and every entry of every CPU's array and
 * node's shared array, and checks what mm/slab/slab.c and mm/slab/slab_cpu.c promise:
 *  - each slab is on the list its 'active' names, of its home node, every page of it has
 *    PG_slab, slab_cache == the cache, private == the head page and s_mem
 *    the head's (kfree reads them from the object's own page, and takes a
 *    page with a slab_cache for a slab page), and s_mem is the first page's
 *    address;
 *  - the freelist is where the cache's layout says (after the objects, in
 *    an object of the freelist cache, or in the object freelist[num-1],
 *    NULL when full), and freelist[active..num-1] are distinct indexes < num;
 *  - node counters equal what the lists hold, free_limit is the node's;
 *    num fits the index type;
 *  - each array (per CPU, each node's shared one, each CPU's alien caches,
 *    which hold only objects of the node they are for) has a NULL bottom
 *    entry, avail <= limit and the cache's tunables, and holds objects of
 *    this cache, on object boundaries, that their slabs count as in use;
 *    no object is in the arrays twice (all of them sorted by address);
 *  - with debugging, every free object (on a slab or in an array) has free
 *    red zones and intact poison.
 * The caller guarantees no other CPU uses the cache meanwhile (arrays are
 * read without their owners' cooperation; a reap takes objects out of an
 * array only under its CPU's node lock, which the check holds). A static bitmap and a static
 * buffer of array objects, under check_lock, keep the walk off the stack.
 */
#include "mm/slab/slab_def.h"
#include "kernel/printk.h"
#include "kernel/string.h"

static struct spinlock check_lock = SPINLOCK_INIT;
static uint8_t check_map[SLAB_OBJ_MAX_NUM / 8];
/*
 * Every object in a cache's arrays: NR_CPUS arrays of at most 120, SLAB_NODES
 * shared ones (grown at most to SLAB_SHARED_GROW_OBJS), and every CPU's alien caches.
 */
#define CHECK_MAX_OBJS	(NR_CPUS * 120 + SLAB_NODES * SLAB_SHARED_GROW_OBJS + \
			 NR_CPUS * MAX_NUMNODES * SLAB_ALIEN_LIMIT)
static void *check_objs[CHECK_MAX_OBJS];
/* The cache's nodes as they were when the check locked them: the walk sees no later one. */
static struct kmem_cache_node *check_nodes[SLAB_NODES];

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
		CHECK((char *)fl == (char *)page_address(page) + (size_t)cachep->num * cachep->size +
					    cachep->tail,
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

/* One slab found on node nid's list 'want' (0 full, 1 partial, 2 free). */
static int check_slab(struct kmem_cache *cachep, unsigned int nid, struct page *page, int want,
		      unsigned long *free_objs)
{
	static const char *const lists[] = { "full", "partial", "free" };
	int is = page->active == cachep->num ? 0 : page->active == 0 ? 2 : 1;
	freelist_idx_t *fl = slab_freelist(page);

	CHECK(page->active <= cachep->num, "slab %p: active %u > num %u", page->s_mem,
	      page->active, cachep->num);
	CHECK(is == want, "slab %p with active %u on the %s list", page->s_mem, page->active,
	      lists[want]);
	CHECK(slab_node_id(page) == nid, "slab %p homed at node %u is on node %u's lists",
	      page->s_mem, slab_node_id(page), nid);
	CHECK(page->s_mem == (char *)page_address(page) + cachep->obj_offset,
	      "slab at %p: s_mem %p", page_address(page), page->s_mem);
	for (unsigned long i = 0; i < (1UL << cachep->order); i++)
		CHECK((page[i].flags & PG_slab) && page[i].private == (unsigned long)page &&
			      page[i].slab_cache == cachep && page[i].s_mem == page->s_mem,
		      "slab %p: page %lu not marked as part of it", page->s_mem, i);
	for (unsigned long i = 0; i < (1UL << cachep->order); i++) {
		unsigned long idx = page_to_pfn(&page[i]) - PFN_OFFSET;

		CHECK(idx >= slab_cache_map.nr || READ_ONCE(slab_cache_map.cache[idx]) == cachep,
		      "slab %p: page %lu named %p in slab_cache_map", page->s_mem, i,
		      (void *)READ_ONCE(slab_cache_map.cache[idx]));
	}
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

/*
 * One object found in an array ('cpu' names it: NR_CPUS + n for node n's
 * shared one, NR_CPUS + SLAB_NODES + cpu * MAX_NUMNODES + n for a CPU's
 * alien cache of node n).
 */
static int check_array_obj(struct kmem_cache *cachep, unsigned int cpu, void *objp)
{
	struct page *page;
	uintptr_t off;
	unsigned int idx;

	CHECK(virt_addr_valid(objp) && (virt_to_page(objp)->flags & PG_slab),
	      "array %u holds %p, not a slab object", cpu, objp);
	page = slab_head_page(objp);
	CHECK(page->slab_cache == cachep, "array %u holds %p of another cache", cpu, objp);
	off = (uintptr_t)objp - (uintptr_t)page->s_mem;
	CHECK(off < cachep->span && off % cachep->size == 0,
	      "array %u holds %p, not on an object boundary", cpu, objp);
	idx = slab_obj_index(cachep, page, objp);
	CHECK(idx == off / cachep->size, "array %u: %p: index %u by multiplication, %lu by division",
	      cpu, objp, idx, (unsigned long)(off / cachep->size));
	for (unsigned int i = page->active; i < cachep->num; i++)
		CHECK(slab_freelist(page)[i] != idx,
		      "array %u holds %p, which is also free on its slab", cpu, objp);
	if (slab_debug_on(cachep) && slab_debug_verify_free(cachep, objp))
		return -1;
	return 0;
}

/* Sift a[i] down the max-heap a[0..n). */
static void sift_down(void **a, size_t i, size_t n)
{
	for (size_t c; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && (uintptr_t)a[c + 1] > (uintptr_t)a[c])
			c++;
		if ((uintptr_t)a[i] >= (uintptr_t)a[c])
			break;
		void *t = a[i];
		a[i] = a[c];
		a[c] = t;
	}
}

/* Heapsort by address: O(n log n) with no extra memory. */
static void sort_ptrs(void **a, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(a, i, n);
	for (size_t end = n; end-- > 1;) {
		void *t = a[0];

		a[0] = a[end];
		a[end] = t;
		sift_down(a, 0, end);
	}
}

/* One array: shape, then each object, collected into check_objs[*nobjs...]. */
static int check_one_array(struct kmem_cache *cachep, unsigned int cpu,
			   const struct array_cache *ac, unsigned int limit, unsigned int max_limit,
			   size_t *nobjs)
{
	CHECK(ac->entry[0] == NULL && ac->avail <= ac->limit && ac->limit >= limit &&
		      ac->limit <= max_limit &&
		      ac->batchcount == cachep->batchcount,
	      "array %u: bottom %p avail %lu limit %lu batchcount %u", cpu, ac->entry[0], ac->avail,
	      ac->limit, ac->batchcount);
	CHECK(*nobjs + ac->avail <= CHECK_MAX_OBJS, "more objects in arrays than can be checked");
	for (unsigned int i = 1; i <= ac->avail; i++) {
		if (check_array_obj(cachep, cpu, ac->entry[i]))
			return -1;
		check_objs[(*nobjs)++] = ac->entry[i];
	}
	return 0;
}

/* Every CPU's alien caches: shape, objects, each of the node it is kept for, never the CPU's own. */
static int check_aliens(struct kmem_cache *cachep, size_t *nobjs)
{
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct slab_alien *al = cachep->cpu_array[cpu]->alien;

		if (!al)
			continue;
		CHECK(!CONFIG_SLAB_NODE_PER_CPU, "cpu %u has alien caches in a node-per-CPU build",
		      cpu);
		for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
			const struct array_cache *ac = al->ac[nid];
			unsigned int id = NR_CPUS + SLAB_NODES + cpu * MAX_NUMNODES + nid;

			if (!ac)
				continue;
			if (check_one_array(cachep, id, ac, SLAB_ALIEN_LIMIT, SLAB_ALIEN_LIMIT, nobjs))
				return -1;
			for (unsigned int i = 1; i <= ac->avail; i++)
				CHECK(slab_node_id(slab_head_page(ac->entry[i])) == nid,
				      "cpu %u's alien cache for node %u holds %p of node %u", cpu, nid,
				      ac->entry[i], slab_node_id(slab_head_page(ac->entry[i])));
		}
	}
	return 0;
}

static int check_arrays(struct kmem_cache *cachep)
{
	unsigned int arrays = 0;
	size_t nobjs = 0;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct array_cache *ac = cachep->cpu_array[cpu];

		CHECK(ac != NULL, "cpu %u: no array pointer", cpu);
		if (ac == &slab_no_array) {
			CHECK(ac->avail == 0 && ac->limit == 0, "slab_no_array was written");
			continue;
		}
		CHECK(!slab_debug_on(cachep) && slab_state == SLAB_UP,
		      "cpu %u has an array in a debug cache or before boot ended", cpu);
		if (check_one_array(cachep, cpu, ac, cachep->limit, cachep->limit, &nobjs))
			return -1;
		arrays++;
	}
	CHECK(arrays == (unsigned int)atomic_read(&cachep->nr_arrays), "%u arrays, the cache counts %d",
	      arrays, atomic_read(&cachep->nr_arrays));
	for (unsigned int nid = 0; nid < SLAB_NODES; nid++) {
		const struct array_cache *sh = check_nodes[nid] ? check_nodes[nid]->shared : NULL;

		if (!sh)
			continue;
		CHECK(cachep->shared, "node %u has a shared array, the cache none", nid);
		if (check_one_array(cachep, NR_CPUS + nid, sh, cachep->shared * cachep->batchcount,
				    cache_shared_max(cachep), &nobjs))
			return -1;
	}
	if (check_aliens(cachep, &nobjs))
		return -1;
	sort_ptrs(check_objs, nobjs);
	for (size_t i = 1; i < nobjs; i++)
		CHECK(check_objs[i] != check_objs[i - 1], "object %p in the arrays twice",
		      check_objs[i]);
	return 0;
}

static int check_node(struct kmem_cache *cachep, unsigned int nid)
{
	struct kmem_cache_node *n = check_nodes[nid];
	struct list_head *lists[] = { &n->slabs_full, &n->slabs_partial, &n->slabs_free };
	unsigned long slabs = 0, free_slabs = 0, free_objs = 0;
	struct page *page;

	for (int l = 0; l < 3; l++) {
		list_for_each_entry(page, lists[l], lru) {
			if (check_slab(cachep, nid, page, l, &free_objs))
				return -1;
			slabs++;
			free_slabs += l == 2;
		}
	}
	CHECK(slabs == n->total_slabs && free_slabs == n->free_slabs &&
		      free_objs == n->free_objects,
	      "node %u: counters say %lu slabs, %lu free, %lu free objects; lists hold %lu, %lu, %lu",
	      nid, n->total_slabs, n->free_slabs, n->free_objects, slabs, free_slabs, free_objs);
	CHECK(n->free_limit == SLAB_NODE_FREE_LIMIT(cachep), "node %u: free_limit %lu", nid,
	      n->free_limit);
	return 0;
}

static int check_cache(struct kmem_cache *cachep)
{
	CHECK(cachep->num >= 1 && cachep->num <= SLAB_OBJ_MAX_NUM,
	      "num %u outside the index range", cachep->num);
	CHECK(cachep->freelist_size == cachep->num * sizeof(freelist_idx_t), "freelist_size %u",
	      cachep->freelist_size);
	CHECK(check_nodes[0] == &cachep->node0, "node 0 is not the cache's own");
	for (unsigned int nid = 0; nid < SLAB_NODES; nid++)
		if (check_nodes[nid] && check_node(cachep, nid))
			return -1;
	return check_arrays(cachep);
}

/* kmem_cache_check: see slab.h. */
int kmem_cache_check(struct kmem_cache *cachep)
{
	unsigned long flags;
	int ret;

	flags = spin_lock_irqsave(&check_lock);
	for (unsigned int nid = 0; nid < SLAB_NODES; nid++) {
		check_nodes[nid] = READ_ONCE(cachep->node[nid]);
		if (check_nodes[nid])
			spin_lock(&check_nodes[nid]->list_lock);
	}
	ret = check_cache(cachep);
	for (unsigned int nid = SLAB_NODES; nid-- > 0;)
		if (check_nodes[nid])
			spin_unlock(&check_nodes[nid]->list_lock);
	spin_unlock_irqrestore(&check_lock, flags);
	if (ret == 0 && cachep->min_cache)
		ret = kmem_cache_check(cachep->min_cache);
	return ret;
}
