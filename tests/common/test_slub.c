/*
 * test_slub.c - SLUB's structure, in the kernel and on the host: objects
 * per slab and orders; the tagged freelist end naming its slab; the
 * per-CPU (freelist, tid) pair and its tid; frees outside the CPU slab
 * going to the page freelist (freezing a full slab onto this CPU's partial
 * list) and coming back as a refill; partial lists and the empty slabs a
 * node keeps; ctor objects staying constructed; double frees; the slabinfo
 * line; per-CPU slots reused; kmem_cache_check catching a bad freelist;
 * every other CPU freeing into one CPU's slabs at once (on_each_cpu_wait).
 *
 * Sequences that look at this CPU's slab run with interrupts off, so that
 * no timer tick (slab_reap) changes it meanwhile; figures that other CPUs'
 * reaps could change (the node's empty slabs) are compared only when
 * mm_test_others() shows no one else moved slabs (tests/common/test_mm.h).
 */
#include "test_cache_slabinfo.h"
#include "test_slub.h"
#include "kernel/smp.h"
#include <asm/irqflags.h>

SELFTEST(slub_objects_per_slab_and_orders)
{
	unsigned int min_objects = 0;

	slab_test_init();
	for (unsigned int n = NR_CPUS; n > 1; n /= 2)
		min_objects++;
	min_objects = 4 * (min_objects + 1);
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++) {
		struct kmem_cache *c = kmalloc_caches[i];
		unsigned long slab;

		if (!c)
			continue;
		slab = PAGE_SIZE << c->order;
		ST_EXPECT(c->num == slab / c->size &&
			      c->waste == slab - (unsigned long)c->num * c->size,
			  "%s: %u objects of %u in %lu bytes, waste %u", c->name, c->num, c->size,
			  slab, c->waste);
		ST_EXPECT(c->slab_mask == slab - 1, "%s: slab_mask 0x%lx", c->name,
			  (unsigned long)c->slab_mask);
		ST_EXPECT(c->num >= min_objects || c->order == SLUB_MAX_ORDER ||
				  (PAGE_SIZE << SLUB_MAX_ORDER) / c->size < min_objects,
			  "%s: %u objects per order-%u slab, the rule wants %u", c->name, c->num,
			  c->order, min_objects);
		ST_EXPECT(c->order == 0 || (PAGE_SIZE << (c->order - 1)) / c->size < min_objects ||
				  c->waste * 16 <= slab,
			  "%s: order %u where order %u would hold %u", c->name, c->order,
			  c->order - 1, min_objects);
		ST_EXPECT(!slub_debug_on(c) || c->cpu_partial == 0, "%s: debug with CPU partials",
			  c->name);
	}
	if (!CONFIG_SLAB_DEBUG) {
		ST_EXPECT(kmalloc_slab(32)->num == PAGE_SIZE / 32 && kmalloc_slab(32)->order == 0,
			  "kmalloc-32: %u per order-%u slab, want %lu", kmalloc_slab(32)->num,
			  kmalloc_slab(32)->order, PAGE_SIZE / 32);
		ST_EXPECT(kmalloc_slab(16)->num == PAGE_SIZE / 16 && kmalloc_slab(64)->num ==
								    PAGE_SIZE / 64,
			  "kmalloc-16 %u, kmalloc-64 %u per slab", kmalloc_slab(16)->num,
			  kmalloc_slab(64)->num);
		ST_EXPECT(PAGE_SHIFT != 12 || (kmalloc_slab(4096)->num == 8 &&
					       kmalloc_slab(4096)->order == 3),
			  "kmalloc-4096: %u per order-%u slab", kmalloc_slab(4096)->num,
			  kmalloc_slab(4096)->order);
	}
	printk("slub: kmalloc-32 holds %u objects per order-%u slab at %s pages\n",
	       kmalloc_slab(32)->num, kmalloc_slab(32)->order, PAGE_SIZE_NAME);
	return 0;
}

