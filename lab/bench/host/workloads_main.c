/*
 * workloads_main.c - the host workloads program (lab/bench/host/workloads.c):
 * its options, Quarry's arena and the peers' libraries, and the runs.
 *
 *   workloads [options]
 *     --csv FILE          append one row per timed run: allocator,threads,workload,run,
 *                         wall_ns,cpu_ns,ops (ops: allocations, each freed once)
 *     --meta FILE         write key=value facts (how each allocator was reached, load)
 *     --diag FILE         append one row per timed run: allocator,threads,workload,run,ops,
 *                         spins,minflt,nvcsw,nivcsw: all threads' turns of a spin-wait in
 *                         Quarry's spinlocks (cpu_relax; Quarry and "locked" only, a peer's
 *                         own spinning is not seen), minor page faults, voluntary and
 *                         involuntary context switches in the measured part
 *     --variant NAME      Quarry's allocator name in the rows ("slab" or "slub")
 *     --allocators LIST   subset of quarry,glibc,jemalloc,tcmalloc,mimalloc,locked
 *                         (locked: glibc's malloc behind one kernel/spinlock.h
 *                         lock, the plain spinlock-protected heap that SLOB and
 *                         SLOB-seg, one heap lock by design, are measured against;
 *                         not in the default list)
 *     --workloads LIST    subset of larson,mixed,prodcons
 *     --threads LIST      thread counts (default 1,2; prodcons needs 1 or an even count)
 *     --runs N            timed runs per (workload, threads, allocator), after one
 *                         untimed warm-up run (5); the allocators take turns in each run,
 *                         and each timed run follows an untimed one of the same allocator,
 *                         workload and threads, so that it starts with its own objects and
 *                         memory in the caches, not the previous allocator's (without it,
 *                         runs this short moved by up to a tenth with the order of turns)
 *     --no-warm-each      no untimed run before each timed one (half the time)
 *     --scale PCT         operations per thread in percent of the defaults (100)
 *     --arena-mb N        Quarry's "physical memory" (512)
 *     --plant N           test the checks: in each timed run, thread 0 spoils the tag of
 *                         its N-th object; the run must then fail (lab/bench/host/smoke.sh)
 *     --stats             at the end, print Quarry's slab event counters (slab_stats_show;
 *                         counts only in a SLAB_STATS=1 build) and slabinfo
 *     (environment) WL_SPINS_PER_YIELD=N   Quarry's spinlocks yield every N turns of a
 *                         wait (the host shim's cpu_relax; default 64; 1: on every turn)
 *     --callgrind         under valgrind's callgrind: one thread, one warm-up and one
 *                         measured run; the measured part of each (workload, allocator)
 *                         is collected and dumped as "workload|allocator|1|ops"
 *     --sample FILE       profile the timed runs without perf: each thread is sampled
 *                         (SIGPROF every 50 us) and FILE gets the share of the samples by
 *                         function (workloads_sample.h)
 *     --lockstep          in the measured part the threads take turns, one allocation
 *                         (and the free before the next) each, passing a token round:
 *                         the interleaving of many cores at its finest, the same on every
 *                         machine, for tools/coherence (times are then meaningless;
 *                         larson and mixed only)
 *
 * Run 0 is an untimed warm-up; in each run the allocators take turns, in an
 * order that rotates with the run. Exit status 0, 1 when an object came back
 * overwritten (its tag did not check), 2 for bad options or no memory.
 */
#ifndef _GNU_SOURCE
#error "build with -D_GNU_SOURCE (the prelude header pulls in <features.h> first)"
#endif
#include "host_shim.h"
#include "mm/slab.h"
#include "mm/page.h"
#include <asm/processor.h>
#include "peers.h"
#include "workloads_sync.h"
#include "workloads.h"
#include "workloads_sample.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Which allocators --allocators names, and how each is reached (the peers' libraries opened). */
static void setup_allocators(void)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(wl_allocs); i++)
		wl_allocs[i].on = wl_listed(wl_opt.allocators, wl_allocs[i].key);
	snprintf(wl_allocs[0].how, sizeof(wl_allocs[0].how),
		 "Quarry mm/ (buddy + %s) compiled into this program: kmalloc()/kfree(), "
		 "threads as CPUs (host_cpu_id), arena pre-faulted",
		 wl_opt.variant);
	snprintf(wl_allocs[1].how, sizeof(wl_allocs[1].how),
		 "glibc %s malloc()/free(), the process's own allocator", gnu_get_libc_version());
	snprintf(wl_allocs[5].how, sizeof(wl_allocs[5].how),
		 "glibc %s malloc()/free() behind one spinlock (kernel/spinlock.h, the "
		 "host's cpu_relax): a plain spinlock-protected heap", gnu_get_libc_version());
	for (unsigned int i = 2; i < 5; i++)
		if (wl_allocs[i].on && !peer_open(wl_allocs[i].key, wl_allocs[i].how, sizeof(wl_allocs[i].how)))
			wl_allocs[i].on = false;
}

