/*
 * asm/restart.h - restartable per-CPU sequences on arm64: the asm behind
 * kernel/restart.h's restartable_pop and restartable_push (which say what
 * they do). Each is one asm block: its first instruction is labelled 1,
 * its commit (the one store that publishes it) 2, and the pair goes into
 * the section restart_table, which linker.ld collects; arm64_trap moves an
 * interrupt's return address (ELR_EL1) back to 1 when it lies in (1, 2].
 * Every output is early-clobbered: a restart reads the inputs again, so no
 * output may share their registers. The stack's pointer is loaded by the
 * first instruction, 'load': this CPU's word at a per-CPU key, TPIDR_EL1
 * plus the key, the base read before the sequence as Quarry never moves
 * code to another CPU (ARCH_RESTART_PERCPU), or arr[idx]
 * (ARCH_RESTART_ARRAY); 'base' and 'key' are its operands, %[b] and %[k].
 */
#ifndef ASM_RESTART_H
#define ASM_RESTART_H

#include <asm/percpu.h>

#define ARCH_HAS_RESTARTABLE	1

#define ARCH_RESTART_ENTRY	".pushsection restart_table, \"a\"\n\t.balign 8\n\t" \
				".quad 1b, 2b\n\t.popsection\n\t"

/*
 * The forms of a pop: the load of the stack's pointer, its base operand's
 * constraint, and what runs between reading the size and using it (only
 * the self-test's form has something there).
 */
#define ARCH_RESTART_PERCPU	"ldr %[sh], [%[b], %[k]]", "r", ""
#define ARCH_RESTART_ARRAY	"ldr %[sh], [%[b], %[k], lsl #3]", "r", ""
/* The push's forms: the same loads. */
#define ARCH_RESTART_PUSH_PERCPU	"ldr %[sh], [%[b], %[k]]", "r"
#define ARCH_RESTART_PUSH_ARRAY		"ldr %[sh], [%[b], %[k], lsl #3]", "r"
/*
 * ARCH_RESTART_UNMASKING - the self-test's pop (arr[idx] as the array form):
 * IRQs unmasked right after the size is read (msr daifclr: a pending IRQ is
 * taken right after it, so exactly there). Only a restart then makes the
 * pop see what the handler pushed.
 */
#define ARCH_RESTART_UNMASKING	"ldr %[sh], [%[b], %[k], lsl #3]", "r", "msr daifclr, #2"

/* Pop into out; to 'empty' when size is 0. */
#define arch_restart_pop_asm(load, bcons, mid, base, key, size_off, objs_off, out, empty)    \
	do {                                                                              \
		unsigned long rp_sh, rp_n, rp_t;                                          \
		__asm__ __volatile__ goto("1:\t" load "\n\t"                              \
			     "ldr %[n], [%[sh], %[so]]\n\t" mid "\n\t"                    \
			     "subs %[n], %[n], #1\n\t"                                    \
			     "b.lo %l[" #empty "]\n\t"                                    \
			     "add %[t], %[sh], %[oo]\n\t"                                 \
			     "ldr %[x], [%[t], %[n], lsl #3]\n"                           \
			     "2:\tstr %[n], [%[sh], %[so]]\n\t" ARCH_RESTART_ENTRY        \
			     : [sh] "=&r"(rp_sh), [n] "=&r"(rp_n), [t] "=&r"(rp_t),        \
			       [x] "=&r"(out)                                             \
			     : [b] bcons((unsigned long)(base)), [k] "r"(key),            \
			       [so] "i"(size_off), [oo] "i"(objs_off)                     \
			     : "memory", "cc"                                             \
			     : empty);                                                    \
	} while (0)

/* Store val at *word, push obj and raise size; to 'full' when size reaches capacity. */
#define arch_restart_push_asm(load, bcons, base, key, size_off, cap_off, objs_off, obj,     \
			      word, val, full)                                             \
	do {                                                                              \
		unsigned long rp_sh, rp_n, rp_t;                                          \
		__asm__ __volatile__ goto("1:\t" load "\n\t"                              \
			     "ldr %[n], [%[sh], %[so]]\n\t"                               \
			     "ldr %[t], [%[sh], %[co]]\n\t"                               \
			     "cmp %[n], %[t]\n\t"                                         \
			     "b.hs %l[" #full "]\n\t"                                     \
			     "str %[v], [%[w]]\n\t"                                       \
			     "add %[t], %[sh], %[oo]\n\t"                                 \
			     "str %[x], [%[t], %[n], lsl #3]\n\t"                         \
			     "add %[n], %[n], #1\n"                                       \
			     "2:\tstr %[n], [%[sh], %[so]]\n\t" ARCH_RESTART_ENTRY        \
			     : [sh] "=&r"(rp_sh), [n] "=&r"(rp_n), [t] "=&r"(rp_t)        \
			     : [b] bcons((unsigned long)(base)), [k] "r"(key),            \
			       [x] "r"(obj), [w] "r"(word), [v] "r"(val),                 \
			       [so] "i"(size_off), [co] "i"(cap_off), [oo] "i"(objs_off)  \
			     : "memory", "cc"                                             \
			     : full);                                                     \
	} while (0)

/* The base operand of the per-CPU form: this CPU's area. */
#define arch_restart_percpu_base()	__my_cpu_base()

#endif