/* The tagged end: checked with interrupts off (see above). */
static int tag_body(struct kmem_cache *c, void **objs)
{
	struct page *page, *page2;
	void *v, *end;
	unsigned int n;

	objs[0] = kmem_cache_alloc(c);
	ST_EXPECT(objs[0], "alloc failed");
	page = slub_test_page(objs[0]);
	end = slub_test_end(page);
	v = slub_this_cpu(c)->freelist;
	ST_EXPECT(slub_base(c, v) == (uintptr_t)page_address(page) && slub_page(c, v) == page,
		  "CPU freelist %p does not name the slab %p", v, page_address(page));
	ST_EXPECT(slub_test_chain_len(c, v) == c->num - 1, "%u objects on the CPU freelist",
		  slub_test_chain_len(c, v));
	for (n = 0; !slub_is_end(v); n++)
		v = slub_get_fp(c, v);
	ST_EXPECT(v == end && v == slub_end(c, objs[0]), "chain ends in %p, not %p", v, end);
	ST_EXPECT(slub_frozen(page->counters) && slub_inuse(page->counters) == c->num &&
		      page->slub_freelist == end,
		  "CPU slab: counters 0x%lx, page freelist %p", page->counters,
		  page->slub_freelist);
	for (unsigned int i = 1; i < c->num; i++) {
		objs[i] = kmem_cache_alloc(c);
		ST_EXPECT(objs[i] && slub_test_page(objs[i]) == page, "object %u not from the slab",
			  i);
	}
	/* Used up: the CPU freelist is the slab's tagged end, and still names it. */
	ST_EXPECT(slub_this_cpu(c)->freelist == end && slub_test_cpu_slab(c) == page,
		  "used-up CPU freelist %p, want %p", slub_this_cpu(c)->freelist, end);
	kmem_cache_free(c, objs[3]);
	ST_EXPECT(slub_this_cpu(c)->freelist == objs[3] && slub_get_fp(c, objs[3]) == end,
		  "free into the used-up CPU slab: freelist %p", slub_this_cpu(c)->freelist);
	ST_EXPECT(kmem_cache_alloc(c) == objs[3], "the freed object did not come back first");
	objs[c->num] = kmem_cache_alloc(c);
	page2 = slub_test_cpu_slab(c);
	ST_EXPECT(objs[c->num] && page2 && page2 != page && slub_test_page(objs[c->num]) == page2,
		  "no new CPU slab");
	ST_EXPECT(!slub_frozen(page->counters) && list_empty(&page->lru) &&
			  page->slub_freelist == end,
		  "the full slab is not unfrozen and off every list");
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed");
	return 0;
}

SELFTEST(slub_tagged_freelist_end_names_the_slab)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	unsigned long flags;
	void **objs;
	int rc;

	slab_test_init();
	slab_test_begin(&pages);
	c = slub_test_classic(kmem_cache_create("test-tag", 64, 0, SLAB_NO_DEBUG, NULL));
	ST_EXPECT(c, "create failed");
	objs = kmalloc_array(c->num + 1, sizeof(void *));
	ST_EXPECT(objs, "no table");
	flags = arch_irq_save();
	rc = tag_body(c, objs);
	arch_irq_restore(flags);
	if (rc)
		return rc;
	kmem_cache_drain_local(c);
	ST_EXPECT(slub_this_cpu(c)->freelist == SLUB_NO_SLAB, "drain left a CPU slab");
	for (unsigned int i = 0; i <= c->num; i++)
		kmem_cache_free(c, objs[i]);
	kfree(objs);
	ST_EXPECT(kmem_cache_check(c) == 0 && kmem_cache_destroy(c) == 0, "check or destroy");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

