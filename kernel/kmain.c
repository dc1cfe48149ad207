/*
 * kmain.c - the kernel's C entry and boot sequence:
 *   console and traps -> platform discovery -> direct map -> mem_map and
 *   buddy -> slab caches -> reports -> ACPI tables -> SMP bring-up (from
 *   here on interrupts are on and every CPU's timer ticks) -> the NUMA
 *   topology (SRAT/SLIT or the device tree, checked and printed; the page
 *   allocator then moves from its one boot zone to one zone per node,
 *   buddy_numa_init, as the CPUs' nodes are known only now) -> what the
 *   command line asks for ("selftest": run the self-tests; "slabinfo":
 *   print slabinfo again at the end; "faulttest": write to an unmapped
 *   address, to test the exception report; "faulttest-ap": the same on the
 *   last CPU, to test that a fault on another CPU names it; "hangtest-ap":
 *   the watchdog cut to 3 s, and the last CPU spins with interrupts off, for
 *   the watchdog to name it;
 *   "selftest_prefix=P": the self-tests whose name starts with P (the NUMA
 *   boot checks run "numa_"); "slowcall": the call limit cut to 3 s, and on_each_cpu_wait's caller
 *   spins in its own share with interrupts on, for its tick to report it;
 *   "bench": the boot-time benchmarks ("numaonly": the NUMA section alone),
 *   with "icount" when QEMU counts
 *   instructions, "quick" for a shorter run and "turn=K" for the operations
 *   a CPU runs before yielding under -icount with several CPUs (bench.h);
 *   "replay": replay the boot module's recorded trace, lab/replay.h;
 *   "slab_merge": kmem_cache_create merges caches as Linux does (mm/slab.h);
 *   "gdbtest": a short cache sequence with named stops for GDB,
 *   lab/gdbtest.h; "modeltest": the cache model's synthetic patterns
 *   ("repstrings": its x86_64 rep string patterns instead),
 *   tools/cachemodel/modeltest.h; "stresstest": the
 *   stress self-tests alone; fail_page_alloc=... and failslab=... arm fault
 *   injection first, see mm/fault_inject.h) -> exit with a status.
 */
#include "kernel/arch.h"
#include "kernel/bootinfo.h"
#include "kernel/printk.h"
#include "kernel/bug.h"
#include "kernel/selftest.h"
#include "kernel/acpi.h"
#include "kernel/numa.h"
#include "kernel/smp.h"
#include "kernel/timer.h"
#include "lab/bench.h"
#include "lab/gdbtest.h"
#include "lab/replay.h"
#include "tools/cachemodel/modeltest.h"
#include <asm/irqflags.h>
#include <asm/processor.h>
#include "mm/fault_inject.h"
#include "mm/buddy.h"
#include "mm/mm.h"
#include "mm/page.h"
#ifndef CONFIG_ALLOC_NONE
#include "mm/slab.h"
#endif

extern char __kernel_phys_start[], __kernel_phys_end[];

static struct boot_info boot_info;

/*
 * numa_setup - the firmware's topology (ACPI's SRAT and SLIT, or the device
 * tree's) checked against RAM and the CPUs smp_init numbered, and printed.
 */
static void numa_setup(const struct boot_info *bi)
{
	static uint64_t hwid[NUMA_MAX_CPUS];
	unsigned int n = num_possible_cpus();

	if (n > NUMA_MAX_CPUS)
		n = NUMA_MAX_CPUS;
	for (unsigned int c = 0; c < n; c++)
		hwid[c] = arch_cpu_hw_id(c);
	numa_init(bi->acpi_rsdp ? acpi_numa() : bi->numa, bi->avail, bi->n_avail, hwid, n);
}

static void hang_here(void *arg)
{
	printk("hangtest: CPU %u spinning with interrupts off\n", smp_processor_id());
	arch_irq_disable();
	for (;;)
		cpu_relax();
}

/* on_each_cpu_wait's share: the caller's never returns (interrupts on), the others' do. */
static void slow_share(void *caller)
{
	if (smp_processor_id() != *(unsigned int *)caller)
		return;
	printk("slowcall: CPU %u spinning in its own share of a call, interrupts on\n",
	       smp_processor_id());
	for (;;)
		cpu_relax();
}

static void fault_here(void *arg)
{
	volatile uintptr_t unmapped = 8;	/* volatile: not a known NULL to GCC */

	printk("faulttest: CPU %u writing to %p\n", smp_processor_id(), (void *)unmapped);
	*(volatile int *)unmapped = 1;
	panic("faulttest: the write to an unmapped address did not fault");
}

/*
 * fault_injection_setup - arm fail_page_alloc= and failslab= from the
 * command line ("interval,probability,times,seed", mm/fault_inject.h), once
 * the boot's own allocations are done. A bad value stops the boot with the
 * reason: a test asked for faults must not run without them.
 */
