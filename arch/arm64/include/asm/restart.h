/*
 * asm/restart.h - restartable per-CPU sequences on arm64 (kernel/restart.h
 * says what they are). Each is one asm block: its first instruction is
 * labelled 1, its commit (the one store that publishes it) 2, and the pair
 * goes into the section restart_table, which linker.ld collects;
 * arm64_trap moves an interrupt's return address (ELR_EL1) back to 1 when
 * it lies in (1, 2]. Every output is early-clobbered: a restart reads the
 * inputs again, so no output may share their registers. The stack operated on is this CPU's: its pointer is
 * the per-CPU word at 'key' (a per-CPU key: TPIDR_EL1 plus the key, the
 * base read before the sequence, as Quarry never moves code to another
 * CPU), and
 * size_off, cap_off and objs_off are the byte offsets of its size,
 * capacity and word array.
 */
#ifndef ASM_RESTART_H
#define ASM_RESTART_H

#include <asm/percpu.h>

#define ARCH_HAS_RESTARTABLE	1

#define ARCH_RESTART_ENTRY	".pushsection restart_table, \"a\"\n\t.balign 8\n\t" \
				".quad 1b, 2b\n\t.popsection\n\t"

/*
 * restartable_pop(key, size_off, objs_off) - take the top word of the
 * stack and lower its size: the word, or NULL (nothing done) when the
 * stack is empty. Words on the stack are never NULL.
 */
#define restartable_pop(key, size_off, objs_off) \
	arch_restartable_pop("ldr %[sh], [%[b], %[k]]", __my_cpu_base(), key, size_off, objs_off)
/* restartable_pop_at(arr, idx, ...) - the same, the stack's pointer arr[idx] (plain memory). */
#define restartable_pop_at(arr, idx, size_off, objs_off) \
	arch_restartable_pop("ldr %[sh], [%[b], %[k], lsl #3]", arr, idx, size_off, objs_off)
#define arch_restartable_pop(load, base, key, size_off, objs_off)                         \
	({                                                                                \
		__label__ rp_empty, rp_done;                                              \
		unsigned long rp_b = (unsigned long)(base), rp_sh, rp_n, rp_t;                           \
		void *rp_x;                                                               \
		__asm__ __volatile__ goto("1:\t" load "\n\t"                     \
			     "ldr %[n], [%[sh], %[so]]\n\t"                               \
			     "subs %[n], %[n], #1\n\t"                                    \
			     "b.lo %l[rp_empty]\n\t"                                      \
			     "add %[t], %[sh], %[oo]\n\t"                                 \
			     "ldr %[x], [%[t], %[n], lsl #3]\n"                           \
			     "2:\tstr %[n], [%[sh], %[so]]\n\t" ARCH_RESTART_ENTRY        \
			     : [sh] "=&r"(rp_sh), [n] "=&r"(rp_n), [t] "=&r"(rp_t),        \
			       [x] "=&r"(rp_x)                                            \
			     : [b] "r"(rp_b), [k] "r"(key), [so] "i"(size_off), [oo] "i"(objs_off)      \
			     : "memory", "cc"                                             \
			     : rp_empty);                                                 \
		if (!rp_x)	/* never: the stack holds no NULL (lets the caller's test go) */ \
			__builtin_unreachable();                                          \
		goto rp_done;                                                             \
rp_empty:                                                                                 \
		rp_x = NULL;                                                              \
rp_done:                                                                                  \
		rp_x;                                                                     \
	})

/*
 * restartable_push(key, size_off, cap_off, objs_off, obj, word, val) - when
 * the stack has room: store val at *word (a word of the caller's, such as
 * one inside obj), put obj on top and raise the size; true. False, nothing
 * stored, when the stack is full.
 */
#define restartable_push(key, size_off, cap_off, objs_off, obj, word, val)                 \
	arch_restartable_push("ldr %[sh], [%[b], %[k]]", __my_cpu_base(), key, size_off, cap_off, \
			      objs_off, obj, word, val)
/* restartable_push_at(arr, idx, ...) - the same, the stack's pointer arr[idx] (plain memory). */
#define restartable_push_at(arr, idx, size_off, cap_off, objs_off, obj, word, val)          \
	arch_restartable_push("ldr %[sh], [%[b], %[k], lsl #3]", arr, idx, size_off, cap_off,   \
			      objs_off, obj, word, val)
#define arch_restartable_push(load, base, key, size_off, cap_off, objs_off, obj, word, val)   \
	({                                                                                \
		__label__ rp_full, rp_done;                                               \
		unsigned long rp_b = (unsigned long)(base), rp_sh, rp_n, rp_t;                           \
		bool rp_ok;                                                               \
		__asm__ __volatile__ goto("1:\t" load "\n\t"                     \
			     "ldr %[n], [%[sh], %[so]]\n\t"                               \
			     "ldr %[t], [%[sh], %[co]]\n\t"                               \
			     "cmp %[n], %[t]\n\t"                                         \
			     "b.hs %l[rp_full]\n\t"                                       \
			     "str %[v], [%[w]]\n\t"                                       \
			     "add %[t], %[sh], %[oo]\n\t"                                 \
			     "str %[x], [%[t], %[n], lsl #3]\n\t"                         \
			     "add %[n], %[n], #1\n"                                       \
			     "2:\tstr %[n], [%[sh], %[so]]\n\t" ARCH_RESTART_ENTRY        \
			     : [sh] "=&r"(rp_sh), [n] "=&r"(rp_n), [t] "=&r"(rp_t)        \
			     : [b] "r"(rp_b), [k] "r"(key), [x] "r"(obj), [w] "r"(word), [v] "r"(val),    \
			       [so] "i"(size_off), [co] "i"(cap_off), [oo] "i"(objs_off)  \
			     : "memory", "cc"                                             \
			     : rp_full);                                                  \
		rp_ok = true;                                                             \
		goto rp_done;                                                             \
rp_full:                                                                                  \
		rp_ok = false;                                                            \
rp_done:                                                                                  \
		rp_ok;                                                                    \
	})

#endif
