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

/* The head of each block held by a test, threaded through the blocks themselves. */
struct mm_test_held {
	struct mm_test_held *next;
	unsigned int order;
};

/* mm_test_hold - allocate blocks of order 'order' until NULL, threading them onto *list; how many. */
static inline unsigned long mm_test_hold(struct mm_test_held **list, unsigned int order)
{
	unsigned long n = 0;
	struct mm_test_held *h;

	while ((h = get_free_pages(order)) != NULL) {
		h->next = *list;
		h->order = order;
		*list = h;
		n++;
	}
	return n;
}

/* mm_test_hold_all - every free block, largest first, onto *list (this CPU's view: see above). */
static inline void mm_test_hold_all(struct mm_test_held **list)
{
	for (int o = MAX_ORDER; o >= 0; o--)
		mm_test_hold(list, (unsigned int)o);
}

/* mm_test_release - free every block of list; -1 if a free was refused. */
static inline int mm_test_release(struct mm_test_held *list)
{
	while (list) {
		struct mm_test_held *next = list->next;

		if (free_pages_addr(list, list->order))
			return -1;
		list = next;
	}
	return 0;
}

#endif
