/*
 * asm/cmpxchg.h - double-word compare-and-exchange on arm64 (LDXP/STXP).
 *
 * Both forms work on a pair of unsigned longs at a 16-byte aligned address
 * p (LDXP of two X registers faults otherwise): if p[0] == o1 and
 * p[1] == o2 they store n1, n2 there and return true, else they change
 * nothing and return false. Each is a load-exclusive pair, a compare (cmp,
 * ccmp: the result is the Z flag, handed to the caller as the asm's
 * output), and a store-exclusive pair that fails, and sends the loop back
 * to the load, if anything cleared the exclusive monitor in between: a
 * write to the pair by another CPU, a successful store-exclusive on this
 * CPU (an interrupt handler's own update), or an exception return.
 *
 *  - arch_cmpxchg_double: for pairs other CPUs update too. The store is a
 *    store-release and a dmb ish follows a success, so it orders like a
 *    full barrier (everything before is visible before the new pair;
 *    nothing after is done before it). A failed compare orders nothing.
 *  - arch_this_cpu_cmpxchg_double: for the running CPU's copy of a per-CPU
 *    pair (from this_cpu_ptr, stable because Quarry never migrates). Only
 *    this CPU and its interrupt handlers write the pair, so no barrier is
 *    needed: a compiler barrier only. Callers that update such a pair with
 *    interrupts off should also do it with this call rather than plain
 *    stores, so that the interrupted code's store-exclusive is sure to fail.
 *  - arch_this_cpu_try_cmpxchg_double: the same, but on failure *o1 and *o2
 *    receive the pair as read again after it (the second word first: a
 *    tid before its freelist); reading again rather than handing out the
 *    load-exclusive's registers keeps the success path free of copies.
 *  - arch_this_cpu_try_cmpxchg: one word of the running CPU's per-CPU data
 *    (LDXR/STXR, no barrier); *o as above.
 *  - arch_this_cpu_cmpxchg_double_goto, arch_this_cpu_cmpxchg_goto: the
 *    same two updates as statements that jump to the caller's label 'fail'
 *    when the compare fails (asm goto), for fast paths whose failure path
 *    reads the data again anyway: the success path then pays no test of a
 *    result after the loop (one instruction less than the flag output's
 *    b.eq). Their scratch registers are x16 and x17 (the intra-procedure
 *    call registers, free inside a function), so the asm needs no output.
 *    ARCH_HAVE_THIS_CPU_CMPXCHG_GOTO says they exist (mm/slub/slub_def.h falls
 *    back on the try forms elsewhere).
 *
 * LDXP/STXP are ARMv8.0: arch_has_cmpxchg_double() is always true. (CASP,
 * ARMv8.1 LSE, would do the same in one instruction on CPUs that have it.)
 */
#ifndef ASM_CMPXCHG_H
#define ASM_CMPXCHG_H

#include <stdbool.h>

#define ARCH_CMPXCHG_DOUBLE_NAME "LDXP/STXP"

static inline bool arch_has_cmpxchg_double(void)
{
	return true;
}

/* arch_cmpxchg_double - see above: atomic against all CPUs, ordered like a full barrier. */
static __attribute__((always_inline)) inline bool
arch_cmpxchg_double(void *p, unsigned long o1, unsigned long o2, unsigned long n1,
		    unsigned long n2)
{
	unsigned long t1, t2;
	bool ok;

	__asm__ __volatile__("1:	ldxp	%[t1], %[t2], %[m]\n"
			     "	cmp	%[t1], %[o1]\n"
			     "	ccmp	%[t2], %[o2], #0, eq\n"
			     "	b.ne	2f\n"
			     "	stlxp	%w[t1], %[n1], %[n2], %[m]\n"
			     "	cbnz	%w[t1], 1b\n"
			     "	dmb	ish\n"
			     "2:"
			     : "=@cceq"(ok), [t1] "=&r"(t1), [t2] "=&r"(t2),
			       [m] "+Q"(*(unsigned __int128 *)p)
			     : [o1] "r"(o1), [o2] "r"(o2), [n1] "r"(n1), [n2] "r"(n2)
			     : "memory");
	return ok;
}

/* arch_this_cpu_cmpxchg_double - see above: the running CPU's per-CPU pair only. */
static __attribute__((always_inline)) inline bool
arch_this_cpu_cmpxchg_double(void *p, unsigned long o1, unsigned long o2, unsigned long n1,
			     unsigned long n2)
{
	unsigned long t1, t2;
	bool ok;

	__asm__ __volatile__("1:	ldxp	%[t1], %[t2], %[m]\n"
			     "	cmp	%[t1], %[o1]\n"
			     "	ccmp	%[t2], %[o2], #0, eq\n"
			     "	b.ne	2f\n"
			     "	stxp	%w[t1], %[n1], %[n2], %[m]\n"
			     "	cbnz	%w[t1], 1b\n"
			     "2:"
			     : "=@cceq"(ok), [t1] "=&r"(t1), [t2] "=&r"(t2),
			       [m] "+Q"(*(unsigned __int128 *)p)
			     : [o1] "r"(o1), [o2] "r"(o2), [n1] "r"(n1), [n2] "r"(n2)
			     : "memory");
	return ok;
}

