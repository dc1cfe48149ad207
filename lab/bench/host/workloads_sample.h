/*
 * workloads_sample.h - the workloads' own CPU-time profiler (--sample FILE),
 * for machines where perf cannot run: no perf binary, perf_event_paranoid
 * above 2, or a container whose seccomp profile refuses perf_event_open.
 *
 * Each thread of a timed run arms a POSIX timer that sends it, and only it,
 * SIGPROF every WL_SAMPLE_PERIOD_NS; the handler counts the interrupted
 * instruction pointer in that thread's table. The timer runs on
 * CLOCK_MONOTONIC: a CPU-time clock's timers fire only at the scheduler's
 * tick (a few hundred samples a second), a monotonic one at its period. The
 * threads are pinned, one per core, and busy in the measured part, so wall
 * time is their CPU time there. A sample that finds a thread in the kernel
 * (waiting in a futex, say) lands on the C library's wrapper of that system
 * call, not on a kernel function as perf's samples would. At the end the
 * tables are merged and written, by function: the program's own named from
 * its ELF symbol table, a shared library's by dladdr's nearest symbol.
 */
#ifndef LAB_BENCH_HOST_WORKLOADS_SAMPLE_H
#define LAB_BENCH_HOST_WORKLOADS_SAMPLE_H

#include <stdbool.h>

/* 50 us between samples: 20 kHz, perf record -F 20000's rate. */
#define WL_SAMPLE_PERIOD_NS	50000L

/*
 * wl_sample_init - get ready to sample up to nthreads threads into file
 * (created now, written by wl_sample_write). Installs the SIGPROF handler.
 * Returns false, after a message naming what failed, when it cannot.
 */
bool wl_sample_init(const char *file, unsigned int nthreads);

/*
 * wl_sample_thread_start/stop - the calling thread, acting as thread id
 * (< nthreads), is sampled between the two.
 * stop disarms and deletes it; samples already taken stay counted. Only
 * after wl_sample_init succeeded; a thread's timer that cannot be made is
 * reported once and that thread goes unsampled.
 */
void wl_sample_thread_start(unsigned int id);
void wl_sample_thread_stop(void);

/*
 * wl_sample_write - merge every thread's table and write the file: a header,
 * then one line per address, most samples first. Returns false, after a
 * message, when the file cannot be written. Call once, with no thread
 * sampled any more.
 */
bool wl_sample_write(void);

#endif