/* Quarry's memory (a pre-faulted arena of --arena-mb) and its caches, set up as CPU 0. */
static void quarry_setup(void)
{
	host_set_cpu(0);
	host_mm_setup_bench((size_t)wl_opt.arena_mb << 20, true);
	kmem_cache_init();
}

static void meta_loadavg(FILE *meta, const char *key)
{
	FILE *f = fopen("/proc/loadavg", "r");
	char a[16], b[16], c[16];

	if (f && fscanf(f, "%15s %15s %15s", a, b, c) == 3)
		fprintf(meta, "%s=%s %s %s\n", key, a, b, c);
	else
		fprintf(meta, "%s=unknown\n", key);
	if (f)
		fclose(f);
}

static void usage(void)
{
	fprintf(stderr, "usage: workloads [--csv F] [--meta F] [--diag F] [--variant NAME] "
			"[--allocators L] [--workloads L] [--threads L] [--runs N] [--no-warm-each] "
			"[--scale PCT] [--arena-mb N] [--plant N] [--stats] [--callgrind] "
			"[--lockstep] [--sample F]\n");
	exit(2);
}

static unsigned int parse_uint(const char *opt, const char *v, unsigned int lo, unsigned int hi)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 10);
	if (errno || end == v || *end || x < lo || x > hi) {
		fprintf(stderr, "workloads: %s wants a number from %u to %u, not '%s'\n", opt, lo,
			hi, v);
		exit(2);
	}
	return (unsigned int)x;
}

/* The options (see the header) and where each goes. */
static const struct option_def {
	const char *name;
	bool *flag;	/* an option without a value: sets *flag to its value */
	bool value;
	const char **text; /* else one with a word: *text */
	unsigned int *num, lo, hi; /* or a number from lo to hi: *num */
} options[] = {
	{"--callgrind", .flag = &wl_opt.callgrind, .value = true},
	{"--no-warm-each", .flag = &wl_opt.warm_each, .value = false},
	{"--stats", .flag = &wl_opt.stats, .value = true},
	{"--lockstep", .flag = &wl_opt.lockstep, .value = true},
	{"--csv", .text = &wl_opt.csv},
	{"--meta", .text = &wl_opt.meta},
	{"--diag", .text = &wl_opt.diag},
	{"--variant", .text = &wl_opt.variant},
	{"--allocators", .text = &wl_opt.allocators},
	{"--workloads", .text = &wl_opt.workloads},
	{"--threads", .text = &wl_opt.threads},
	{"--sample", .text = &wl_opt.sample},
	{"--runs", .num = &wl_opt.runs, .lo = 1, .hi = 1000},
	{"--scale", .num = &wl_opt.scale, .lo = 1, .hi = 100000},
	{"--plant", .num = &wl_opt.plant, .lo = 1, .hi = 1000000},
	{"--arena-mb", .num = &wl_opt.arena_mb, .lo = 64, .hi = 1 << 20},
};

