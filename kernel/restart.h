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

#if ARCH_HAS_RESTARTABLE
/*
 * restartable_pop(key, size_off, objs_off) - take the top word of a stack
 * (size, capacity and a word array at byte offsets in it) whose pointer is
 * this CPU's per-CPU word at 'key' (kernel/percpu.h), and lower its size:
 * the word, or NULL (nothing done) when the stack is empty. Words on the
 * stack are never NULL. restartable_pop_at(arr, idx, ...): the same for
 * the stack arr[idx] points to (arr in plain memory).
 */
#define restartable_pop(key, size_off, objs_off)                                          \
	restart_pop(ARCH_RESTART_PERCPU, arch_restart_percpu_base(), key, size_off, objs_off)
#define restartable_pop_at(arr, idx, size_off, objs_off) \
	restart_pop(ARCH_RESTART_ARRAY, arr, idx, size_off, objs_off)

/*
 * restartable_push(key, size_off, cap_off, objs_off, obj, word, val) - when
 * the stack has room: store val at *word (a word of the caller's, such as
 * one inside obj), put obj on top and raise the size; true. False, nothing
 * stored, when the stack is full. restartable_push_at(arr, idx, ...): the
 * same for the stack arr[idx] points to.
 */
#define restartable_push(key, size_off, cap_off, objs_off, obj, word, val)                 \
	restart_push(ARCH_RESTART_PUSH_PERCPU, arch_restart_percpu_base(), key, size_off, cap_off, \
		     objs_off, obj, word, val)
#define restartable_push_at(arr, idx, size_off, cap_off, objs_off, obj, word, val)          \
	restart_push(ARCH_RESTART_PUSH_ARRAY, arr, idx, size_off, cap_off, objs_off, obj, word, val)

/*
 * The arch's asm (asm/restart.h) as a value; 'form' is its load, base
 * constraint and (a pop's) middle. restartable_test_pop (the self-test's):
 * a pop of the stack arr[0] in the unmasking form, interrupts off on entry.
 */
#define restartable_test_pop(arr, size_off, objs_off) \
	restart_pop(ARCH_RESTART_UNMASKING, arr, 0UL, size_off, objs_off)
#define restart_pop(form, base, key, size_off, objs_off)                                  \
	({                                                                                \
		__label__ rp_empty, rp_done;                                              \
		void *rp_x;                                                               \
		arch_restart_pop_asm(form, base, key, size_off, objs_off, rp_x, rp_empty); \
		if (!rp_x)	/* never: the stack holds no NULL (lets the caller's test go) */ \
			__builtin_unreachable();                                          \
		goto rp_done;                                                             \
rp_empty:                                                                                 \
		rp_x = NULL;                                                              \
rp_done:                                                                                  \
		rp_x;                                                                     \
	})
#define restart_push(form, base, key, size_off, cap_off, objs_off, obj, word, val)        \
	({                                                                                \
		__label__ rp_full, rp_done;                                               \
		bool rp_ok = true;                                                        \
		arch_restart_push_asm(form, base, key, size_off, cap_off, objs_off, obj, word, \
				      val, rp_full);                                      \
		goto rp_done;                                                             \
rp_full:                                                                                  \
		rp_ok = false;                                                            \
rp_done:                                                                                  \
		rp_ok;                                                                    \
	})
#endif

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
