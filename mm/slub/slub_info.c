/*
 * slub_info.c - SLUB's reports (/proc/slabinfo 2.1, "Slab:", the layout
 * and statistics) and kmem_cache_check(), the invariant walk of the tests.
 *
 * slabinfo: num_objs = the objects of every slab (nr_slabs * num, less
 * what min-order slabs hold fewer: slub_total_objects); active_objs =
 * num_objs less the free objects on the node's partial and min-order
 * slabs (objects on CPU freelists and on CPU partial slabs count as
 * active, as Linux SLUB counts them); <objperslab> and <pagesperslab> are
 * the cache's order's;
 * objects in sheaves count as active too, as SLAB's arrays' objects do;
 * tunables <limit> = sheaf capacity, <batchcount> = the same (what a full
 * main sheaf frees to the slabs when the barn has no room), <sharedfactor> 0 (0 0
 * 0 for caches without sheaves, as Linux SLUB prints it); slabdata
 * active_slabs = slabs less the empty ones on the node's list, num_slabs =
 * all slabs (full, partial, CPU), sharedavail = objects in the barn's full
 * sheaves.
 *
 * kmem_cache_check holds slab_caches_lock (so no CPU's slab_reap runs
 * meanwhile: it trylocks it) and the node lock, and verifies:
 *  - each CPU's freelist is SLUB_NO_SLAB (always, for a debug cache) or a
 *    chain in one frozen slab of the cache, no slab the CPU slab of two CPUs;
 *  - each CPU's partial list: nr_partial slabs, frozen, with a free object;
 *  - the node's partial list: nr_partial slabs, unfrozen, with a free object;
 *    min-order slabs: on it only in debug caches, else on min_slabs, all
 *    nr_min of them, frozen;
 *  - every freelist (CPU and page) stays inside its slab on object
 *    boundaries, has no cycle, and ends in the slab's tagged end; a CPU
 *    slab's two chains are disjoint; inuse = num - page freelist length;
 *  - a scan of mem_map finds nr_slabs slabs of the cache, each with every
 *    page flagged and pointing at its head and cache (a min-order slab:
 *    the cache's twin), aligned to its size, of the cache's order or its
 *    twin's, counters naming that order's number of objects; the frozen
 *    ones are exactly the CPU slabs, CPU partial slabs and min_slabs; the
 *    unfrozen full ones are on no list, the others as many as the node's
 *    list holds;
 *  - with debugging, every free object has free red zones and intact poison;
 *  - sheaves (under the barn lock too): each CPU's main and spare and the
 *    barn's sheaves have the cache's capacity and at most that many
 *    objects, the barn's counts match its lists (full ones full, empty ones
 *    empty); caches without sheaves have none; every sheaved object is an
 *    object of the cache on a boundary, held by one sheaf once, and on no
 *    freelist (a double free that a sheaf took in shows here).
 * The caller guarantees that no other CPU allocates from or frees to the
 * cache meanwhile. O(pages + objects): for tests. Static buffers, under
 * slab_caches_lock, keep the walk off the stack.
 *
 * Lock order: slab_caches_lock -> node lock -> barn lock -> console (printk). Not for
 * interrupt handlers. Departure from Linux: statistics are their own report.
 */
#include "mm/slab_impl.h"
#include "kernel/printk.h"
#include "kernel/string.h"

/* One slabinfo row from SLUB's counts: the cache's geometry and sheaf capacity around them. */
static void slub_slabinfo_fill(struct kmem_cache *cachep, struct slabinfo *si, unsigned long objs,
			       unsigned long free, unsigned long slabs, unsigned long empty,
			       unsigned long in_barn)
{
	*si = (struct slabinfo){ .active_objs = objs - free, .num_objs = objs,
				 .objsize = cachep->size, .objperslab = cachep->num,
				 .pagesperslab = 1U << cachep->order,
				 .limit = cachep->sheaf_capacity,
				 .batchcount = cachep->sheaf_capacity, .sharedfactor = 0,
				 .active_slabs = slabs - empty, .num_slabs = slabs,
				 .shared_avail = in_barn };
}