int main(int argc, char **argv)
{
	unsigned int nthr[MAX_THREADS], nn = 0, maxn = 1;
	cpu_set_t set;
	FILE *csv = NULL, *meta = NULL;
	bool ok = true;

	peer_static_tls(argv);
	perf_ctl_init();
	if (getenv("WL_SPINS_PER_YIELD"))
		host_spins_per_yield = parse_uint("WL_SPINS_PER_YIELD", getenv("WL_SPINS_PER_YIELD"), 1,
						  1000000);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		unsigned int k = 0;

		while (k < ARRAY_SIZE(options) && strcmp(a, options[k].name))
			k++;
		if (k == ARRAY_SIZE(options))
			usage();
		if (options[k].flag) {
			*options[k].flag = options[k].value;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (options[k].text)
			*options[k].text = v;
		else
			*options[k].num = parse_uint(a, v, options[k].lo, options[k].hi);
	}
	for (unsigned int n = 1; n <= MAX_THREADS; n++) {
		char buf[8];

		snprintf(buf, sizeof(buf), "%u", n);
		if (wl_listed(wl_opt.threads, buf)) {
			nthr[nn++] = n;
			maxn = n;
		}
	}
	if (!nn) {
		fprintf(stderr, "workloads: --threads '%s': no count from 1 to %u\n", wl_opt.threads,
			MAX_THREADS);
		return 2;
	}
	if (wl_opt.callgrind && (!wl_have_callgrind || nn != 1 || nthr[0] != 1)) {
		fprintf(stderr, "workloads: --callgrind needs <valgrind/callgrind.h> at build time "
				"and --threads 1\n");
		return 2;
	}
	if (wl_opt.callgrind)
		wl_opt.runs = 1;
	if (wl_opt.lockstep && (wl_listed(wl_opt.workloads, "prodcons") || wl_opt.callgrind)) {
		fprintf(stderr, "workloads: --lockstep runs larson and mixed only, without "
				"--callgrind (prodcons's consumer waits for its producer, which "
				"would wait for the token), not '--workloads %s'\n",
			wl_opt.workloads);
		return 2;
	}
	sched_getaffinity(0, sizeof(set), &set);
	wl_ncores = (unsigned int)CPU_COUNT(&set);
	if (wl_ncores < 1)
		wl_ncores = 1;

	if (wl_opt.sample && !wl_sample_init(wl_opt.sample, maxn))
		return 2;
	setup_allocators();
	quarry_setup();
	if (!wl_prepare(maxn)) {
		fprintf(stderr, "workloads: out of memory for the larson sets and slots\n");
		return 2;
	}
	if (wl_opt.csv && !(csv = fopen(wl_opt.csv, "a"))) {
		perror(wl_opt.csv);
		return 2;
	}
	if (wl_opt.diag && !(wl_diag_file = fopen(wl_opt.diag, "a"))) {
		perror(wl_opt.diag);
		return 2;
	}
	if (wl_opt.meta) {
		meta = fopen(wl_opt.meta, "w");
		if (!meta) {
			perror(wl_opt.meta);
			return 2;
		}
		fprintf(meta, "page_size=%s\nvariant=%s\ncores=%u\nruns=%u\nscale=%u\n"
			"spins_per_yield=%u\n", PAGE_SIZE_NAME, wl_opt.variant, wl_ncores, wl_opt.runs,
			wl_opt.scale, host_spins_per_yield);
		meta_loadavg(meta, "loadavg_start");
		for (unsigned int i = 0; i < ARRAY_SIZE(wl_allocs); i++)
			if (wl_listed(wl_opt.allocators, wl_allocs[i].key))
				fprintf(meta, "how_%s=%s\n", wl_alloc_name(&wl_allocs[i]), wl_allocs[i].how);
		fflush(meta);
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(wl_allocs); i++)
		if (wl_listed(wl_opt.allocators, wl_allocs[i].key))
			fprintf(stderr, "  %-9s %s\n", wl_alloc_name(&wl_allocs[i]), wl_allocs[i].how);

	/* Run 0 is the untimed warm-up; the allocators take turns within each run. */
	for (unsigned int run = 0; run <= wl_opt.runs; run++) {
		uint64_t r0 = wl_clock_ns(CLOCK_MONOTONIC);

		fprintf(stderr, "  run %u/%u%s ...", run, wl_opt.runs, run ? "" : " (warm-up)");
		for (unsigned int w = 0; w < 3; w++) {
			if (!wl_listed(wl_opt.workloads, wl_workload_names[w]))
				continue;
			for (unsigned int k = 0; k < nn; k++) {
				unsigned int n = nthr[k];

				if (w == 2 && n > 1 && n % 2) {
					if (run == 0)
						fprintf(stderr,
							" (prodcons: %u threads is no "
							"whole number of pairs: skipped)",
							n);
					continue;
				}
				for (unsigned int j = 0; j < ARRAY_SIZE(wl_allocs); j++) {
					struct allocator *a =
					    &wl_allocs[(j + run) % ARRAY_SIZE(wl_allocs)];

					if (!a->on)
						continue;
					/* Warm this allocator's caches and memory first (see --runs). */
					if (run > 0 && wl_opt.warm_each)
						ok &= wl_run_once(a, w, n, 0, NULL);
					ok &= wl_run_once(a, w, n, run, csv);
				}
			}
		}
		fprintf(stderr, " %.1f s\n", (double)(wl_clock_ns(CLOCK_MONOTONIC) - r0) / 1e9);
	}
	if (wl_opt.stats && wl_allocs[0].on) {
		host_set_cpu(0);
		slab_stats_show();
		slabinfo_show();
	}
	if (wl_opt.sample && !wl_sample_write())
		return 2;
	if (csv)
		fclose(csv);
	if (wl_diag_file)
		fclose(wl_diag_file);
	if (meta) {
		meta_loadavg(meta, "loadavg_end");
		fclose(meta);
	}
	if (!ok) {
		fprintf(stderr, "workloads: some objects came back overwritten (see above)\n");
		return 1;
	}
	return 0;
}
