/*
 * asm/barrier.h - CPU memory barriers on arm64 (weakly ordered: every kind
 * of reordering needs a barrier; inner-shareable covers all CPUs).
 */
#ifndef ASM_BARRIER_H
#define ASM_BARRIER_H

/* Full barrier: every earlier load and store before every later one. */
#define mb()	__asm__ __volatile__("dmb ish" : : : "memory")
/* Earlier loads before later loads and stores. */
#define rmb()	__asm__ __volatile__("dmb ishld" : : : "memory")
/* Earlier stores before later stores. */
#define wmb()	__asm__ __volatile__("dmb ishst" : : : "memory")

#endif
