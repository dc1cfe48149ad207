/*
 * asm/barrier.h - CPU memory barriers on x86_64 (TSO: only store->load needs a fence).
 */
#ifndef ASM_BARRIER_H
#define ASM_BARRIER_H

/* Full barrier: orders every earlier load and store before every later one. */
#define mb()	__asm__ __volatile__("mfence" : : : "memory")
/* Loads before later loads: x86 never reorders loads, a compiler barrier suffices. */
#define rmb()	__asm__ __volatile__("" : : : "memory")
/* Stores before later stores: likewise already ordered by the CPU. */
#define wmb()	__asm__ __volatile__("" : : : "memory")

#endif