/* kmem_cache_slabinfo: see mm/slab_impl.h. */
void kmem_cache_slabinfo(struct kmem_cache *cachep, struct slabinfo *si)
{
	unsigned long empty, free = slub_count_free(cachep, NUMA_NO_NODE, &empty), in_barn;
	unsigned long slabs = (unsigned long)slub_nr_slabs(cachep, false);
	unsigned long objs = slub_total_objects(cachep);

	slub_sheaved(cachep, NUMA_NO_NODE, &in_barn);
	slub_slabinfo_fill(cachep, si, objs, free, slabs, empty, in_barn);
}

/* slab_alloc_tables_show: see mm/slab_impl.h. SLUB has no table of its own. */
void slab_alloc_tables_show(void)
{
}

/* kmem_cache_usage: see slab.h. SLUB keeps no per-CPU bookkeeping in caches. */
void kmem_cache_usage(struct kmem_cache *cachep, struct slab_usage *u)
{
	unsigned long free = slub_count_free(cachep, NUMA_NO_NODE, NULL);

	u->objs = slub_total_objects(cachep) - free;
	u->pages = slub_total_pages(cachep);
	u->internal = false;
}

/* slab_total_pages: see slab.h. */
unsigned long slab_total_pages(void)
{
	unsigned long pages = 0, flags;
	struct kmem_cache *s;

	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(s, &slab_caches, list)
		pages += slub_total_pages(s);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return pages;
}

/* slab_layout_show: see slab.h. */
void slab_layout_show(void)
{
	struct kmem_cache *s;
	unsigned long flags;

	printk("slub: freelists end in their slab's address | 1; per CPU a (freelist, tid) "
	       "pair, %d slots; objects >= %d bytes\n", SLUB_CPU_SLOTS, SLUB_MIN_SIZE);
	printk("slub: %-17s %6s %6s %5s %7s %6s %8s %4s %4s %5s %s\n", "cache", "size", "num",
	       "order", "min", "fp-off", "waste", "minp", "cpup", "reuse", "flags");
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(s, &slab_caches, list)
		printk("slub: %-17s %6u %6u %5u %3u/%-3u %6u %8u %4u %4u %5u%s%s%s%s%s\n", s->name,
		       s->size, s->num, s->order,
		       s->min_cache ? s->min_cache->num : s->num,
		       s->min_cache ? s->min_cache->order : s->order, s->offset, s->waste,
		       s->min_partial, s->cpu_partial,
		       s->reuse_free, s->flags & SLAB_RED_ZONE ? " redzone" : "",
		       s->flags & SLAB_POISON ? " poison" : "", s->ctor ? " ctor" : "",
		       s->flags & SLUB_CTOR_AT_ALLOC ? "-at-alloc" : "", s->dead ? " dead" : "");
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

/* kmem_cache_stats_own: see mm/slab_impl.h. */
void kmem_cache_stats_own(struct kmem_cache *s, char *buf, size_t len)
{
	const struct kmem_cache_stats *t = &s->stats;

	snprintf(buf, len, "alloc fast %lu slow %lu retry %u; free fast %lu slow %lu retry %u"
		 " frozen %lu; page retries %lu; refill %lu cpu-partial %lu/%lu node %lu"
		 " failed %lu min-order %lu; flush %lu unfreeze %lu discard %lu; sheaf alloc %lu"
		 " free %lu swap %lu refill %lu barn get %lu put %lu grow %lu trim %lu flush %lu"
		 " made %lu; page"
		 " cmpxchg %lu; locks node %lu barn %lu; remote free %lu node-alloc %lu"
		 " fallback %lu",
		 t->alloc_fast, t->alloc_slow, t->alloc_retries, t->free_fast, t->free_slow,
		 t->free_retries, t->free_frozen, t->page_retries, t->refill_remote,
		 t->cpu_partial_alloc, t->cpu_partial_free, t->node_alloc, t->new_failed,
		 t->new_min, t->flushes, t->unfrozen, t->discarded, t->alloc_sheaf, t->free_sheaf,
		 t->sheaf_swaps, t->sheaf_refills, t->barn_get, t->barn_put, t->barn_grown,
		 t->barn_trimmed, t->sheaf_flushes,
		 t->sheaf_made, t->page_cmpxchgs, t->node_locks, t->barn_locks, t->free_remote,
		 t->alloc_node, t->alloc_fallback);
#if SPIN_LOCK_STATS
	{
		unsigned long nc = 0, nt = 0, bc = 0, bt = 0;
		size_t n = strlen(buf);

		for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
			nc += s->node[nid].list_lock.contended;
			nt += s->node[nid].list_lock.turns;
			bc += s->node[nid].barn.lock.contended;
			bt += s->node[nid].barn.lock.turns;
		}
		snprintf(buf + n, len - n, "; node lock waited %lu times, %lu turns; barn lock"
			 " waited %lu times, %lu turns", nc, nt, bc, bt);
	}
#endif
}

