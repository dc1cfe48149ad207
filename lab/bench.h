/*
 * bench.h - the boot-time benchmarks (kernel command line "bench").
 *
 * Each benchmark prints its table in the seed posts' format and, for every
 * figure, one machine-readable line:
 *   BENCH arch=x86_64 page=4K alloc=slab cpus=1 mode=icount test=T size=N
 *         metric=value ... unit=instructions
 * which lab/bench/parse.py turns into results.csv rows. Under QEMU with
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

/*
 * bench_numa_only - run the NUMA section alone (command line "numaonly"):
 * the header, the memory reports and the leak check around it, nothing else.
 */
extern bool bench_numa_only;

/* bench_icount - the counter counts guest instructions (command line "icount"). */
extern bool bench_icount;

/*
 * bench_turn - under -icount with more than one CPU, the concurrent kmalloc
 * loops (test 3) yield the vCPU (cpu_relax: PAUSE / YIELD) after every
 * bench_turn operations; command line "turn=K", default BENCH_TURN, 0 for
 * never. Why: QEMU 7.2 runs -icount vCPUs in one thread and gives the vCPU
 * it resumes the whole time to the next timer deadline (Quarry's ticks: 10
 * ms, 10^7 instructions), so a busy CPU runs on until it spins or halts, and
 * the CPUs' loops would run one after another, never interleaved (QEMU 8.1
 * splits the time between vCPUs; 7.2 does not). A yield ends the vCPU's turn
 * and the next runnable vCPU runs, so with turns the CPUs take K operations
 * each in strict rotation, deterministically. Costs a few instructions per K
 * operations (a nested loop, no per-operation test); not used in real time.
 */
extern unsigned int bench_turn;
#define BENCH_TURN	16

/*
 * bench_turn_parse - set bench_turn from the text of "turn=K". Returns 0, or
 * -1 (bench_turn unchanged) when val is not a number from 0 to BENCH_OBJECTS.
 */
int bench_turn_parse(const char *val);

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
/* Compare-and-exchange on each CPU's own line, alone and all at once (test 3a). */
void bench_atomics(void);
/* The hackbench-like messaging workload (test 5). */
void bench_messaging(void);
/* alloc_pages/free_pages, single CPU and concurrent (test 6). */
void bench_pages(void);
/*
 * bench_numa - on two NUMA nodes or more: kmem_cache_alloc_node local and
 * remote, frees of another node's objects and their flush, and test 3 with
 * every CPU allocating on its own node or the next (lab/bench_numa.c).
 * Does nothing on one node.
 */
void bench_numa(void);
/* memset, memcpy and memmove per call and per 100 bytes, single CPU (7). */
void bench_strings(void);

/*
 * bench_clock - arch_cycles() units on a clock all CPUs share, for spans
 * across CPUs under -icount: x86_64's TSC is one (rdtsc); arm64's PMCCNTR_EL0
 * is not (each CPU's starts at its own boot), so there it is the generic
 * timer's virtual count scaled to PMCCNTR's rate (under -icount 1 GHz over
 * 62.5 MHz: steps of 16 instructions).
 */
uint64_t bench_clock(void);

/* Per-operation cost: total / n, rounded to the nearest unit. */
static inline unsigned long bench_per_op(uint64_t total, unsigned long n)
{
	return (unsigned long)((total + n / 2) / n);
}

#endif
