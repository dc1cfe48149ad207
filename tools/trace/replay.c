/*
 * replay.c - replay a Quarry trace (a Linux kernel's recorded allocations,
 * tools/trace/qtrace.h) through Quarry's mm/ built as a host program: one
 * binary per allocator and page size (tools/trace/trace.mk).
 *
 *   replay [options] TRACE
 *     --variant NAME     label for the figures ("slub 4K")
 *     --pages            replay page events too (alloc_pages/free_pages of the
 *                        blocks the traced kernel took outside its slab allocator)
 *     --no-user          with --pages, leave user-memory blocks out
 *     --internal         replay the traced slab allocator's own kmallocs too
 *     --merge            merge caches (slab_merge_set), as Linux does by default
 *     --as-cpus          act as the trace's CPUs (CPU c as c mod NR_CPUS) on this
 *                        one thread, so per-CPU caching is per traced CPU
 *     --on-fail stop|continue   what an allocation failure does (default stop)
 *     --arena-mb N       Quarry's "physical memory" (default: sized from the trace)
 *     --samples N        memory samples over the trace (default 200)
 *     --csv FILE         the samples: event,slab_bytes,used_bytes,object_bytes,
 *                        live_req,live_linux,page_block_bytes
 *     --summary FILE     key=value figures (tools/trace/report_replay.py reads them),
 *                        with slab memory by cause at the peak and the end (struct causes)
 *     --stats FILE       every cache's event counters over the first pass (kmem_cache_stats_line)
 *     --passes N         replay the whole trace N times (the memory figures come
 *                        from the first, the times from the fastest; default 1)
 *     --progress         a progress line on stderr
 *     --dump             print the checked trace as text (replay_dump) and stop
 *
 * Every event runs in the trace's order: kmalloc (kzalloc for __GFP_ZERO),
 * kmem_cache_alloc from a cache of the trace's name and object size, made
 * on its first use, kfree or kmem_cache_free of the object the trace pairs
 * with the free, alloc_pages of the order that holds as many bytes as the
 * traced block. Host time per operation is read with the TSC around each
 * call, less the mean cost of two back-to-back reads. Memory is sampled every K events: Slab: (slab_total_pages), pages
 * in use, and "object memory" (pages in use less the replayed page blocks
 * and the start), beside the live bytes requested and what Linux's own
 * allocator gave for them (bytes_alloc).
 *
 * At the end the accounting is checked exactly: every event ran (or was
 * left out as asked), every free freed its object (no bad free or
 * corruption reported), the objects left live are the trace's; then
 * everything left is freed, the caches destroyed and every page must be
 * back. Exit status 0, 1 for a refused trace or option, 2 if the
 * accounting failed, 3 if an allocation failed.
 */
#ifndef _GNU_SOURCE
#error "build with -D_GNU_SOURCE"
#endif
#include "host_shim.h"
#include "mm/slab.h"
#include "mm/page.h"
#include "mm/buddy.h"
#include "tests/common/test_alloc.h"
#include "replay.h"
#include "replay_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ARENA_MB_MAX	65536	/* 64 GiB of "physical memory" at most */

static const char *opt_variant = "quarry", *opt_csv, *opt_summary;
static bool opt_pages, opt_no_user, opt_internal, opt_as_cpus, opt_merge, opt_continue, opt_progress;
static unsigned long opt_arena_mb;
static unsigned long opt_samples = 200;

static struct replay_trace tr;
static void **objs;			/* object id -> pointer or struct page * */
static bool *failed;			/* object id -> its allocation failed */
static struct kmem_cache **qcache;	/* trace cache -> Quarry cache */
static unsigned long start_free, start_used, managed, start_slab;
static unsigned long start_bad_frees, start_corruptions;

/* Live figures during the replay. */
static unsigned long long live_objs, live_req, live_linux, live_blocks, block_bytes_live;
static unsigned long long done[QTR_NR_TYPES], skipped[QTR_NR_TYPES], cycles[QTR_NR_TYPES];
static unsigned long long n_failed, frees_of_failed;

struct peak {
	unsigned long long slab, used, object, req, linux_bytes;
};
static struct peak peak;