/* arch_this_cpu_try_cmpxchg_double - see above: the running CPU's pair; *o1, *o2 updated. */
static __attribute__((always_inline)) inline bool
arch_this_cpu_try_cmpxchg_double(void *p, unsigned long *o1, unsigned long *o2,
				 unsigned long n1, unsigned long n2)
{
	unsigned long t1, t2;
	unsigned int st;
	bool ok;

	__asm__ __volatile__("1:	ldxp	%[t1], %[t2], %[m]\n"
			     "	cmp	%[t1], %[o1]\n"
			     "	ccmp	%[t2], %[o2], #0, eq\n"
			     "	b.ne	2f\n"
			     "	stxp	%w[st], %[n1], %[n2], %[m]\n"
			     "	cbnz	%w[st], 1b\n"
			     "2:"
			     : "=@cceq"(ok), [t1] "=&r"(t1), [t2] "=&r"(t2), [st] "=&r"(st),
			       [m] "+Q"(*(unsigned __int128 *)p)
			     : [o1] "r"(*o1), [o2] "r"(*o2), [n1] "r"(n1), [n2] "r"(n2)
			     : "memory");
	if (!ok) {	/* read again, second word first (a tid before its freelist) */
		*o2 = ((volatile unsigned long *)p)[1];
		__asm__ __volatile__("" ::: "memory");
		*o1 = ((volatile unsigned long *)p)[0];
	}
	return ok;
}

/* arch_this_cpu_try_cmpxchg - see above: one word of the running CPU's data; *o updated. */
static __attribute__((always_inline)) inline bool
arch_this_cpu_try_cmpxchg(unsigned long *p, unsigned long *o, unsigned long n)
{
	unsigned long t;
	unsigned int st;
	bool ok;

	__asm__ __volatile__("1:	ldxr	%[t], %[m]\n"
			     "	cmp	%[t], %[o]\n"
			     "	b.ne	2f\n"
			     "	stxr	%w[st], %[n], %[m]\n"
			     "	cbnz	%w[st], 1b\n"
			     "2:"
			     : "=@cceq"(ok), [t] "=&r"(t), [st] "=&r"(st), [m] "+Q"(*p)
			     : [o] "r"(*o), [n] "r"(n)
			     : "memory");
	if (!ok)
		*o = *(volatile unsigned long *)p;
	return ok;
}

/* The goto forms' memory operands, which may alias the caller's types (a freelist is a void *). */
typedef unsigned long __attribute__((__may_alias__)) arch_cmpxchg_word_t;
typedef unsigned __int128 __attribute__((__may_alias__)) arch_cmpxchg_pair_t;

/* arch_this_cpu_cmpxchg_double_goto - see above: the running CPU's pair; goto fail when unequal. */
#define ARCH_HAVE_THIS_CPU_CMPXCHG_GOTO
#define arch_this_cpu_cmpxchg_double_goto(_p, _o1, _o2, _n1, _n2, _fail)                       \
	__asm__ goto("1:	ldxp	x16, x17, %[m]\n"                                  \
		     "	cmp	x16, %[o1]\n"                                              \
		     "	ccmp	x17, %[o2], #0, eq\n"                                     \
		     "	b.ne	%l[" #_fail "]\n"                                           \
		     "	stxp	w16, %[n1], %[n2], %[m]\n"                                 \
		     "	cbnz	w16, 1b\n"                                                 \
		     :                                                                    \
		     : [m] "Q"(*(arch_cmpxchg_pair_t *)(_p)), [o1] "r"(_o1), [o2] "r"(_o2),      \
		       [n1] "r"(_n1), [n2] "r"(_n2)                                      \
		     : "x16", "x17", "cc", "memory"                                       \
		     : _fail)

/* arch_this_cpu_cmpxchg_goto - see above: one word of the running CPU's data; goto fail when unequal. */
#define arch_this_cpu_cmpxchg_goto(_p, _o, _n, _fail)                                         \
	__asm__ goto("1:	ldxr	x16, %[m]\n"                                       \
		     "	cmp	x16, %[o]\n"                                               \
		     "	b.ne	%l[" #_fail "]\n"                                           \
		     "	stxr	w17, %[n], %[m]\n"                                         \
		     "	cbnz	w17, 1b\n"                                                 \
		     :                                                                    \
		     : [m] "Q"(*(arch_cmpxchg_word_t *)(_p)), [o] "r"(_o), [n] "r"(_n)              \
		     : "x16", "x17", "cc", "memory"                                       \
		     : _fail)

#endif
