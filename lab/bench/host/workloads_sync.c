/*
 * workloads_sync.c - the host workloads' meeting points (workloads_sync.h):
 * futex waits, the start barrier, the --lockstep token that makes threads
 * take turns for tools/coherence, the measured part's marker functions, and
 * perf's control fifos. workloads.c holds the workloads themselves.
 */
#ifndef _GNU_SOURCE
#error "build with -D_GNU_SOURCE (the prelude header pulls in <features.h> first)"
#endif
#include "host_shim.h"
#include "workloads_sync.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* futex_wait, futex_wake: see workloads_sync.h. */
void futex_wait(uint32_t *addr, uint32_t val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

void futex_wake(uint32_t *addr, int n)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* wl_window_begin, wl_window_end: see workloads_sync.h. Empty, out of line. */
__noinline void wl_window_begin(void)
{
	__asm__ __volatile__("" ::: "memory");
}

__noinline void wl_window_end(void)
{
	__asm__ __volatile__("" ::: "memory");
}

/* ---- --lockstep: one allocation per thread in turn ---- */

static struct {
	uint32_t go __aligned(64); /* set: this thread's turn */
} ls_token[NR_CPUS];
static unsigned int ls_threads;	  /* threads in this run */
static __thread unsigned int ls_self; /* this thread's place in the round */
__thread bool ls_in;		      /* in the measured part */
static __thread bool ls_held;	      /* holding the token */

static void lockstep_pass(void)
{
	unsigned int next = (ls_self + 1) % ls_threads;

	ls_held = false;
	__atomic_store_n(&ls_token[next].go, 1, __ATOMIC_RELEASE);
	futex_wake(&ls_token[next].go, 1);
}

/* lockstep_turn: see workloads_sync.h. Passes the token on, waits for it back. */
__noinline void lockstep_turn(void)
{
	if (ls_held)
		lockstep_pass();
	while (!__atomic_load_n(&ls_token[ls_self].go, __ATOMIC_ACQUIRE))
		futex_wait(&ls_token[ls_self].go, 0);
	__atomic_store_n(&ls_token[ls_self].go, 0, __ATOMIC_RELAXED);
	ls_held = true;
}

/* lockstep_reset: see workloads_sync.h. */
void lockstep_reset(unsigned int n)
{
	ls_threads = n;
	for (unsigned int i = 0; i < n; i++)
		ls_token[i].go = i == 0; /* thread 0 starts the round */
}

/* lockstep_enter: see workloads_sync.h. */
void lockstep_enter(unsigned int id)
{
	ls_self = id;
	ls_held = false;
	ls_in = true;
}

/* lockstep_leave: see workloads_sync.h. */
void lockstep_leave(void)
{
	if (ls_held)
		lockstep_pass();
	ls_in = false;
}

/* ---- perf's control fifos (WL_PERF_CTL="ctl-fifo,ack-fifo"), or none ---- */

static int perf_ctl_fd = -1, perf_ack_fd = -1;

/* perf_ctl_init: see workloads_sync.h. */
void perf_ctl_init(void)
{
	const char *e = getenv("WL_PERF_CTL");
	const char *comma = e ? strchr(e, ',') : NULL;
	char ctl[256];

	if (!e)
		return;
	if (!comma || (size_t)(comma - e) >= sizeof(ctl)) {
		fprintf(stderr, "workloads: WL_PERF_CTL='%s' is not 'ctl-fifo,ack-fifo': ignored\n",
			e);
		return;
	}
	memcpy(ctl, e, (size_t)(comma - e));
	ctl[comma - e] = 0;
	perf_ctl_fd = open(ctl, O_WRONLY | O_CLOEXEC);
	perf_ack_fd = open(comma + 1, O_RDONLY | O_CLOEXEC);
	if (perf_ctl_fd < 0 || perf_ack_fd < 0) {
		fprintf(stderr, "workloads: WL_PERF_CTL: cannot open '%s' or '%s': %s\n", ctl,
			comma + 1, strerror(errno));
		perf_ctl_fd = -1;
	}
}

/* perf_ctl: see workloads_sync.h. */
void perf_ctl(const char *cmd)
{
	char ack[8];

	if (perf_ctl_fd < 0)
		return;
	if (write(perf_ctl_fd, cmd, strlen(cmd)) < 0 || read(perf_ack_fd, ack, sizeof(ack)) < 0) {
		fprintf(stderr, "workloads: perf control: %s\n", strerror(errno));
		perf_ctl_fd = -1;
	}
}

/* ---- the start barrier ---- */

/*
 * barrier_wait: see workloads_sync.h. No sched_yield while it spins, so that
 * the yields a profile shows are Quarry's spinlocks'.
 */
void barrier_wait(struct barrier *b)
{
	uint32_t gen = __atomic_load_n(&b->gen, __ATOMIC_ACQUIRE);

	if (__atomic_add_fetch(&b->count, 1, __ATOMIC_ACQ_REL) == b->n) {
		__atomic_store_n(&b->count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&b->gen, gen + 1, __ATOMIC_SEQ_CST);
		futex_wake(&b->gen, INT32_MAX);
		return;
	}
	for (unsigned int spin = 0; spin < 2000; spin++) {
		if (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) != gen)
			return;
		__asm__ __volatile__("pause" ::: "memory");
	}
	while (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) == gen)
		futex_wait(&b->gen, gen);
}