/*
 * Slab memory by what holds it, beyond the start of the pass (bytes; a
 * figure may be negative where the start's free room was used):
 *   req       live requests that slab caches serve (kmalloc up to
 *             kmalloc_slab_max, every cache allocation), as the trace asked;
 *   rounding  their objects' size (ksize) above that;
 *   cached    objects the slabs count as handed out that the trace does not
 *             hold: per-CPU caching (SLAB's arrays, SLUB's sheaves), and
 *             the allocator's own objects (a new cache's structures);
 *   partial   free object slots in slabs with an object in use;
 *   empty     the object slots of empty slabs kept;
 *   other     the rest of Slab: (slab space outside object slots: leftover,
 *             headers; SLOB: its heap's free blocks).
 * At the peak of Slab: and at the end of the trace (summary keys
 * cause_peak_* and cause_end_*).
 */
struct causes {
	long long slab, req, rounding, cached, partial, empty, other;
};
static struct causes cause_peak, cause_end;
static struct slab_totals totals0;		/* at the start of the pass */
static unsigned long long live_slab_req, live_slab_size;
static const char *opt_stats;
static size_t slab_max;

static struct causes causes_now(void)
{
	struct slab_totals t;
	struct causes c;
	long long active, objects, empty;

	slab_totals(&t);
	active = (long long)(t.active - totals0.active);
	objects = (long long)(t.objects - totals0.objects);
	empty = (long long)(t.empty - totals0.empty);
	c.slab = (long long)(slab_total_pages() - start_slab) * (long long)PAGE_SIZE;
	c.req = (long long)live_slab_req;
	c.rounding = (long long)(live_slab_size - live_slab_req);
	c.cached = active - (long long)live_slab_size;
	c.partial = objects - active - empty;
	c.empty = empty;
	c.other = c.slab - objects;
	return c;
}

/* Does an allocation event take its object from a slab cache? */
static bool from_slab(const struct qtr_event *e)
{
	return e->type == QTR_CACHE_ALLOC || (e->type == QTR_KMALLOC && e->size_req <= slab_max);
}

static inline uint64_t tsc(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
#endif
}

