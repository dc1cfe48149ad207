/*
 * asm/restart.h - restartable per-CPU sequences on x86_64 (kernel/restart.h
 * says what they are). Each is one asm block: its first instruction is
 * labelled 1, its commit (the one store that publishes it) 2, and the pair
 * goes into the section restart_table, which linker.ld collects; x86_trap
 * moves an interrupt's return address back to 1 when it lies in [1, 2].
 * Every output is early-clobbered: a restart reads the inputs again, so
 * no output may share their registers. The stack operated on is this CPU's: its pointer is the per-CPU word at
 * 'key' (a per-CPU key, reached %gs-relative), and size_off, cap_off and
 * objs_off are the byte offsets of its size, capacity and word array.
 */
#ifndef ASM_RESTART_H
#define ASM_RESTART_H

#define ARCH_HAS_RESTARTABLE	1

#define ARCH_RESTART_ENTRY	".pushsection restart_table, \"a\"\n\t.balign 8\n\t" \
				".quad 1b, 2b\n\t.popsection\n\t"

/*
 * restartable_pop(key, size_off, objs_off) - take the top word of the
 * stack and lower its size: the word (in %rax, where a function returns
 * it), or NULL (nothing done) when the stack is empty. Words on the stack
 * are never NULL.
 */
#define restartable_pop(key, size_off, objs_off) \
	arch_restartable_pop("mov %%gs:(%[k]), %[sh]", "i", 0, key, size_off, objs_off)
/* restartable_pop_at(arr, idx, ...) - the same, the stack's pointer arr[idx] (plain memory). */
#define restartable_pop_at(arr, idx, size_off, objs_off) \
	arch_restartable_pop("mov (%[b],%[k],8), %[sh]", "r", arr, idx, size_off, objs_off)
#define arch_restartable_pop(load, bcons, base, key, size_off, objs_off)                   \
	({                                                                                \
		__label__ rp_empty, rp_done;                                              \
		unsigned long rp_sh, rp_n;                                                \
		void *rp_x;                                                               \
		__asm__ __volatile__ goto("1:\t" load "\n\t"                              \
			     "mov %c[so](%[sh]), %[n]\n\t"                                \
			     "sub $1, %[n]\n\t"                                           \
			     "jb %l[rp_empty]\n\t"                                        \
			     "mov %c[oo](%[sh],%[n],8), %[x]\n"                           \
			     "2:\tmov %[n], %c[so](%[sh])\n\t" ARCH_RESTART_ENTRY         \
			     : [sh] "=&r"(rp_sh), [n] "=&r"(rp_n), [x] "=&a"(rp_x)         \
			     : [b] bcons(base), [k] "r"(key), [so] "i"(size_off),         \
			       [oo] "i"(objs_off)                                         \
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
	arch_restartable_push("mov %%gs:(%[k]), %[sh]", "i", 0, key, size_off, cap_off, objs_off, \
			      obj, word, val)
/* restartable_push_at(arr, idx, ...) - the same, the stack's pointer arr[idx] (plain memory). */
#define restartable_push_at(arr, idx, size_off, cap_off, objs_off, obj, word, val)          \
	arch_restartable_push("mov (%[b],%[k],8), %[sh]", "r", arr, idx, size_off, cap_off,     \
			      objs_off, obj, word, val)
#define arch_restartable_push(load, bcons, base, key, size_off, cap_off, objs_off, obj, word, \
			      val)                                                           \
	({                                                                                \
		__label__ rp_full, rp_done;                                               \
		unsigned long rp_sh, rp_n;                                                \
		bool rp_ok;                                                               \
		__asm__ __volatile__ goto("1:\t" load "\n\t"                              \
			     "mov %c[so](%[sh]), %[n]\n\t"                                \
			     "cmp %c[co](%[sh]), %[n]\n\t"                                \
			     "jae %l[rp_full]\n\t"                                        \
			     "mov %[v], (%[w])\n\t"                                       \
			     "mov %[x], %c[oo](%[sh],%[n],8)\n\t"                         \
			     "add $1, %[n]\n"                                             \
			     "2:\tmov %[n], %c[so](%[sh])\n\t" ARCH_RESTART_ENTRY         \
			     : [sh] "=&r"(rp_sh), [n] "=&r"(rp_n)                         \
			     : [b] bcons(base), [k] "r"(key), [x] "r"(obj), [w] "r"(word),  \
			       [v] "r"(val),                                              \
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
