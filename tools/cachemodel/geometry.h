/*
 * geometry.h - the cache model's default machine: a current server core of
 * the AMD Zen 4 (EPYC 9004) class, one core's private levels and one CCD's
 * shared last-level cache. The plugin starts from these (every one can be
 * changed with a plugin argument, README in this folder) and the kernel's
 * synthetic patterns (modeltest.c) size their working sets from them.
 */
#ifndef TOOLS_CACHEMODEL_GEOMETRY_H
#define TOOLS_CACHEMODEL_GEOMETRY_H

#define CM_LINE		64			/* bytes per line, every level */
#define CM_L1D_SIZE	(32u << 10)		/* L1 data: 32 KiB, 8-way */
#define CM_L1D_WAYS	8
#define CM_L1I_SIZE	(32u << 10)		/* L1 instructions: 32 KiB, 8-way */
#define CM_L1I_WAYS	8
#define CM_L2_SIZE	(1u << 20)		/* private unified L2: 1 MiB, 8-way */
#define CM_L2_WAYS	8
#define CM_LLC_SIZE	(32u << 20)		/* shared L3: 32 MiB, 16-way */
#define CM_LLC_WAYS	16
#define CM_DTLB_ENTRIES	72			/* first-level data TLB, fully associative */
#define CM_DTLB_WAYS	72
#define CM_ITLB_ENTRIES	64			/* first-level instruction TLB, fully associative */
#define CM_ITLB_WAYS	64
#define CM_STLB_ENTRIES	3072			/* second-level TLB (both sides): 24-way */
#define CM_STLB_WAYS	24

/* Latencies in cycles for the modelled-cycles figure. */
#define CM_LAT_L1	4
#define CM_LAT_L2	14
#define CM_LAT_LLC	40
#define CM_LAT_MEM	200
#define CM_LAT_WALK	20			/* per page-table level read on a walk */

/* x86_64 rep stos/movs as a fast-string engine runs them (README.md gives the sources):
 * the start-up cycles of a run, and the bytes it stores a cycle. */
#define CM_REP_START	35
#define CM_REP_RATE	32

#endif