/* The TSC's own cost in a timed call: the mean of empty back-to-back reads. */
static double tsc_overhead(void)
{
	uint64_t sum = 0;

	for (int i = 0; i < 10000; i++) {
		uint64_t t0 = tsc();

		__asm__ __volatile__("" ::: "memory");
		sum += tsc() - t0;
	}
	return (double)sum / 10000;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The Quarry order of a traced block of 2^order trace pages. */
static unsigned int q_order(uint32_t order)
{
	return qtr_quarry_order(tr.hdr->page_size, order);
}

/* Does this run leave the event out (as the options ask)? */
static bool left_out(const struct qtr_event *e)
{
	return qtr_left_out(e, opt_pages, opt_no_user, opt_internal);
}

static void state_line(FILE *f)
{
	unsigned long used = qtr_pages_used();

	fprintf(f, "  allocator state: Slab: %lu kB, pages in use %lu of %lu (%lu free), live: %llu "
		   "objects (%llu bytes requested), %llu page blocks (%llu bytes)\n",
		slab_total_pages() * (PAGE_SIZE / 1024), used, managed, managed - used, live_objs,
		live_req, live_blocks, block_bytes_live);
}

static FILE *csv;

static void sample(unsigned long long i)
{
	unsigned long long slab = (unsigned long long)slab_total_pages() * PAGE_SIZE;
	unsigned long long used = (unsigned long long)(qtr_pages_used() - start_used) * PAGE_SIZE;
	unsigned long long object = used - block_bytes_live;

	if (slab > peak.slab || !i) {
		peak.slab = slab;
		cause_peak = causes_now();
	}
	if (used > peak.used)
		peak.used = used;
	if (object > peak.object)
		peak.object = object;
	if (live_req > peak.req)
		peak.req = live_req;
	if (live_linux > peak.linux_bytes)
		peak.linux_bytes = live_linux;
	if (csv)
		fprintf(csv, "%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", i, slab, used, object, live_req,
			live_linux, block_bytes_live);
}

static struct kmem_cache *cache_for(uint32_t c)
{
	if (!qcache[c]) {
		qcache[c] = kmem_cache_create(tr.caches[c].name, tr.caches[c].object_size, 0, 0, NULL);
		if (!qcache[c]) {
			fprintf(stderr, "replay: %s: kmem_cache_create(\"%s\", %u) failed\n", opt_variant,
				tr.caches[c].name, tr.caches[c].object_size);
			state_line(stderr);
		}
	}
	return qcache[c];
}

/* An allocation returned NULL: say so; returns true to go on. */
static bool alloc_failed(unsigned long long i, const struct qtr_event *e)
{
	n_failed++;
	failed[e->object] = true;
	fprintf(stderr, "replay: %s: event %llu (%s of %u bytes%s%s, CPU %u) failed: out of memory\n",
		opt_variant, i, replay_type_name(e->type),
		e->type == QTR_PAGE_ALLOC ? (unsigned int)PAGE_SIZE << q_order(e->cache) : e->size_req,
		e->type == QTR_CACHE_ALLOC ? " from " : "",
		e->type == QTR_CACHE_ALLOC ? tr.caches[e->cache].name : "", e->cpu);
	state_line(stderr);
	if (opt_continue) {
		fprintf(stderr, "replay: %s: going on (--on-fail continue): the object's free will be "
				"left out\n", opt_variant);
		return true;
	}
	fprintf(stderr, "replay: %s: stopping at event %llu (--on-fail stop); freeing what the replay "
			"holds\n", opt_variant, i);
	return false;
}

/* Run event i; false if it failed and the replay is to stop. */
static bool run_event(unsigned long long i, const struct qtr_event *e)
{
	const struct qtr_event *a = e->alloc_event != QTR_NONE ? &tr.ev[e->alloc_event] : e;
	struct kmem_cache *c = NULL;
	uint64_t t0;
	void *p;

	if (e->type == QTR_CACHE_ALLOC || (e->type == QTR_CACHE_FREE && e->cache != QTR_NONE)) {
		c = cache_for(e->cache);
		if (!c)
			return alloc_failed(i, e);
	}
	if (opt_as_cpus)
		host_set_cpu(e->cpu % NR_CPUS);
	if (!qtr_is_alloc(e->type) && e->type != QTR_PAGE_FREE && from_slab(a)) {
		live_slab_req -= a->size_req;
		live_slab_size -= ksize(objs[e->object]);
	}
	t0 = tsc();
	switch (e->type) {
	case QTR_KMALLOC:
		p = (e->flags & QTR_F_ZERO) ? kzalloc(e->size_req) : kmalloc(e->size_req);
		break;
	case QTR_CACHE_ALLOC:
		p = kmem_cache_alloc(c);
		if (p && (e->flags & QTR_F_ZERO))
			memset(p, 0, e->size_req);
		break;
	case QTR_PAGE_ALLOC:
		p = alloc_pages(q_order(e->cache));
		break;
	case QTR_KFREE:
		kfree(objs[e->object]);
		p = NULL;
		break;
	case QTR_CACHE_FREE:
		if (c)
			kmem_cache_free(c, objs[e->object]);
		else
			kfree(objs[e->object]);
		p = NULL;
		break;
	default: /* QTR_PAGE_FREE: replay_load allows no other type */
		free_pages(objs[e->object], q_order(e->cache));
		p = NULL;
		break;
	}
	cycles[e->type] += tsc() - t0;
	done[e->type]++;
	if (e->type == QTR_KMALLOC || e->type == QTR_CACHE_ALLOC || e->type == QTR_PAGE_ALLOC) {
		if (!p)
			return alloc_failed(i, e);
		objs[e->object] = p;
		live_objs++;
		if (e->type == QTR_PAGE_ALLOC) {
			live_blocks++;
			block_bytes_live += (unsigned long long)PAGE_SIZE << q_order(e->cache);
		} else {
			live_req += e->size_req;
			live_linux += e->size_alloc;
			if (from_slab(e)) {
				live_slab_req += e->size_req;
				live_slab_size += ksize(p);
			}
		}
		return true;
	}
	objs[e->object] = NULL;
	live_objs--;
	if (e->type == QTR_PAGE_FREE) {
		live_blocks--;
		block_bytes_live -= (unsigned long long)PAGE_SIZE << q_order(e->cache);
	} else {
		live_req -= a->size_req;
		live_linux -= a->size_alloc;
	}
	return true;
}

/* Free what is still live, destroy the caches made, drain every CPU; returns the free pages. */
static unsigned long free_everything(unsigned long long *left)
{
	*left = 0;
	for (uint64_t i = 0; i < tr.hdr->n_events; i++) {
		const struct qtr_event *e = &tr.ev[i];

		if (e->type != QTR_KMALLOC && e->type != QTR_CACHE_ALLOC && e->type != QTR_PAGE_ALLOC)
			continue;
		if (!objs[e->object])
			continue;
		if (opt_as_cpus)
			host_set_cpu(e->cpu % NR_CPUS);
		if (e->type == QTR_PAGE_ALLOC)
			free_pages(objs[e->object], q_order(e->cache));
		else if (e->type == QTR_CACHE_ALLOC)
			kmem_cache_free(qcache[e->cache], objs[e->object]);
		else
			kfree(objs[e->object]);
		objs[e->object] = NULL;
		(*left)++;
	}
	host_set_cpu(0);
	for (uint32_t c = 0; c < tr.hdr->n_caches; c++)
		if (qcache[c] && kmem_cache_destroy(qcache[c]))
			fprintf(stderr, "replay: %s: kmem_cache_destroy(\"%s\") refused: objects left\n",
				opt_variant, tr.caches[c].name);
	slab_drain_all();
	return nr_free_pages();
}

static void usage(void)
{
	fprintf(stderr, "usage: replay [--variant NAME] [--pages] [--no-user] [--internal] [--merge] [--as-cpus] "
			"[--on-fail stop|continue] [--arena-mb N] [--samples N] [--csv FILE] "
			"[--summary FILE] [--stats FILE] [--passes N] [--progress] [--dump] TRACE\n");
	exit(1);
}

static unsigned long parse_num(const char *opt, const char *v, unsigned long lo, unsigned long hi)
{
	char *end;
	unsigned long x = v ? strtoul(v, &end, 10) : 0;

	if (!v || end == v || *end || x < lo || x > hi) {
		fprintf(stderr, "replay: %s wants a number from %lu to %lu, not '%s'\n", opt, lo, hi,
			v ? v : "");
		exit(1);
	}
	return x;
}

/*
 * Memory for the arena: what the trace needs at this page size (its peaks,
 * counted from the events), with room to spare; 0 if over the most the
 * option takes.
 */
static unsigned long arena_mb(void)
{
	unsigned long long need = tr.peak_req * 4 + tr.peak_objects * 64;
	unsigned long long blocks = opt_no_user ? tr.peak_pages - tr.peak_user_pages : tr.peak_pages;

	if (opt_pages)	/* every traced page may become a whole Quarry page */
		need += blocks * (PAGE_SIZE > tr.hdr->page_size ? PAGE_SIZE / tr.hdr->page_size : 1) * 2;
	need = need / (1 << 20) + 128 + (PAGE_SIZE >> 10);	/* and the caches' slabs */
	if (need > ARENA_MB_MAX)
		return 0;
	return need < 256 ? 256 : (unsigned long)need;
}

static void setup(void)
{
	host_set_cpu(0);
	host_mm_setup_bench((size_t)opt_arena_mb << 20, false);
	kmem_cache_init();
	slab_merge_set(opt_merge);
}

static void stats_line(const char *line, void *arg)
{
	fprintf(arg, "%s\n", line);
}

/* --stats FILE: every cache's event counters over the first pass, a line each. */
static void write_stats(void)
{
	FILE *f;

	if (!opt_stats)
		return;
	f = fopen(opt_stats, "w");
	if (!f) {
		perror(opt_stats);
		return;
	}
	slab_stats_each(stats_line, f, false);
	fclose(f);
}

static void causes_print(FILE *s, const char *at, const struct causes *c)
{
	fprintf(s, "cause_%s_slab=%lld\ncause_%s_req=%lld\ncause_%s_rounding=%lld\n"
		   "cause_%s_cached=%lld\ncause_%s_partial=%lld\ncause_%s_empty=%lld\n"
		   "cause_%s_other=%lld\n", at, c->slab, at, c->req, at, c->rounding, at, c->cached,
		at, c->partial, at, c->empty, at, c->other);
}

/* The per-operation time of a pass, ns, by type (the TSC's cost taken out). */
static double pass_ns[QTR_NR_TYPES], best_ns[QTR_NR_TYPES];
static unsigned long long best_total_ns;

/*
 * One pass over the trace; the first (sampling) one records the memory
 * figures. Returns false if the replay stopped or the accounting failed
 * (said on stderr); *stopped says which.
 */
static bool run_pass(unsigned int pass, bool *stopped)
{
	const struct qtr_header *h = tr.hdr;
	unsigned long long step = h->n_events / opt_samples ? h->n_events / opt_samples : 1;
	unsigned long long next = pass ? h->n_events + 1 : 0, expect_live = 0, left, n_out = 0;
	unsigned long long want[QTR_NR_TYPES] = {0};
	unsigned long long live_end, slab_end, shrunk_end, used_end, req_end, linux_end, blocks_end;
	unsigned long bad, corrupt, end_free;
	double overhead = tsc_overhead(), ns_per_tick;
	uint64_t ns0, ns, tsc0, tsc_all;
	bool ok = true;

	memset(done, 0, sizeof(done));
	memset(cycles, 0, sizeof(cycles));
	memset(skipped, 0, sizeof(skipped));
	memset(failed, 0, (h->n_objects + 1) * sizeof(*failed));
	memset(qcache, 0, (h->n_caches + 1) * sizeof(*qcache));
	n_failed = frees_of_failed = 0;
	*stopped = false;
	start_bad_frees = slab_bad_frees;
	start_corruptions = slab_corruptions;
	live_slab_req = live_slab_size = 0;
	if (!pass) {
		slab_totals(&totals0);
		if (opt_stats)
			slab_stats_each(NULL, NULL, true);
	}
	ns0 = now_ns();
	tsc0 = tsc();
	for (uint64_t k = 0; k < h->n_events; k++) {
		const struct qtr_event *e = &tr.ev[k];
		const struct qtr_event *a = e->alloc_event != QTR_NONE ? &tr.ev[e->alloc_event] : e;

		if (k == next) {
			sample(k);
			next += step;
			if (opt_progress && isatty(2))
				fprintf(stderr, "\rreplay %s: %3llu%% (%llu of %llu events)", opt_variant,
					(unsigned long long)(k * 100 / h->n_events), (unsigned long long)k,
					(unsigned long long)h->n_events);
		}
		if (left_out(a)) {
			skipped[e->type]++;
			n_out++;
			continue;
		}
		if (!qtr_is_alloc(e->type) && failed[e->object]) {
			frees_of_failed++;	/* left out: its allocation failed */
			continue;
		}
		want[e->type]++;
		if (!run_event(k, e)) {
			*stopped = true;
			break;
		}
	}
	tsc_all = tsc() - tsc0;
	ns = now_ns() - ns0;
	if (opt_progress && isatty(2))
		fprintf(stderr, "\r%60s\r", "");
	ns_per_tick = tsc_all ? (double)ns / (double)tsc_all : 1.0;
	for (unsigned int t = 1; t < QTR_NR_TYPES; t++)
		pass_ns[t] = done[t] ? (cycles[t] / (double)done[t] - overhead) * ns_per_tick : 0.0;
	if (!pass && !*stopped) {
		sample(h->n_events);
		cause_end = causes_now();
		write_stats();
	}
	/* What the trace leaves live, of what this run replays. */
	for (uint64_t k = 0; k < h->n_events && !*stopped; k++) {
		const struct qtr_event *e = &tr.ev[k];

		if (e->type == QTR_KMALLOC || e->type == QTR_CACHE_ALLOC || e->type == QTR_PAGE_ALLOC)
			expect_live += !left_out(e) && !failed[e->object];
		else
			expect_live -= !left_out(&tr.ev[e->alloc_event]) && !failed[e->object];
	}
	slab_end = (unsigned long long)slab_total_pages() * PAGE_SIZE;
	used_end = (unsigned long long)(qtr_pages_used() - start_used) * PAGE_SIZE;
	live_end = live_objs;
	req_end = live_req;
	linux_end = live_linux;
	blocks_end = block_bytes_live;
	/* Slab: once every CPU's caching and every empty slab went back (the end, shrunk). */
	slab_drain_all();
	shrunk_end = (unsigned long long)slab_total_pages() * PAGE_SIZE;
	bad = slab_bad_frees - start_bad_frees;
	corrupt = slab_corruptions - start_corruptions;
	end_free = free_everything(&left);
	live_objs = live_req = live_linux = live_blocks = block_bytes_live = 0;
	live_slab_req = live_slab_size = 0;
	if (!*stopped) {
		for (unsigned int t = 1; t < QTR_NR_TYPES; t++)
			if (done[t] != want[t]) {
				fprintf(stderr, "replay: %s: accounting: %llu %s events ran, %llu expected\n",
					opt_variant, done[t], replay_type_name(t), want[t]);
				ok = false;
			}
		if (live_end != expect_live) {
			fprintf(stderr, "replay: %s: accounting: %llu objects live at the end, the trace "
					"leaves %llu\n", opt_variant, live_end, expect_live);
			ok = false;
		}
	}
	if (bad || corrupt) {
		fprintf(stderr, "replay: %s: accounting: %lu bad frees and %lu corruptions reported during "
				"the replay\n", opt_variant, bad, corrupt);
		ok = false;
	}
	if (left != live_end) {
		fprintf(stderr, "replay: %s: accounting: %llu objects freed at the end, %llu were counted "
				"live\n", opt_variant, left, live_end);
		ok = false;
	}
	if (end_free != start_free) {
		fprintf(stderr, "replay: %s: accounting: pages not back: %lu free after, %lu before\n",
			opt_variant, end_free, start_free);
		ok = false;
	}
	if (!pass) {
		FILE *s = opt_summary ? fopen(opt_summary, "w") : NULL;

		if (opt_summary && !s)
			perror(opt_summary);
		if (s) {
			fprintf(s, "variant=%s\npage_size=%lu\nevents=%llu\narena_mb=%lu\nslab_start=%llu\n"
				   "merge=%d\n",
				opt_variant, (unsigned long)PAGE_SIZE, (unsigned long long)h->n_events,
				opt_arena_mb, (unsigned long long)start_slab * PAGE_SIZE, opt_merge);
			for (unsigned int t = 1; t < QTR_NR_TYPES; t++)
				fprintf(s, "ops_%u=%llu\nskipped_%u=%llu\n", t, done[t], t, skipped[t]);
			if (!*stopped) {
				causes_print(s, "peak", &cause_peak);
				causes_print(s, "end", &cause_end);
			}
			fprintf(s, "peak_slab=%llu\npeak_used=%llu\npeak_object=%llu\npeak_req=%llu\n"
				   "peak_linux=%llu\nend_slab=%llu\nend_used=%llu\nend_object=%llu\n"
				   "end_req=%llu\nend_linux=%llu\nend_live=%llu\nfailed=%llu\nstopped=%d\n"
				   "accounting_ok=%d\nend_shrunk_slab=%llu\n",
				peak.slab, peak.used, peak.object, peak.req, peak.linux_bytes, slab_end,
				used_end, used_end - blocks_end, req_end, linux_end, live_end, n_failed,
				*stopped, ok, shrunk_end);
			fclose(s);
		}
		fprintf(stderr, "replay %s: %llu events; peak Slab: %llu kB, object memory %llu kB for %llu "
				"kB requested (Linux gave %llu kB)\n", opt_variant,
			(unsigned long long)h->n_events, peak.slab >> 10, peak.object >> 10, peak.req >> 10,
			peak.linux_bytes >> 10);
	}
	if (ok && !*stopped)
		fprintf(stderr, "replay %s: pass %u: %.3f s; accounting exact: every event ran (%llu left "
				"out as asked), every free freed its object, %llu left live by the trace "
				"freed at the end, all %lu pages back\n",
			opt_variant, pass + 1, ns / 1e9, n_out, left, start_free);
	if (!pass || ns < best_total_ns) {
		best_total_ns = ns;
		memcpy(best_ns, pass_ns, sizeof(best_ns));
	}
	return ok && !*stopped;
}

int main(int argc, char **argv)
{
	const struct qtr_header *h;
	unsigned long passes = 1;
	bool stopped = false, ok = true, dump = false;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--pages"))
			opt_pages = true;
		else if (!strcmp(a, "--no-user"))
			opt_no_user = true;
		else if (!strcmp(a, "--internal"))
			opt_internal = true;
		else if (!strcmp(a, "--as-cpus"))
			opt_as_cpus = true;
		else if (!strcmp(a, "--merge"))
			opt_merge = true;
		else if (!strcmp(a, "--progress"))
			opt_progress = true;
		else if (!strcmp(a, "--dump"))
			dump = true;
		else if (!v)
			usage();
		else if (i++, !strcmp(a, "--variant"))
			opt_variant = v;
		else if (!strcmp(a, "--csv"))
			opt_csv = v;
		else if (!strcmp(a, "--summary"))
			opt_summary = v;
		else if (!strcmp(a, "--stats"))
			opt_stats = v;
		else if (!strcmp(a, "--arena-mb"))
			opt_arena_mb = parse_num(a, v, 4, ARENA_MB_MAX);
		else if (!strcmp(a, "--samples"))
			opt_samples = parse_num(a, v, 1, 1UL << 24);
		else if (!strcmp(a, "--passes"))
			passes = parse_num(a, v, 1, 100);
		else if (!strcmp(a, "--on-fail") && (!strcmp(v, "stop") || !strcmp(v, "continue")))
			opt_continue = v[0] == 'c';
		else
			usage();
	}
	if (argc - i != 1)
		usage();
	replay_load(argv[i], &tr);
	if (dump) {
		replay_dump(&tr, stdout);
		return 0;
	}
	h = tr.hdr;
	objs = calloc(h->n_objects + 1, sizeof(*objs));
	failed = calloc(h->n_objects + 1, sizeof(*failed));
	qcache = calloc(h->n_caches + 1, sizeof(*qcache));
	if (!objs || !failed || !qcache) {
		fprintf(stderr, "replay: out of memory for %llu objects\n", (unsigned long long)h->n_objects);
		return 1;
	}
	if (!opt_arena_mb && !(opt_arena_mb = arena_mb())) {
		fprintf(stderr, "replay: %s: the trace's peaks (%llu bytes requested, %llu bytes of page "
				"blocks) need more than %u MiB of memory here\n", argv[i], tr.peak_req,
			tr.peak_pages, ARENA_MB_MAX);
		return 1;
	}
	if (opt_csv && !(csv = fopen(opt_csv, "w"))) {
		perror(opt_csv);
		return 1;
	}
	if (csv)
		fprintf(csv, "event,slab_bytes,used_bytes,object_bytes,live_req,live_linux,page_block_bytes\n");
	setup();
	slab_max = kmalloc_slab_max();
	/*
	 * Each CPU the replay will act as makes its own per-CPU state on first
	 * use (SLAB's nodes and arrays of the kmalloc caches): make it now, then
	 * drain every CPU, so that the free pages counted at the start and at
	 * the end (after the same drain) differ only by what the trace holds.
	 */
	for (unsigned int cpu = 0; cpu < (opt_as_cpus ? h->cpus : 1) && cpu < NR_CPUS; cpu++) {
		host_set_cpu(cpu);
		slab_test_settle();
	}
	host_set_cpu(0);
	slab_drain_all();
	start_free = nr_free_pages();
	start_used = qtr_pages_used();
	start_slab = slab_total_pages();
	managed = start_free + start_used;
	for (unsigned int p = 0; p < passes && ok; p++)
		ok = run_pass(p, &stopped);
	if (csv)
		fclose(csv);
	if (opt_summary) {
		FILE *s = fopen(opt_summary, "a");

		if (s) {
			fprintf(s, "passes=%lu\nall_passes_ok=%d\nns_total=%llu\n", passes, ok && !stopped,
				best_total_ns);
			for (unsigned int t = 1; t < QTR_NR_TYPES; t++)
				fprintf(s, "ns_per_op_%u=%.1f\n", t, best_ns[t]);
			fclose(s);
		}
	}
	return stopped || n_failed ? 3 : !ok ? 2 : 0;
}
