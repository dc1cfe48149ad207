/*
 * modeltest.c - the "modeltest" command: the synthetic patterns of
 * modeltest.h, each inside its own cache-model region, for
 * tools/cachemodel/check.py to compare with what the plugin counted.
 * With "repstrings" (x86_64) the string patterns instead, for
 * tools/cachemodel/strings_check.py. Console lines:
 *   modeltest: buffer virt=0x... phys=0x... blocks=N
 *   modeltest: pattern id=I name=NAME blocks=B span=S stride=T passes=P
 *   modeltest: string id=I name=NAME op=stos|movs|plain size=Z bytes=N passes=P
 *   modeltest: done
 */
#include "tools/cachemodel/modeltest.h"
#include "tools/cachemodel/marker.h"
#include "kernel/compiler.h"
#include "kernel/printk.h"
#include "mm/buddy.h"
#include <asm/irqflags.h>
#include <asm/memlayout.h>

_Static_assert(MT_BLOCK == (1ul << (MAX_ORDER + PAGE_SHIFT)), "a pattern block is a buddy block");

static const struct mt_pattern patterns[] = MT_PATTERNS;
_Static_assert(sizeof(patterns) / sizeof(patterns[0]) == MT_NR_PATTERNS, "pattern count");

/*
 * One function per region id (the marks carry the id in their encoding):
 * a warming sweep, then MT_PASSES sweeps inside the region.
 */
#define MT_MEASURE(id)								\
	static __noinline unsigned long mt_measure_##id(const char *base,	\
			unsigned long blocks, unsigned long span, unsigned long stride) \
	{									\
		unsigned long sum = mt_pass(base, blocks, span, stride);	\
		MODEL_BEGIN(id);						\
		for (int i = 0; i < MT_PASSES; i++)				\
			sum += mt_pass(base, blocks, span, stride);		\
		MODEL_END(id);							\
		return sum;							\
	}
MT_MEASURE(1) MT_MEASURE(2) MT_MEASURE(3) MT_MEASURE(4) MT_MEASURE(5)
MT_MEASURE(6) MT_MEASURE(7) MT_MEASURE(8) MT_MEASURE(9) MT_MEASURE(10)
MT_MEASURE(11) MT_MEASURE(12) MT_MEASURE(13) MT_MEASURE(14) MT_MEASURE(15)

typedef unsigned long (*mt_fn)(const char *, unsigned long, unsigned long, unsigned long);
static const mt_fn measure[MT_NR_PATTERNS] = {
	mt_measure_1, mt_measure_2, mt_measure_3, mt_measure_4, mt_measure_5,
	mt_measure_6, mt_measure_7, mt_measure_8, mt_measure_9, mt_measure_10,
	mt_measure_11, mt_measure_12, mt_measure_13, mt_measure_14, mt_measure_15,
};

/*
 * The string patterns (modeltest.h): one function per region id, with the
 * pattern's one operation inside; "op" names it on the console.
 */
#if defined(__x86_64__)
static inline void mt_rep_stosq(char *dst, unsigned long n)
{
	unsigned long q = n / 8;

	__asm__ volatile("rep stosq" : "+D"(dst), "+c"(q) : "a"(0ul) : "memory");
}

static inline void mt_rep_stosb(char *dst, unsigned long n)
{
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(0ul) : "memory");
}

static inline void mt_rep_movsq(char *dst, const char *src, unsigned long n)
{
	unsigned long q = n / 8;

	__asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(q) : : "memory");
}

static inline void mt_plain_stores(char *dst, unsigned long n)
{
	for (unsigned long off = 0; off < n; off += 8)
		*(volatile unsigned long *)(dst + off) = 0;
}

#define MT_STRING(id, op_call)							\
	static __noinline void mt_string_##id(char *dst, const char *src,	\
					      unsigned long n)			\
	{									\
		(void)src;							\
		op_call;							\
		MODEL_BEGIN(MT_STRING_FIRST_ID + id);				\
		for (int i = 0; i < MT_PASSES; i++)				\
			op_call;						\
		MODEL_END(MT_STRING_FIRST_ID + id);				\
	}
MT_STRING(0, mt_rep_stosq(dst, n))
MT_STRING(1, mt_rep_stosb(dst, n))
MT_STRING(2, mt_rep_movsq(dst, src, n))
MT_STRING(3, mt_rep_stosq(dst, n))
MT_STRING(4, mt_plain_stores(dst, n))

