// SPDX-License-Identifier: GPL-2.0
/*
 * quarry_replay.c - Quarry's trace replay (lab/replay.c) inside a real Linux
 * kernel: the same qtrace file (tools/trace/qtrace.h), checked as
 * tools/trace/qtr_check.c checks it, made into the same calls in file order
 * on the one CPU this module's init runs on, counted and sampled the same
 * way, printed as the same REPLAY lines, so Quarry's tools
 * (tools/trace/kreplay.sh's collect, report_replay.py) read them unchanged.
 *
 *   insmod quarry_replay.ko path=/trace.qtr [pages=1] [samples=200] [icount=1]
 *
 * The calls: kmalloc or kzalloc of the requested size, kmem_cache_alloc from
 * a cache made on first use with the trace cache's object size (zeroed with
 * memset when the trace asked for zeroed memory, as Quarry does), kfree,
 * kmem_cache_free, and with pages=1 alloc_pages/__free_pages. Under SLOB a
 * kfree of a cache object goes through kmem_cache_free: SLOB's kfree reads a
 * size header only kmalloc'd objects have.
 *
 * GFP flags: GFP_NOWAIT. Each call runs with interrupts off (as Quarry's
 * do), where nothing may sleep; GFP_KERNEL would let SLAB turn interrupts
 * back on inside the call to grow a cache. GFP_NOWAIT takes the same fast
 * paths, without direct reclaim (the guest is sized so none is needed).
 *
 * Cache names: "q:" and the trace's name. The guest has caches of the
 * trace's names itself (vm_area_struct, ...), and under SLUB with sysfs and
 * slab_nomerge a second cache of a name fails to register.
 *
 * Figures: the counter (x86_64 RDTSC; arm64 PMCCNTR_EL0, which this module
 * enables on every CPU at load: PMCCFILTR_EL0 = 0, PMCNTENSET_EL0 bit 31,
 * PMCR_EL0 E, C and LC; under QEMU -icount shift=0 both advance one per
 * guest instruction) read just before and just after each call,
 * interrupts off, the difference summed per event type; the two reads' own
 * cost is kept, as Quarry's replay keeps its own. Each call is also the
 * cache model's region of its type, exactly as in lab/replay.c: the reads
 * are marker.h's MODEL_BEGIN_CYCLES/MODEL_END_CYCLES, the mark fused with
 * the read (replay.sh copies tools/cachemodel/marker.h beside this file),
 * so the marks add nothing to the figures.
 *
 * Memory: slab = NR_SLAB_RECLAIMABLE_B + NR_SLAB_UNRECLAIMABLE_B. Though
 * named in bytes, at the node level Linux keeps them in pages (vmstat.c's
 * __mod_node_page_state shifts byte deltas by PAGE_SHIFT; /proc/meminfo's
 * Slab: reads them with global_node_page_state_pages()), so pages times
 * PAGE_SIZE. The global counters lag by each CPU's unfolded difference (up
 * to the vmstat threshold, several pages), so every read here adds the
 * per-CPU differences: exact at each sample. used = pages taken since the
 * start: free pages at the start minus now, free pages being NR_FREE_PAGES
 * (same exact reading) plus the pages on every CPU's page lists (free
 * pages Linux keeps off the buddy lists: NR_FREE_PAGES alone moves only
 * when a list is filled or drained, in batches, not when a slab is made).
 *
 * The module's own tables (the trace, the per-object table, the samples)
 * are vmalloc'd before the start is read and freed after the end.
 *
 * Isolation: the caches are made before the start (every trace cache that
 * has an allocation; their memory is in slab_start), pending RCU callbacks
 * are run, every trace and kmalloc cache is shrunk (shrink_all), and the
 * replay runs with interrupts off from its start to its end count:
 * nothing but the replay touches the allocator meanwhile, and the figures
 * do not move with where the guest's timer ticks fall.
 *
 * After the replay everything is freed, the caches destroyed, and init
 * returns -EAGAIN: the module is never left loaded (no rmmod needed).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/vmstat.h>
#include <linux/vmalloc.h>
#include <linux/kernel_read_file.h>
#include <linux/timex.h>
#include <linux/irqflags.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/utsname.h>
#include <linux/version.h>
#include <linux/panic.h>
#include <linux/nodemask.h>
#include <linux/cpumask.h>
#include <linux/rcupdate.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/spinlock.h>
#include <linux/sched.h>
#include "marker.h"
#include "qb_pmu.h"	/* lab/linux/bench/qb_pmu.h, copied beside this file by replay.sh */

/*
 * The counter: RDTSC on x86_64 (get_cycles()); PMCCNTR_EL0 on arm64 after
 * an ISB, as marker.h's fused reads take it (Linux's get_cycles() there is
 * CNTVCT, one tick per 16 instructions under -icount).
 */
static inline u64 rp_cycles(void)
{
#ifdef CONFIG_ARM64
	u64 v;

	asm volatile("isb\n\tmrs %0, pmccntr_el0" : "=r"(v) : : "memory");
	return v;
#else
	return get_cycles();
#endif
}

/* One allocator call timed into t0/t1 and marked as the model's region id. */
#define RP_TIMED(id, ...) do {			\
	MODEL_BEGIN_CYCLES(id, t0);		\
	__VA_ARGS__;				\
	MODEL_END_CYCLES(id, t1);		\
} while (0)

/* ---- The qtrace format (tools/trace/qtrace.h, version 1), kernel types ---- */

#define QTR_MAGIC	"QUARRYTR"
#define QTR_VERSION	1

enum {
	QTR_KMALLOC = 1, QTR_KFREE = 2, QTR_CACHE_ALLOC = 3, QTR_CACHE_FREE = 4,
	QTR_PAGE_ALLOC = 5, QTR_PAGE_FREE = 6, QTR_NR_TYPES = 7
};

