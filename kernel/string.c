/*
 * string.c - the memory and string functions the kernel needs (GCC may emit
 * calls to memset/memcpy/memmove/memcmp itself). Kernel build only: the host
 * build uses libc's.
 *
 * memset, memcpy and memmove store and copy wide, through the arch's
 * <asm/string.h> (x86_64: rep stosq / movsq; arm64: stp / ldp pairs): a
 * kzalloc, a __GFP_ZERO page or a krealloc pays a few instructions per 8 or
 * 16 bytes instead of a byte loop's four or five per byte. A memmove whose
 * destination lies inside its source copies from the end, 8 bytes at a
 * time where the two share their alignment. This file is built with
 * -fno-tree-loop-distribute-patterns (Makefile): its own loops must not
 * become calls to the functions they implement.
 */
#include "kernel/string.h"
#include <asm/string.h>
#include <stdint.h>

void *memset(void *dst, int c, size_t n)
{
	arch_memset(dst, c, n);
	return dst;
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	arch_memcpy(dst, src, n);
	return dst;
}

/* The overlapping case with dst above src: from the last byte down. */
static void copy_backward(unsigned char *d, const unsigned char *s, size_t n)
{
	if (!(((uintptr_t)d ^ (uintptr_t)s) & 7)) {
		for (; n && ((uintptr_t)(d + n) & 7); n--)
			d[n - 1] = s[n - 1];
		for (; n >= 8; n -= 8)
			*(uint64_t *)(d + n - 8) = *(const uint64_t *)(s + n - 8);
	}
	for (; n; n--)
		d[n - 1] = s[n - 1];
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d <= s || d >= s + n)
		arch_memcpy_fwd(d, s, n);
	else
		copy_backward(d, s, n);
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b || !*a)
			return (unsigned char)*a - (unsigned char)*b;
	}
	return 0;
}
