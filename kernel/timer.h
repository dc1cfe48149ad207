/*
 * timer.h - the periodic tick every online CPU takes at HZ, from its own
 * local timer (x86_64: the local APIC timer), while the kernel runs.
 *
 * timer_tick() runs in interrupt context with interrupts off, on the CPU
 * whose timer fired; it counts the tick per CPU, runs the slab reap every
 * SLAB_REAP_TICKS (unless paused), runs the tick hook (tests), and every second checks that the other CPUs are
 * still taking their ticks (the watchdog: a CPU with no tick for
 * watchdog_seconds is stuck with interrupts off, or dead; the report names
 * it and where it is, then panics).
 */
#ifndef QUARRY_TIMER_H
#define QUARRY_TIMER_H

#include "kernel/compiler.h"
#include "kernel/percpu.h"

#define HZ			100
#define SLAB_REAP_TICKS		(2 * HZ)	/* each CPU reaps its slab arrays every 2 s */
#define WATCHDOG_SECONDS	10	/* watchdog_seconds' value at boot */

/*
 * watchdog_seconds - how long a CPU may go without a tick before the
 * watchdog reports it; WATCHDOG_SECONDS unless a test cuts it (the boot
 * check "hangtest-ap" sets 3 before it stops a CPU).
 */
extern unsigned int watchdog_seconds;

/* timer_tick - called by the arch timer interrupt on cpu (the running CPU), interrupts off. */
void timer_tick(unsigned int cpu);

/* timer_ticks - how many ticks cpu has taken since its timer started. */
unsigned long timer_ticks(unsigned int cpu);

/*
 * timer_set_hook - have fn(cpu) called from every CPU's tick (in interrupt
 * context, interrupts off) until it is replaced; NULL removes it. Returns
 * the previous hook. After replacing a hook, call timer_wait_all_cpus(1)
 * before freeing anything the old hook uses: a CPU may still be inside it.
 */
void (*timer_set_hook(void (*fn)(unsigned int cpu)))(unsigned int cpu);

/*
 * timer_wait_all_cpus - wait until every online CPU has taken n more
 * ticks than when called. The caller must have interrupts on. Returns 0,
 * or -1 if some CPU took none for watchdog_seconds (by the caller's ticks).
 */
int timer_wait_all_cpus(unsigned int n);

/*
 * timer_idle_until_tick - halt the calling CPU until its own next tick has
 * been taken (other interrupts wake it and it halts again). The caller must
 * have interrupts on; they are on at the return. Under QEMU -icount with
 * every other CPU idle too, this puts all of them to sleep at once, which
 * restarts QEMU's own virtual timers from the tick's time (see
 * lab/replay.c for why that matters).
 */
void timer_idle_until_tick(void);

/*
 * timer_reap_pause - stop (paused true) or restart the ticks' slab reap on
 * every CPU. The trace replay pauses it for its whole run: the host replay
 * it is compared with has no ticks, and a reap at an instruction-timed
 * point (a SLOB spare released, SLAB arrays drained) would move the
 * memory samples after it. Pausing waits for any reap already under way
 * on another CPU to finish, so that on return none runs until the restart
 * (a test that counts what a barn or a shared array holds relies on it).
 * Not from a tick; the caller holds no lock a reap may wait for.
 */
void timer_reap_pause(bool paused);

/*
 * timer_reaping - set by a CPU's tick from before it reads the pause to
 * after its slab_reap returns; timer_reap_pause waits for every other
 * CPU's to clear. A test may set one to stand for a reap under way.
 */
DECLARE_PER_CPU(bool, timer_reaping);

/* timer_watchdog_start - start checking for stuck CPUs (smp_init, once all are up). */
void timer_watchdog_start(void);

#endif