#define QTR_F_ZERO	0x01
#define QTR_F_USER	0x02
#define QTR_F_SLAB_PAGE	0x04
#define QTR_F_LARGE	0x08
#define QTR_F_INTERNAL	0x10
#define QTR_F_NOT_REPLAYED (QTR_F_SLAB_PAGE | QTR_F_LARGE | QTR_F_INTERNAL)
#define QTR_NONE	0xffffffffu

struct qtr_header {
	char magic[8];
	u32 version, header_bytes, cpus, page_size, n_caches, cache_bytes, event_bytes;
	u32 kernel_off, command_off, reserved0;
	u64 caches_off, events_off, n_events, n_objects;
	u64 counts[QTR_NR_TYPES];
	u64 source_lines, source_events, kfree_null, early_frees, early_page_frees;
	u64 implicit_frees, implicit_page_frees, order_mismatches, failed_allocs, live_at_end;
	u64 peak_live_objects, peak_req_bytes, peak_page_bytes, peak_user_page_bytes;
	u64 reserved[8];
};

struct qtr_cache {
	char name[48];
	u32 object_size, linux_size;
	u64 allocs;
};

struct qtr_event {
	u8 type, flags;
	u16 cpu;
	u32 cache, object, size_req, size_alloc, alloc_event;
};

static_assert(sizeof(struct qtr_event) == 24);
static_assert(sizeof(struct qtr_cache) == 64);
static_assert(sizeof(struct qtr_header) == 312);

/* ---- Parameters ---- */

static char *path = "/trace.qtr";
module_param(path, charp, 0444);
MODULE_PARM_DESC(path, "the qtrace file to replay (default /trace.qtr)");
static bool pages;
module_param(pages, bool, 0444);
MODULE_PARM_DESC(pages, "replay the page events too (as replay --pages, Quarry's replay_pages)");
static uint samples = 200;
module_param(samples, uint, 0444);
MODULE_PARM_DESC(samples, "memory samples over the replay (1 to 50000, default 200)");
static bool icount;
module_param(icount, bool, 0444);
MODULE_PARM_DESC(icount, "say the guest runs under QEMU -icount (REPLAY mode=icount)");
static uint cpus = 1;
module_param(cpus, uint, 0444);
MODULE_PARM_DESC(cpus, "replay on this many CPUs, as the trace's CPUs (1 to 8; at most the online and the traced CPUs)");

#define RP_MAX_SAMPLES	50000
#define RP_MAX_CPUS	8
#define RP_NAME_PREFIX	"q:"

/* ---- State ---- */

struct rp_sample {
	u64 event;
	s64 slab, used, object;
	u64 req, linux_bytes, blocks;
};

struct rp_peak {
	s64 slab, used, object;
	u64 req, linux_bytes;
};

/* What the check keeps per object; the same 8 bytes then hold its pointer. */
struct qtr_obj {
	u32 alloc_event;
	u32 state;	/* 0 never allocated, 1 live, 2 freed */
};

static struct {
	void *data;
	size_t size;
	const struct qtr_header *hdr;
	const struct qtr_cache *caches;
	const struct qtr_event *ev;
	const char *kernel, *command;
	u64 *slot;			/* per object: check record, then pointer */
	struct kmem_cache **cache;	/* trace cache -> Linux cache */
	struct rp_sample *sample;
	unsigned long n_samples, max_samples;
	u64 step, next_sample;
	long start_free, start_slab;
	u64 live_objs, live_req, live_linux, live_blocks, block_bytes;
	struct rp_peak peak;
	u64 cost[QTR_NR_TYPES], done[QTR_NR_TYPES], want[QTR_NR_TYPES], skipped[QTR_NR_TYPES];
	u64 remote, waited;
	u64 n_failed;
	unsigned int ncpus;
	bool stop;
	char err[256];
} rp;

/* Each replaying CPU's own counts (by rank), summed into rp's at the end. */
struct rp_cpu {
	u64 cost[QTR_NR_TYPES], done[QTR_NR_TYPES], want[QTR_NR_TYPES], skipped[QTR_NR_TYPES];
	u64 remote;	/* frees of an object another rank allocated */
	u64 waited;	/* ... that had to wait for the allocation */
};
static struct rp_cpu rpc[RP_MAX_CPUS];
static DEFINE_RAW_SPINLOCK(sample_lock);

/* The live figures, updated by every replaying CPU (a u64 laid out as atomic64_t's counter). */
static inline void add(u64 *x, s64 v)
{
	atomic64_add(v, (atomic64_t *)x);
}

static const char *const type_name[QTR_NR_TYPES] = {
	[QTR_KMALLOC] = "kmalloc",	   [QTR_KFREE] = "kfree",
	[QTR_CACHE_ALLOC] = "cache alloc", [QTR_CACHE_FREE] = "cache free",
	[QTR_PAGE_ALLOC] = "page alloc",   [QTR_PAGE_FREE] = "page free",
};

static const char *const cost_key[QTR_NR_TYPES] = {
	[QTR_KMALLOC] = "kmalloc",	   [QTR_KFREE] = "kfree",
	[QTR_CACHE_ALLOC] = "cache_alloc", [QTR_CACHE_FREE] = "cache_free",
	[QTR_PAGE_ALLOC] = "page_alloc",   [QTR_PAGE_FREE] = "page_free",
};

static const char *tname(unsigned int t)
{
	return t < QTR_NR_TYPES && type_name[t] ? type_name[t] : "?";
}

static bool is_alloc(unsigned int t)
{
	return t == QTR_KMALLOC || t == QTR_CACHE_ALLOC || t == QTR_PAGE_ALLOC;
}