static int tid_body(struct kmem_cache *a, struct kmem_cache *b)
{
	struct kmem_cache_cpu *pa = slub_this_cpu(a), *pb = slub_this_cpu(b);
	unsigned long t0 = pa->tid, tb = pb->tid;
	void *x, *y;

	ST_EXPECT(IS_ALIGNED((uintptr_t)pa, 16) && pa != pb && a->slot != b->slot,
		  "pairs %p %p (slots %u %u)", (void *)pa, (void *)pb, a->slot, b->slot);
	ST_EXPECT(pa->freelist == SLUB_NO_SLAB, "a new cache has a CPU slab");
	x = kmem_cache_alloc(a);	/* slow: a new CPU slab */
	ST_EXPECT(x && pa->tid == t0 + 1, "slow alloc: tid %lu, want %lu", pa->tid, t0 + 1);
	y = kmem_cache_alloc(a);	/* fast: the next object; its free word cleared */
	ST_EXPECT(y && pa->tid == t0 + 2 && pa->freelist == (char *)y + a->size &&
			  *slub_fw_slot(a, y) == 0,
		  "fast alloc: tid %lu, freelist %p after %p, free word 0x%lx", pa->tid,
		  pa->freelist, y, y ? *slub_fw_slot(a, y) : 0UL);
	/* Frees are pushes, committed on the freelist word alone: the tid stays. */
	kmem_cache_free(a, x);
	ST_EXPECT(pa->tid == t0 + 2 && pa->freelist == x, "fast free: tid %lu, freelist %p",
		  pa->tid, pa->freelist);
	kmem_cache_free(a, y);
	ST_EXPECT(pa->tid == t0 + 2 && pa->freelist == y && slub_get_fp(a, y) == x,
		  "fast frees: tid %lu, freelist %p", pa->tid, pa->freelist);
	ST_EXPECT(pb->tid == tb, "another cache's tid moved");
	kmem_cache_drain_local(a);
	ST_EXPECT(pa->tid == t0 + 3 && pa->freelist == SLUB_NO_SLAB, "flush: tid %lu", pa->tid);
	return 0;
}

