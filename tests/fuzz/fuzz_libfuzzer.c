/*
 * fuzz_libfuzzer.c - the fuzzer's interpreter (tests/fuzz/fuzz.h) driven by
 * libFuzzer: each input is one run, sequential on 1 to 4 CPUs, every
 * decision (CPU, operation, size, cache, order) read from the input's bytes
 * instead of a seeded stream, so libFuzzer's coverage feedback steers the
 * operation sequence. The first byte picks the CPU count (bits 0-1) and
 * whether faults are injected (bit 2; the next byte seeds them). Every input
 * ends, as every run does, with all memory freed and the pages counted; a
 * finding aborts, so libFuzzer keeps the input as a crash. Built by
 * `make -f tests/fuzz/fuzz.mk libfuzzer`, run by tests/fuzz/cov.sh.
 */
#include "tests/fuzz/fuzz.h"
#include "mm/fault_inject.h"
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* LLVMFuzzerInitialize - once: mm/ up on a 128 MiB arena. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init(128);
	return 0;
}

/* LLVMFuzzerTestOneInput - one run from the input's bytes; aborts on a finding. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_config cfg = { .ops_per_round = 64, .max_ops = 50000 };
	struct fuzz_result res;

	if (size < 2)
		return 0;
	cfg.cpus = 1 + (data[0] & 3);
	if (data[0] & 4) {
		fault_attr_set(&fail_page_alloc, 1, 10, -1, data[1]);
		fault_attr_set(&failslab, 2, 10, -1, data[1] * 7U);
	}
	cfg.data = data + 2;
	cfg.size = size - 2;
	if (fuzz_run(&cfg, &res) != 0)
		abort();
	fault_attr_disable(&fail_page_alloc);
	fault_attr_disable(&failslab);
	return 0;
}
