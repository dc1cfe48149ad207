/*
 * restart.h - restartable per-CPU sequences: updates of this CPU's data
 * that an interrupt on the same CPU may cut in on, with no interrupts
 * disabled.
 *
 * A sequence is a short run of instructions, written in one asm block by
 * the arch (asm/restart.h), that reads this CPU's state and ends with one
 * store, its commit; whatever it stores before the commit lands where
 * nothing yet reads it (above a stack's top, in an object the caller
 * owns). Each sequence's first instruction and its commit are listed in
 * the table restart_table. When an interrupt (or IPI) arrives with the
 * interrupted instruction at or after a sequence's start and not past its
 * commit, the arch's interrupt entry calls restart_fixup, which moves the
 * return address back to the start: the sequence then runs again from its
 * first load, and sees whatever the handler changed (a sheaf swapped,
 * flushed or freed under it). Leaving a sequence by a branch before the
 * commit (empty, full) leaves it without effect.
 *
 * The cost on the fast path is nothing but the sequence itself: no
 * interrupt flag saved, cleared or tested. An interrupt pays a compare
 * against the table's span, and a walk of the table when the interrupted
 * address falls inside it.
 *
 * ARCH_HAS_RESTARTABLE is 1 where the arch provides the sequences
 * (restartable_pop and restartable_push on a stack whose pointer is a
 * per-CPU word, their _at forms for one whose pointer is in plain memory:
 * SLUB's sheaves and SLAB's arrays) and calls restart_fixup_pc from its
 * interrupt entry (x86_64, arm64); elsewhere (0: the host build) their
 * users keep interrupts off instead.
 * Rules: a sequence may be cut in on only by interrupts on its own CPU (it
 * is not atomic against other CPUs: the data must be this CPU's), and no
 * sequence may take a fault, call, or loop back into itself.
 */
#ifndef QUARRY_RESTART_H
#define QUARRY_RESTART_H

#include <stdint.h>
#include <stdbool.h>
#include "kernel/compiler.h"
#include <asm/restart.h>

/* One sequence: its first instruction and its commit (a store). */
struct restart_entry {
	uintptr_t start;
	uintptr_t commit;
};

/*
 * restart_fixup_pc - the address an interrupted instruction pointer pc
 * must resume at: the start of the sequence pc lies in past its start
 * (start < pc <= commit), or pc itself. Counts each move in this CPU's
 * restart count.
 * Called by the arch with interrupts off.
 */
uintptr_t restart_fixup_pc(uintptr_t pc);

/* restart_table_entries - the table and its length (*n), for tests and reports. */
const struct restart_entry *restart_table_entries(unsigned int *n);

/* restart_count - how many times restart_fixup_pc moved an address back, on cpu. */
unsigned long restart_count(unsigned int cpu);

#endif
