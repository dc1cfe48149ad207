/*
 * slub_info.c - SLUB's reports (/proc/slabinfo 2.1, "Slab:", the layout
 * and statistics) and kmem_cache_check(), the invariant walk of the tests.
 *
 * slabinfo: num_objs = nr_slabs * num; active_objs = num_objs less the
 * free objects on the node's partial slabs (objects on CPU freelists and
 * on CPU partial slabs count as active, as Linux SLUB counts them);
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
 *  - every freelist (CPU and page) stays inside its slab on object
 *    boundaries, has no cycle, and ends in the slab's tagged end; a CPU
 *    slab's two chains are disjoint; inuse = num - page freelist length;
 *  - a scan of mem_map finds nr_slabs slabs of the cache, each with every
 *    page flagged and pointing at its head and cache; the frozen ones are
 *    exactly the CPU slabs and CPU partial slabs; the unfrozen full ones
 *    are on no list, the others as many as the node's list holds;
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
#include "mm/slub_def.h"
#include "kernel/printk.h"
#include "kernel/string.h"

/* slabinfo_line: see slab.h. */
int slabinfo_line(struct kmem_cache *cachep, char *buf, size_t size)
{
	unsigned long empty, free = slub_count_free(cachep, &empty), in_barn;
	unsigned long slabs = (unsigned long)atomic_long_read(&cachep->node.nr_slabs);

	slub_sheaved(cachep, &in_barn);
	return snprintf(buf, size,
			"%-17s %6lu %6lu %6u %4u %4d"
			" : tunables %4u %4u %4u : slabdata %6lu %6lu %6lu",
			cachep->name, slabs * cachep->num - free, slabs * cachep->num,
			cachep->size, cachep->num, 1 << cachep->order, cachep->sheaf_capacity,
			cachep->sheaf_capacity, 0U, slabs - empty, slabs, in_barn);
}

/* kmem_cache_usage: see slab.h. SLUB keeps no per-CPU bookkeeping in caches. */
void kmem_cache_usage(struct kmem_cache *cachep, struct slab_usage *u)
{
	unsigned long empty, free = slub_count_free(cachep, &empty);
	unsigned long slabs = (unsigned long)atomic_long_read(&cachep->node.nr_slabs);

	u->objs = slabs * cachep->num - free;
	u->pages = slabs << cachep->order;
	u->internal = false;
}