SELFTEST(slub_per_cpu_pair_and_its_tid)
{
	struct slab_test_mark pages;
	struct kmem_cache *a, *b;
	unsigned long flags;
	int rc;

	slab_test_init();
	slab_test_begin(&pages);
	a = slub_test_classic(kmem_cache_create("test-tid-a", 48, 0, SLAB_NO_DEBUG, NULL));
	b = slub_test_classic(kmem_cache_create("test-tid-b", 48, 0, SLAB_NO_DEBUG, NULL));
	ST_EXPECT(a && b, "create failed");
	flags = arch_irq_save();
	rc = tid_body(a, b);
	arch_irq_restore(flags);
	if (rc)
		return rc;
	ST_EXPECT(kmem_cache_destroy(a) == 0 && kmem_cache_destroy(b) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

static int remote_body(struct kmem_cache *c, void **objs)
{
	unsigned int num = c->num, cpu = smp_processor_id(), last;
	struct page *a, *b;
	void *y;

	for (unsigned int i = 0; i < 2 * num; i++) {
		objs[i] = kmem_cache_alloc(c);
		ST_EXPECT(objs[i], "alloc %u failed", i);
	}
	a = slub_test_page(objs[0]);
	b = slub_test_page(objs[num]);
	ST_EXPECT(slub_test_page(objs[num - 1]) == a && slub_test_cpu_slab(c) == b && a != b,
		  "objects not in two slabs");
	ST_EXPECT(!slub_frozen(a->counters) && list_empty(&a->lru), "full slab A on a list");
	/* A free into the full slab A freezes it onto this CPU's partial list. */
	kmem_cache_free(c, objs[1]);
	ST_EXPECT(slub_frozen(a->counters) && slub_inuse(a->counters) == num - 1 &&
		      a->slub_freelist == objs[1] && slub_get_fp(c, objs[1]) == slub_test_end(a),
		  "A after one free: counters 0x%lx freelist %p", a->counters, a->slub_freelist);
	ST_EXPECT(c->cpu[cpu].nr_partial == 1 &&
			  list_first_entry(&c->cpu[cpu].partial, struct page, lru) == a,
		  "A not on this CPU's partial list");
	kmem_cache_free(c, objs[2]);
	ST_EXPECT(a->slub_freelist == objs[2] && slub_get_fp(c, objs[2]) == objs[1] &&
			  slub_inuse(a->counters) == num - 2 && c->cpu[cpu].nr_partial == 1,
		  "second free into A");
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed with A partial");
	/* Another CPU's free into our CPU slab B lands on B's page freelist. */
	y = objs[num + 1];
	slab_free_remote(y, c, "test", NULL);
	ST_EXPECT(b->slub_freelist == y && slub_inuse(b->counters) == num - 1 &&
			  slub_test_cpu_slab(c) == b,
		  "remote free into the CPU slab: page freelist %p", b->slub_freelist);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed with a remote free");
	/* B is used up; the next allocation takes its page freelist. */
	ST_EXPECT(slub_is_end(slub_this_cpu(c)->freelist), "B not used up");
	objs[num + 1] = kmem_cache_alloc(c);
	ST_EXPECT(objs[num + 1] == y && slub_test_cpu_slab(c) == b &&
		      b->slub_freelist == slub_test_end(b),
		  "refill from the page freelist: got %p, want %p", objs[num + 1], y);
	/* A partial slab is taken for a CPU slab once reuse_free objects are free in it. */
	last = MAX(2U, c->reuse_free);
	ST_EXPECT(last < num, "reuse_free %u not below num %u", c->reuse_free, num);
	for (unsigned int i = 3; i <= last; i++)
		kmem_cache_free(c, objs[i]);
	/* Used up again with nothing freed: the next CPU slab is A, from the partial list. */
	y = objs[last];
	objs[last] = kmem_cache_alloc(c);
	ST_EXPECT(objs[last] == y && slub_test_cpu_slab(c) == a && c->cpu[cpu].nr_partial == 0 &&
			  !slub_frozen(b->counters),
		  "A not taken from the CPU partial list");
	for (unsigned int i = last; i-- > 1;) {
		objs[i] = kmem_cache_alloc(c);
		ST_EXPECT(objs[i] && slub_test_page(objs[i]) == a, "A's free object %u", i);
	}
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed at the end");
	return 0;
}

SELFTEST(slub_remote_frees_go_to_the_page_freelist)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	unsigned long flags;
	void **objs;
	int rc;

	slab_test_init();
	slab_test_begin(&pages);
	c = slub_test_classic(kmem_cache_create("test-remote", 128, 0, SLAB_NO_DEBUG, NULL));
	ST_EXPECT(c, "create failed");
	objs = kmalloc_array(2 * c->num, sizeof(void *));
	ST_EXPECT(objs, "no table");
	flags = arch_irq_save();
	rc = remote_body(c, objs);
	arch_irq_restore(flags);
	if (rc)
		return rc;
	for (unsigned int i = 0; i < 2 * c->num; i++)
		kmem_cache_free(c, objs[i]);
	kfree(objs);
	ST_EXPECT(kmem_cache_check(c) == 0 && kmem_cache_destroy(c) == 0, "check or destroy");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(slub_partial_lists_keep_min_partial_empty_slabs)
{
	unsigned int cpu = smp_processor_id(), nslabs, count, keep;
	struct slab_test_mark pages;
	unsigned long others, empty;
	struct kmem_cache *c;
	void **objs;

	slab_test_init();
	slab_test_begin(&pages);
	c = slub_test_classic(kmem_cache_create("test-partial", 256, 0, SLAB_NO_DEBUG, NULL));
	ST_EXPECT(c && c->min_partial == 5 && c->cpu_partial >= 1, "create: min_partial %u",
		  c ? c->min_partial : 0);
	/* Enough slabs that the CPU's partial list overflows to the node twice over. */
	keep = MAX(c->min_partial, c->cpu_partial);
	nslabs = 2 * c->cpu_partial + c->min_partial + 2;
	count = nslabs * c->num;
	objs = kmalloc_array(count, sizeof(void *));
	ST_EXPECT(objs, "no table");
	others = mm_test_others();
	for (unsigned int i = 0; i < count; i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)), "alloc %u failed", i);
	ST_EXPECT(slub_nr_slabs(c, false) == nslabs, "%ld slabs for %u objects",
		  slub_nr_slabs(c, false), count);
	/* Free every other object of every slab: all become partial. */
	for (unsigned int i = 0; i < count; i += 2) {
		kmem_cache_free(c, objs[i]);
		ST_EXPECT(c->cpu[cpu].nr_partial <= c->cpu_partial, "%u CPU partial slabs",
			  c->cpu[cpu].nr_partial);
	}
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed with half freed");
	ST_EXPECT(slub_local_node(c)->nr_partial + c->cpu[cpu].nr_partial >= nslabs - 1,
		  "partial slabs: node %lu, CPU %u", slub_local_node(c)->nr_partial, c->cpu[cpu].nr_partial);
	/*
	 * The rest: slabs empty out; the node keeps max(min_partial,
	 * cpu_partial) of them at most (slub_node_spare).
	 */
	for (unsigned int i = 1; i < count; i += 2)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed with all freed");
	ST_EXPECT(slub_test_held(c) == 0, "%lu objects still held", slub_test_held(c));
	slub_count_free(c, NUMA_NO_NODE, &empty);
	ST_EXPECT(empty == slub_local_node(c)->nr_partial, "node has a partial slab that is not empty");
	if (mm_test_others() == others)
		ST_EXPECT(empty <= keep && empty + c->cpu[cpu].nr_partial + 1 >=
						   MIN((unsigned long)keep, nslabs),
			  "%lu empty slabs kept on the node, min_partial %u, cpu_partial %u",
			  empty, c->min_partial, c->cpu_partial);
	ST_EXPECT(kmem_cache_shrink(c) == 0 && slub_nr_slabs(c, false) == 0,
		  "shrink left %ld slabs", slub_nr_slabs(c, false));
	kfree(objs);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/*
 * The node remembers how many slabs at the front of its list are ready
 * (node.ready_front), so that freeing an empty slab need not walk them
 * (slub_node_spare): the count never covers a slab that is not ready,
 * kmem_cache_check says so when it does, and a slab leaving the list or an
 * empty one joining its front moves it by one.
 */
SELFTEST(slub_node_ready_front_is_a_lower_bound)
{
	unsigned int nslabs = 6, count;
	struct slab_test_mark pages;
	struct kmem_cache *c;
	unsigned long flags;
	void **objs;

	slab_test_init();
	slab_test_begin(&pages);
	c = slub_test_classic(kmem_cache_create("test-front", 256, 0, SLAB_NO_DEBUG, NULL));
	ST_EXPECT(c && c->reuse_free > 1, "create: reuse_free %u", c ? c->reuse_free : 0);
	count = nslabs * c->num;
	objs = kmalloc_array(count, sizeof(void *));
	ST_EXPECT(objs, "no table");
	for (unsigned int i = 0; i < count; i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)), "alloc %u failed", i);
	/* One free object in each slab: partial, not ready; then all on the node. */
	for (unsigned int i = 0; i < count; i += c->num)
		kmem_cache_free(c, objs[i]);
	kmem_cache_drain_local(c);
	ST_EXPECT(slub_local_node(c)->nr_partial >= nslabs - 1, "%lu slabs on the node", slub_local_node(c)->nr_partial);
	flags = spin_lock_irqsave(&slub_local_node(c)->list_lock);
	ST_EXPECT(!slub_node_spare(c, slub_local_node(c), NULL) && slub_local_node(c)->ready_front == 0,
		  "no ready slab, yet spare or ready_front %u", slub_local_node(c)->ready_front);
	/* A count past the ready slabs is caught. */
	slub_local_node(c)->ready_front = 2;
	spin_unlock_irqrestore(&slub_local_node(c)->list_lock, flags);
	slab_test_console_clear();
	ST_EXPECT(kmem_cache_check(c) != 0, "ready_front over slabs that are not ready passed");
	ST_EXPECT(slab_test_console_has("not ready, inside ready_front"), "check's message");
	slub_local_node(c)->ready_front = 0;
	/* Empty the first slab on the list: it goes to the front, and is counted. */
	for (unsigned int i = 1; i < c->num; i++)
		kmem_cache_free(c, objs[i]);
	kmem_cache_drain_local(c);
	ST_EXPECT(slub_local_node(c)->ready_front >= 1, "an empty slab at the front, ready_front %u",
		  slub_local_node(c)->ready_front);
	ST_EXPECT(kmem_cache_check(c) == 0, "check with an empty slab at the front");
	for (unsigned int i = c->num; i < count; i++)
		if (i % c->num)
			kmem_cache_free(c, objs[i]);
	kmem_cache_drain_local(c);
	ST_EXPECT(kmem_cache_check(c) == 0, "check with all freed");
	ST_EXPECT(slub_local_node(c)->ready_front <= slub_local_node(c)->nr_partial, "ready_front %u, %lu slabs",
		  slub_local_node(c)->ready_front, slub_local_node(c)->nr_partial);
	ST_EXPECT(kmem_cache_shrink(c) == 0 && slub_nr_slabs(c, false) == 0,
		  "shrink left %ld slabs", slub_nr_slabs(c, false));
	ST_EXPECT(slub_local_node(c)->ready_front == 0, "ready_front %u with no slab", slub_local_node(c)->ready_front);
	kfree(objs);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