static const char *alloc_name(void)
{
	if (IS_ENABLED(CONFIG_SLOB))
		return "slob";
	if (IS_ENABLED(CONFIG_SLAB))
		return "slab";
	return "slub";
}

/* ---- The check (tools/trace/qtr_check.c's rules), first fault in rp.err ---- */

static __printf(1, 2) int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rp.err, sizeof(rp.err), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool has_nul(const void *p, u64 n)
{
	return memchr(p, 0, n) != NULL;
}

static int string_at(u32 off, const char *what, const char **out)
{
	if (off < sizeof(struct qtr_header) || off >= rp.size)
		return fail("header field '%s_off' (%u) is outside the file (%zu bytes)", what, off,
			    rp.size);
	if (!has_nul((const char *)rp.data + off, rp.size - off))
		return fail("the %s string at %u has no end (no NUL before the end of the file)",
			    what, off);
	*out = (const char *)rp.data + off;
	return 0;
}

static int check_header(void)
{
	const struct qtr_header *h = rp.data;
	u64 end;
	u32 i;

	rp.hdr = h;
	if (rp.size < 8 || memcmp(h->magic, QTR_MAGIC, 8))
		return fail("not a Quarry trace (no '%s' at the start): convert the recorded text "
			    "first (build/replay/bin/convert)", QTR_MAGIC);
	if (rp.size < sizeof(*h))
		return fail("truncated: %zu bytes, shorter than the %zu-byte header", rp.size,
			    sizeof(*h));
	if (h->version != QTR_VERSION)
		return fail("format version %u, but this replay reads version %u only", h->version,
			    QTR_VERSION);
	if (h->header_bytes != sizeof(*h) || h->event_bytes != sizeof(struct qtr_event) ||
	    h->cache_bytes != sizeof(struct qtr_cache))
		return fail("header field 'header_bytes/event_bytes/cache_bytes' is %u/%u/%u, "
			    "version %u has %zu/%zu/%zu", h->header_bytes, h->event_bytes,
			    h->cache_bytes, QTR_VERSION, sizeof(*h), sizeof(struct qtr_event),
			    sizeof(struct qtr_cache));
	if (!h->cpus || h->cpus > 4096)
		return fail("header field 'cpus' is %u (1 to 4096)", h->cpus);
	if (h->page_size < 4096 || (h->page_size & (h->page_size - 1)))
		return fail("header field 'page_size' is %u (a power of two, at least 4096)",
			    h->page_size);
	if (string_at(h->kernel_off, "kernel", &rp.kernel) ||
	    string_at(h->command_off, "command", &rp.command))
		return -EINVAL;
	end = h->caches_off + (u64)h->n_caches * sizeof(struct qtr_cache);
	if (h->caches_off % 8 || h->caches_off < sizeof(*h) || h->caches_off > rp.size ||
	    end > rp.size)
		return fail("header fields 'caches_off/n_caches' (%llu/%u) point outside the file "
			    "(%zu bytes)", h->caches_off, h->n_caches, rp.size);
	if (h->n_events > QTR_NONE || h->n_objects > QTR_NONE)
		return fail("header fields 'n_events/n_objects' (%llu/%llu) are over %u",
			    h->n_events, h->n_objects, QTR_NONE);
	end = h->events_off + h->n_events * sizeof(struct qtr_event);
	if (h->events_off % 8 || h->events_off < sizeof(*h) || h->events_off > rp.size ||
	    end != rp.size)
		return fail("truncated or overlong: %llu events at offset %llu need %llu bytes, "
			    "the file has %zu", h->n_events, h->events_off, end, rp.size);
	rp.caches = (const void *)((const char *)rp.data + h->caches_off);
	rp.ev = (const void *)((const char *)rp.data + h->events_off);
	for (i = 0; i < h->n_caches; i++) {
		const struct qtr_cache *c = &rp.caches[i];

		if (!has_nul(c->name, sizeof(c->name)) || !c->name[0])
			return fail("cache %u: field 'name' is empty or has no NUL in its %zu bytes",
				    i, sizeof(c->name));
		if (!c->object_size || c->object_size > (4U << 20))
			return fail("cache %u (%s): field 'object_size' is %u (1 to 4 MiB)", i,
				    c->name, c->object_size);
	}
	return 0;
}

static struct qtr_obj *obj(u32 id)
{
	return (struct qtr_obj *)&rp.slot[id];
}