struct mt_string {
	const char *name, *op;	/* op: stos, movs or plain */
	unsigned int size;	/* bytes an iteration or a store */
	unsigned long bytes;
	void (*run)(char *dst, const char *src, unsigned long n);
};

static const struct mt_string strings[] = {
	{ "rep-stosq-l1", "stos", 8, MT_STRING_BYTES, mt_string_0 },
	{ "rep-stosb-l1", "stos", 1, MT_STRING_BYTES, mt_string_1 },
	{ "rep-movsq-l1", "movs", 8, MT_STRING_BYTES, mt_string_2 },
	{ "rep-stosq-l2", "stos", 8, MT_STRING_L2_BYTES, mt_string_3 },
	{ "plain-stores-l1", "plain", 8, MT_STRING_BYTES, mt_string_4 },
};

/* The string patterns over buf (the source of a copy MT_BLOCK / 4 above it). */
static int run_strings(char *buf)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(strings); i++) {
		const struct mt_string *s = &strings[i];

		printk("modeltest: string id=%u name=%s op=%s size=%u bytes=%lu passes=%d\n",
		       MT_STRING_FIRST_ID + i, s->name, s->op, s->size, s->bytes, MT_PASSES);
		s->run(buf, buf + MT_BLOCK / 4, s->bytes);
	}
	return 0;
}
#else
static int run_strings(char *buf)
{
	(void)buf;
	printk("modeltest: FAILED: the rep string patterns are x86_64's only\n");
	return 1;
}
#endif

#define MT_POOL	128	/* blocks taken while looking for consecutive ones */

/*
 * find_buffer - take buddy blocks until MT_MAX_BLOCKS of them are
 * consecutive; give the others back. Returns the first block's address, or
 * NULL (with every block given back) when memory holds no such run.
 */
static char *find_buffer(void)
{
	static char *pool[MT_POOL];
	unsigned int n = 0, i, j;
	char *found = NULL;

	while (n < MT_POOL && (pool[n] = get_free_pages(MAX_ORDER)))
		n++;
	for (i = 0; i + 1 < n; i++)	/* sort by address */
		for (j = i + 1; j < n; j++)
			if (pool[j] < pool[i]) {
				char *t = pool[i];

				pool[i] = pool[j];
				pool[j] = t;
			}
	for (i = 0; !found && i + MT_MAX_BLOCKS <= n; i++)
		if (pool[i + MT_MAX_BLOCKS - 1] == pool[i] + (MT_MAX_BLOCKS - 1) * MT_BLOCK)
			found = pool[i];
	for (i = 0; i < n; i++)
		if (!found || pool[i] < found || pool[i] >= found + MT_MAX_BLOCKS * MT_BLOCK)
			free_pages_addr(pool[i], MAX_ORDER);
	return found;
}

/* The sweep patterns of modeltest.h over buf; their checksum. */
static unsigned long run_patterns(const char *buf)
{
	unsigned long sum = 0;

	for (int i = 0; i < MT_NR_PATTERNS; i++) {
		const struct mt_pattern *p = &patterns[i];

		printk("modeltest: pattern id=%d name=%s blocks=%lu span=%lu stride=%lu passes=%d\n",
		       i + 1, p->name, p->blocks, p->span, p->stride, MT_PASSES);
		sum += measure[i](buf, p->blocks, p->span, p->stride);
	}
	return sum;
}

/* modeltest_run: see modeltest.h. */
int modeltest_run(bool repstrings)
{
	char *buf = find_buffer();
	unsigned long flags, sum = 0;
	int failed = 0;

	if (!buf) {
		printk("modeltest: FAILED: no %d consecutive %lu KiB blocks free (boot with more"
		       " memory, -m 512M or more)\n", MT_MAX_BLOCKS, MT_BLOCK >> 10);
		return 1;
	}
	printk("modeltest: buffer virt=%p phys=0x%lx blocks=%d\n", buf,
	       (unsigned long)VIRT_TO_PHYS(buf), MT_MAX_BLOCKS);
	flags = arch_irq_save();
	if (repstrings)
		failed = run_strings(buf);
	else
		sum = run_patterns(buf);
	arch_irq_restore(flags);
	for (int b = 0; b < MT_MAX_BLOCKS; b++)
		free_pages_addr(buf + b * MT_BLOCK, MAX_ORDER);
	printk("modeltest: done (checksum %lu)\n", sum);
	return failed;
}
