/*
 * workloads_sync.h - how the host workloads' threads meet and take turns
 * (workloads_sync.c): futex waits, the start barrier, the --lockstep token,
 * the measured part's marker functions for tools/coherence, and perf's
 * control fifos. Nothing here runs inside a timed loop except the token,
 * and that only in the --lockstep copies of the workloads.
 */
#ifndef LAB_BENCH_HOST_WORKLOADS_SYNC_H
#define LAB_BENCH_HOST_WORKLOADS_SYNC_H

#include <stdbool.h>
#include <stdint.h>

/* Sleep while *addr == val (spurious wake-ups possible); wake up to n sleepers. */
void futex_wait(uint32_t *addr, uint32_t val);
void futex_wake(uint32_t *addr, int n);

/* All n threads wait for one another: a short spin, then a futex sleep. */
struct barrier {
	uint32_t count __attribute__((aligned(64)));
	uint32_t gen __attribute__((aligned(64)));
	uint32_t n;
};
void barrier_wait(struct barrier *b);

/*
 * The measured part's edges as tools/coherence sees them: it counts a
 * thread's accesses between its calls of these two (found by name), so they
 * stay out-of-line and keep their names.
 */
void wl_window_begin(void);
void wl_window_end(void);

/*
 * --lockstep: the threads of a run take turns, one allocation each.
 * lockstep_reset(n) before the run's n threads start (thread 0 holds the
 * token first); each thread calls lockstep_enter(its id) where its measured
 * part starts, lockstep_turn() before each allocation while ls_in is set,
 * and lockstep_leave() at the end (every thread makes as many allocations,
 * so the round ends together).
 */
extern __thread bool ls_in;
void lockstep_reset(unsigned int n);
void lockstep_enter(unsigned int id);
void lockstep_turn(void);
void lockstep_leave(void);

/*
 * perf's control fifos (WL_PERF_CTL="ctl-fifo,ack-fifo"), or none: perf_ctl
 * sends "enable\n" or "disable\n" and waits for perf's ack.
 */
void perf_ctl_init(void);
void perf_ctl(const char *cmd);

#endif