static unsigned int ctor_runs;

static void ctor_stamp(void *p)
{
	memset(p, 0x3c, 40);
	ctor_runs++;
}

SELFTEST(slub_ctor_objects_stay_constructed)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	unsigned char *p, *q;

	slab_test_init();
	slab_test_begin(&pages);
	ctor_runs = 0;
	c = kmem_cache_create("test-ctor", 40, 0, SLAB_NO_DEBUG, ctor_stamp);
	ST_EXPECT(c && c->offset == 40 && c->object_size == 40 && c->size == 48,
		  "ctor layout: offset %u object %u size %u", c ? c->offset : 0,
		  c ? c->object_size : 0, c ? c->size : 0);
	p = kmem_cache_alloc(c);
	ST_EXPECT(p && p[0] == 0x3c && p[39] == 0x3c && ctor_runs == c->num,
		  "not constructed (ctor ran %u times for %u objects)", ctor_runs, c->num);
	kmem_cache_free(c, p);
	q = kmem_cache_alloc(c);
	ST_EXPECT(q == p && q[0] == 0x3c && q[39] == 0x3c, "free pointer written into the object");
	kmem_cache_free(c, q);
	ST_EXPECT(kmem_cache_check(c) == 0 && kmem_cache_destroy(c) == 0, "check or destroy");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(slub_double_frees_are_refused)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	unsigned long bad, flags;
	void **objs;
	unsigned int num;

	slab_test_init();
	slab_test_begin(&pages);
	c = slub_test_classic(kmem_cache_create("test-dfree", 512, 0, SLAB_NO_DEBUG, NULL));
	ST_EXPECT(c, "create failed");
	num = c->num;
	objs = kmalloc_array(2 * num, sizeof(void *));
	ST_EXPECT(objs, "no table");
	flags = arch_irq_save();
	for (unsigned int i = 0; i < 2 * num; i++)
		objs[i] = kmem_cache_alloc(c);
	arch_irq_restore(flags);
	slab_test_console_clear();
	/* On top of the CPU freelist. */
	kmem_cache_free(c, objs[num]);
	bad = slab_bad_frees;
	kmem_cache_free(c, objs[num]);
	SLAB_EXPECT_REFUSED(c, bad, "double free (already on the CPU's freelist)");
	bad = slab_bad_frees;
	kfree(objs[num]);	/* the same through kfree's own remote path */
	SLAB_EXPECT_REFUSED(c, bad, "double free (already on the CPU's freelist)");
	/* On top of a page freelist (slab A is no CPU's slab). */
	kmem_cache_free(c, objs[0]);
	bad = slab_bad_frees;
	kfree(objs[0]);
	SLAB_EXPECT_REFUSED(c, bad, "double free (already on its slab's freelist)");
	/* Slab A wholly free: an object deep in its page freelist is found there. */
	for (unsigned int i = 1; i < num; i++)
		kmem_cache_free(c, objs[i]);
	bad = slab_bad_frees;
	kmem_cache_free(c, objs[1]);
	SLAB_EXPECT_REFUSED(c, bad, "double free (already on its slab's freelist)");
	/*
	 * Its free word overwritten (a write after free) hides it from the
	 * word's test; the slab's count still refuses it. The word is put back
	 * before the check, as it is a link of the slab's freelist.
	 */
	{
		uintptr_t *slot = slub_fw_slot(c, objs[1]), saved = *slot;

		*slot = 0;
		bad = slab_bad_frees;
		kmem_cache_free(c, objs[1]);
		*slot = saved;
		SLAB_EXPECT_REFUSED(c, bad, "double free (its slab has no object in use)");
	}
	for (unsigned int i = num + 1; i < 2 * num; i++)
		kmem_cache_free(c, objs[i]);
	kfree(objs);
	ST_EXPECT(slub_test_held(c) == 0, "%lu objects held", slub_test_held(c));
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(slub_slabinfo_format)
{
	char line[160], want[160];
	struct kmem_cache *c;
	unsigned long flags;
	void *objs[10];
	unsigned int min_objects = 4;	/* 4 * (log2 NR_CPUS + 1), as mm/slub/slub_cache.c */

	for (unsigned int n = NR_CPUS; n > 1; n /= 2)
		min_objects += 4;
	/* Order 0 (20 objects at 4K pages) up to NR_CPUS 16; order 1 from 32 (24 or more). */
	slab_test_init();
	/* Classic: one CPU slab below. kmalloc-32's line shows its sheaves. */
	c = slub_test_classic(kmem_cache_create("test-info", 200, 0, SLAB_NO_DEBUG, NULL));
	ST_EXPECT(c && c->num == (PAGE_SIZE << c->order) / 200 &&
			  c->order == (PAGE_SIZE / 200 >= min_objects ? 0U : 1U),
		  "test-info: %u per order %u", c ? c->num : 0, c ? c->order : 0);
	flags = arch_irq_save();
	for (int i = 0; i < 10; i++)
		objs[i] = kmem_cache_alloc(c);
	/* One CPU slab: all its objects count as active, as Linux SLUB counts them. */
	slabinfo_line(c, line, sizeof(line));
	arch_irq_restore(flags);
	snprintf(want, sizeof(want),
		 "%-17s %6u %6u %6u %4u %4d : tunables %4u %4u %4u : slabdata %6u %6u %6u",
		 "test-info", c->num, c->num, 200U, c->num, 1 << c->order, 0U, 0U, 0U, 1U, 1U, 0U);
	ST_EXPECT(strcmp(line, want) == 0, "slabinfo line\n  '%s'\nexpected\n  '%s'", line, want);
	if (slab_test_kmalloc32_row(line, sizeof(line)))
		return -1;
	/* The row printed shows kmalloc-32's sheaf capacity (set when it was made) as tunables. */
	snprintf(want, sizeof(want), " : tunables %4u %4u %4u : slabdata ",
		 kmalloc_slab(32)->sheaf_capacity, kmalloc_slab(32)->sheaf_capacity, 0U);
	ST_EXPECT(slab_test_console_has(want), "kmalloc-32's tunables are not its sheaves' '%s'",
		  want);
	ST_EXPECT(!CONFIG_SLUB_SHEAVES || slub_debug_on(kmalloc_slab(32)) ||
			  kmalloc_slab(32)->sheaf_capacity > 0,
		  "kmalloc-32 has no sheaves");
	for (int i = 0; i < 10; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	if (slab_test_slabinfo_shown())
		return -1;
	ST_EXPECT(slab_test_console_has(" : tunables    0    0    0 : slabdata "),
		  "no cache without sheaves (tunables 0 0 0)");
	slab_meminfo_show();
	ST_EXPECT(slab_test_console_has("Slab:           "), "no Slab: line");
	return 0;
}

SELFTEST(slub_per_cpu_slots_come_back)
{
	struct kmem_cache *keep[4];

	slab_test_init();
	for (unsigned int i = 0; i < ARRAY_SIZE(keep); i++)
		ST_EXPECT((keep[i] = kmem_cache_create("test-slot-keep", 32, 0, 0, NULL)),
			  "create failed");
	for (unsigned int i = 0; i < 3 * SLUB_CPU_SLOTS; i++) {
		struct kmem_cache *c = kmem_cache_create("test-slot", 24, 0, 0, NULL);
		void *p;

		ST_EXPECT(c, "create %u failed: slots not given back?", i);
		for (unsigned int k = 0; k < ARRAY_SIZE(keep); k++)
			ST_EXPECT(c->slot != keep[k]->slot, "slot %u of a live cache reused",
				  c->slot);
		p = kmem_cache_alloc(c);
		ST_EXPECT(p, "alloc failed");
		kmem_cache_free(c, p);
		ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(keep); i++)
		ST_EXPECT(kmem_cache_destroy(keep[i]) == 0, "destroy refused");
	return 0;
}

static int corrupt_body(struct kmem_cache *c, void *a, void *b)
{
	void *saved;
	int r1, r2;

	kmem_cache_free(c, b);		/* the CPU freelist: b, then the rest */
	saved = slub_get_fp(c, b);
	slub_set_fp(c, b, (char *)b + 1);
	r1 = kmem_cache_check(c);
	slub_set_fp(c, b, b);
	r2 = kmem_cache_check(c);
	slub_set_fp(c, b, saved);
	ST_EXPECT(r1 == -1 && r2 == -1, "a bad free pointer (%d) or a cycle (%d) passed the check",
		  r1, r2);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed after the repair");
	kmem_cache_free(c, a);
	return 0;
}

SELFTEST(slub_check_catches_a_corrupt_freelist)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	unsigned long flags;
	void *a, *b;
	int rc;

	slab_test_init();
	slab_test_begin(&pages);
	c = slub_test_classic(kmem_cache_create("test-fpcheck", 96, 0, SLAB_NO_DEBUG, NULL));
	ST_EXPECT(c, "create failed");
	slab_test_console_clear();
	flags = arch_irq_save();
	a = kmem_cache_alloc(c);
	b = kmem_cache_alloc(c);
	rc = a && b ? corrupt_body(c, a, b) : -1;
	arch_irq_restore(flags);
	if (rc)
		return rc;
	ST_EXPECT(slab_test_console_has("is neither an object of it nor its end") &&
			  slab_test_console_has("twice (a cycle or a shared object)"),
		  "the check did not say what it found");
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

struct xfree_run {
	struct kmem_cache *c;
	void **objs;
	unsigned int n, owner;
	unsigned long ran;		/* bit per CPU that ran the call */
};

/* On every CPU: free the objects whose index names this CPU (the owner keeps its own). */
static void xfree_cpu(void *arg)
{
	struct xfree_run *run = arg;
	unsigned int me = smp_processor_id();

	__atomic_fetch_or(&run->ran, 1UL << me, __ATOMIC_RELAXED);
	if (me == run->owner)
		return;
	for (unsigned int i = me; i < run->n; i += NR_CPUS) {
		kmem_cache_free(run->c, run->objs[i]);
		run->objs[i] = NULL;
	}
}

SELFTEST(slub_frees_from_other_cpus)
{
	static struct xfree_run run;
	struct slab_test_mark pages;
	unsigned int others = 0, frozen = 0, remote = 0;

	slab_test_init();
	slab_test_begin(&pages);
	run = (struct xfree_run){ .owner = smp_processor_id() };
	run.c = slub_test_classic(kmem_cache_create("test-xfree", 64, 0, SLAB_NO_DEBUG, NULL));
	ST_EXPECT(run.c, "create failed");
	run.n = 3 * run.c->num;
	run.objs = kmalloc_array(run.n, sizeof(void *));
	ST_EXPECT(run.objs, "no table");
	for (unsigned int i = 0; i < run.n; i++)
		ST_EXPECT((run.objs[i] = kmem_cache_alloc(run.c)), "alloc %u failed", i);
	/* Two full slabs and this CPU's slab, freed into by every other CPU at once. */
	on_each_cpu_wait(xfree_cpu, &run);
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (cpu == run.owner || !(run.ran & (1UL << cpu)))
			continue;
		others++;
		remote += slub_cpu_nid[cpu] != slub_cpu_nid[run.owner];
		frozen += run.c->cpu[cpu].nr_partial;
	}
	ST_EXPECT(kmem_cache_check(run.c) == 0, "check failed after frees from %u CPUs", others);
	/* A CPU of another node lists the slab on its node instead: then either may happen. */
	ST_EXPECT(!others || remote || frozen >= 1, "no other CPU froze a full slab for itself");
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct page *page;

		if (cpu == run.owner || !(run.ran & (1UL << cpu)) ||
		    slub_cpu_nid[cpu] == slub_cpu_nid[run.owner])
			continue;
		list_for_each_entry(page, &run.c->cpu[cpu].partial, lru)
			ST_EXPECT(slub_slab_nid(page) == slub_cpu_nid[cpu],
				  "CPU %u (node %u) froze a slab of node %u", cpu, slub_cpu_nid[cpu],
				  slub_slab_nid(page));
	}
	for (unsigned int i = 0; i < run.n; i++)
		kmem_cache_free(run.c, run.objs[i]);	/* the owner's share (NULL: freed) */
	ST_EXPECT(slub_test_held(run.c) == 0, "%lu objects held", slub_test_held(run.c));
	kfree(run.objs);
	/* Other CPUs' partial slabs go back only with slab_drain_all. */
	slab_drain_all();
	ST_EXPECT(slub_nr_slabs(run.c, false) == 0, "%ld slabs after slab_drain_all",
		  slub_nr_slabs(run.c, false));
	ST_EXPECT(kmem_cache_destroy(run.c) == 0, "destroy refused");
	printk("slub: %u other CPU(s) (%u of other nodes) freed into this CPU's slabs; %u slab(s) "
	       "frozen for them\n", others, remote, frozen);
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}