static int check_events(void)
{
	const struct qtr_header *h = rp.hdr;
	u64 counts[QTR_NR_TYPES] = { 0 };
	u64 i, id;
	unsigned int t;

	for (i = 0; i < h->n_events; i++) {
		const struct qtr_event *e = &rp.ev[i];
		bool page = e->type == QTR_PAGE_ALLOC || e->type == QTR_PAGE_FREE;
		const char *tn = tname(e->type);
		const struct qtr_event *a;
		struct qtr_obj *o;

		if (!e->type || e->type >= QTR_NR_TYPES)
			return fail("event %llu: field 'type' is %u (1 to %u)", i, e->type,
				    QTR_NR_TYPES - 1);
		counts[e->type]++;
		if (e->cpu >= h->cpus)
			return fail("event %llu (%s): field 'cpu' is %u, the trace has %u CPUs", i, tn,
				    e->cpu, h->cpus);
		if (e->object >= h->n_objects)
			return fail("event %llu (%s): field 'object' is %u, the trace has %llu objects",
				    i, tn, e->object, h->n_objects);
		if (page && e->cache > 20)
			return fail("event %llu (%s): field 'order' (cache) is %u (0 to 20)", i, tn,
				    e->cache);
		if (!page && e->cache != QTR_NONE && e->cache >= h->n_caches)
			return fail("event %llu (%s): field 'cache' is %u, the trace has %u caches", i,
				    tn, e->cache, h->n_caches);
		if (e->type == QTR_CACHE_ALLOC && e->cache == QTR_NONE)
			return fail("event %llu (cache alloc): field 'cache' names no cache", i);
		o = obj(e->object);
		if (is_alloc(e->type)) {
			if (o->state)
				return fail("event %llu (%s): object %u was allocated before, by event %u",
					    i, tn, e->object, o->alloc_event);
			if (e->alloc_event != QTR_NONE)
				return fail("event %llu (%s): field 'alloc_event' is %u, an allocation "
					    "has %u", i, tn, e->alloc_event, QTR_NONE);
			if (e->size_alloc < e->size_req)
				return fail("event %llu (%s): field 'size_alloc' %u is less than "
					    "'size_req' %u", i, tn, e->size_alloc, e->size_req);
			o->state = 1;
			o->alloc_event = (u32)i;
			continue;
		}
		if (o->state != 1)
			return fail("event %llu (%s): object %u is not live (%s)", i, tn, e->object,
				    o->state ? "freed already" : "never allocated");
		if (e->alloc_event != o->alloc_event)
			return fail("event %llu (%s): field 'alloc_event' is %u, object %u was "
				    "allocated by event %u", i, tn, e->alloc_event, e->object,
				    o->alloc_event);
		a = &rp.ev[e->alloc_event];
		if (page != (a->type == QTR_PAGE_ALLOC))
			return fail("event %llu (%s): frees object %u, allocated as a %s", i, tn,
				    e->object, tname(a->type));
		if (e->cache != a->cache)
			return fail("event %llu (%s): field '%s' is %u, object %u was allocated with "
				    "%u", i, tn, page ? "order" : "cache", e->cache, e->object,
				    a->cache);
		o->state = 2;
	}
	for (t = 1; t < QTR_NR_TYPES; t++)
		if (counts[t] != h->counts[t])
			return fail("header field 'counts[%s]' is %llu, the file holds %llu such events",
				    tname(t), h->counts[t], counts[t]);
	for (id = 0; id < h->n_objects; id++)
		if (!obj((u32)id)->state)
			return fail("object %llu is never allocated (header field 'n_objects' is %llu)",
				    id, h->n_objects);
	return 0;
}

/* ---- Memory figures, exact (global counters plus every CPU's unfolded part) ---- */

static long node_stat_exact(enum node_stat_item item)
{
	long x = global_node_page_state_pages(item);
	int nid, cpu;

	for_each_online_node(nid)
		for_each_online_cpu(cpu)
			x += per_cpu_ptr(NODE_DATA(nid)->per_cpu_nodestats, cpu)->vm_node_stat_diff[item];
	return x;
}

static long nr_free_exact(void)
{
	long x = global_zone_page_state(NR_FREE_PAGES);
	int nid, z, cpu;

	for_each_online_node(nid)
		for (z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = &NODE_DATA(nid)->node_zones[z];

			if (!populated_zone(zone))
				continue;
			for_each_online_cpu(cpu) {
				x += per_cpu_ptr(zone->per_cpu_zonestats, cpu)->vm_stat_diff[NR_FREE_PAGES];
				/* free pages a CPU's page list holds: free, not used */
				x += READ_ONCE(per_cpu_ptr(zone->per_cpu_pageset, cpu)->count);
			}
		}
	return x;
}

/* Slab pages now (the _B counters are kept in pages at the node level). */
static long slab_pages(void)
{
	return node_stat_exact(NR_SLAB_RECLAIMABLE_B) + node_stat_exact(NR_SLAB_UNRECLAIMABLE_B);
}

/* One memory sample before event i: lab/replay.c's columns. */
static void sample(u64 i)
{
	s64 slab = (s64)slab_pages() * PAGE_SIZE;
	s64 used = (s64)(rp.start_free - nr_free_exact()) * PAGE_SIZE;
	s64 object = used - (s64)rp.block_bytes;
	struct rp_peak *p = &rp.peak;

	p->slab = max(p->slab, slab);
	p->used = max(p->used, used);
	p->object = max(p->object, object);
	p->req = max(p->req, rp.live_req);
	p->linux_bytes = max(p->linux_bytes, rp.live_linux);
	if (rp.n_samples < rp.max_samples)
		rp.sample[rp.n_samples++] = (struct rp_sample){ i, slab, used, object, rp.live_req,
								rp.live_linux, rp.block_bytes };
}

/* The samples due at event i (any replaying CPU, one at a time). */
static void maybe_sample(u64 i)
{
	unsigned long flags;

	if (i < READ_ONCE(rp.next_sample))
		return;
	raw_spin_lock_irqsave(&sample_lock, flags);
	if (i >= rp.next_sample) {
		sample(i);
		while (rp.next_sample <= i)
			rp.next_sample += rp.step;
	}
	raw_spin_unlock_irqrestore(&sample_lock, flags);
}

/* ---- The replay ---- */

static unsigned int page_order(u32 order)
{
	u64 bytes = (u64)rp.hdr->page_size << order;

	return bytes <= PAGE_SIZE ? 0 : get_order(bytes);
}

/* lab/replay.c's left_out(): page events unless pages=1, never a not-replayed block. */
static bool left_out(const struct qtr_event *e)
{
	if (e->type == QTR_PAGE_ALLOC || e->type == QTR_PAGE_FREE)
		return !pages || (e->flags & QTR_F_NOT_REPLAYED);
	return e->flags & QTR_F_INTERNAL;
}

static struct kmem_cache *cache_for(u32 c)
{
	char name[sizeof(RP_NAME_PREFIX) + sizeof(rp.caches[0].name)];