/* kmem_cache_locks_reset: see mm/slab_impl.h. Every node's and barn's locks. */
void kmem_cache_locks_reset(struct kmem_cache *s)
{
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
		spin_lock_stats_reset(&s->node[nid].list_lock);
		spin_lock_stats_reset(&s->node[nid].barn.lock);
	}
}

/* kmem_cache_check's state, under slab_caches_lock. */
static uint8_t check_map[SLUB_MAX_OBJS / 8];
#define CHECK_MAX_FROZEN	(NR_CPUS * 64)
static struct page *check_frozen[CHECK_MAX_FROZEN];	/* CPU slabs, then CPU partial slabs */
static unsigned int check_nfrozen;

#define CHECK(cond, fmt, ...)                                                           \
	do {                                                                            \
		if (unlikely(!(cond))) {                                                \
			printk("slub: %s: check failed: " fmt "\n", s->name, ##__VA_ARGS__);  \
			return -1;                                                      \
		}                                                                       \
	} while (0)

/* Objects in sheaves, sorted (check_sheaves), for walk_chain to look up. */
#define CHECK_MAX_SHEAVED	((2 * NR_CPUS + SLUB_BARN_GROW_MAX + SLUB_BARN_MAX) * SLUB_SHEAF_MAX)
static void *check_sheaved[CHECK_MAX_SHEAVED];
static unsigned long check_nsheaved;

static bool sheaved_has(const void *x)
{
	unsigned long lo = 0, hi = check_nsheaved;

	while (lo < hi) {
		unsigned long mid = (lo + hi) / 2;

		if (check_sheaved[mid] == x)
			return true;
		if ((uintptr_t)check_sheaved[mid] < (uintptr_t)x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * Every page of the slab headed by head belongs to s (a min-order slab: to
 * its twin) and names head; the slab is a buddy block of its order, aligned
 * to it, holding that order's number of objects.
 */
static int check_pages(struct kmem_cache *s, struct page *head)
{
	const struct kmem_cache *g = head->slab_cache;
	void *base = page_address(head);

	CHECK(g && (g == s || g == s->min_cache), "slab %p names cache %p, not %p or its twin %p",
	      base, (const void *)g, (void *)s, (void *)s->min_cache);
	CHECK(IS_ALIGNED((uintptr_t)base, g->slab_mask + 1), "slab %p not aligned to its size",
	      base);
	CHECK((head->flags & PG_head) && head->order == g->order,
	      "slab %p: block of order %u (head %d), its slabs are order %u", base, head->order,
	      !!(head->flags & PG_head), g->order);
	for (unsigned long i = 0; i < (1UL << g->order); i++)
		CHECK((head[i].flags & PG_slab) && head[i].slab_cache == g &&
			      head[i].private == (unsigned long)head,
		      "slab %p: page %lu flags 0x%lx cache %p head 0x%lx", base, i, head[i].flags,
		      (void *)head[i].slab_cache, head[i].private);
	CHECK(slub_objects(head->counters) == g->num, "slab %p: %u objects, its order has %u",
	      base, slub_objects(head->counters), g->num);
	return 0;
}

/*
 * Walk a chain from v inside the slab headed by page, marking check_map
 * (the caller cleared it for this slab). Returns its length, or -1.
 */
static long walk_chain(struct kmem_cache *s, struct page *page, void *v, const char *what)
{
	void *end = (void *)((uintptr_t)page_address(page) | SLUB_END_TAG);
	long n = 0;

	while (v != end) {
		unsigned int idx;

		CHECK(!slub_is_end(v) && slub_fp_valid(s, page, v),
		      "%s freelist of slab %p: %p is neither an object of it nor its end", what,
		      page_address(page), v);
		idx = (unsigned int)(((uintptr_t)v - (uintptr_t)page_address(page) - s->obj_offset) /
				     s->size);
		CHECK(!(check_map[idx / 8] & (1U << (idx % 8))),
		      "%s freelist of slab %p: object %p twice (a cycle or a shared object)", what,
		      page_address(page), v);
		check_map[idx / 8] |= (uint8_t)(1U << (idx % 8));
		CHECK(!sheaved_has(v), "%s freelist of slab %p: object %p is in a sheaf too "
		      "(a double free?)", what, page_address(page), v);
		if (slub_debug_on(s) && slab_debug_verify_free(s, v))
			return -1;
		n++;
		v = slub_get_fp(s, v);
	}
	return n;
}

static void map_clear(struct kmem_cache *s)
{
	memset(check_map, 0, s->num / 8 + 1);
}

static bool frozen_known(struct page *page, unsigned int upto)
{
	for (unsigned int i = 0; i < upto; i++)
		if (check_frozen[i] == page)
			return true;
	return false;
}

/* One slab found frozen on a CPU: its pages, its page freelist, its counters. */
static int check_frozen_slab(struct kmem_cache *s, struct page *page, long cpu_objs)
{
	long n;

	if (check_pages(s, page))
		return -1;
	CHECK(!slub_is_min(page), "min-order slab %p is a CPU's", page_address(page));
	CHECK(slub_frozen(page->counters), "CPU slab %p not frozen", page_address(page));
	CHECK(!frozen_known(page, check_nfrozen), "slab %p held by two CPUs (or twice)",
	      page_address(page));
	CHECK(check_nfrozen < CHECK_MAX_FROZEN, "more frozen slabs than the check can hold");
	check_frozen[check_nfrozen++] = page;
	n = walk_chain(s, page, page->slub_freelist, "page");
	if (n < 0)
		return -1;
	CHECK(slub_inuse(page->counters) == slub_geom(page)->num - n &&
		  cpu_objs <= (long)slub_inuse(page->counters),
	      "slab %p: inuse %u, %ld free on its page, %ld on the CPU's", page_address(page),
	      slub_inuse(page->counters), n, cpu_objs);
	return 0;
}

static int check_cpus(struct kmem_cache *s)
{
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct kmem_cache_cpu_partial *p = &s->cpu[cpu];
		void *v = READ_ONCE(slub_cpu_of(s, cpu)->freelist);
		unsigned int count = 0;
		struct page *page;

		if (slub_debug_on(s))
			CHECK(v == SLUB_NO_SLAB && p->nr_partial == 0,
			      "debug cache: CPU %u has a slab (%p) or partial slabs", cpu, v);
		if (v != SLUB_NO_SLAB) {
			long n;

			CHECK(virt_addr_valid((void *)slub_base(s, v)),
			      "CPU %u freelist %p points outside RAM", cpu, v);
			page = slub_page(s, v);
			CHECK((page->flags & PG_slab) && page->slab_cache == s,
			      "CPU %u freelist %p is not in a slab of the cache", cpu, v);
			map_clear(s);
			n = walk_chain(s, page, v, "CPU");
			if (n < 0 || check_frozen_slab(s, page, n))
				return -1;
		}
		list_for_each_entry(page, &p->partial, lru) {
			CHECK(++count <= p->nr_partial, "CPU %u partial list longer than %u", cpu,
			      p->nr_partial);
			map_clear(s);
			if (check_frozen_slab(s, page, 0))
				return -1;
			CHECK(slub_inuse(page->counters) < s->num,
			      "CPU %u partial slab %p has no free object", cpu, page_address(page));
		}
		CHECK(count == p->nr_partial, "CPU %u: %u partial slabs, nr_partial %u", cpu, count,
		      p->nr_partial);
		CHECK(p->nr_partial <= s->cpu_partial || s->cpu_partial == 0,
		      "CPU %u holds %u partial slabs, at most %u", cpu, p->nr_partial,
		      s->cpu_partial);
	}
	return 0;
}

/* An unfrozen slab: pages, page freelist, counters. */
static int check_unfrozen(struct kmem_cache *s, struct page *page)
{
	long n;

	if (check_pages(s, page))
		return -1;
	map_clear(s);
	n = walk_chain(s, page, page->slub_freelist, "page");
	if (n < 0)
		return -1;
	CHECK(slub_inuse(page->counters) == slub_geom(page)->num - n,
	      "slab %p: inuse %u with %ld free", page_address(page), slub_inuse(page->counters),
	      n);
	return 0;
}

static int check_node(struct kmem_cache *s, unsigned int nid)
{
	struct kmem_cache_node *n = &s->node[nid];
	unsigned long count = 0;
	struct page *page;

	list_for_each_entry(page, &n->partial, lru) {
		CHECK(slub_slab_nid(page) == nid, "node %u's partial slab %p is node %u's", nid,
		      page_address(page), slub_slab_nid(page));
		CHECK(++count <= n->nr_partial, "node partial list longer than %lu",
		      n->nr_partial);
		CHECK(!slub_frozen(page->counters), "node partial slab %p frozen",
		      page_address(page));
		if (check_unfrozen(s, page))
			return -1;
		CHECK(slub_debug_on(s) || !slub_is_min(page),
		      "min-order slab %p on the node's partial list", page_address(page));
		CHECK(slub_inuse(page->counters) < slub_geom(page)->num,
		      "node partial slab %p is full", page_address(page));
		CHECK(count > n->ready_front ||
			      slub_geom(page)->num - slub_inuse(page->counters) >= s->reuse_free,
		      "node partial slab %p (number %lu) not ready, inside ready_front %u",
		      page_address(page), count, n->ready_front);
	}
	CHECK(count == n->nr_partial, "node %u: %lu partial slabs, nr_partial %lu", nid, count,
	      n->nr_partial);
	return 0;
}

/* check_node for every node. */
static int check_nodes(struct kmem_cache *s)
{
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++)
		if (check_node(s, nid))
			return -1;
	return 0;
}

/* The node's min-order slabs (a cache without debugging): frozen, their chains. */
static int check_min(struct kmem_cache *s, unsigned long *listed)
{
	struct page *page;
	long n;

	*listed = 0;
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
	unsigned long on_node = 0;

	list_for_each_entry(page, &s->node[nid].min_slabs, lru) {
		CHECK(++on_node <= (unsigned long)atomic_long_read(&s->node[nid].nr_min),
		      "node %u's min-order list longer than nr_min %ld", nid,
		      atomic_long_read(&s->node[nid].nr_min));
		CHECK(slub_slab_nid(page) == nid, "node %u's min-order slab %p is node %u's", nid,
		      page_address(page), slub_slab_nid(page));
		++*listed;
		CHECK(!slub_debug_on(s), "debug cache with a min-order list (slab %p)",
		      page_address(page));
		if (check_pages(s, page))
			return -1;
		CHECK(slub_is_min(page) && slub_frozen(page->counters),
		      "slab %p on the min-order list: %s", page_address(page),
		      slub_is_min(page) ? "not frozen" : "of the cache's order");
		map_clear(s);
		n = walk_chain(s, page, page->slub_freelist, "min-order slab's");
		if (n < 0)
			return -1;
		CHECK(slub_inuse(page->counters) == slub_geom(page)->num - n,
		      "min-order slab %p: inuse %u with %ld free", page_address(page),
		      slub_inuse(page->counters), n);
	}
	}
	return 0;
}

/* Every slab of s in mem_map against the lists walked before (min_listed: check_min's). */
static int check_mem_map(struct kmem_cache *s, unsigned long min_listed)
{
	static unsigned long slabs[MAX_NUMNODES], partial[MAX_NUMNODES], min[MAX_NUMNODES];
	unsigned long frozen = 0, min_frozen = 0;

	memset(slabs, 0, sizeof(slabs));
	memset(partial, 0, sizeof(partial));
	memset(min, 0, sizeof(min));

	for (unsigned long pfn = PFN_OFFSET; pfn < max_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);
		struct kmem_cache *g = READ_ONCE(page->slab_cache);

		if (!(READ_ONCE(page->flags) & PG_slab) || !g || (g != s && g != s->min_cache) ||
		    page->private != (unsigned long)page)
			continue;
		CHECK(slub_slab_nid(page) < MAX_NUMNODES && numa_node_online(slub_slab_nid(page)),
		      "slab %p: node %u is not online", page_address(page), slub_slab_nid(page));
		slabs[slub_slab_nid(page)]++;
		if (g != s) {
			min[slub_slab_nid(page)]++;
			if (!slub_debug_on(s)) {
				if (check_pages(s, page))
					return -1;
				CHECK(slub_frozen(page->counters),
				      "min-order slab %p not frozen", page_address(page));
				min_frozen++;
				pfn += (1UL << g->order) - 1;
				continue;
			}
		}
		if (slub_frozen(page->counters)) {
			CHECK(frozen_known(page, check_nfrozen),
			      "frozen slab %p is no CPU's slab or partial slab",
			      page_address(page));
			frozen++;
		} else {
			if (check_unfrozen(s, page))
				return -1;
			if (slub_inuse(page->counters) < g->num)
				partial[slub_slab_nid(page)]++;
			else
				CHECK(list_empty(&page->lru), "full slab %p is on a list",
				      page_address(page));
		}
		pfn += (1UL << g->order) - 1;
	}
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
		struct kmem_cache_node *n = &s->node[nid];

		CHECK(slabs[nid] == (unsigned long)atomic_long_read(&n->nr_slabs),
		      "node %u: %lu slabs in mem_map, nr_slabs %ld", nid, slabs[nid],
		      atomic_long_read(&n->nr_slabs));
		CHECK(min[nid] == (unsigned long)atomic_long_read(&n->nr_min),
		      "node %u: %lu min-order slabs in mem_map, nr_min %ld", nid, min[nid],
		      atomic_long_read(&n->nr_min));
		CHECK(partial[nid] == n->nr_partial,
		      "node %u: %lu unfrozen partial slabs, %lu on its list", nid, partial[nid],
		      n->nr_partial);
	}
	CHECK(min_frozen == min_listed, "%lu frozen min-order slabs in mem_map, %lu on the list",
	      min_frozen, min_listed);
	CHECK(frozen == check_nfrozen, "%lu frozen slabs in mem_map, %u on CPUs", frozen,
	      check_nfrozen);
	return 0;
}

