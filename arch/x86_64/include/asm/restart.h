/*
 * asm/restart.h - restartable per-CPU sequences on x86_64: the asm behind
 * kernel/restart.h's restartable_pop and restartable_push (which say what
 * they do). Each is one asm block: its first instruction is labelled 1,
 * its commit (the one store that publishes it) 2, and the pair goes into
 * the section restart_table, which linker.ld collects; x86_trap moves an
 * interrupt's return address back to 1 when it lies in (1, 2]. Every
 * output is early-clobbered: a restart reads the inputs again, so no
 * output may share their registers. The stack's pointer is loaded by the
 * first instruction, 'load': this CPU's word at a per-CPU key, reached
 * %gs-relative (ARCH_RESTART_PERCPU), or arr[idx] (ARCH_RESTART_ARRAY);
 * 'base' and 'key' are its operands, %[b] and %[k].
 */
#ifndef ASM_RESTART_H
#define ASM_RESTART_H

#define ARCH_HAS_RESTARTABLE	1

#define ARCH_RESTART_ENTRY	".pushsection restart_table, \"a\"\n\t.balign 8\n\t" \
				".quad 1b, 2b\n\t.popsection\n\t"

/*
 * The forms of a pop: the load of the stack's pointer, its base operand's
 * constraint, and what runs between reading the size and using it (only
 * the self-test's form has something there).
 */
#define ARCH_RESTART_PERCPU	"mov %%gs:(%[k]), %[sh]", "i", ""
#define ARCH_RESTART_ARRAY	"mov (%[b],%[k],8), %[sh]", "r", ""
/* The push's forms: the same loads. */
#define ARCH_RESTART_PUSH_PERCPU	"mov %%gs:(%[k]), %[sh]", "i"
#define ARCH_RESTART_PUSH_ARRAY		"mov (%[b],%[k],8), %[sh]", "r"
/*
 * ARCH_RESTART_UNMASKING - the self-test's pop (arr[idx] as the array form):
 * interrupts turned on right after the size is read (sti: a pending
 * interrupt is taken after the next instruction, so exactly there). Only a
 * restart then makes the pop see what the handler pushed.
 */
#define ARCH_RESTART_UNMASKING	"mov (%[b],%[k],8), %[sh]", "r", "sti\n\tnop"

/* Pop into out (%rax, where a function returns it); to 'empty' when size is 0. */
#define arch_restart_pop_asm(load, bcons, mid, base, key, size_off, objs_off, out, empty)    \
	do {                                                                              \
		unsigned long rp_sh, rp_n;                                                \
		__asm__ __volatile__ goto("1:\t" load "\n\t"                              \
			     "mov %c[so](%[sh]), %[n]\n\t" mid "\n\t"                     \
			     "sub $1, %[n]\n\t"                                           \
			     "jb %l[" #empty "]\n\t"                                      \
			     "mov %c[oo](%[sh],%[n],8), %[x]\n"                           \
			     "2:\tmov %[n], %c[so](%[sh])\n\t" ARCH_RESTART_ENTRY         \
			     : [sh] "=&r"(rp_sh), [n] "=&r"(rp_n), [x] "=&a"(out)            \
			     : [b] bcons(base), [k] "r"(key), [so] "i"(size_off),         \
			       [oo] "i"(objs_off)                                         \
			     : "memory", "cc"                                             \
			     : empty);                                                    \
	} while (0)

/* Store val at *word, push obj and raise size; to 'full' when size reaches capacity. */
#define arch_restart_push_asm(load, bcons, base, key, size_off, cap_off, objs_off, obj,     \
			      word, val, full)                                             \
	do {                                                                              \
		unsigned long rp_sh, rp_n;                                                \
		__asm__ __volatile__ goto("1:\t" load "\n\t"                              \
			     "mov %c[so](%[sh]), %[n]\n\t"                                \
			     "cmp %c[co](%[sh]), %[n]\n\t"                                \
			     "jae %l[" #full "]\n\t"                                      \
			     "mov %[v], (%[w])\n\t"                                       \
			     "mov %[x], %c[oo](%[sh],%[n],8)\n\t"                         \
			     "add $1, %[n]\n"                                             \
			     "2:\tmov %[n], %c[so](%[sh])\n\t" ARCH_RESTART_ENTRY         \
			     : [sh] "=&r"(rp_sh), [n] "=&r"(rp_n)                         \
			     : [b] bcons(base), [k] "r"(key), [x] "r"(obj), [w] "r"(word), \
			       [v] "r"(val), [so] "i"(size_off), [co] "i"(cap_off),       \
			       [oo] "i"(objs_off)                                         \
			     : "memory", "cc"                                             \
			     : full);                                                     \
	} while (0)

/* The base operand of the per-CPU form: none (an unused immediate). */
#define arch_restart_percpu_base()	0

#endif
