/*
 * asm/string.h (x86_64) - the wide stores and copies behind kernel/string.c:
 * rep stosq / rep movsq move 8 bytes an iteration (QEMU -icount counts each
 * iteration one instruction; a real core runs them as fast string
 * operations), rep stosb / movsb the last 0-7 bytes where a copy may
 * overlap (memmove) or the whole is below 8 bytes. The direction flag is
 * clear, as the ABI keeps it (nothing here sets it).
 */
#ifndef ASM_STRING_H
#define ASM_STRING_H

#include <stddef.h>
#include <stdint.h>

/*
 * arch_memset - n bytes at dst set to c. From 8 bytes on: rep stosq, then
 * the last 0-7 bytes as one 8-byte store ending at dst + n (over bytes
 * already set): one string run, not two (a run has a start-up cost on real
 * cores, and the model prices it so). Below 8: rep stosb.
 */
static inline __attribute__((always_inline)) void arch_memset(void *dst, int c, size_t n)
{
	uint64_t v = 0x0101010101010101ULL * (unsigned char)c;
	size_t q = n >> 3;

	if (q) {
		char *last = (char *)dst + n - 8;

		__asm__ volatile("rep stosq" : "+D"(dst), "+c"(q) : "a"(v) : "memory");
		if (n & 7)
			__asm__ volatile("movq %1, (%0)" : : "r"(last), "r"(v) : "memory");
	} else {
		__asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(v) : "memory");
	}
}

/*
 * arch_memcpy - n bytes from src to dst, which do not overlap: as
 * arch_memset, rep movsq and the last 0-7 bytes as one 8-byte copy ending
 * at the end (a copy of bytes copied already), rep movsb below 8 bytes.
 */
static inline __attribute__((always_inline)) void arch_memcpy(void *dst, const void *src, size_t n)
{
	size_t q = n >> 3;

	if (q) {
		char *dlast = (char *)dst + n - 8;
		const char *slast = (const char *)src + n - 8;
		uint64_t t;

		__asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(q) : : "memory");
		if (n & 7)
			__asm__ volatile("movq (%1), %0\n\tmovq %0, (%2)"
					 : "=&r"(t) : "r"(slast), "r"(dlast) : "memory");
	} else {
		__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
	}
}

/*
 * arch_memcpy_fwd - n bytes from src to dst, first byte first: also right
 * for overlapping buffers with dst below src (each word is read before the
 * word written over it).
 */
static inline __attribute__((always_inline)) void arch_memcpy_fwd(void *dst, const void *src,
								   size_t n)
{
	size_t q = n >> 3, r = n & 7;

	__asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(q) : : "memory");
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(r) : : "memory");
}

#endif