/* One sheaf: its capacity, its size ('want_full' / 'want_empty'), its objects collected. */
static int check_sheaf(struct kmem_cache *s, const struct slub_sheaf *sh, const char *what,
		       unsigned int cpu, bool want_full, bool want_empty)
{
	CHECK(sh->capacity == s->sheaf_capacity && sh->size <= sh->capacity,
	      "%s sheaf %p (CPU %u): %lu objects, capacity %lu, the cache's %u", what,
	      (const void *)sh, cpu, sh->size, sh->capacity, s->sheaf_capacity);
	CHECK(!want_full || sh->size == sh->capacity, "barn's full sheaf %p holds %lu of %lu",
	      (const void *)sh, sh->size, sh->capacity);
	CHECK(!want_empty || sh->size == 0, "barn's empty sheaf %p holds %lu", (const void *)sh,
	      sh->size);
	for (unsigned int i = 0; i < sh->size; i++) {
		void *x = sh->objects[i];
		struct page *page;

		CHECK(virt_addr_valid(x), "%s sheaf %p (CPU %u): %p is not in RAM", what,
		      (const void *)sh, cpu, x);
		page = virt_to_page(x);
		CHECK((page->flags & PG_slab) && page->slab_cache &&
			      slub_owner(page->slab_cache) == s &&
			      slub_fp_valid(s, (struct page *)page->private, x),
		      "%s sheaf %p (CPU %u): %p is no object of the cache", what,
		      (const void *)sh, cpu, x);
		CHECK(check_nsheaved < CHECK_MAX_SHEAVED, "more sheaved objects than the check holds");
		check_sheaved[check_nsheaved++] = x;
	}
	return 0;
}

