/*
 * test_string.c - the kernel's memset, memcpy and memmove (kernel/string.c,
 * wide stores and copies through <asm/string.h>) against a byte at a time,
 * kernel only (the host build uses libc's): every destination and source
 * alignment 0-15, every length 0-200 and some past a page, memmove's
 * overlaps both ways at every distance 1-40; the bytes around each
 * destination must be untouched.
 */
#include "kernel/selftest.h"
#include "kernel/string.h"
#include "mm/buddy.h"
#include <stdint.h>

#define STR_ORDER	2	/* four pages: room for a page-and-more copy and its guards */
#define STR_GUARD	32

/* A byte pattern that differs at every offset and from one buffer to another. */
static unsigned char pat(size_t i, unsigned int seed)
{
	return (unsigned char)(i * 131 + seed * 29 + (i >> 8) * 7 + 1);
}

static void fill(volatile unsigned char *b, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = pat(i, seed);
}

/* The first byte of [0, n) where buf differs from want (a byte at a time), or -1. */
static long differs(const volatile unsigned char *buf, const volatile unsigned char *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (buf[i] != want[i])
			return (long)i;
	return -1;
}

static const size_t big_lengths[] = { 255, 256, 257, 1000, 4095, 4096, 4097, 5000 };

/* Each length to test: 0..200, then the big ones. */
static size_t length_at(unsigned int k)
{
	return k <= 200 ? k : big_lengths[k - 201];
}

#define NR_LENGTHS	(201 + ARRAY_SIZE(big_lengths))

SELFTEST(string_memset_every_alignment_and_length)
{
	unsigned char *buf = get_free_pages(STR_ORDER), *want = get_free_pages(STR_ORDER);
	size_t span = PAGE_SIZE << STR_ORDER;

	ST_EXPECT(buf && want, "no pages");
	for (unsigned int a = 0; a < 16; a++) {
		for (unsigned int k = 0; k < NR_LENGTHS; k++) {
			size_t n = length_at(k);
			int c = (int)(a * 17 + k) - 100;	/* negative values too: only the low byte */
			long at;

			if (STR_GUARD + a + n + STR_GUARD > span)
				continue;
			fill(buf, STR_GUARD + a + n + STR_GUARD, k);
			fill(want, STR_GUARD + a + n + STR_GUARD, k);
			for (size_t i = 0; i < n; i++)
				((volatile unsigned char *)want)[STR_GUARD + a + i] = (unsigned char)c;
			ST_EXPECT(memset(buf + STR_GUARD + a, c, n) == buf + STR_GUARD + a,
				  "memset did not return its destination");
			at = differs(buf, want, STR_GUARD + a + n + STR_GUARD);
			ST_EXPECT(at < 0, "memset(+%u, %d, %zu): byte %ld is 0x%02x, not 0x%02x", a, c,
				  n, at - (long)(STR_GUARD + a), buf[at], want[at]);
		}
	}
	free_pages_addr(buf, STR_ORDER);
	free_pages_addr(want, STR_ORDER);
	return 0;
}

SELFTEST(string_memcpy_every_alignment_and_length)
{
	unsigned char *buf = get_free_pages(STR_ORDER), *want = get_free_pages(STR_ORDER);
	unsigned char *src = get_free_pages(STR_ORDER);
	size_t span = PAGE_SIZE << STR_ORDER;

	ST_EXPECT(buf && want && src, "no pages");
	fill(src, span, 99);
	for (unsigned int da = 0; da < 16; da++) {
		for (unsigned int sa = 0; sa < 16; sa++) {
			for (unsigned int k = 0; k < NR_LENGTHS; k += (k < 64 ? 1 : 7)) {
				size_t n = length_at(k);
				long at;

				if (STR_GUARD + 16 + n + STR_GUARD > span)
					continue;
				fill(buf, STR_GUARD + da + n + STR_GUARD, k);
				fill(want, STR_GUARD + da + n + STR_GUARD, k);
				for (size_t i = 0; i < n; i++)
					((volatile unsigned char *)want)[STR_GUARD + da + i] = src[sa + i];
				ST_EXPECT(memcpy(buf + STR_GUARD + da, src + sa, n) == buf + STR_GUARD + da,
					  "memcpy did not return its destination");
				at = differs(buf, want, STR_GUARD + da + n + STR_GUARD);
				ST_EXPECT(at < 0, "memcpy(+%u, +%u, %zu): byte %ld is 0x%02x, not 0x%02x",
					  da, sa, n, at - (long)(STR_GUARD + da), buf[at], want[at]);
			}
		}
	}
	free_pages_addr(buf, STR_ORDER);
	free_pages_addr(want, STR_ORDER);
	free_pages_addr(src, STR_ORDER);
	return 0;
}

SELFTEST(string_memmove_overlaps_both_ways)
{
	unsigned char *buf = get_free_pages(STR_ORDER), *want = get_free_pages(STR_ORDER);
	size_t span = PAGE_SIZE << STR_ORDER, base = STR_GUARD + 64;

	ST_EXPECT(buf && want, "no pages");
	for (unsigned int a = 0; a < 16; a++) {
		for (unsigned int dist = 0; dist <= 40; dist++) {
			for (unsigned int k = 0; k < NR_LENGTHS; k += (k < 80 ? 1 : 11)) {
				size_t n = length_at(k);

				if (base + a + dist + n + STR_GUARD > span)
					continue;
				for (int up = 0; up < 2; up++) {
					/* up: dst = src + dist (copy from the end); else dst = src - dist */
					size_t s = base + a + (up ? 0 : dist), d = base + a + (up ? dist : 0);
					size_t lim = base + a + dist + n + STR_GUARD;
					long at;

					fill(buf + base - STR_GUARD, lim - (base - STR_GUARD), k + dist);
					fill(want + base - STR_GUARD, lim - (base - STR_GUARD), k + dist);
					if (up) {
						for (size_t i = n; i; i--)
							((volatile unsigned char *)want)[d + i - 1] = want[s + i - 1];
					} else {
						for (size_t i = 0; i < n; i++)
							((volatile unsigned char *)want)[d + i] = want[s + i];
					}
					ST_EXPECT(memmove(buf + d, buf + s, n) == buf + d,
						  "memmove did not return its destination");
					at = differs(buf + base - STR_GUARD, want + base - STR_GUARD,
						     lim - (base - STR_GUARD));
					at = at < 0 ? at : at + (long)(base - STR_GUARD);
					ST_EXPECT(at < 0, "memmove(%s %u, alignment %u, %zu bytes): byte %ld "
						  "(from the destination) is 0x%02x, not 0x%02x",
						  up ? "up" : "down", dist, a, n, at - (long)d, buf[at], want[at]);
				}
			}
		}
	}
	free_pages_addr(buf, STR_ORDER);
	free_pages_addr(want, STR_ORDER);
	return 0;
}
