/*
 * replay.c - the kernel's replay of a recorded trace (lab/replay.h), the
 * kernel half of tools/trace/replay.c: the same events made into the same
 * calls (kmalloc or kzalloc of the requested size, kmem_cache_alloc from a
 * cache of the trace's name and object size made on first use, kfree or
 * kmem_cache_free, alloc_pages of the order holding the traced block), the
 * same memory figures sampled the same way, the same exact accounting.
 *
 * Memory: the trace stays where the boot loader put it (reserved at boot);
 * the per-object table (8 bytes an object: first the check's record, then
 * the object's pointer) is a row of page blocks of up to MAX_ORDER, taken
 * before the start is counted and given back after the end. The replay's
 * other tables (the row's block pointers, the trace's caches, the samples)
 * are page blocks too: nothing of the replay's own lives in the slab
 * allocator it measures, so its heap starts as the host replay's does (the
 * host's tables are the C library's). A kmalloc'd table there would share
 * SLOB's pages with the replayed objects and move where they land.
 *
 * CPUs: traced CPU c is replayed by the online CPU of rank c mod n, n the
 * smaller of the online and the traced CPU counts. Each CPU walks the
 * whole event list and runs its own events in order. A free whose object's
 * pointer is not there yet (another CPU has not reached the allocation)
 * spins, yielding the vCPU (cpu_relax), until it is: the event with the
 * lowest number not yet run never waits, so the replay always moves on.
 *
 * Figures: around each allocator call, with interrupts off, the counter
 * (guest instructions under -icount, cycles otherwise) per event type;
 * each call is also the cache model's region of its type (RP_TIMED).
 */
#include "lab/replay.h"
#include "tools/trace/qtr_check.h"
#include "tools/trace/replay_common.h"
#include "kernel/arch.h"
#include "kernel/numa.h"
#include "kernel/bug.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/timer.h"
#include "mm/buddy.h"
#include "mm/page.h"
#include "mm/slab.h"
#include "tests/common/test_alloc.h"
#include "tools/cachemodel/marker.h"
#include <asm/irqflags.h>
#include <asm/memlayout.h>
#include <asm/processor.h>

#define RP_FAILED	((void *)1)	/* the object's allocation failed */
#define RP_CHUNK_BYTES	(PAGE_SIZE << MAX_ORDER)
#define RP_PER_CHUNK	(RP_CHUNK_BYTES / sizeof(uint64_t))	/* a power of two */
#define RP_CALL_TIMEOUT	36000	/* seconds a replay may run on a CPU */
#define RP_MAX_SAMPLES	50000	/* replay_samples at most (each kept until the end) */
#define RP_FAILS_SHOWN	10	/* allocation failures shown in full (replay_fail=continue) */

/*
 * The timed span of one event type: the counter read before and after the
 * call, each fused with the cache model's mark of that type's region
 * (tools/cachemodel/marker.h). The marks lie outside the two reads, so they
 * add nothing to the figure; the region holds the figure's instructions and
 * one counter read more.
 */
#define RP_TIMED(id, ...) do {			\
	MODEL_BEGIN_CYCLES(id, t0);		\
	__VA_ARGS__;				\
	MODEL_END_CYCLES(id, t1);		\
} while (0)

/* One CPU's counts, its own cache line. */
struct rp_cpu {
	uint64_t cost[QTR_NR_TYPES];	/* counter inside the allocator, by type */
	unsigned long long done[QTR_NR_TYPES], want[QTR_NR_TYPES], skipped[QTR_NR_TYPES];
	unsigned long long remote;	/* frees of objects another CPU allocated */
	unsigned long long waited;	/* ... that had to wait for the allocation */
	unsigned long long remote_node;	/* ... allocated by a CPU of another NUMA node */
} __aligned(64);

struct rp_peak {
	unsigned long long slab, used, object, req, linux_bytes;
};

/* One memory sample: the host replay's CSV columns. */
struct rp_sample {
	unsigned long long event, slab, used, object, req, linux_bytes, blocks;
};

static struct rp_cpu rp_cpu[NR_CPUS];