/* The sheaves of every CPU and the barn (see above); leaves check_sheaved sorted. */
static int check_sheaves(struct kmem_cache *s)
{
	const struct slub_sheaf *sh;
	int ret = 0;

	check_nsheaved = 0;
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct slub_sheaf *main = per_cpu_ptr(slub_sheaf, cpu)->main[s->slot];
		const struct slub_sheaf *spare = s->cpu[cpu].spare;

		CHECK(s->sheaf_capacity || (main == &slub_sheaf_none && !spare),
		      "CPU %u has sheaves of a cache without them", cpu);
		if (main != &slub_sheaf_none && check_sheaf(s, main, "main", cpu, false, false))
			return -1;
		if (spare && check_sheaf(s, spare, "spare", cpu, false, false))
			return -1;
	}
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++) {
		struct slub_barn *b = &s->node[nid].barn;
		unsigned int nr_full = 0, nr_empty = 0;

		spin_lock(&b->lock);
		for (sh = b->full; sh && !ret; sh = sh->next)
			ret = ++nr_full > b->max_full || check_sheaf(s, sh, "barn", 0, true, false);
		for (sh = b->empty; sh && !ret; sh = sh->next)
			ret = ++nr_empty > SLUB_BARN_MAX ||
			      check_sheaf(s, sh, "barn", 0, false, true);
		spin_unlock(&b->lock);
		CHECK(!ret && nr_full == b->nr_full && nr_empty == b->nr_empty,
		      "node %u's barn: %u full and %u empty sheaves on its lists, counts %u and "
		      "%u (at most %u and %d)", nid, nr_full, nr_empty, b->nr_full, b->nr_empty,
		      b->max_full, SLUB_BARN_MAX);
	}
	/* Shell sort (no library here), then no object twice. */
	for (unsigned long gap = check_nsheaved / 2; gap > 0; gap /= 2) {
		for (unsigned long i = gap; i < check_nsheaved; i++) {
			void *v = check_sheaved[i];
			unsigned long j = i;

			for (; j >= gap && (uintptr_t)check_sheaved[j - gap] > (uintptr_t)v; j -= gap)
				check_sheaved[j] = check_sheaved[j - gap];
			check_sheaved[j] = v;
		}
	}
	for (unsigned long i = 1; i < check_nsheaved; i++)
		CHECK(check_sheaved[i] != check_sheaved[i - 1],
		      "object %p is in sheaves twice (a double free?)", check_sheaved[i]);
	return 0;
}

