/*
 * sim_test.c - unit tests of the cache model's LRU structure (sim.c), run
 * by test.sh: replacement is least-recently-used (not first-in), a hit
 * through the repeat shortcut still counts as a use, sets are chosen by
 * block number modulo the set count (any count, not only powers of two),
 * and impossible geometries are refused with a message naming them.
 * Prints PASS/FAIL lines; exit status 1 on any failure.
 */
#include "sim.h"

#include <stdio.h>
#include <string.h>

static int fails;

static void expect(const char *name, int ok, const char *what)
{
	printf("%s cachemodel-sim-%s%s%s\n", ok ? "PASS" : "FAIL", name, ok ? "" : ": ", ok ? "" : what);
	fails += !ok;
}

int main(void)
{
	struct sim s;
	char err[160];
	int ok;

	/* one set of two 64-byte ways: A B A C must evict B (LRU), not A (FIFO) */
	sim_init(&s, "T", 2, 2, 6, err, sizeof(err));
	sim_access(&s, 0x000);
	sim_access(&s, 0x040);
	sim_access(&s, 0x000);
	sim_access(&s, 0x080);
	ok = sim_access(&s, 0x000);		/* A still there */
	ok = ok && !sim_access(&s, 0x040);	/* B was evicted */
	expect("lru-not-fifo", ok, "A B A C then A, B: wanted A hit, B miss");
	sim_free(&s);

	/* the repeat shortcut: A B B A C: C evicts B (A was used after B) */
	sim_init(&s, "T", 2, 2, 6, err, sizeof(err));
	sim_access(&s, 0x000);
	sim_access(&s, 0x040);
	sim_access(&s, 0x044);			/* same line as B: shortcut hit */
	sim_access(&s, 0x000);
	sim_access(&s, 0x080);
	ok = sim_access(&s, 0x000) && !sim_access(&s, 0x040);
	expect("repeat-then-lru", ok, "A B B' A C then A, B: wanted A hit, B miss");
	sim_free(&s);

	/* three sets of one way: blocks 0 and 3 share set 0, 1 does not */
	sim_init(&s, "T", 3, 1, 6, err, sizeof(err));
	sim_access(&s, 0 * 64);
	sim_access(&s, 1 * 64);
	sim_access(&s, 3 * 64);			/* evicts block 0 */
	ok = !sim_access(&s, 0 * 64) && sim_access(&s, 1 * 64);
	expect("modulo-sets", ok, "blocks 0 and 3 must share a set of a 3-set structure");
	sim_free(&s);

	/* refused geometry */
	ok = sim_init(&s, "L9", 10, 4, 6, err, sizeof(err)) == -1 &&
	     !strcmp(err, "L9: 10 blocks cannot make 4-way sets");
	expect("refuses-bad-geometry", ok, err);
	sim_free(&s);
	return fails ? 1 : 0;
}
