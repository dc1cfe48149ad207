/*
 * test_mm.h - for self-tests that compare global allocator state (free
 * pages, blocks per order) before and after themselves.
 *
 * In the kernel other CPUs may be online: idle, but taking timer ticks
 * whose periodic slab reap can free pages, or running work of their own. A
 * test must not assume they leave the allocators alone, so it checks: other
 * CPUs' page-allocator calls and slab slow-path operations, and reaps on any
 * CPU (this one's timer included), are counted; when the count is the same
 * after the test as before, the global figures are the test's alone and are
 * compared exactly. Otherwise only what the test owns is checked. On the
 * host, tests that do not start threads always see a quiet machine.
 */
#ifndef TESTS_COMMON_TEST_MM_H
#define TESTS_COMMON_TEST_MM_H

#include "kernel/compiler.h"
#include "mm/buddy.h"
#ifndef CONFIG_ALLOC_NONE
#include "mm/slab.h"
#endif
#include <asm/processor.h>

/* Allocator activity the running test did not cause itself (see above). */
static inline unsigned long mm_test_others(void)
{
	unsigned int me = smp_processor_id();
	unsigned long n = 0;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (cpu == me)
			continue;
		n += buddy_cpu_events(cpu);
#ifndef CONFIG_ALLOC_NONE
		n += slab_cpu_events(cpu);
#endif
	}
#ifndef CONFIG_ALLOC_NONE
	n += slab_reap_events();
#endif
	return n;
}

#endif
