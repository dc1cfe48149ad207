/*
 * modeltest.h - synthetic access patterns that check the cache model: read
 * loops whose working sets sit just under or just over each cache level's
 * capacity, each TLB's reach, and one set's ways, so that every miss count
 * is known exactly (tools/cachemodel/check.py works it out from the
 * addresses and the plugin's geometry). The same loops run in the kernel
 * (modeltest.c, the "modeltest" command) and on the host under cachegrind
 * (modeltest_host.c).
 *
 * A pattern reads one byte every `stride` bytes over the first `span` bytes
 * of each of `blocks` consecutive 4 MiB blocks of one buffer: once to warm
 * the caches, then MT_PASSES more times inside its region (id = its index +
 * 1). Under LRU a cyclic sweep either fits a set (no misses once warm) or
 * misses on every access to it, so the counts are exact.
 */
#ifndef TOOLS_CACHEMODEL_MODELTEST_H
#define TOOLS_CACHEMODEL_MODELTEST_H

#include "tools/cachemodel/geometry.h"
#include <stdbool.h>

#define MT_BLOCK	(4ul << 20)
#define MT_PASSES	2
#define MT_MAX_BLOCKS	37		/* the largest pattern's */

struct mt_pattern {
	const char *name;
	unsigned long blocks, span, stride;
};

/* Lines per set "just under" and "just over" a level: ways - 1 and ways + 1. */
#define MT_UNDER(size, ways)	((size) / (ways) * ((ways) - 1))
#define MT_OVER(size, ways)	((size) / (ways) * ((ways) + 1))

#define MT_PATTERNS { \
	{ "l1d-under",	1, MT_UNDER(CM_L1D_SIZE, CM_L1D_WAYS), CM_LINE }, \
	{ "l1d-over",	1, MT_OVER(CM_L1D_SIZE, CM_L1D_WAYS), CM_LINE }, \
	{ "l1d-set-fit", 1, MT_UNDER(CM_L1D_SIZE, CM_L1D_WAYS), CM_L1D_SIZE / CM_L1D_WAYS }, \
	{ "l1d-set-over", 1, MT_OVER(CM_L1D_SIZE, CM_L1D_WAYS), CM_L1D_SIZE / CM_L1D_WAYS }, \
	{ "l2-under",	1, MT_UNDER(CM_L2_SIZE, CM_L2_WAYS), CM_LINE }, \
	{ "l2-over",	1, MT_OVER(CM_L2_SIZE, CM_L2_WAYS), CM_LINE }, \
	{ "l2-stride128-over", 1, MT_OVER(CM_L2_SIZE, CM_L2_WAYS), 2 * CM_LINE }, \
	{ "llc-under",	7, MT_BLOCK, CM_LINE }, \
	{ "llc-over",	9, MT_BLOCK, CM_LINE }, \
	{ "dtlb2m-under", 35, MT_BLOCK, 2ul << 20 }, \
	{ "dtlb2m-over", 37, MT_BLOCK, 2ul << 20 }, \
	{ "dtlb4k-under", 1, (CM_DTLB_ENTRIES - 1) * 4096ul, 4096 }, \
	{ "dtlb4k-over", 1, (CM_DTLB_ENTRIES + 1) * 4096ul, 4096 }, \
	{ "stlb4k-under", CM_STLB_WAYS - 1, CM_STLB_ENTRIES / CM_STLB_WAYS * 4096ul, 4096 }, \
	{ "stlb4k-over", CM_STLB_WAYS + 1, CM_STLB_ENTRIES / CM_STLB_WAYS * 4096ul, 4096 }, \
}
#define MT_NR_PATTERNS	15

/*
 * mt_pass - one sweep of a pattern over the buffer at base; returns the sum
 * of the bytes read (so the reads stay). Everything lives in registers: the
 * only memory accesses are the reads of the buffer.
 */
static inline unsigned long mt_pass(const char *base, unsigned long blocks, unsigned long span,
				    unsigned long stride)
{
	unsigned long sum = 0;

	for (unsigned long b = 0; b < blocks; b++) {
		const char *blk = base + b * MT_BLOCK;

		for (unsigned long off = 0; off < span; off += stride)
			sum += *(const volatile unsigned char *)(blk + off);
	}
	return sum;
}

/*
 * The string patterns ("modeltest repstrings", x86_64): region ids from
 * MT_STRING_FIRST_ID, each MT_PASSES stores of MT_STRING_BYTES (or a sweep
 * of MT_STRING_L2_BYTES, more than L1D holds) done by one rep stos or rep
 * movs, or by a loop of plain 8-byte stores, after a warming one outside
 * the region (tools/cachemodel/strings_check.py works out their prices).
 */
#define MT_STRING_FIRST_ID	40
#define MT_STRING_BYTES		4096ul
#define MT_STRING_L2_BYTES	(2ul * CM_L1D_SIZE)

/*
 * modeltest_run - the kernel's "modeltest" command: every pattern (with
 * repstrings, the string patterns instead), in its region, over a buffer
 * of MT_MAX_BLOCKS physically consecutive blocks, with interrupts off;
 * prints the buffer's addresses and each pattern. Returns 0, or 1 when no
 * such buffer could be found or the string patterns were asked for on an
 * arch without them (said on the console).
 */
int modeltest_run(bool repstrings);

#endif