/* kmem_cache_check: see slab.h and above. */
int kmem_cache_check(struct kmem_cache *cachep)
{
	struct kmem_cache *s = cachep, *t = cachep->min_cache;
	unsigned long flags, min_listed = 0;
	int ret = -1;

	flags = spin_lock_irqsave(&slab_caches_lock);
	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++)	/* ascending */
		spin_lock(&s->node[nid].list_lock);
	check_nfrozen = 0;
	if (s->num == 0 || s->num > SLUB_MAX_OBJS ||
	    (size_t)s->num * s->size + s->waste != s->slab_mask + 1 ||
	    s->obj_offset + s->offset + sizeof(void *) > s->size) {
		printk("slub: %s: check failed: geometry (num %u size %u waste %u offset %u)\n",
		       s->name, s->num, s->size, s->waste, s->offset);
	} else if (t && (t->min_of != s || t->order >= s->order || t->num == 0 ||
			 (size_t)t->num * t->size + t->waste != t->slab_mask + 1 ||
			 (t->order && (PAGE_SIZE << (t->order - 1)) >= s->size) ||
			 t->size != s->size || t->obj_offset != s->obj_offset ||
			 t->offset != s->offset || t->obj_bound != 0)) {
		printk("slub: %s: check failed: min-order twin (order %u of %u, num %u, size %u, "
		       "waste %u)\n", s->name, t->order, s->order, t->num, t->size, t->waste);
	} else if (!t && get_order(s->size) < s->order) {
		printk("slub: %s: check failed: no min-order twin, an order-%u slab holds an "
		       "object\n", s->name, get_order(s->size));
	} else if (!check_sheaves(s) && !check_cpus(s) && !check_nodes(s) &&
		   !check_min(s, &min_listed) && !check_mem_map(s, min_listed)) {
		ret = 0;
	}
	for (unsigned int nid = MAX_NUMNODES; nid-- > 0;)
		spin_unlock(&s->node[nid].list_lock);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return ret;
}

/*
 * kmem_cache_slabinfo_node: see mm/slab_impl.h. The row of the slabs that
 * count as node's (slub_slab_nid: their pages' node, but for slabs made
 * before the topology was known), with node's barn as shared_avail; the
 * tunables are the cache's. A node beyond MAX_NUMNODES has an empty row.
 */
bool kmem_cache_slabinfo_node(struct kmem_cache *cachep, unsigned int node, struct slabinfo *si)
{
	unsigned long empty = 0, free = 0, in_barn = 0, slabs = 0, objs = 0;

	slub_nodes_check();
	if (node < MAX_NUMNODES) {
		free = slub_count_free(cachep, node, &empty);
		slabs = (unsigned long)atomic_long_read(&cachep->node[node].nr_slabs);
		objs = slub_node_objects(cachep, node);
		slub_sheaved(cachep, node, &in_barn);
	}
	slub_slabinfo_fill(cachep, si, objs, free, slabs, empty, in_barn);
	return true;
}
