/*
 * test_restart.c - in-kernel self-tests of restartable sequences
 * (kernel/restart.h): the table's entries and the fixup's arithmetic; a
 * sequence that turns interrupts on inside itself with a tick pending, so
 * that the tick lands there for certain, and must resume from its start
 * to see what the tick pushed; and an allocator's fast paths cut in on by
 * ticks allocating from the same caches, with interrupts on: every object
 * stays the one holder's.
 */
#include "kernel/arch.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/restart.h"
#include "kernel/selftest.h"
#include "kernel/timer.h"
#ifndef CONFIG_ALLOC_NONE
#include "mm/slab.h"
#endif
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

#ifndef CONFIG_ALLOC_NONE
#define RESTART_OBJ	64	/* one kmalloc class, and the test cache's size */
#define RESTART_HOOK	8	/* objects the tick takes and gives back, each cache */

static struct kmem_cache *restart_cache;
static unsigned long hook_runs, hook_bad, hook_failed;
static unsigned int restart_cpu;	/* the CPU the test runs on: the tick allocates there */

/* The object's first two words say who holds it (normal code: even tags; the tick: odd). */
static void stamp(unsigned long *p, unsigned long who)
{
	p[0] = who;
	p[1] = ~who;
}

static bool stamped(const unsigned long *p, unsigned long who)
{
	return p[0] == who && p[1] == ~who;
}

/* The tick: take objects of both caches, stamp them, check the stamps, give them back. */
static void restart_hook(unsigned int cpu)
{
	unsigned long *k[RESTART_HOOK], *c[RESTART_HOOK];
	unsigned long who = hook_runs << 1 | 1;

	if (cpu != restart_cpu)
		return;
	for (unsigned int i = 0; i < RESTART_HOOK; i++) {
		k[i] = kmalloc(RESTART_OBJ);
		c[i] = kmem_cache_alloc(restart_cache);
		if (!k[i] || !c[i]) {
			hook_failed++;
			kfree(k[i]);
			if (c[i])
				kmem_cache_free(restart_cache, c[i]);
			k[i] = c[i] = NULL;
			continue;
		}
		stamp(k[i], who);
		stamp(c[i], who);
	}
	for (unsigned int i = 0; i < RESTART_HOOK; i++) {
		if (!k[i])
			continue;
		hook_bad += !stamped(k[i], who) + !stamped(c[i], who);
		kfree(k[i]);
		kmem_cache_free(restart_cache, c[i]);
	}
	hook_runs++;
}

SELFTEST(restart_fast_paths_cut_in_on_by_the_tick)
{
	unsigned int n, cpu = smp_processor_id();
	unsigned long before, ops = 0, bad = 0, failed = 0, runs;	/* restarts: reported only */
	uint64_t khz = arch_cycles_khz(), until;

	restart_table_entries(&n);
	restart_cache = kmem_cache_create("restart-test", RESTART_OBJ, 8, 0, NULL);
	ST_EXPECT(restart_cache, "kmem_cache_create failed");
	ST_EXPECT(!arch_irqs_disabled(), "the self-tests run with interrupts off");
	hook_runs = hook_bad = hook_failed = 0;
	restart_cpu = cpu;
	before = restart_count(cpu);
	until = khz ? arch_cycles() + khz * 5000 : UINT64_MAX;
	timer_set_hook(restart_hook);
	/* Until the tick has run 5 times (5 s bound it). */
	while (READ_ONCE(hook_runs) < 5) {
		unsigned long *a = kmalloc(RESTART_OBJ), *b = kmem_cache_alloc(restart_cache);

		if (!a || !b) {
			failed++;
		} else {
			stamp(a, ops << 1);
			stamp(b, ops << 1);
			bad += !stamped(a, ops << 1) + !stamped(b, ops << 1);
		}
		kfree(a);
		if (b)
			kmem_cache_free(restart_cache, b);
		ops++;
		if (arch_cycles() > until)
			break;
	}
	timer_set_hook(NULL);
	ST_EXPECT(timer_wait_all_cpus(1) == 0, "some CPU stopped ticking");
	runs = READ_ONCE(hook_runs);
	printk("  %lu pairs in normal code, %lu ticks allocating, %lu restarts, %u sequences\n",
	       ops, runs, restart_count(cpu) - before, n);
	ST_EXPECT(!bad && !hook_bad, "%lu objects held twice in normal code, %lu in the tick", bad,
		  hook_bad);
	ST_EXPECT(!failed && !hook_failed, "%lu + %lu allocations failed", failed, hook_failed);
	ST_EXPECT(runs >= 5, "the tick allocated only %lu times", runs);
	kmem_cache_drain_local(restart_cache);
	ST_EXPECT(kmem_cache_check(restart_cache) == 0, "kmem_cache_check failed");
	ST_EXPECT(kmem_cache_destroy(restart_cache) == 0,
		  "the test cache still had objects allocated: some were lost");
	return 0;
}
#endif
