/*
 * bench.c - the benchmark runner: the header naming the configuration, the
 * BENCH line format, memory reports before and after, and the order in which
 * the workloads run (see bench.h).
 */
#include "lab/bench.h"
#include "lab/leakcheck.h"
#include "kernel/arch.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "mm/page.h"
#include "mm/buddy.h"
#include "mm/slab.h"
#include <asm/processor.h>
#include <stdarg.h>

bool bench_quick;
bool bench_icount;
bool bench_numa_only;
unsigned int bench_turn = BENCH_TURN;

/* bench_turn_parse: see bench.h. */
int bench_turn_parse(const char *val)
{
	unsigned long n = 0;

	if (!*val)
		return -1;
	for (const char *c = val; *c; c++) {
		if (*c < '0' || *c > '9')
			return -1;
		n = n * 10 + (unsigned long)(*c - '0');
		if (n > BENCH_OBJECTS)
			return -1;
	}
	bench_turn = (unsigned int)n;
	return 0;
}

static const char *alloc_name(void)
{
#if defined(CONFIG_ALLOC_SLUB) && defined(CONFIG_SLAB_FREELIST_HARDENED)
	return "slub-hardened";
#elif defined(CONFIG_ALLOC_SLUB)
	return "slub";
#elif defined(CONFIG_ALLOC_SLOB)
	return "slob";
#elif defined(CONFIG_ALLOC_SLOB_SEG)
	return "slob-seg";
#elif defined(CONFIG_SLAB_IDX_BYTES) && CONFIG_SLAB_IDX_BYTES == 4
	return "slab-idx4";
#elif defined(CONFIG_SLAB_GROW_LOCKED)
	return "slab-growlocked";
#elif defined(CONFIG_SLAB_FREELIST_RANDOM)
	return "slab-random";
#else
	return "slab";
#endif
}

/* bench_clock: see bench.h. */
uint64_t bench_clock(void)
{
	uint64_t hz, cnt = arch_shared_counter(&hz);

	/* arch_cycles' rate is measured at boot (1 GHz under -icount, give or take a
	 * few kHz): round the ratio, a truncated 15.99 would read 6% short. */
	return hz ? cnt * ((arch_cycles_khz() * 1000 + hz / 2) / hz) : arch_cycles();
}

/* bench_line: see bench.h. */
void bench_line(const char *test, unsigned long size, unsigned int nkv, ...)
{
	char buf[384];
	int n;
	va_list ap;

	n = snprintf(buf, sizeof(buf), "BENCH arch=%s page=%s alloc=%s cpus=%u mode=%s test=%s size=%lu",
		     arch_name, PAGE_SIZE_NAME, alloc_name(), num_online_cpus(),
		     bench_icount ? "icount" : "realtime", test, size);
	va_start(ap, nkv);
	for (unsigned int i = 0; i < nkv && n < (int)sizeof(buf); i++) {
		const char *key = va_arg(ap, const char *);
		unsigned long val = va_arg(ap, unsigned long);
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %s=%lu", key, val);
	}
	va_end(ap);
	printk("%s unit=%s\n", buf, bench_icount ? "instructions" : "cycles");
}

static void memory_report(const char *when, const char *test)
{
	printk("\n== Memory %s\n", when);
	slabinfo_show();
	slab_meminfo_show();
	bench_line(test, 0, 2, "slab_kb", slab_total_pages() * (PAGE_SIZE / 1024),
		   "free_kb", nr_free_pages() * (PAGE_SIZE / 1024));
}

/* The parser reads objperslab from the slabinfo rows; this adds each cache's layout. */
static void objperslab_table(void)
{
	printk("\n== Objects per slab and freelist layout\n");
	slab_layout_show();
}

/*
 * Leak accounting over the benchmarks (lab/leakcheck.h): the start mark
 * is taken after the boot-state reports, so "after boot" is what boot left;
 * taking it drains every CPU's caching, so the first benchmark starts cold.
 */
static struct leak_mark bench_start, bench_end;

/* bench_run_all: see bench.h. */
void bench_run_all(bool icount)
{
	unsigned long khz = arch_cycles_khz();
	int leaks;

	bench_icount = icount;
	printk("\n== Quarry benchmarks: arch %s, page size %s, allocator %s, %u CPU(s)\n",
	       arch_name, PAGE_SIZE_NAME, alloc_name(), num_online_cpus());
	if (icount)
		printk("== counter: %s under QEMU -icount shift=0: figures are guest instructions, "
		       "not cycles, and repeat exactly\n", ARCH_CYCLE_COUNTER);
	else
		printk("== counter: %s at %lu.%03lu MHz (measured at boot): figures are cycles\n",
		       ARCH_CYCLE_COUNTER, khz / 1000, khz % 1000);
	if (icount && num_online_cpus() > 1)
		printk("== turns: under -icount the CPUs' concurrent loops yield every %u "
		       "operations%s (see bench.h)\n", bench_turn, bench_turn ? "" : " (never)");
	bench_line("header", 0, 3, "counter_khz", khz, "quick", (unsigned long)bench_quick,
		   "turn", (unsigned long)(icount && num_online_cpus() > 1 ? bench_turn : 0));

	memory_report("after boot", "memory_boot");
	if (!bench_numa_only)
		objperslab_table();
	leak_mark_take(&bench_start);
	if (bench_numa_only) {
		bench_numa();
	} else {
		bench_kmalloc_single();
		bench_kmalloc_concurrent();
		bench_atomics();
		bench_remote_free();
		bench_numa();
		bench_messaging();
		bench_pages();
		bench_strings();
	}
	memory_report("after the workloads", "memory_end");
	leaks = leak_mark_compare(&bench_start, &bench_end, "benchmarks");
	if (!leaks)
		printk("leak check: every page and object the benchmarks took is back\n");
	bench_line("leak_check", 0, 1, "differences", (unsigned long)leaks);
	printk("BENCH done\n");
}
