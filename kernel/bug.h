/*
 * bug.h - panic and assertions. Every report names file, line, the failed
 * expression and the CPU it happened on.
 */
#ifndef QUARRY_BUG_H
#define QUARRY_BUG_H

#include "kernel/compiler.h"

/*
 * panic - print the message with "PANIC" on the console, stop the other CPUs
 * and leave with a failure status. Never returns.
 */
void panic(const char *fmt, ...) __printf(1, 2) __noreturn;

void __bug(const char *file, int line, const char *expr) __noreturn;
void __warn(const char *file, int line, const char *expr);

/* BUG_ON(cond): a broken invariant; panics naming file, line, expression, CPU. */
#define BUG_ON(cond)                                                        \
	do {                                                                \
		if (unlikely(cond))                                         \
			__bug(__FILE__, __LINE__, #cond);                   \
	} while (0)

#define BUG() __bug(__FILE__, __LINE__, "BUG()")

/* ASSERT(cond): the positive form of BUG_ON. */
#define ASSERT(cond) BUG_ON(!(cond))

/*
 * ASSERT_DEBUG - ASSERT in the builds that check (SLAB_DEBUG=1 kernels and
 * every host build), nothing elsewhere, where cond is not evaluated: for
 * preconditions of paths the benchmarks time, whose figures an always-on
 * check would move.
 */
#if (defined(CONFIG_SLAB_DEBUG) && CONFIG_SLAB_DEBUG) || defined(QUARRY_HOST)
#define ASSERT_DEBUG(cond) ASSERT(cond)
#else
#define ASSERT_DEBUG(cond) ((void)0)
#endif

/* WARN_ON(cond): report once per call, keep going; evaluates to cond. */
#define WARN_ON(cond)                                                       \
	({                                                                  \
		bool __w = !!(cond);                                        \
		if (unlikely(__w))                                          \
			__warn(__FILE__, __LINE__, #cond);                  \
		__w;                                                        \
	})

#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)

#endif
