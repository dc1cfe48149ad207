/*
 * spinlock.h - ticket spinlocks, fair in arrival order.
 *
 * A lock is two 16-bit counters: 'next' (the ticket handed to the next
 * arrival) and 'owner' (the ticket now served). Taking the lock is an atomic
 * fetch-add on 'next' and a spin until 'owner' reaches our ticket; the acquire
 * load orders the critical section after the lock, the release store of
 * 'owner' orders it before the unlock. 'cpu' records the holder for
 * assert_spin_locked(); it is a debugging aid read only by its owner.
 *
 * Use the _irqsave forms for any lock that an interrupt handler may take.
 *
 * Fairness has a price under QEMU TCG when there are more virtual CPUs than
 * host cores: each hand-over waits until the host runs the one vCPU whose
 * ticket is next, which can take a scheduler time slice (milliseconds).
 * Keep contended critical sections rare (per-CPU caches) rather than short.
 */
#ifndef QUARRY_SPINLOCK_H
#define QUARRY_SPINLOCK_H

#include "kernel/compiler.h"
#include "kernel/bug.h"
#include <asm/irqflags.h>
#include <asm/processor.h>

struct spinlock {
	uint16_t owner;
	uint16_t next;
	int cpu;		/* holder's CPU, or -1 */
};

#define SPINLOCK_INIT { 0, 0, -1 }

static inline void spin_lock_init(struct spinlock *l)
{
	l->owner = 0;
	l->next = 0;
	l->cpu = -1;
}

/*
 * spin_lock - take a ticket and spin until it is served. Acquire: nothing in
 * the critical section moves before the lock is held.
 */
static inline void spin_lock(struct spinlock *l)
{
	uint16_t me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != me)
		cpu_relax();
	l->cpu = (int)smp_processor_id();
}

/* spin_trylock - take the lock only if it is free now; true if taken (acquire). */
static inline bool spin_trylock(struct spinlock *l)
{
	uint16_t owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
	uint16_t expect = owner;
	/* Free only when next == owner; take ticket 'owner' by bumping next. */
	if (!__atomic_compare_exchange_n(&l->next, &expect, (uint16_t)(owner + 1), false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	l->cpu = (int)smp_processor_id();
	return true;
}

/*
 * spin_unlock - serve the next ticket. Release: every access of the critical
 * section is visible to the next holder before it sees the lock as its own.
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

static inline bool spin_is_locked(struct spinlock *l)
{
	return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&l->next, __ATOMIC_RELAXED);
}

/* Locking preconditions are asserted, not only commented. */
#define assert_spin_locked(l) ASSERT(spin_is_locked(l) && (l)->cpu == (int)smp_processor_id())
#define assert_irqs_disabled() ASSERT(arch_irqs_disabled())

#endif
