/*
 * repstr_test.c - unit tests of the cache model's rep string decoding and
 * transfer cycles (repstr.c), run by test.sh: every operand size of rep
 * stos and rep movs with the prefixes in either order, REX.W taken only
 * right before the opcode, and the instructions that are not priced as
 * fast strings (no rep, repne, lods/scas/cmps, other opcodes) refused; a
 * run's transfer cycles are its bytes over the rate, rounded up once.
 * Prints PASS/FAIL lines; exit status 1 on any failure.
 */
#include "repstr.h"

#include <stdio.h>

static int fails;

struct decode_case {
	const char *name;
	uint8_t bytes[8];
	size_t n;
	unsigned int size;	/* expected */
};

static const struct decode_case cases[] = {
	{ "rep-stosq", { 0xf3, 0x48, 0xab }, 3, 8 },
	{ "rep-stosl", { 0xf3, 0xab }, 2, 4 },
	{ "rep-stosw-66-first", { 0x66, 0xf3, 0xab }, 3, 2 },
	{ "rep-stosw-f3-first", { 0xf3, 0x66, 0xab }, 3, 2 },
	{ "rep-stosb", { 0xf3, 0xaa }, 2, 1 },
	{ "rep-movsq", { 0xf3, 0x48, 0xa5 }, 3, 8 },
	{ "rep-movsl", { 0xf3, 0xa5 }, 2, 4 },
	{ "rep-movsw", { 0x66, 0xf3, 0xa5 }, 3, 2 },
	{ "rep-movsb", { 0xf3, 0xa4 }, 2, 1 },
	{ "rep-movsq-rexw-over-66", { 0x66, 0xf3, 0x48, 0xa5 }, 4, 8 },
	{ "rep-stosq-addr32-segment", { 0x67, 0x2e, 0xf3, 0x48, 0xab }, 5, 8 },
	{ "rex-not-last-is-ignored", { 0x48, 0xf3, 0xab }, 3, 4 },
	{ "rex-without-w", { 0xf3, 0x40, 0xab }, 3, 4 },
	{ "stosq-no-rep", { 0x48, 0xab }, 2, 0 },
	{ "stosb-no-rep", { 0xaa }, 1, 0 },
	{ "repne-stos", { 0xf2, 0xab }, 2, 0 },
	{ "rep-then-repne", { 0xf3, 0xf2, 0xab }, 3, 0 },
	{ "repne-then-rep", { 0xf2, 0xf3, 0xab }, 3, 4 },
	{ "rep-lodsq", { 0xf3, 0x48, 0xad }, 3, 0 },
	{ "repe-cmpsb", { 0xf3, 0xa6 }, 2, 0 },
	{ "repe-scasb", { 0xf3, 0xae }, 2, 0 },
	{ "rep-insb", { 0xf3, 0x6c }, 2, 0 },
	{ "pause", { 0xf3, 0x90 }, 2, 0 },
	{ "mov-with-ab-operand", { 0xb8, 0xab, 0, 0, 0 }, 5, 0 },
	{ "opcode-before-prefix-byte", { 0xab, 0xf3 }, 2, 0 },
	{ "empty", { 0 }, 0, 0 },
};

static void expect(const char *name, int ok, unsigned long got, unsigned long want)
{
	if (ok)
		printf("PASS cachemodel-repstr-%s\n", name);
	else
		printf("FAIL cachemodel-repstr-%s: got %lu, wanted %lu\n", name, got, want);
	fails += !ok;
}

/* The cycles of a run of `bytes` bytes arriving `each` at a time, at `rate`. */
static uint64_t run_cycles(uint64_t bytes, uint64_t each, unsigned int rate)
{
	uint64_t done = 0, cycles = 0;

	while (done < bytes) {
		cycles += rep_xfer_cycles(done, each, rate);
		done += each;
	}
	return cycles;
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned int got = rep_string_size(cases[i].bytes, cases[i].n);

		expect(cases[i].name, got == cases[i].size, got, cases[i].size);
	}
	expect("xfer-4096-by-8", run_cycles(4096, 8, 32) == 128, run_cycles(4096, 8, 32), 128);
	expect("xfer-4096-by-1", run_cycles(4096, 1, 32) == 128, run_cycles(4096, 1, 32), 128);
	expect("xfer-rounds-up-once", run_cycles(40, 8, 32) == 2, run_cycles(40, 8, 32), 2);
	expect("xfer-rate-1", run_cycles(24, 8, 1) == 24, run_cycles(24, 8, 1), 24);
	expect("xfer-nothing", rep_xfer_cycles(64, 0, 32) == 0, rep_xfer_cycles(64, 0, 32), 0);
	return fails ? 1 : 0;
}