/* slabinfo_show: see slab.h. */
void slabinfo_show(void)
{
	struct kmem_cache *s;
	unsigned long flags;
	char line[160];

	printk("slabinfo - version: 2.1\n");
	printk("# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab>"
	       " : tunables <limit> <batchcount> <sharedfactor>"
	       " : slabdata <active_slabs> <num_slabs> <sharedavail>\n");
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(s, &slab_caches, list) {
		slabinfo_line(s, line, sizeof(line));
		printk("%s\n", line);
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

/* slab_total_pages: see slab.h. */
unsigned long slab_total_pages(void)
{
	unsigned long pages = 0, flags;
	struct kmem_cache *s;

	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(s, &slab_caches, list)
		pages += (unsigned long)atomic_long_read(&s->node.nr_slabs) << s->order;
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return pages;
}

/* slab_meminfo_show: see slab.h. */
void slab_meminfo_show(void)
{
	printk("%-16s%8lu kB\n", "Slab:", slab_total_pages() * (PAGE_SIZE / 1024));
}

/* slab_layout_show: see slab.h. */
void slab_layout_show(void)
{
	struct kmem_cache *s;
	unsigned long flags;

	printk("slub: freelists end in their slab's address | 1; per CPU a (freelist, tid) "
	       "pair, %d slots; objects >= %d bytes\n", SLUB_CPU_SLOTS, SLUB_MIN_SIZE);
	printk("slub: %-17s %6s %6s %5s %6s %8s %4s %4s %5s %s\n", "cache", "size", "num",
	       "order", "fp-off", "waste", "minp", "cpup", "reuse", "flags");
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(s, &slab_caches, list)
		printk("slub: %-17s %6u %6u %5u %6u %8u %4u %4u %5u%s%s%s%s%s\n", s->name, s->size,
		       s->num, s->order, s->offset, s->waste, s->min_partial, s->cpu_partial,
		       s->reuse_free, s->flags & SLAB_RED_ZONE ? " redzone" : "",
		       s->flags & SLAB_POISON ? " poison" : "", s->ctor ? " ctor" : "",
		       s->flags & SLUB_CTOR_AT_ALLOC ? "-at-alloc" : "", s->dead ? " dead" : "");
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

static void cache_stats_show(struct kmem_cache *s)
{
#if CONFIG_SLAB_STATS
	const struct kmem_cache_stats *t = &s->stats;

	printk("  %-17s alloc fast %lu slow %lu retry %lu; free fast %lu slow %lu retry %lu"
	       " frozen %lu; page retries %lu; refill %lu cpu-partial %lu/%lu node %lu new %lu"
	       " failed %lu; flush %lu unfreeze %lu discard %lu bad %lu corrupt %lu\n",
	       s->name, t->alloc_fast, t->alloc_slow, t->alloc_retries, t->free_fast,
	       t->free_slow, t->free_retries, t->free_frozen, t->page_retries, t->refill_remote,
	       t->cpu_partial_alloc, t->cpu_partial_free, t->node_alloc, t->new_slabs,
	       t->new_failed, t->flushes, t->unfrozen, t->discarded, t->bad_frees,
	       t->corruptions);
#else
	(void)s;
#endif
}

/* slab_stats_show: see slab.h. */
void slab_stats_show(void)
{
	struct kmem_cache *s;
	unsigned long flags;

	if (!CONFIG_SLAB_STATS) {
		printk("slub: statistics not counted (build with CONFIG_SLAB_STATS=1)\n");
		return;
	}
	flags = spin_lock_irqsave(&slab_caches_lock);
	list_for_each_entry(s, &slab_caches, list)
		cache_stats_show(s);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
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
#define CHECK_MAX_SHEAVED	((2 * NR_CPUS + 2 * SLUB_BARN_MAX) * SLUB_SHEAF_MAX)
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

/* Every page of the slab headed by head belongs to s and names head. */
static int check_pages(struct kmem_cache *s, struct page *head)
{
	void *base = page_address(head);

	CHECK(IS_ALIGNED((uintptr_t)base, s->slab_mask + 1), "slab %p not aligned to its size",
	      base);
	for (unsigned long i = 0; i < (1UL << s->order); i++)
		CHECK((head[i].flags & PG_slab) && head[i].slab_cache == s &&
			      head[i].private == (unsigned long)head,
		      "slab %p: page %lu flags 0x%lx cache %p head 0x%lx", base, i, head[i].flags,
		      (void *)head[i].slab_cache, head[i].private);
	CHECK(slub_objects(head->counters) == s->num, "slab %p: %u objects, the cache has %u",
	      base, slub_objects(head->counters), s->num);
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
		idx = slub_obj_index(s, v);
		CHECK(!(check_map[idx / 8] & (1U << (idx % 8))),
		      "%s freelist of slab %p: object %p twice (a cycle or a shared object)", what,
		      page_address(page), v);
		check_map[idx / 8] |= (uint8_t)(1U << (idx % 8));
		CHECK(!sheaved_has(v), "%s freelist of slab %p: object %p is in a sheaf too "
		      "(a double free?)", what, page_address(page), v);
		if (slub_debug_on(s) && slub_debug_verify_free(s, v))
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
	CHECK(slub_frozen(page->counters), "CPU slab %p not frozen", page_address(page));
	CHECK(!frozen_known(page, check_nfrozen), "slab %p held by two CPUs (or twice)",
	      page_address(page));
	CHECK(check_nfrozen < CHECK_MAX_FROZEN, "more frozen slabs than the check can hold");
	check_frozen[check_nfrozen++] = page;
	n = walk_chain(s, page, page->slub_freelist, "page");
	if (n < 0)
		return -1;
	CHECK(slub_inuse(page->counters) == s->num - n &&
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
	CHECK(slub_inuse(page->counters) == s->num - n, "slab %p: inuse %u with %ld free",
	      page_address(page), slub_inuse(page->counters), n);
	return 0;
}

static int check_node(struct kmem_cache *s)
{
	struct kmem_cache_node *n = &s->node;
	unsigned long count = 0;
	struct page *page;

	list_for_each_entry(page, &n->partial, lru) {
		CHECK(++count <= n->nr_partial, "node partial list longer than %lu",
		      n->nr_partial);
		CHECK(!slub_frozen(page->counters), "node partial slab %p frozen",
		      page_address(page));
		if (check_unfrozen(s, page))
			return -1;
		CHECK(slub_inuse(page->counters) < s->num, "node partial slab %p is full",
		      page_address(page));
		CHECK(count > n->ready_front ||
			      s->num - slub_inuse(page->counters) >= s->reuse_free,
		      "node partial slab %p (number %lu) not ready, inside ready_front %u",
		      page_address(page), count, n->ready_front);
	}
	CHECK(count == n->nr_partial, "node: %lu partial slabs, nr_partial %lu", count,
	      n->nr_partial);
	return 0;
}

/* Every slab of s in mem_map against the lists walked before. */
static int check_mem_map(struct kmem_cache *s)
{
	unsigned long slabs = 0, partial = 0, frozen = 0;

	for (unsigned long pfn = PFN_OFFSET; pfn < max_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);

		if (!(READ_ONCE(page->flags) & PG_slab) || READ_ONCE(page->slab_cache) != s ||
		    page->private != (unsigned long)page)
			continue;
		slabs++;
		if (slub_frozen(page->counters)) {
			CHECK(frozen_known(page, check_nfrozen),
			      "frozen slab %p is no CPU's slab or partial slab",
			      page_address(page));
			frozen++;
		} else {
			if (check_unfrozen(s, page))
				return -1;
			if (slub_inuse(page->counters) < s->num)
				partial++;
			else
				CHECK(list_empty(&page->lru), "full slab %p is on a list",
				      page_address(page));
		}
		pfn += (1UL << s->order) - 1;
	}
	CHECK(slabs == (unsigned long)atomic_long_read(&s->node.nr_slabs),
	      "%lu slabs in mem_map, nr_slabs %ld", slabs, atomic_long_read(&s->node.nr_slabs));
	CHECK(frozen == check_nfrozen, "%lu frozen slabs in mem_map, %u on CPUs", frozen,
	      check_nfrozen);
	CHECK(partial == s->node.nr_partial, "%lu unfrozen partial slabs, %lu on the node list",
	      partial, s->node.nr_partial);
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
		CHECK((page->flags & PG_slab) && page->slab_cache == s &&
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
	struct slub_barn *b = &s->node.barn;
	unsigned int nr_full = 0, nr_empty = 0;
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
	spin_lock(&b->lock);
	for (sh = b->full; sh && !ret; sh = sh->next) {
		ret = ++nr_full > b->max_full || check_sheaf(s, sh, "barn", 0, true, false);
	}
	for (sh = b->empty; sh && !ret; sh = sh->next)
		ret = ++nr_empty > SLUB_BARN_MAX || check_sheaf(s, sh, "barn", 0, false, true);
	spin_unlock(&b->lock);
	CHECK(!ret && nr_full == b->nr_full && nr_empty == b->nr_empty,
	      "barn: %u full and %u empty sheaves on its lists, counts %u and %u (at most %u "
	      "and %d)", nr_full, nr_empty, b->nr_full, b->nr_empty, b->max_full, SLUB_BARN_MAX);
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
	struct kmem_cache *s = cachep;
	unsigned long flags;
	int ret = -1;

	flags = spin_lock_irqsave(&slab_caches_lock);
	spin_lock(&s->node.list_lock);
	check_nfrozen = 0;
	if (s->num == 0 || s->num > SLUB_MAX_OBJS ||
	    (size_t)s->num * s->size + s->waste != s->slab_mask + 1 ||
	    s->obj_offset + s->offset + sizeof(void *) > s->size) {
		printk("slub: %s: check failed: geometry (num %u size %u waste %u offset %u)\n",
		       s->name, s->num, s->size, s->waste, s->offset);
	} else if (!check_sheaves(s) && !check_cpus(s) && !check_node(s) && !check_mem_map(s)) {
		ret = 0;
	}
	spin_unlock(&s->node.list_lock);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return ret;
}
