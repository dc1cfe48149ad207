/*
 * bench_string.c - what the memory primitives cost (kernel/string.c): a
 * STRING_CALLS-call loop of memset, memcpy and memmove (an overlapping move
 * up by 8 bytes, the backward copy) at each size, single CPU, interrupts
 * off, 8-byte-aligned buffers. Per call and per 100 bytes, in the counter's
 * unit; each loop is a cache-model region (tools/cachemodel/bench.py).
 * Every kzalloc, __GFP_ZERO page and krealloc pays these.
 */
#include "lab/bench.h"
#include "tools/cachemodel/marker.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "mm/buddy.h"
#include <asm/irqflags.h>
#include <asm/processor.h>

#define STRING_CALLS	1000
#define STRING_ORDER	1	/* two pages: 4096 bytes and their move fit at 4K pages */

static const unsigned long string_sizes[] = { 16, 64, 256, 1024, 4096 };

enum { STR_MEMSET, STR_MEMCPY, STR_MEMMOVE, STR_NR };
static const char *const str_name[STR_NR] = { "memset", "memcpy", "memmove" };

/* One timed loop of kind k at size n: the counter's total. */
static uint64_t string_loop(unsigned int k, unsigned char *a, unsigned char *b, unsigned long n)
{
	unsigned long flags = arch_irq_save();
	uint64_t t0, t1;

	t0 = arch_cycles();
	switch (k) {
	case STR_MEMSET:
		MODEL_BEGIN(MODEL_R_MEMSET);
		for (unsigned int i = 0; i < STRING_CALLS; i++)
			memset(a, (int)i, n);
		MODEL_END(MODEL_R_MEMSET);
		break;
	case STR_MEMCPY:
		MODEL_BEGIN(MODEL_R_MEMCPY);
		for (unsigned int i = 0; i < STRING_CALLS; i++)
			memcpy(a, b, n);
		MODEL_END(MODEL_R_MEMCPY);
		break;
	default:
		MODEL_BEGIN(MODEL_R_MEMMOVE);
		for (unsigned int i = 0; i < STRING_CALLS; i++)
			memmove(a + 8, a, n);
		MODEL_END(MODEL_R_MEMMOVE);
		break;
	}
	t1 = arch_cycles();
	arch_irq_restore(flags);
	return t1 - t0;
}

/* bench_strings: see bench.h. */
void bench_strings(void)
{
	unsigned char *a = get_free_pages(STRING_ORDER), *b = get_free_pages(STRING_ORDER);

	if (!a || !b) {
		printk("bench: no memory for the string buffers; memset/memcpy/memmove skipped\n");
		if (a)
			free_pages_addr(a, STRING_ORDER);
		if (b)
			free_pages_addr(b, STRING_ORDER);
		return;
	}
	printk("\n7. Memory primitives: memset, memcpy, memmove (a move up by 8 bytes)\n");
	for (unsigned int k = 0; k < STR_NR; k++) {
		for (unsigned int s = 0; s < ARRAY_SIZE(string_sizes); s++) {
			unsigned long n = string_sizes[s];
			uint64_t total = string_loop(k, a, b, n);

			printk("%d times %s(%lu) -> %lu cycles\n", STRING_CALLS, str_name[k], n,
			       bench_per_op(total, STRING_CALLS));
			bench_line(str_name[k], n, 2, "call_cost", bench_per_op(total, STRING_CALLS),
				   "per_100_bytes_cost", bench_per_op(total * 100, STRING_CALLS * n));
		}
	}
	free_pages_addr(a, STRING_ORDER);
	free_pages_addr(b, STRING_ORDER);
}
