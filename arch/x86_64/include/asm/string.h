/*
 * asm/string.h (x86_64) - the wide stores and copies behind kernel/string.c:
 * rep stosq / rep movsq move 8 bytes an iteration (QEMU -icount counts each
 * iteration one instruction; a real core runs them as fast string
 * operations), rep stosb / movsb the last 0-7 bytes. The direction flag is
 * clear, as the ABI keeps it (nothing here sets it).
 */
#ifndef ASM_STRING_H
#define ASM_STRING_H

#include <stddef.h>
#include <stdint.h>

/* arch_memset - n bytes at dst set to c. */
static inline __attribute__((always_inline)) void arch_memset(void *dst, int c, size_t n)
{
	uint64_t v = 0x0101010101010101ULL * (unsigned char)c;
	size_t q = n >> 3, r = n & 7;

	__asm__ volatile("rep stosq" : "+D"(dst), "+c"(q) : "a"(v) : "memory");
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(r) : "a"(v) : "memory");
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
