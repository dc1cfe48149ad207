/*
 * asm/string.h (arm64) - the wide stores and copies behind kernel/string.c:
 * stp / ldp of two registers, 16 bytes an instruction, 64 bytes a loop
 * pass where there is room. Every access is aligned to its size (the head
 * and tail go a byte at a time), so they are right with the MMU off too,
 * where memory is Device memory and an unaligned access faults; copies go
 * wide only when source and destination share their alignment (16, else 8
 * bytes). No dc zva: it faults on Device memory.
 */
#ifndef ASM_STRING_H
#define ASM_STRING_H

#include <stddef.h>
#include <stdint.h>

/* arch_memset - n bytes at dst set to c. */
static inline __attribute__((always_inline)) void arch_memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	uint64_t v = 0x0101010101010101ULL * (unsigned char)c;
	size_t blocks;

	for (; n && ((uintptr_t)d & 15); n--)
		*d++ = (unsigned char)c;
	if ((blocks = n >> 6)) {
		__asm__ volatile("1:	stp %2, %2, [%0]\n\tstp %2, %2, [%0, #16]\n\t"
				 "stp %2, %2, [%0, #32]\n\tstp %2, %2, [%0, #48]\n\t"
				 "add %0, %0, #64\n\tsubs %1, %1, #1\n\tb.ne 1b"
				 : "+r"(d), "+r"(blocks) : "r"(v) : "memory", "cc");
		n &= 63;
	}
	if ((blocks = n >> 4)) {
		__asm__ volatile("1:	stp %2, %2, [%0], #16\n\tsubs %1, %1, #1\n\tb.ne 1b"
				 : "+r"(d), "+r"(blocks) : "r"(v) : "memory", "cc");
		n &= 15;
	}
	for (; n; n--)
		*d++ = (unsigned char)c;
}

/*
 * arch_memcpy_fwd - n bytes from src to dst, first byte first: also right
 * for overlapping buffers with dst below src (each pair is read before the
 * pair written over it).
 */
static inline __attribute__((always_inline)) void arch_memcpy_fwd(void *dst, const void *src,
								   size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	unsigned int align = !(((uintptr_t)d ^ (uintptr_t)s) & 15) ? 16 :
			     !(((uintptr_t)d ^ (uintptr_t)s) & 7) ? 8 : 1;
	size_t blocks;
	uint64_t a, b;

	for (; n && ((uintptr_t)d & (align - 1)); n--)
		*d++ = *s++;
	if (align == 16 && (blocks = n >> 4)) {
		__asm__ volatile("1:	ldp %3, %4, [%1], #16\n\tstp %3, %4, [%0], #16\n\t"
				 "subs %2, %2, #1\n\tb.ne 1b"
				 : "+r"(d), "+r"(s), "+r"(blocks), "=&r"(a), "=&r"(b) : : "memory", "cc");
		n &= 15;
	}
	if (align >= 8 && (blocks = n >> 3)) {
		__asm__ volatile("1:	ldr %3, [%1], #8\n\tstr %3, [%0], #8\n\t"
				 "subs %2, %2, #1\n\tb.ne 1b"
				 : "+r"(d), "+r"(s), "+r"(blocks), "=&r"(a) : : "memory", "cc");
		n &= 7;
	}
	for (; n; n--)
		*d++ = *s++;
}

/* arch_memcpy - n bytes from src to dst, which do not overlap: arch_memcpy_fwd. */
#define arch_memcpy(dst, src, n)	arch_memcpy_fwd(dst, src, n)

#endif
