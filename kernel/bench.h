/*
 * bench.h - the boot-time benchmarks (kernel command line "bench").
 *
 * Each benchmark prints its table in the seed posts' format and, for every
 * figure, one machine-readable line:
 *   BENCH arch=x86_64 page=4K alloc=slab cpus=1 mode=icount test=T size=N
 *         metric=value ... unit=instructions
 * which tests/bench/parse.py turns into results.csv rows. Under QEMU with
 * -icount shift=0 (command line "icount") the counter counts guest
 * instructions and mode/unit say so; otherwise they are real cycles.
 */
#ifndef QUARRY_BENCH_H
#define QUARRY_BENCH_H

#include "kernel/compiler.h"

#define BENCH_OBJECTS	10000	/* objects per size, as in the classic slab_test */

/* bench_run_all - run every benchmark; icount: the counter counts instructions. */
void bench_run_all(bool icount);

/* bench_quick - fewer sizes and loops (command line "quick"), for test runs. */
extern bool bench_quick;

/* bench_icount - the counter counts guest instructions (command line "icount"). */
extern bool bench_icount;

/*
 * bench_line - print one BENCH line: the fixed keys, then test and size, then
 * the given "key=value" pairs (nkv of them, values unsigned).
 */
void bench_line(const char *test, unsigned long size, unsigned int nkv, ...);

/* The single-CPU kmalloc tables (tests 1 and 2). */
void bench_kmalloc_single(void);
/* Concurrent kmalloc on every CPU (test 3) and remote free (test 4). */
void bench_kmalloc_concurrent(void);
void bench_remote_free(void);
/* The hackbench-like messaging workload (test 5). */
void bench_messaging(void);
/* alloc_pages/free_pages, single CPU and concurrent (test 6). */
void bench_pages(void);

/* Per-operation cost: total / n, rounded to the nearest unit. */
static inline unsigned long bench_per_op(uint64_t total, unsigned long n)
{
	return (unsigned long)((total + n / 2) / n);
}

#endif
