/*
 * test_restart.c - in-kernel self-tests of restartable sequences
 * (kernel/restart.h): the table's entries and the fixup's arithmetic; a
 * sequence that turns interrupts on inside itself with a tick pending, so
 * that the tick lands there for certain, and must resume from its start
 * to see what the tick pushed. The allocators' fast paths cut in on by
 * ticks allocating from the same caches are smp_alloc_in_timer_interrupt_and_normal_code's
 * (tests/kernel/test_smp.c), which reports the restarts it saw.
 */
#include "kernel/arch.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/restart.h"
#include "kernel/selftest.h"
#include "kernel/timer.h"
#include <asm/irqflags.h>
#include <asm/processor.h>

SELFTEST(restart_table_entries_and_fixup)
{
	unsigned int n, cpu = smp_processor_id();
	const struct restart_entry *t = restart_table_entries(&n);
	unsigned long before = restart_count(cpu);

	if (!ARCH_HAS_RESTARTABLE)
		ST_EXPECT(n == 0, "%u restartable sequences on an arch without them", n);
	for (unsigned int i = 0; i < n; i++) {
		const struct restart_entry *e = &t[i];

		ST_EXPECT(e->start < e->commit && e->commit - e->start < 64,
			  "sequence %u: start %lx, commit %lx", i, (unsigned long)e->start,
			  (unsigned long)e->commit);
		ST_EXPECT(restart_fixup_pc(e->start) == e->start &&
			  restart_fixup_pc(e->start + 1) == e->start &&
			  restart_fixup_pc(e->commit) == e->start,
			  "sequence %u (%lx..%lx): an address inside it does not resume at its start",
			  i, (unsigned long)e->start, (unsigned long)e->commit);
		ST_EXPECT(restart_fixup_pc(e->commit + 1) == e->commit + 1 &&
			  restart_fixup_pc(e->start - 1) == e->start - 1,
			  "sequence %u (%lx..%lx): an address outside it was moved", i,
			  (unsigned long)e->start, (unsigned long)e->commit);
	}
	ST_EXPECT(restart_count(cpu) - before == 2UL * n, "%lu restarts counted for %u sequences",
		  restart_count(cpu) - before, n);
	ST_EXPECT(restart_fixup_pc(0) == 0, "address 0 was moved");
	return 0;
}

#if ARCH_HAS_RESTARTABLE
/* A stack the tick pushes one word onto, as a handler would a freed object. */
struct restart_test_stack {
	unsigned long size, capacity;
	void *objs[4];
};
static struct restart_test_stack test_stack;
static struct restart_test_stack *test_stack_ptr = &test_stack;
static unsigned int test_cpu;
static int test_pushed;
static char test_words[3];	/* their addresses: the stack's words */

static void push_hook(unsigned int cpu)
{
	if (cpu != test_cpu || test_pushed)
		return;
	test_stack.objs[test_stack.size++] = &test_words[2];
	test_pushed = 1;
}

SELFTEST(restart_tick_inside_a_sequence_resumes_at_its_start)
{
	unsigned int cpu = smp_processor_id();
	unsigned long before = restart_count(cpu), flags;
	uint64_t khz = arch_cycles_khz(), t0;
	void *x;

	ST_EXPECT(khz, "no cycle counter rate: cannot wait for a tick");
	test_stack = (struct restart_test_stack){ 2, 4, { &test_words[0], &test_words[1] } };
	test_cpu = cpu;
	test_pushed = 0;
	timer_set_hook(push_hook);
	flags = arch_irq_save();
	/* Interrupts off for three tick periods: the next tick is pending. */
	t0 = arch_cycles();
	while (arch_cycles() - t0 < khz * 3000 / HZ)
		cpu_relax();
	/* Reads size 2, takes the tick inside (size 3), and must pop what the tick pushed. */
	x = restartable_test_pop(&test_stack_ptr, offsetof(struct restart_test_stack, size),
				 offsetof(struct restart_test_stack, objs));
	arch_irq_restore(flags);
	if (!x) {
		timer_set_hook(NULL);
		timer_wait_all_cpus(1);
		return selftest_fail("the test stack read empty");
	}
	timer_set_hook(NULL);
	ST_EXPECT(timer_wait_all_cpus(1) == 0, "some CPU stopped ticking");
	ST_EXPECT(test_pushed, "the tick never ran its hook");
	ST_EXPECT(x == &test_words[2] && test_stack.size == 2,
		  "popped word %lu (0, 1: pushed before; 2: by the tick), %lu left: the sequence "
		  "went on with the size it read before the tick",
		  (unsigned long)((char *)x - test_words), test_stack.size);
	ST_EXPECT(restart_count(cpu) > before, "no restart counted");
	return 0;
}
#endif