static struct {
	struct qtr_view v;
	bool pages, no_user, internal, cont, icount;
	unsigned long samples;
	unsigned int ncpus;		/* CPUs replaying: min(online, traced) */
	uint64_t **chunk;		/* the per-object table */
	unsigned long n_chunks;
	unsigned int chunk_order;
	struct kmem_cache **qcache;	/* trace cache -> Quarry cache */
	struct spinlock cache_lock;	/* making a cache on first use */
	unsigned long start_free, start_used, managed, start_slab;
	/* Live figures (atomic: every replaying CPU adds to them). */
	unsigned long long live_objs, live_req, live_linux, live_blocks, block_bytes;
	unsigned long long next_sample, step, next_progress;
	struct rp_sample *sample;	/* kept, printed after the replay */
	unsigned long n_samples, max_samples;
	bool progress;			/* progress lines during the replay */
	struct spinlock sample_lock;
	struct rp_peak peak;
	bool stop;			/* an allocation failed, --on-fail stop */
	unsigned long long n_failed, frees_of_failed;
	unsigned long bad0, corrupt0;
	uint64_t sum0;			/* module_sum before the replay */
} rp;

static inline uint64_t *slot(uint32_t id)
{
	return &rp.chunk[id / RP_PER_CHUNK][id % RP_PER_CHUNK];
}

static struct qtr_obj *obj_in_table(void *ctx, uint32_t id)
{
	return (struct qtr_obj *)slot(id);
}

static inline void **ptr_slot(uint32_t id)
{
	return (void **)slot(id);
}

/*
 * One of the replay's own tables: 'bytes' zeroed, as a page block (never
 * from the slab allocator being measured: see the top). NULL if memory is
 * short or the table is over a block of MAX_ORDER (the caller says so).
 * Freed with own_free(p, bytes).
 */
static void *own_alloc(uint64_t bytes)
{
	void *p;

	if (!bytes || bytes > RP_CHUNK_BYTES)
		return NULL;
	p = get_free_pages(get_order((size_t)bytes));
	if (p)
		memset(p, 0, (size_t)bytes);
	return p;
}

/* Give back a table of own_alloc(bytes) (NULL: nothing). */
static void own_free(void *p, uint64_t bytes)
{
	if (p)
		free_pages_addr(p, get_order((size_t)bytes));
}

static void table_free(void)
{
	for (unsigned long i = 0; rp.chunk && i < rp.n_chunks; i++)
		if (rp.chunk[i])
			free_pages_addr(rp.chunk[i], rp.chunk_order);
	own_free(rp.chunk, rp.n_chunks * sizeof(*rp.chunk));
	rp.chunk = NULL;
}

/* The per-object table, zeroed; false (said) if memory is short. */
static bool table_alloc(uint64_t n_objects)
{
	uint64_t bytes = (n_objects ? n_objects : 1) * sizeof(uint64_t);

	rp.n_chunks = (unsigned long)DIV_ROUND_UP(bytes, RP_CHUNK_BYTES);
	rp.chunk_order = bytes < RP_CHUNK_BYTES ? get_order(bytes) : MAX_ORDER;
	rp.chunk = own_alloc(rp.n_chunks * sizeof(*rp.chunk));
	for (unsigned long i = 0; rp.chunk && i < rp.n_chunks; i++) {
		rp.chunk[i] = get_free_pages(rp.chunk_order);
		if (!rp.chunk[i]) {
			printk("replay: no memory for the object table (%llu objects, block %lu of %lu "
			       "of %lu kB): boot with more memory\n", (unsigned long long)n_objects,
			       i + 1, rp.n_chunks, (PAGE_SIZE << rp.chunk_order) >> 10);
			table_free();
			return false;
		}
		memset(rp.chunk[i], 0, PAGE_SIZE << rp.chunk_order);
	}
	if (!rp.chunk)
		printk("replay: no memory for the object table's %lu block pointers\n", rp.n_chunks);
	return rp.chunk != NULL;
}

/* The Quarry order of a traced block of 2^order trace pages. */
static unsigned int q_order(uint32_t order)
{
	return qtr_quarry_order(rp.v.hdr->page_size, order);
}

/* Does this run leave the event out (as the command line asks)? */
static bool left_out(const struct qtr_event *e)
{
	return qtr_left_out(e, rp.pages, rp.no_user, rp.internal);
}

