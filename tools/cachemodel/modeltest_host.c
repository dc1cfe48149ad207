/*
 * modeltest_host.c - the kernel's modeltest patterns (modeltest.h) as a
 * Linux program, for cachegrind to count with the same geometry
 * (tools/cachemodel/cachegrind.sh). `modeltest-host NAME` runs the pattern
 * NAME over a buffer of MT_MAX_BLOCKS 4 MiB blocks: every page touched
 * first (mt_prepare), one warming sweep (mt_warm), then MT_PASSES sweeps in
 * mt_measured, the function whose counts are compared with the plugin's
 * region. `modeltest-host` alone lists the patterns.
 */
#include "tools/cachemodel/modeltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct mt_pattern patterns[] = MT_PATTERNS;

__attribute__((noinline)) static void mt_prepare(char *buf)
{
	memset(buf, 0, MT_MAX_BLOCKS * MT_BLOCK);
}

__attribute__((noinline)) static unsigned long mt_warm(const char *buf, const struct mt_pattern *p)
{
	return mt_pass(buf, p->blocks, p->span, p->stride);
}

__attribute__((noinline)) static unsigned long mt_measured(const char *buf, unsigned long blocks,
							   unsigned long span, unsigned long stride)
{
	unsigned long sum = 0;

	for (int i = 0; i < MT_PASSES; i++)
		sum += mt_pass(buf, blocks, span, stride);
	return sum;
}

int main(int argc, char **argv)
{
	const struct mt_pattern *p = NULL;
	char *buf;

	for (int i = 0; i < MT_NR_PATTERNS; i++) {
		if (argc < 2)
			printf("%s\n", patterns[i].name);
		else if (!strcmp(argv[1], patterns[i].name))
			p = &patterns[i];
	}
	if (argc < 2)
		return 0;
	if (!p) {
		fprintf(stderr, "modeltest-host: no pattern named '%s' (run it alone for the list)\n",
			argv[1]);
		return 2;
	}
	buf = aligned_alloc(MT_BLOCK, MT_MAX_BLOCKS * MT_BLOCK);
	if (!buf) {
		fprintf(stderr, "modeltest-host: no memory for %d blocks of %lu bytes\n",
			MT_MAX_BLOCKS, MT_BLOCK);
		return 1;
	}
	mt_prepare(buf);
	unsigned long sum = mt_warm(buf, p);
	sum += mt_measured(buf, p->blocks, p->span, p->stride);
	printf("%s: checksum %lu\n", p->name, sum);
	free(buf);
	return 0;
}