	if (rp.cache[c])
		return rp.cache[c];
	if (WARN_ON_ONCE(irqs_disabled()))	/* made before the start, always */
		return NULL;
	snprintf(name, sizeof(name), RP_NAME_PREFIX "%s", rp.caches[c].name);
	rp.cache[c] = kmem_cache_create(name, rp.caches[c].object_size, 0, 0, NULL);
	if (!rp.cache[c])
		pr_err("replay: kmem_cache_create(\"%s\", %u) failed\n", name,
		       rp.caches[c].object_size);
	return rp.cache[c];
}

static void **ptr_slot(u32 id)
{
	return (void **)&rp.slot[id];
}

static bool alloc_failed(u64 i, const struct qtr_event *e)
{
	rp.n_failed++;
	pr_err("replay: event %llu (%s of %u bytes%s%s) failed: out of memory; stopping, freeing "
	       "what the replay holds\n", i, tname(e->type),
	       e->type == QTR_PAGE_ALLOC ? (unsigned int)(PAGE_SIZE << page_order(e->cache)) :
					   e->size_req,
	       e->type == QTR_CACHE_ALLOC ? " from " : "",
	       e->type == QTR_CACHE_ALLOC ? rp.caches[e->cache].name : "");
	WRITE_ONCE(rp.stop, true);
	return false;
}

/*
 * The object a free gives back, once its allocation ran (on whichever
 * CPU): spins, yielding the vCPU, while it has not; NULL if the replay
 * stopped meanwhile. The lowest event not yet run never waits, so the
 * replay always moves on.
 */
static void *wait_for(const struct qtr_event *e, struct rp_cpu *c)
{
	const struct qtr_event *a = &rp.ev[e->alloc_event];
	void *p = smp_load_acquire(ptr_slot(e->object));

	if (a->cpu % rp.ncpus != e->cpu % rp.ncpus)
		c->remote++;
	if (p)
		return p;
	c->waited++;
	while (!(p = smp_load_acquire(ptr_slot(e->object)))) {
		if (READ_ONCE(rp.stop))
			return NULL;
		cpu_relax();
	}
	return p;
}

/* Run event i on this CPU (its counts in c); false if the replay is to stop. */
static bool run_event(u64 i, const struct qtr_event *e, struct rp_cpu *c)
{
	const struct qtr_event *a = e->alloc_event != QTR_NONE ? &rp.ev[e->alloc_event] : e;
	const gfp_t gfp = GFP_NOWAIT;
	struct kmem_cache *k = NULL;
	unsigned long flags;
	u64 t0, t1;
	void *p = NULL;

	if (!is_alloc(e->type)) {
		p = wait_for(e, c);
		if (!p)
			return false;
	}
	if (e->type == QTR_CACHE_ALLOC || (e->type == QTR_CACHE_FREE && e->cache != QTR_NONE) ||
	    (IS_ENABLED(CONFIG_SLOB) && e->type == QTR_KFREE && e->cache != QTR_NONE)) {
		k = cache_for(e->cache);
		if (!k)
			return alloc_failed(i, e);
	}
	local_irq_save(flags);
	switch (e->type) {
	case QTR_KMALLOC:	/* the flag's test outside the span, as it was before the marks */
		if (e->flags & QTR_F_ZERO)
			RP_TIMED(MODEL_R_REPLAY_KMALLOC, p = kzalloc(e->size_req, gfp));
		else
			RP_TIMED(MODEL_R_REPLAY_KMALLOC, p = kmalloc(e->size_req, gfp));
		break;
	case QTR_CACHE_ALLOC:
		RP_TIMED(MODEL_R_REPLAY_CACHE_ALLOC, p = kmem_cache_alloc(k, gfp);
			 if (p && (e->flags & QTR_F_ZERO))
				memset(p, 0, e->size_req));
		break;
	case QTR_PAGE_ALLOC:
		RP_TIMED(MODEL_R_REPLAY_PAGE_ALLOC, p = alloc_pages(gfp, page_order(e->cache)));
		break;
	case QTR_KFREE:		/* k set: SLOB, a cache object (kfree would read a header it lacks) */
		RP_TIMED(MODEL_R_REPLAY_KFREE, if (k) kmem_cache_free(k, p); else kfree(p));
		break;
	case QTR_CACHE_FREE:
		RP_TIMED(MODEL_R_REPLAY_CACHE_FREE, if (k) kmem_cache_free(k, p); else kfree(p));
		break;
	default: /* QTR_PAGE_FREE: the check allows no other type */
		RP_TIMED(MODEL_R_REPLAY_PAGE_FREE, __free_pages(p, page_order(e->cache)));
		break;
	}
	local_irq_restore(flags);
	c->cost[e->type] += t1 - t0;
	c->done[e->type]++;
	if (is_alloc(e->type)) {
		if (!p)
			return alloc_failed(i, e);
		add(&rp.live_objs, 1);
		if (e->type == QTR_PAGE_ALLOC) {
			add(&rp.live_blocks, 1);
			add(&rp.block_bytes, PAGE_SIZE << page_order(e->cache));
		} else {
			add(&rp.live_req, e->size_req);
			add(&rp.live_linux, e->size_alloc);
		}
		/* release: a CPU waiting to free it sees the object made */
		smp_store_release(ptr_slot(e->object), p);
		return true;
	}
	*ptr_slot(e->object) = NULL;
	add(&rp.live_objs, -1);
	if (e->type == QTR_PAGE_FREE) {
		add(&rp.live_blocks, -1);
		add(&rp.block_bytes, -(s64)(PAGE_SIZE << page_order(e->cache)));
	} else {
		add(&rp.live_req, -(s64)a->size_req);
		add(&rp.live_linux, -(s64)a->size_alloc);
	}
	return true;
}

/*
 * Rank r's share of the replay: every event of the traced CPUs c with
 * c mod ncpus == r, in file order (lab/replay.c's rule). Interrupts off.
 */