static inline unsigned long long rd(unsigned long long *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void add(unsigned long long *p, long long d)
{
	__atomic_fetch_add(p, (unsigned long long)d, __ATOMIC_RELAXED);
}

static void state_line(void)
{
	unsigned long used = qtr_pages_used();

	printk("  allocator state: Slab: %lu kB, pages in use %lu of %lu (%lu free), live: %llu "
	       "objects (%llu bytes requested), %llu page blocks (%llu bytes)\n",
	       slab_total_pages() * (PAGE_SIZE / 1024), used, rp.managed, rp.managed - used,
	       rd(&rp.live_objs), rd(&rp.live_req), rd(&rp.live_blocks), rd(&rp.block_bytes));
}

/* One memory sample before event i (the host replay's columns). */
static void sample(unsigned long long i)
{
	unsigned long long slab = (unsigned long long)slab_total_pages() * PAGE_SIZE;
	unsigned long long used = (unsigned long long)(qtr_pages_used() - rp.start_used) * PAGE_SIZE;
	unsigned long long blocks = rd(&rp.block_bytes), req = rd(&rp.live_req);
	unsigned long long lin = rd(&rp.live_linux), object = used - blocks;
	struct rp_peak *p = &rp.peak;

	p->slab = MAX(p->slab, slab);
	p->used = MAX(p->used, used);
	p->object = MAX(p->object, object);
	p->req = MAX(p->req, req);
	p->linux_bytes = MAX(p->linux_bytes, lin);
	if (rp.n_samples < rp.max_samples)
		rp.sample[rp.n_samples++] = (struct rp_sample){ i, slab, used, object, req, lin, blocks };
}

/*
 * Take the samples due at event i (any CPU; one at a time). Nothing is
 * printed here but the progress lines, and those only where the console
 * cannot change the figures: under -icount with several CPUs a printk's
 * wait for the UART (host timing) would move where the CPUs hand over.
 */
static void maybe_sample(unsigned long long i)
{
	unsigned long flags;

	if (i < READ_ONCE(rp.next_sample))
		return;
	flags = spin_lock_irqsave(&rp.sample_lock);
	if (i >= rp.next_sample) {
		sample(i);
		while (rp.next_sample <= i)
			rp.next_sample += rp.step;
		if (rp.progress && i >= rp.next_progress) {
			printk("replay: %llu%% (%llu of %llu events)\n",
			       i * 100 / rp.v.hdr->n_events, i,
			       (unsigned long long)rp.v.hdr->n_events);
			rp.next_progress += rp.v.hdr->n_events / 10 ? rp.v.hdr->n_events / 10 : 1;
		}
	}
	spin_unlock_irqrestore(&rp.sample_lock, flags);
}

static struct kmem_cache *cache_for(uint32_t c)
{
	struct kmem_cache *k = __atomic_load_n(&rp.qcache[c], __ATOMIC_ACQUIRE);
	unsigned long flags;

	if (k)
		return k;
	spin_lock(&rp.cache_lock);	/* two CPUs' first use: one cache */
	k = rp.qcache[c];
	if (!k) {
		k = kmem_cache_create(rp.v.caches[c].name, rp.v.caches[c].object_size, 0, 0, NULL);
		if (!k) {
			flags = arch_irq_save();
			printk("replay: kmem_cache_create(\"%s\", %u) failed\n", rp.v.caches[c].name,
			       rp.v.caches[c].object_size);
			arch_irq_restore(flags);
			state_line();
		}
		__atomic_store_n(&rp.qcache[c], k, __ATOMIC_RELEASE);
	}
	spin_unlock(&rp.cache_lock);
	return k;
}

/*
 * An allocation returned NULL: say so (the first RP_FAILS_SHOWN in full, the
 * rest counted); returns true to go on.
 */
static bool alloc_failed(unsigned long long i, const struct qtr_event *e)
{
	unsigned long long n = __atomic_add_fetch(&rp.n_failed, 1, __ATOMIC_RELAXED);

	__atomic_store_n(ptr_slot(e->object), RP_FAILED, __ATOMIC_RELEASE);
	if (rp.cont && n > RP_FAILS_SHOWN) {
		if (n == RP_FAILS_SHOWN + 1)
			printk("replay: more allocations fail; counted, not shown (the total at the end)\n");
		return true;
	}
	printk("replay: event %llu (%s of %u bytes%s%s, CPU %u, on CPU %u) failed: out of memory\n",
	       i, qtr_type_name(e->type),
	       e->type == QTR_PAGE_ALLOC ? (unsigned int)PAGE_SIZE << q_order(e->cache) : e->size_req,
	       e->type == QTR_CACHE_ALLOC ? " from " : "",
	       e->type == QTR_CACHE_ALLOC ? rp.v.caches[e->cache].name : "", e->cpu,
	       smp_processor_id());
	state_line();
	if (rp.cont) {
		printk("replay: going on (replay_fail=continue): the object's free will be left out\n");
		return true;
	}
	printk("replay: stopping at event %llu (replay_fail=stop); freeing what the replay holds\n", i);
	WRITE_ONCE(rp.stop, true);
	return false;
}

/*
 * The object a free gives back, once its allocation has run (on whichever
 * CPU); NULL if the replay stopped meanwhile.
 */
static void *wait_for(const struct qtr_event *e, struct rp_cpu *c)
{
	void *p = __atomic_load_n(ptr_slot(e->object), __ATOMIC_ACQUIRE);
	const struct qtr_event *a = &rp.v.ev[e->alloc_event];

	if (a->cpu % rp.ncpus != e->cpu % rp.ncpus) {
		c->remote++;
		c->remote_node += cpu_to_node(a->cpu % rp.ncpus) != cpu_to_node(e->cpu % rp.ncpus);
	}
	if (p)
		return p;
	c->waited++;
	while (!(p = __atomic_load_n(ptr_slot(e->object), __ATOMIC_ACQUIRE))) {
		if (READ_ONCE(rp.stop))
			return NULL;
		cpu_relax();
	}
	return p;
}

/* Run event i on this CPU; false if the replay is to stop. */
static bool run_event(unsigned long long i, const struct qtr_event *e, struct rp_cpu *c)
{
	const struct qtr_event *a = e->alloc_event != QTR_NONE ? &rp.v.ev[e->alloc_event] : e;
	struct kmem_cache *k = NULL;
	unsigned long flags;
	uint64_t t0, t1;
	void *p = NULL;

	if (!qtr_is_alloc(e->type)) {
		p = wait_for(e, c);
		if (!p)
			return false;
		if (p == RP_FAILED) {	/* left out: its allocation failed */
			add(&rp.frees_of_failed, 1);
			c->want[e->type]--;
			return true;
		}
	}
	if (e->type == QTR_CACHE_ALLOC || (e->type == QTR_CACHE_FREE && e->cache != QTR_NONE)) {
		k = cache_for(e->cache);
		if (!k)
			return alloc_failed(i, e);
	}
	flags = arch_irq_save();
	switch (e->type) {
	case QTR_KMALLOC:
		RP_TIMED(MODEL_R_REPLAY_KMALLOC,
			 p = (e->flags & QTR_F_ZERO) ? kzalloc(e->size_req) : kmalloc(e->size_req));
		break;
	case QTR_CACHE_ALLOC:
		RP_TIMED(MODEL_R_REPLAY_CACHE_ALLOC, p = kmem_cache_alloc(k);
			 if (p && (e->flags & QTR_F_ZERO))
				 memset(p, 0, e->size_req));
		break;
	case QTR_PAGE_ALLOC:
		RP_TIMED(MODEL_R_REPLAY_PAGE_ALLOC, p = alloc_pages(q_order(e->cache)));
		break;
	case QTR_KFREE:
		RP_TIMED(MODEL_R_REPLAY_KFREE, kfree(p));
		break;
	case QTR_CACHE_FREE:
		RP_TIMED(MODEL_R_REPLAY_CACHE_FREE, if (k)
				 kmem_cache_free(k, p);
			 else
				 kfree(p));
		break;
	default: /* QTR_PAGE_FREE: the check allows no other type */
		RP_TIMED(MODEL_R_REPLAY_PAGE_FREE, free_pages(p, q_order(e->cache)));
		break;
	}
	arch_irq_restore(flags);
	c->cost[e->type] += t1 - t0;
	c->done[e->type]++;
	if (qtr_is_alloc(e->type)) {
		if (!p)
			return alloc_failed(i, e);
		add(&rp.live_objs, 1);
		if (e->type == QTR_PAGE_ALLOC) {
			add(&rp.live_blocks, 1);
			add(&rp.block_bytes, (long long)(PAGE_SIZE << q_order(e->cache)));
		} else {
			add(&rp.live_req, e->size_req);
			add(&rp.live_linux, e->size_alloc);
		}
		/* release: a waiting CPU frees what this allocation made */
		__atomic_store_n(ptr_slot(e->object), p, __ATOMIC_RELEASE);
		return true;
	}
	*ptr_slot(e->object) = NULL;
	add(&rp.live_objs, -1);
	if (e->type == QTR_PAGE_FREE) {
		add(&rp.live_blocks, -1);
		add(&rp.block_bytes, -(long long)(PAGE_SIZE << q_order(e->cache)));
	} else {
		add(&rp.live_req, -(long long)a->size_req);
		add(&rp.live_linux, -(long long)a->size_alloc);
	}
	return true;
}

/* This CPU's rank among the online CPUs. */
static unsigned int cpu_rank(void)
{
	unsigned int rank = 0;

	for (unsigned int c = 0; c < smp_processor_id(); c++)
		rank += cpu_online(c);
	return rank;
}

/* Each CPU's share: its traced CPUs' events, in file order. */
static void replay_cpu(void *arg)
{
	unsigned int rank = cpu_rank();
	struct rp_cpu *c = &rp_cpu[smp_processor_id()];
	const struct qtr_header *h = rp.v.hdr;

	if (rank >= rp.ncpus)
		return;
	for (uint64_t k = 0; k < h->n_events && !READ_ONCE(rp.stop); k++) {
		const struct qtr_event *e = &rp.v.ev[k];
		const struct qtr_event *a = e->alloc_event != QTR_NONE ? &rp.v.ev[e->alloc_event] : e;

		if (e->cpu % rp.ncpus != rank)
			continue;
		maybe_sample(k);
		if (left_out(a)) {
			c->skipped[e->type]++;
			continue;
		}
		c->want[e->type]++;
		if (!run_event(k, e, c))
			break;
	}
}

/* Free what is still live (boot CPU), destroy the caches, drain every CPU; the free pages. */
static unsigned long free_everything(unsigned long long *left)
{
	*left = 0;
	for (uint64_t i = 0; i < rp.v.hdr->n_events; i++) {
		const struct qtr_event *e = &rp.v.ev[i];
		void *p;

		if (!qtr_is_alloc(e->type))
			continue;
		p = *ptr_slot(e->object);
		if (!p || p == RP_FAILED)
			continue;
		if (e->type == QTR_PAGE_ALLOC)
			free_pages(p, q_order(e->cache));
		else if (e->type == QTR_CACHE_ALLOC)
			kmem_cache_free(rp.qcache[e->cache], p);
		else
			kfree(p);
		*ptr_slot(e->object) = NULL;
		(*left)++;
	}
	for (uint32_t c = 0; c < rp.v.hdr->n_caches; c++)
		if (rp.qcache[c] && kmem_cache_destroy(rp.qcache[c]))
			printk("replay: kmem_cache_destroy(\"%s\") refused: objects left\n",
			       rp.v.caches[c].name);
	slab_drain_all();
	return nr_free_pages();
}

static void settle_cpu(void *arg)
{
	slab_test_settle();
}

/* The command line's options; false (said) if one is bad. */
static bool parse_options(const struct boot_info *bi)
{
	char val[24];

	rp.pages = cmdline_has(bi, "replay_pages");
	rp.no_user = cmdline_has(bi, "replay_nouser");
	rp.internal = cmdline_has(bi, "replay_internal");
	rp.cont = false;
	rp.samples = 200;
	if (cmdline_value(bi, "replay_fail", val, sizeof(val))) {
		if (strcmp(val, "stop") && strcmp(val, "continue")) {
			printk("replay: replay_fail=%s: use stop or continue\n", val);
			return false;
		}
		rp.cont = val[0] == 'c';
	}
	if (cmdline_value(bi, "replay_samples", val, sizeof(val))) {
		unsigned long n = 0;
		const char *s = val;

		for (; *s >= '0' && *s <= '9' && n <= RP_MAX_SAMPLES; s++)
			n = n * 10 + (unsigned long)(*s - '0');
		if (*s || !val[0] || !n || n > RP_MAX_SAMPLES) {
			printk("replay: replay_samples=%s: a number from 1 to %u\n", val, RP_MAX_SAMPLES);
			return false;
		}
		rp.samples = n;
	}
	return true;
}

/* A 64-bit sum of the trace (FNV-1a over its words): the module must not change. */
static uint64_t module_sum(void)
{
	const uint64_t *w = (const uint64_t *)rp.v.data;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (uint64_t i = 0; i < rp.v.size / 8; i++)
		h = (h ^ w[i]) * 0x100000001b3ULL;
	for (uint64_t i = rp.v.size & ~7ULL; i < rp.v.size; i++)
		h = (h ^ rp.v.data[i]) * 0x100000001b3ULL;
	return h;
}

/* The module, checked whole; false (said) if there is none or it is refused. */
static bool load_module(const struct boot_info *bi)
{
	uint64_t size = bi->module_end - bi->module_start;
	char err[256];

	if (!bi->module_end) {
		printk("replay: no trace module: boot with one (x86_64: GRUB's module2 line, arm64: "
		       "QEMU's -initrd; tools/trace/kreplay.sh does it)\n");
		return false;
	}
	if (!arch_phys_mapped(bi->module_start, size ? size : 1)) {
		printk("replay: the trace module [%llx-%llx) is outside the direct map\n",
		       (unsigned long long)bi->module_start, (unsigned long long)bi->module_end);
		return false;
	}
	printk("replay: trace module: %llu bytes at phys 0x%llx\n", (unsigned long long)size,
	       (unsigned long long)bi->module_start);
	if (qtr_check_header(&rp.v, PHYS_TO_VIRT(bi->module_start), size, err, sizeof(err))) {
		printk("replay: trace module refused: %s\n", err);
		return false;
	}
	if (!table_alloc(rp.v.hdr->n_objects))
		return false;
	if (qtr_check_events(&rp.v, obj_in_table, NULL, err, sizeof(err))) {
		printk("replay: trace module refused: %s\n", err);
		table_free();
		return false;
	}
	return true;
}

static const char *const cost_key[QTR_NR_TYPES] = {
	[QTR_KMALLOC] = "kmalloc",	   [QTR_KFREE] = "kfree",
	[QTR_CACHE_ALLOC] = "cache_alloc", [QTR_CACHE_FREE] = "cache_free",
	[QTR_PAGE_ALLOC] = "page_alloc",   [QTR_PAGE_FREE] = "page_free",
};

/*
 * On two NUMA nodes or more, REPLAY lines: each traced CPU's node (traced
 * CPU i runs on CPU i mod the replay's CPUs) and the frees of an object a
 * CPU of another node allocated. Nothing on one node.
 */
static void numa_table(const struct rp_cpu *sum)
{
	if (numa_num_nodes() < 2)
		return;
	printk("replay: %u NUMA nodes: %llu of the %llu frees by another CPU were of another node's"
	       " allocation\nREPLAY numa_nodes=%u\nREPLAY remote_node_frees=%llu\n",
	       numa_num_nodes(), sum->remote_node, sum->remote, numa_num_nodes(), sum->remote_node);
	for (unsigned int i = 0; i < rp.v.hdr->cpus; i++)
		printk("REPLAY traced_cpu_node_%u=%u\n", i, cpu_to_node(i % rp.ncpus));
}

/* The counter per operation by event type: a table and REPLAY lines. */
static void cost_table(const struct rp_cpu *sum)
{
	const char *unit = rp.icount ? "instructions" : "cycles";

	printk("\nreplay: %s inside the allocator per operation (%s, %u CPU(s)):\n", unit,
	       rp.icount ? "QEMU -icount: deterministic" : "real time", rp.ncpus);
	printk("  %-12s %10s %14s %10s\n", "event", "ops", unit, "per op");
	for (unsigned int t = 1; t < QTR_NR_TYPES; t++) {
		unsigned long long n = sum->done[t], x10 = n ? (sum->cost[t] * 10 + n / 2) / n : 0;

		printk("  %-12s %10llu %14llu %6llu.%llu\n", cost_key[t], n,
		       (unsigned long long)sum->cost[t], x10 / 10, x10 % 10);
		printk("REPLAY cost_%u=%llu\nREPLAY cost_per_op_x10_%u=%llu\n", t,
		       (unsigned long long)sum->cost[t], t, x10);
	}
	printk("REPLAY mode=%s\nREPLAY cpus=%u\nREPLAY remote_frees=%llu\nREPLAY waited_frees=%llu\n",
	       rp.icount ? "icount" : "realtime", rp.ncpus, sum->remote, sum->waited);
	numa_table(sum);
}

/* Give back every table of the replay's own. */
static void free_tables(const struct qtr_header *h)
{
	own_free(rp.qcache, (h->n_caches + 1) * sizeof(*rp.qcache));
	own_free(rp.sample, rp.max_samples * sizeof(*rp.sample));
	rp.qcache = NULL;
	rp.sample = NULL;
	table_free();
}

/* replay_run: see lab/replay.h. */
int replay_run(const struct boot_info *bi, bool icount)
{
	const struct qtr_header *h;
	struct rp_cpu sum = { 0 };
	unsigned long long expect_live = 0, left, live_end, slab_end, shrunk_end, used_end, req_end, linux_end;
	unsigned long long blocks_end, n_out = 0;
	unsigned long end_free, bad, corrupt;
	unsigned int saved_timeout = smp_call_timeout, cpu;
	uint64_t t0, t1;
	bool ok = true, stopped;

	ASSERT(bi && !arch_irqs_disabled());
	memset(&rp, 0, sizeof(rp));
	memset(rp_cpu, 0, sizeof(rp_cpu));
	spin_lock_init(&rp.cache_lock);
	spin_lock_init(&rp.sample_lock);
	rp.icount = icount;
	if (!parse_options(bi) || !load_module(bi))
		return 1;
	h = rp.v.hdr;
	rp.ncpus = MIN(num_online_cpus(), h->cpus);
	printk("replay: trace of '%s' on %s: %llu events, %llu objects, %u caches, %u CPU(s); "
	       "replayed on %u CPU(s)%s%s%s\n", rp.v.command, rp.v.kernel,
	       (unsigned long long)h->n_events, (unsigned long long)h->n_objects, h->n_caches,
	       h->cpus, rp.ncpus, rp.pages ? ", with page events" : "",
	       rp.no_user ? " (no user memory)" : "", rp.internal ? ", internal kmallocs too" : "");
	rp.qcache = own_alloc((h->n_caches + 1) * sizeof(*rp.qcache));
	rp.max_samples = rp.samples + 3;	/* at most one per step, the first and the end */
	rp.sample = own_alloc(rp.max_samples * sizeof(*rp.sample));
	if (!rp.qcache || !rp.sample) {
		printk("replay: no memory for the replay's tables of %u caches (%llu bytes) and %lu "
		       "samples (%llu bytes), one page block each, %lu kB at most: boot with more "
		       "memory\n", h->n_caches,
		       (unsigned long long)(h->n_caches + 1) * sizeof(*rp.qcache), rp.max_samples,
		       (unsigned long long)rp.max_samples * sizeof(*rp.sample),
		       (unsigned long)(RP_CHUNK_BYTES >> 10));
		free_tables(h);
		return 1;
	}
	rp.progress = !icount || rp.ncpus == 1;
	/* The check's records become the object pointers: all NULL. */
	for (unsigned long i = 0; i < rp.n_chunks; i++)
		memset(rp.chunk[i], 0, PAGE_SIZE << rp.chunk_order);
	/*
	 * Every replaying CPU makes its per-CPU state of the shared caches now
	 * (as the host replay does), then every CPU is drained: the free pages
	 * at the start and the end (after the same drain) differ only by what
	 * the trace holds.
	 */
	/*
	 * No periodic reap from here to the end's count: the host replay has
	 * none, and a reap at a tick would move the samples after it.
	 */
	timer_reap_pause(true);
	for_each_online_cpu(cpu)
		smp_call_on_cpu(cpu, settle_cpu, NULL);
	slab_drain_all();
	rp.start_free = nr_free_pages();
	rp.start_used = qtr_pages_used();
	rp.start_slab = slab_total_pages();
	rp.managed = rp.start_free + rp.start_used;
	rp.sum0 = module_sum();
	rp.bad0 = slab_bad_frees;
	rp.corrupt0 = slab_corruptions;
	rp.step = h->n_events / rp.samples ? h->n_events / rp.samples : 1;
	rp.next_sample = 0;
	rp.next_progress = 0;

	smp_call_timeout = RP_CALL_TIMEOUT;
	/*
	 * Under -icount with several CPUs, QEMU runs them round-robin in slices
	 * that end at its next virtual timer, its own vCPU kick timer among
	 * them. That timer keeps the phase it had before the kernel started,
	 * and the firmware and GRUB (their CD reads complete in host time)
	 * reach the kernel after a different number of instructions each boot:
	 * the slices would fall elsewhere in the replay and change who takes a
	 * lock first, and the figures. With every CPU idle at once QEMU stops
	 * that timer and starts it again when one wakes: so the boot CPU sleeps
	 * until its tick (the others are idle already), and from then on every
	 * timer runs at the same point of the kernel's own work each boot.
	 */
	if (icount && rp.ncpus > 1)
		timer_idle_until_tick();
	t0 = arch_cycles();
	on_each_cpu_wait(replay_cpu, NULL);
	t1 = arch_cycles();
	smp_call_timeout = saved_timeout;
	stopped = rp.stop;
	if (!stopped)
		sample(h->n_events);

	for_each_online_cpu(cpu)
		for (unsigned int t = 1; t < QTR_NR_TYPES; t++) {
			sum.cost[t] += rp_cpu[cpu].cost[t];
			sum.done[t] += rp_cpu[cpu].done[t];
			sum.want[t] += rp_cpu[cpu].want[t];
			sum.skipped[t] += rp_cpu[cpu].skipped[t];
			n_out += rp_cpu[cpu].skipped[t];
		}
	for_each_online_cpu(cpu) {
		sum.remote += rp_cpu[cpu].remote;
		sum.waited += rp_cpu[cpu].waited;
		sum.remote_node += rp_cpu[cpu].remote_node;
	}
	/* What the trace leaves live, of what this run replays. */
	for (uint64_t k = 0; k < h->n_events && !stopped; k++) {
		const struct qtr_event *e = &rp.v.ev[k];
		bool failed;

		if (qtr_is_alloc(e->type)) {
			failed = *ptr_slot(e->object) == RP_FAILED;
			expect_live += !left_out(e) && !failed;
		} else {
			failed = *ptr_slot(e->object) == RP_FAILED;
			expect_live -= !left_out(&rp.v.ev[e->alloc_event]) && !failed;
		}
	}
	slab_end = (unsigned long long)slab_total_pages() * PAGE_SIZE;
	used_end = (unsigned long long)(qtr_pages_used() - rp.start_used) * PAGE_SIZE;
	live_end = rp.live_objs;
	req_end = rp.live_req;
	linux_end = rp.live_linux;
	blocks_end = rp.block_bytes;
	/* Slab: once every CPU's caching and every empty slab went back (the end, shrunk). */
	slab_drain_all();
	shrunk_end = (unsigned long long)slab_total_pages() * PAGE_SIZE;
	bad = slab_bad_frees - rp.bad0;
	corrupt = slab_corruptions - rp.corrupt0;
	end_free = free_everything(&left);
	timer_reap_pause(false);
	if (!stopped) {
		for (unsigned int t = 1; t < QTR_NR_TYPES; t++)
			if (sum.done[t] != sum.want[t]) {
				printk("replay: accounting: %llu %s events ran, %llu expected\n",
				       sum.done[t], qtr_type_name(t), sum.want[t]);
				ok = false;
			}
		if (live_end != expect_live) {
			printk("replay: accounting: %llu objects live at the end, the trace leaves %llu\n",
			       live_end, expect_live);
			ok = false;
		}
	}
	if (bad || corrupt) {
		printk("replay: accounting: %lu bad frees and %lu corruptions reported during the "
		       "replay\n", bad, corrupt);
		ok = false;
	}
	if (left != live_end) {
		printk("replay: accounting: %llu objects freed at the end, %llu were counted live\n",
		       left, live_end);
		ok = false;
	}
	if (module_sum() != rp.sum0) {	/* its pages handed out: not reserved */
		printk("replay: the trace module changed during the replay: its memory [%llx-%llx) "
		       "was written\n", (unsigned long long)bi->module_start,
		       (unsigned long long)bi->module_end);
		ok = false;
	}
	if (end_free != rp.start_free) {
		printk("replay: accounting: pages not back: %lu free after, %lu before\n", end_free,
		       rp.start_free);
		ok = false;
	}
	for (unsigned long i = 0; i < rp.n_samples; i++) {
		const struct rp_sample *x = &rp.sample[i];

		printk("REPLAY-SAMPLE %llu,%llu,%llu,%llu,%llu,%llu,%llu\n", x->event, x->slab,
		       x->used, x->object, x->req, x->linux_bytes, x->blocks);
	}
	cost_table(&sum);
	printk("REPLAY page_size=%lu\nREPLAY events=%llu\nREPLAY arena_mb=%lu\nREPLAY slab_start=%llu\n",
	       PAGE_SIZE, (unsigned long long)h->n_events, (rp.managed * PAGE_SIZE) >> 20,
	       (unsigned long long)rp.start_slab * PAGE_SIZE);
	for (unsigned int t = 1; t < QTR_NR_TYPES; t++)
		printk("REPLAY ops_%u=%llu\nREPLAY skipped_%u=%llu\n", t, sum.done[t], t,
		       sum.skipped[t]);
	printk("REPLAY peak_slab=%llu\nREPLAY peak_used=%llu\nREPLAY peak_object=%llu\n"
	       "REPLAY peak_req=%llu\nREPLAY peak_linux=%llu\nREPLAY end_slab=%llu\n"
	       "REPLAY end_used=%llu\nREPLAY end_object=%llu\nREPLAY end_req=%llu\n"
	       "REPLAY end_linux=%llu\nREPLAY end_live=%llu\nREPLAY failed=%llu\nREPLAY stopped=%d\n"
	       "REPLAY accounting_ok=%d\nREPLAY total_cost=%llu\nREPLAY end_shrunk_slab=%llu\n",
	       rp.peak.slab, rp.peak.used, rp.peak.object, rp.peak.req, rp.peak.linux_bytes, slab_end,
	       used_end, used_end - blocks_end, req_end, linux_end, live_end, rp.n_failed, stopped,
	       ok, (unsigned long long)(t1 - t0), shrunk_end);
	if (rp.n_failed)
		printk("replay: %llu allocations failed, %llu frees of them left out\n", rp.n_failed,
		       rp.frees_of_failed);
	printk("replay: %llu events; peak Slab: %llu kB, object memory %llu kB for %llu kB requested "
	       "(Linux gave %llu kB)\n", (unsigned long long)h->n_events, rp.peak.slab >> 10,
	       rp.peak.object >> 10, rp.peak.req >> 10, rp.peak.linux_bytes >> 10);
	if (ok && !stopped)
		printk("replay: accounting exact: every event ran (%llu left out as asked%s), every "
		       "free freed its object, %llu left live by the trace freed at the end, all %lu "
		       "pages back\n", n_out, rp.n_failed ? ", and the frees of failed allocations" : "",
		       left, rp.start_free);
	free_tables(h);
	return ok && !stopped && !rp.n_failed ? 0 : 1;
}