static void fault_injection_setup(const struct boot_info *bi)
{
	struct fault_attr *attrs[] = { &fail_page_alloc, &failslab };
	char val[64];

	for (unsigned int i = 0; i < ARRAY_SIZE(attrs); i++) {
		if (!cmdline_value(bi, attrs[i]->name, val, sizeof(val)))
			continue;
		if (fault_attr_parse(attrs[i], val) != 0)
			panic("bad %s= on the command line (see above)", attrs[i]->name);
		fault_attr_show(attrs[i]);
	}
}

/* At the end: what the fault injection did. */
static void fault_injection_report(void)
{
	if (fail_page_alloc.calls || fail_page_alloc.enabled)
		fault_attr_show(&fail_page_alloc);
	if (failslab.calls || failslab.enabled)
		fault_attr_show(&failslab);
}

#ifndef CONFIG_ALLOC_NONE
static void slab_report(void)
{
	slabinfo_show();
	slab_meminfo_show();
}
#endif

/* kmain - called once by the boot entry with the boot protocol's magic and data. */
void kmain(unsigned long magic, unsigned long info)
{
	struct boot_info *bi = &boot_info;
	char prefix[32];
	int failures = 0;

	arch_early_init();
	printk("Quarry: %s, PAGE_SIZE %lu (%s pages)\n", arch_name, PAGE_SIZE,
	       PAGE_SIZE_NAME);
	if (platform_discover(magic, info, bi))
		panic("no usable boot information");
	printk("boot loader: %s\n", bi->loader);
	printk("command line: %s\n", bi->cmdline);
	arch_memory_init(bi);
	boot_reserve(bi, (uintptr_t)__kernel_phys_start, (uintptr_t)__kernel_phys_end);
	mm_init(bi->avail, bi->n_avail, bi->reserved, bi->n_reserved);
	mm_report();
#ifndef CONFIG_ALLOC_NONE
	kmem_cache_init();
	slab_report();
	if (cmdline_has(bi, "slab_merge"))	/* caches made from here on may merge */
		slab_merge_set(true);
#endif
	if (bi->acpi_rsdp)	/* device-tree platforms have none */
		acpi_init(bi->acpi_rsdp);
	smp_init();
	numa_setup(bi);
	if (numa_num_nodes() > 1) {	/* the page allocator's zones follow the nodes */
		buddy_numa_init();
		buddy_print_info();
	}
	fault_injection_setup(bi);

	if (cmdline_has(bi, "faulttest"))
		fault_here(NULL);
	if (cmdline_has(bi, "faulttest-ap") || cmdline_has(bi, "hangtest-ap")) {
		bool fault = cmdline_has(bi, "faulttest-ap");

		if (num_online_cpus() < 2)
			panic("%s: needs a second CPU (-smp 2 or more)",
			      fault ? "faulttest-ap" : "hangtest-ap");
		if (!fault)
			WRITE_ONCE(watchdog_seconds, 3);
		smp_call_on_cpu(num_online_cpus() - 1, fault ? fault_here : hang_here, NULL);
		panic("CPU %u returned from a call that should never return",
		      num_online_cpus() - 1);
	}
	if (cmdline_has(bi, "slowcall")) {
		unsigned int self = smp_processor_id();

		smp_call_timeout = 3;
		on_each_cpu_wait(slow_share, &self);
		panic("slowcall: the caller's share returned");
	}
	if (cmdline_has(bi, "selftest"))
		failures = selftest_run_all(0);
	else if (cmdline_has(bi, "stresstest"))
		failures = selftest_run_prefix(0, "stress_");
	else if (cmdline_value(bi, "selftest_prefix", prefix, sizeof(prefix)))
		failures = selftest_run_prefix(0, prefix);
#ifndef CONFIG_ALLOC_NONE
	if (cmdline_has(bi, "bench")) {
		char turn[24];

		bench_quick = cmdline_has(bi, "quick");
		bench_numa_only = cmdline_has(bi, "numaonly");
		if (cmdline_value(bi, "turn", turn, sizeof(turn)) && bench_turn_parse(turn))
			panic("bad turn=%s on the command line (operations per turn, 0 to %d)", turn,
			      BENCH_OBJECTS);
		bench_run_all(cmdline_has(bi, "icount"));
	}
	if (cmdline_has(bi, "replay") && replay_run(bi, cmdline_has(bi, "icount")))
		failures++;
	if (cmdline_has(bi, "gdbtest") && gdbtest_run())
		failures++;
	if (cmdline_has(bi, "slabinfo"))
		slab_report();
#endif
	if (cmdline_has(bi, "modeltest"))	/* the cache model's patterns, tools/cachemodel/ */
		failures += modeltest_run(cmdline_has(bi, "repstrings"));
	fault_injection_report();
	printk("Quarry: done, %s\n", failures ? "FAILED" : "ok");
	arch_exit(failures ? 1 : 0);
}
