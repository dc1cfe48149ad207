/*
 * workloads.h - what the host workloads' two halves share: the timed
 * workloads and one run of them (workloads.c), and the program around them
 * (workloads_main.c: options, set-up, the runs, the files written).
 */
#ifndef LAB_BENCH_HOST_WORKLOADS_H
#define LAB_BENCH_HOST_WORKLOADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* Threads: one per CPU Quarry's build has (threads act as CPUs 0..n-1). */
#define MAX_THREADS	NR_CPUS

/* The options, set by workloads_main.c before the first run (see its header). */
struct wl_options {
	unsigned int runs, scale, plant, arena_mb;
	const char *csv, *meta, *diag, *variant, *allocators, *workloads, *threads, *sample;
	bool callgrind, stats, warm_each, lockstep;
};
extern struct wl_options wl_opt;

/* Cores this process may run on (its affinity); thread i is pinned to core i mod this. */
extern unsigned int wl_ncores;
/* --diag's file, or NULL: wl_run_once appends a row per timed run. */
extern FILE *wl_diag_file;
/* Whether <valgrind/callgrind.h> was there at build time (--callgrind needs it). */
extern const bool wl_have_callgrind;

struct wthread;

/*
 * One allocator: its copies of the workloads (larson, mixed, prodcons; the
 * --lockstep copies have no prodcons), whether this run uses it, and how it
 * was reached (written to --meta and the console).
 */
struct allocator {
	const char *key;
	void (*fn[3])(struct wthread *t);
	void (*fn_ls[3])(struct wthread *t);
	bool on;
	char how[256];
};

/* quarry, glibc, jemalloc, tcmalloc, mimalloc, locked, in that order. */
#define WL_NALLOCS	6
extern struct allocator wl_allocs[WL_NALLOCS];
extern const char *const wl_workload_names[3];

/* The name a's rows carry: --variant for Quarry, else its key. */
const char *wl_alloc_name(const struct allocator *a);

/* Whether key is one of the comma-separated words of list. */
bool wl_listed(const char *list, const char *key);

/* clock id's time in ns. */
uint64_t wl_clock_ns(clockid_t id);

/*
 * wl_prepare - the memory the workloads keep between runs, for up to maxn
 * threads (larson's sets, each thread's slots). Once, before the first run;
 * false when out of memory. Never freed (the program exits).
 */
bool wl_prepare(unsigned int maxn);

/*
 * wl_run_once - one run of workload w (an index of wl_workload_names) with
 * allocator a on n threads (n <= MAX_THREADS; prodcons: 1 or even). Run 0 is
 * untimed (its figures go nowhere); a later run appends its row to csv (when
 * not NULL) and to wl_diag_file. The measured part is from the threads'
 * common start to the last one's end. Returns false when an object's tag did
 * not check (each printed); exits the program when an allocation fails.
 */
bool wl_run_once(struct allocator *a, unsigned int w, unsigned int n, unsigned int run,
		 FILE *csv);

#endif