static void replay_rank(unsigned int r)
{
	struct rp_cpu *c = &rpc[r];
	u64 k;

	for (k = 0; k < rp.hdr->n_events && !READ_ONCE(rp.stop); k++) {
		const struct qtr_event *e = &rp.ev[k];
		const struct qtr_event *a = e->alloc_event != QTR_NONE ? &rp.ev[e->alloc_event] : e;

		if (e->cpu % rp.ncpus != r)
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

/* One replaying CPU of several: a kthread bound to it, started by 'go'. */
struct rp_thread {
	unsigned int rank;
	struct completion *go, done;
};

static int rp_thread_fn(void *arg)
{
	struct rp_thread *th = arg;

	wait_for_completion(th->go);
	local_irq_disable();
	replay_rank(th->rank);
	local_irq_enable();
	complete(&th->done);
	return 0;
}

/*
 * The replay on rp.ncpus CPUs (2 or more): one kthread per rank, bound to
 * the rank-th online CPU, each with interrupts off through its share. The
 * start is read once every thread waits for 'go'. False (said) if the
 * threads could not be made; nothing has run then.
 */
static bool replay_threads(u64 *t0, u64 *t1)
{
	static struct rp_thread th[RP_MAX_CPUS];
	DECLARE_COMPLETION_ONSTACK(go);
	unsigned int r = 0, cpu;
	struct task_struct *t;

	for_each_online_cpu(cpu) {
		if (r == rp.ncpus)
			break;
		th[r].rank = r;
		th[r].go = &go;
		init_completion(&th[r].done);
		t = kthread_create(rp_thread_fn, &th[r], "qreplay/%u", r);
		if (IS_ERR(t)) {
			pr_err("replay: cannot make the replay thread of CPU %u\n", cpu);
			WRITE_ONCE(rp.stop, true);
			complete_all(&go);
			while (r--)
				wait_for_completion(&th[r].done);
			return false;
		}
		kthread_bind(t, cpu);
		wake_up_process(t);
		r++;
	}
	rp.start_free = nr_free_exact();
	rp.start_slab = slab_pages();
	*t0 = rp_cycles();
	complete_all(&go);
	for (r = 0; r < rp.ncpus; r++)
		wait_for_completion(&th[r].done);
	*t1 = rp_cycles();
	return true;
}

/* Free what is still live, destroy the caches; returns the objects freed. */
static u64 free_everything(void)
{
	u64 i, left = 0;
	u32 c;

	for (i = 0; rp.slot && i < rp.hdr->n_events; i++) {
		const struct qtr_event *e = &rp.ev[i];
		void *p;

		if (!is_alloc(e->type))
			continue;
		p = *ptr_slot(e->object);
		if (!p)
			continue;
		if (e->type == QTR_PAGE_ALLOC)
			__free_pages(p, page_order(e->cache));
		else if (e->type == QTR_CACHE_ALLOC)
			kmem_cache_free(rp.cache[e->cache], p);
		else
			kfree(p);
		*ptr_slot(e->object) = NULL;
		left++;
	}
	for (c = 0; rp.cache && c < rp.hdr->n_caches; c++)
		if (rp.cache[c]) {
			kmem_cache_destroy(rp.cache[c]);
			rp.cache[c] = NULL;
		}
	return left;
}

static void free_tables(void)
{
	vfree(rp.sample);
	vfree(rp.cache);
	vfree(rp.slot);
	vfree(rp.data);
	rp.sample = NULL;
	rp.cache = NULL;
	rp.slot = NULL;
	rp.data = NULL;
}

static int load_trace(void)
{
	size_t file_size = 0;
	ssize_t n;
	void *buf = NULL;
	int err;

	n = kernel_read_file_from_path(path, 0, &buf, INT_MAX, &file_size, READING_UNKNOWN);
	if (n < 0) {
		pr_err("replay: trace module refused: cannot read %s (error %zd)%s\n", path, n,
		       n == -ENOMEM ? ": out of memory, boot with more (-m)" : "");
		return n == -ENOMEM ? -ENOMEM : -EINVAL;
	}
	rp.data = buf;
	rp.size = (size_t)n;
	pr_info("replay: trace module: %zu bytes from %s\n", rp.size, path);
	err = check_header();
	if (err)
		goto refused;
	rp.slot = vzalloc(max_t(u64, rp.hdr->n_objects, 1) * sizeof(u64));
	if (!rp.slot) {
		pr_err("replay: trace module refused: no memory for the object table (%llu objects, "
		       "%llu bytes): boot with more memory (-m)\n", rp.hdr->n_objects,
		       rp.hdr->n_objects * 8);
		free_tables();
		return -ENOMEM;
	}
	err = check_events();
	if (err)
		goto refused;
	return 0;
refused:
	pr_err("replay: trace module refused: %s\n", rp.err);
	free_tables();
	return -EINVAL;
}

/*
 * shrink_all - the start, and the end shrunk: every trace cache and every
 * kmalloc cache gives back its per-CPU caching and its empty slabs
 * (kmem_cache_shrink, which flushes every CPU's), as Quarry's replay does
 * with slab_drain_all before its start and its end_shrunk_slab. Sleeps:
 * interrupts on. SLOB keeps neither (its shrink does nothing, and it has
 * no kmalloc caches).
 */
static void shrink_all(void)
{
	u32 c;
#ifndef CONFIG_SLOB
	unsigned int i;

	for (i = 0; i <= KMALLOC_SHIFT_HIGH; i++)
		if (kmalloc_caches[KMALLOC_NORMAL][i])
			kmem_cache_shrink(kmalloc_caches[KMALLOC_NORMAL][i]);
#endif
	for (c = 0; rp.cache && c < rp.hdr->n_caches; c++)
		if (rp.cache[c])
			kmem_cache_shrink(rp.cache[c]);
}

static void print_results(u64 left, long end_slab_pages_after, bool ok, u64 slab_end,
			  s64 used_end, u64 req_end, u64 linux_end, u64 blocks_end, u64 live_end,
			  u64 total, u64 n_out)
{
	const char *unit = icount ? "instructions" : "cycles";
	unsigned long i;
	unsigned int t;

	for (i = 0; i < rp.n_samples; i++) {
		const struct rp_sample *x = &rp.sample[i];

		pr_info("REPLAY-SAMPLE %llu,%lld,%lld,%lld,%llu,%llu,%llu\n", x->event, x->slab,
			x->used, x->object, x->req, x->linux_bytes, x->blocks);
	}
	pr_info("\nreplay: %s inside the allocator per operation (%s, %u CPU(s)):\n", unit,
		icount ? "QEMU -icount: deterministic" : "real time", rp.ncpus);
	pr_info("  %-12s %10s %14s %10s\n", "event", "ops", unit, "per op");
	for (t = 1; t < QTR_NR_TYPES; t++) {
		u64 n = rp.done[t], x10 = n ? div64_u64(rp.cost[t] * 10 + n / 2, n) : 0;

		pr_info("  %-12s %10llu %14llu %6llu.%llu\n", cost_key[t], n, rp.cost[t], x10 / 10,
			x10 % 10);
		pr_info("REPLAY cost_%u=%llu\n", t, rp.cost[t]);
		pr_info("REPLAY cost_per_op_x10_%u=%llu\n", t, x10);
	}
	pr_info("REPLAY mode=%s\n", icount ? "icount" : "realtime");
	pr_info("REPLAY cpus=%u\n", rp.ncpus);
	pr_info("REPLAY remote_frees=%llu\n", rp.remote);
	pr_info("REPLAY waited_frees=%llu\n", rp.waited);
	pr_info("REPLAY linux=%u.%u\n", LINUX_VERSION_MAJOR, LINUX_VERSION_PATCHLEVEL);
	pr_info("REPLAY linux_release=%s\n", utsname()->release);
	pr_info("REPLAY alloc=%s\n", alloc_name());
	pr_info("REPLAY gfp=GFP_NOWAIT\n");
	pr_info("REPLAY page_size=%lu\n", PAGE_SIZE);
	pr_info("REPLAY events=%llu\n", rp.hdr->n_events);
	pr_info("REPLAY arena_mb=%lu\n", (totalram_pages() * PAGE_SIZE) >> 20);
	pr_info("REPLAY slab_start=%llu\n", (u64)rp.start_slab * PAGE_SIZE);
	for (t = 1; t < QTR_NR_TYPES; t++) {
		pr_info("REPLAY ops_%u=%llu\n", t, rp.done[t]);
		pr_info("REPLAY skipped_%u=%llu\n", t, rp.skipped[t]);
	}
	pr_info("REPLAY peak_slab=%lld\n", rp.peak.slab);
	pr_info("REPLAY peak_used=%lld\n", rp.peak.used);
	pr_info("REPLAY peak_object=%lld\n", rp.peak.object);
	pr_info("REPLAY peak_req=%llu\n", rp.peak.req);
	pr_info("REPLAY peak_linux=%llu\n", rp.peak.linux_bytes);
	pr_info("REPLAY end_slab=%llu\n", slab_end);
	pr_info("REPLAY end_used=%lld\n", used_end);
	pr_info("REPLAY end_object=%lld\n", used_end - (s64)blocks_end);
	pr_info("REPLAY end_req=%llu\n", req_end);
	pr_info("REPLAY end_linux=%llu\n", linux_end);
	pr_info("REPLAY end_live=%llu\n", live_end);
	pr_info("REPLAY slab_after_free=%llu\n", (u64)end_slab_pages_after * PAGE_SIZE);
	pr_info("REPLAY failed=%llu\n", rp.n_failed);
	pr_info("REPLAY stopped=%d\n", rp.stop);
	pr_info("REPLAY accounting_ok=%d\n", ok);
	pr_info("REPLAY total_cost=%llu\n", total);
	pr_info("replay: %llu events; peak Slab: %lld kB, object memory %lld kB for %llu kB "
		"requested (Linux gave %llu kB)\n", rp.hdr->n_events, rp.peak.slab >> 10,
		rp.peak.object >> 10, rp.peak.req >> 10, rp.peak.linux_bytes >> 10);
	if (ok && !rp.stop)
		pr_info("replay: accounting exact: every event ran (%llu left out as asked), every "
			"free freed its object, %llu left live by the trace freed at the end, every "
			"cache destroyed without a warning (Slab %lld kB before, %lld kB after)\n",
			n_out, left, (s64)rp.start_slab * PAGE_SIZE >> 10,
			(s64)end_slab_pages_after * PAGE_SIZE >> 10);
}

static int __init quarry_replay_init(void)
{
	const struct qtr_header *h;
	u64 expect_live = 0, left, n_out = 0, k, slab_end, req_end, linux_end, blocks_end, live_end;
	s64 used_end;
	long slab_after, slab_shrunk;
	bool ok = true, warned0;
	u64 t0, t1;
	unsigned int t, r;
	int err;

	memset(&rp, 0, sizeof(rp));
	memset(rpc, 0, sizeof(rpc));
	if (!cpus || cpus > RP_MAX_CPUS) {
		pr_err("replay: trace module refused: cpus=%u: a number from 1 to %u\n", cpus,
		       RP_MAX_CPUS);
		return -EINVAL;
	}
	if (!samples || samples > RP_MAX_SAMPLES) {
		pr_err("replay: trace module refused: samples=%u: a number from 1 to %u\n", samples,
		       RP_MAX_SAMPLES);
		return -EINVAL;
	}
#ifdef CONFIG_ARM64
	on_each_cpu(qb_pmu_enable_cpu, NULL, 1);
#endif
	err = load_trace();
	if (err)
		return err;
	h = rp.hdr;
	rp.ncpus = min3(cpus, num_online_cpus(), max(h->cpus, 1U));
	pr_info("replay: trace of '%s' on %s: %llu events, %llu objects, %u caches, %u CPU(s); "
		"replayed on %u CPU(s) in Linux %s %s%s\n", rp.command, rp.kernel, h->n_events,
		h->n_objects, h->n_caches, h->cpus, rp.ncpus, utsname()->release,
		alloc_name(), pages ? ", with page events" : "");
	rp.cache = vzalloc((h->n_caches + 1) * sizeof(*rp.cache));
	rp.max_samples = samples + 3;
	rp.sample = vzalloc(rp.max_samples * sizeof(*rp.sample));
	if (!rp.cache || !rp.sample) {
		pr_err("replay: no memory for the replay's tables: boot with more memory (-m)\n");
		free_tables();
		return -ENOMEM;
	}
	/* the check's records become the object pointers: all NULL */
	memset(rp.slot, 0, max_t(u64, h->n_objects, 1) * sizeof(u64));
	warned0 = test_taint(TAINT_WARN);
	rp.step = h->n_events / samples ? h->n_events / samples : 1;
	rp.next_sample = 0;
	/*
	 * Every cache the trace allocates from, made before the start: making
	 * one sleeps (a mutex, GFP_KERNEL, SLUB's sysfs files), and the replay
	 * below runs with interrupts off from start to end.
	 */
	for (k = 0; k < h->n_events; k++)
		if (rp.ev[k].type == QTR_CACHE_ALLOC && !cache_for(rp.ev[k].cache)) {
			free_everything();
			free_tables();
			return -ENOMEM;
		}
	/* what RCU holds back from earlier frees is freed now, not in the replay */
	rcu_barrier();
	/*
	 * The start shrunk, as Quarry's replay starts after slab_drain_all:
	 * objects in per-CPU caching and empty slabs left from the boot would
	 * serve the trace's first allocations without a page, and so take
	 * them out of the figures beyond the start on this side only.
	 */
	shrink_all();
	/*
	 * One CPU, interrupts off from the start to the end: no tick, softirq,
	 * RCU callback or worker runs between two calls, so the figures do
	 * not depend on where the guest's timer ticks fall (the boot's length
	 * before the module, the initramfs's size). Quarry's replay pauses its
	 * periodic reap the same way.
	 */
	migrate_disable();
	if (rp.ncpus == 1) {
		local_irq_disable();
		rp.start_free = nr_free_exact();
		rp.start_slab = slab_pages();
		t0 = rp_cycles();
		replay_rank(0);
		t1 = rp_cycles();
	} else {
		if (!replay_threads(&t0, &t1))
			t0 = t1 = 0;
		local_irq_disable();
	}
	if (!rp.stop)
		sample(h->n_events);
	for (r = 0; r < rp.ncpus; r++) {
		for (t = 1; t < QTR_NR_TYPES; t++) {
			rp.cost[t] += rpc[r].cost[t];
			rp.done[t] += rpc[r].done[t];
			rp.want[t] += rpc[r].want[t];
			rp.skipped[t] += rpc[r].skipped[t];
		}
		rp.remote += rpc[r].remote;
		rp.waited += rpc[r].waited;
	}
	for (t = 1; t < QTR_NR_TYPES; t++)
		n_out += rp.skipped[t];
	for (k = 0; k < h->n_events && !rp.stop; k++) {
		const struct qtr_event *e = &rp.ev[k];

		if (is_alloc(e->type))
			expect_live += !left_out(e);
		else
			expect_live -= !left_out(&rp.ev[e->alloc_event]);
	}
	slab_end = (u64)slab_pages() * PAGE_SIZE;
	used_end = (s64)(rp.start_free - nr_free_exact()) * PAGE_SIZE;
	live_end = rp.live_objs;
	req_end = rp.live_req;
	linux_end = rp.live_linux;
	blocks_end = rp.block_bytes;
	local_irq_enable();
	shrink_all();
	slab_shrunk = slab_pages();
	left = free_everything();
	slab_after = slab_pages();
	migrate_enable();
	if (!rp.stop) {
		for (t = 1; t < QTR_NR_TYPES; t++)
			if (rp.done[t] != rp.want[t]) {
				pr_err("replay: accounting: %llu %s events ran, %llu expected\n",
				       rp.done[t], tname(t), rp.want[t]);
				ok = false;
			}
		if (live_end != expect_live) {
			pr_err("replay: accounting: %llu objects live at the end, the trace leaves %llu\n",
			       live_end, expect_live);
			ok = false;
		}
	}
	if (left != live_end) {
		pr_err("replay: accounting: %llu objects freed at the end, %llu were counted live\n",
		       left, live_end);
		ok = false;
	}
	if (!warned0 && test_taint(TAINT_WARN)) {
		pr_err("replay: accounting: the kernel warned during the replay or the caches' "
		       "destruction (a cache destroyed with objects left, a bad free): see above\n");
		ok = false;
	}
	if (rp.stop)
		ok = false;
	pr_info("REPLAY end_shrunk_slab=%llu\n", (u64)slab_shrunk * PAGE_SIZE);
	print_results(left, slab_after, ok, slab_end, used_end, req_end, linux_end, blocks_end,
		      live_end, t1 - t0, n_out);
	free_tables();
	pr_info("replay: done; the module unloads itself (init returns -EAGAIN)\n");
	return -EAGAIN;
}

static void __exit quarry_replay_exit(void)
{
}

module_init(quarry_replay_init);
module_exit(quarry_replay_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Quarry trace replay inside Linux: the same calls and figures as lab/replay.c");
