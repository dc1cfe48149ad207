/*
 * spinlock.h - spinlocks: a pair of 16-bit ticket counters, taken by test
 * and test-and-set.
 *
 * A lock is two 16-bit counters, 'next' and 'owner': free when they are
 * equal. spin_trylock takes it by a compare-and-exchange of 'next' from
 * 'owner' to 'owner' + 1 (acquire); spin_unlock gives it back by a release
 * store of 'owner' + 1. spin_lock tries, and while that fails waits with
 * plain loads until the lock looks free before it tries again (test and
 * test-and-set), so waiters do not write the lock's line while they wait.
 * 'cpu' records the holder for assert_spin_locked(); it is a debugging aid
 * read only by its owner.
 *
 * Use the _irqsave forms for any lock that an interrupt handler may take.
 *
 * Departure: the lock is not fair. Quarry runs on QEMU's virtual CPUs,
 * host threads the host may deschedule at any moment; a fair (ticket)
 * hand-over waits for the one vCPU whose ticket is next, so one descheduled
 * waiter stalls every CPU behind it for a host time slice. With 8 vCPUs on
 * 2 host cores, the ticket form made single kmalloc/kfree figures of test 3
 * take 0.4 to 23 million cycles (SLUB's node list_lock waited on 275 times
 * for 17 million turns); taken by test-and-set, none above 33,000. Linux
 * does the same on a hypervisor without paravirtual spinlocks
 * (virt_spin_lock). The counters stay ticket-shaped, so spin_is_locked and
 * the GDB helpers read them as before.
 *
 * SLAB_STATS=1 builds (CONFIG_SLAB_STATS) also count, per lock, the
 * acquisitions that found it taken ('contended') and the turns spent
 * waiting ('turns'), added by the waiter with a relaxed atomic: how much of
 * a many-CPU slowdown is waiting, and for which lock. Read and reset them
 * only while nobody takes the lock (spin_lock_stats_reset).
 */
#ifndef QUARRY_SPINLOCK_H
#define QUARRY_SPINLOCK_H

#include "kernel/compiler.h"
#include "kernel/bug.h"
#include <asm/irqflags.h>
#include <asm/processor.h>

#if defined(CONFIG_SLAB_STATS) && CONFIG_SLAB_STATS
#define SPIN_LOCK_STATS 1
#else
#define SPIN_LOCK_STATS 0
#endif

struct spinlock {
	uint16_t owner;
	uint16_t next;
	int cpu;		/* holder's CPU, or -1 */
#if SPIN_LOCK_STATS
	unsigned long contended;	/* acquisitions that had to wait */
	unsigned long turns;		/* cpu_relax turns spent waiting */
#endif
};

#if SPIN_LOCK_STATS
#define SPINLOCK_INIT { 0, 0, -1, 0, 0 }
#else
#define SPINLOCK_INIT { 0, 0, -1 }
#endif

static inline void spin_lock_init(struct spinlock *l)
{
	l->owner = 0;
	l->next = 0;
	l->cpu = -1;
#if SPIN_LOCK_STATS
	l->contended = 0;
	l->turns = 0;
#endif
}

/* spin_trylock - take the lock only if it is free now; true if taken (acquire). */
static inline bool spin_trylock(struct spinlock *l)
{
	uint16_t owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
	uint16_t expect = owner;
	/* Free only when next == owner; take it by bumping next. */
	if (!__atomic_compare_exchange_n(&l->next, &expect, (uint16_t)(owner + 1), false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	l->cpu = (int)smp_processor_id();
	return true;
}

static inline bool spin_is_locked(struct spinlock *l)
{
	return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&l->next, __ATOMIC_RELAXED);
}

/*
 * spin_lock - take the lock, waiting with plain loads while it is held.
 * Acquire: nothing in the critical section moves before the lock is held.
 */
static inline void spin_lock(struct spinlock *l)
{
#if SPIN_LOCK_STATS
	unsigned long turns = 0;

	while (!spin_trylock(l)) {
		do {
			cpu_relax();
			turns++;
		} while (spin_is_locked(l));
	}
	if (turns) {
		__atomic_fetch_add(&l->contended, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&l->turns, turns, __ATOMIC_RELAXED);
	}
#else
	while (!spin_trylock(l)) {
		do
			cpu_relax();
		while (spin_is_locked(l));
	}
#endif
}

/* spin_lock_stats_reset - zero a lock's contention counters (SLAB_STATS=1 builds). */
static inline void spin_lock_stats_reset(struct spinlock *l)
{
#if SPIN_LOCK_STATS
	l->contended = 0;
	l->turns = 0;
#else
	(void)l;
#endif
}

/*
 * spin_unlock - give the lock back (owner catches up with next). Release:
 * every access of the critical section is visible to the next holder before
 * it sees the lock as free.
 */
static inline void spin_unlock(struct spinlock *l)
{
	l->cpu = -1;
	__atomic_store_n(&l->owner, (uint16_t)(l->owner + 1), __ATOMIC_RELEASE);
}

/*
 * spin_lock_irqsave - disable interrupts on this CPU, then take the lock;
 * returns the previous interrupt state for spin_unlock_irqrestore. Needed
 * whenever an interrupt handler may take the same lock: otherwise the
 * handler could spin forever on a lock its own CPU holds.
 */
static inline unsigned long spin_lock_irqsave(struct spinlock *l)
{
	unsigned long flags = arch_irq_save();
	spin_lock(l);
	return flags;
}

/* spin_unlock_irqrestore - release the lock, then put interrupts back as they were. */
static inline void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
	spin_unlock(l);
	arch_irq_restore(flags);
}

/* Locking preconditions are asserted, not only commented. */
#define assert_spin_locked(l) ASSERT(spin_is_locked(l) && (l)->cpu == (int)smp_processor_id())
#define assert_irqs_disabled() ASSERT(arch_irqs_disabled())

#endif
