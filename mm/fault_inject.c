/*
 * fault_inject.c - fail_page_alloc and failslab: see mm/fault_inject.h.
 *
 * Design: each failure point is a struct fault_attr whose 'enabled' word is
 * the only thing the allocation fast paths read. When it is set, every call
 * takes a number n from the point's call counter (one atomic add) and fails
 * when n is a multiple of the interval, a splitmix64 hash of (seed, n) is
 * below the probability, and 'times' still allows a failure (taken with a
 * compare-and-exchange so concurrent CPUs never exceed it). The decision
 * depends on n and the seed only: a single CPU repeating the same calls
 * sees the same failures; with several CPUs, which CPU draws which n
 * varies. An allocator may fold failslab's test into its fast path
 * (SLAB: SLAB_CPU_FAILSLAB in mm/slab/slab_def.h); SLAB_FAILSLAB_SWITCH tells it
 * when failslab goes on or off.
 */
#include "mm/fault_inject.h"
#ifdef CONFIG_ALLOC_NONE
#define SLAB_FAILSLAB_SWITCH(on)	((void)(on))	/* the page allocator alone: no slabs */
#else
#include "mm/slab_impl.h"
#endif
#include "kernel/errno.h"
#include "kernel/printk.h"

struct fault_attr fail_page_alloc = { .name = "fail_page_alloc" };
struct fault_attr failslab = { .name = "failslab" };

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Use up one of attr's failures; false when none is left. */
static bool take_one(struct fault_attr *attr)
{
	long t = __atomic_load_n(&attr->times, __ATOMIC_RELAXED);

	for (;;) {
		if (t == 0)
			return false;
		if (t < 0)
			return true;
		if (__atomic_compare_exchange_n(&attr->times, &t, t - 1, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return true;
	}
}

/* __should_fail: see fault_inject.h. */
bool __should_fail(struct fault_attr *attr)
{
	unsigned long n = __atomic_add_fetch(&attr->calls, 1, __ATOMIC_RELAXED);

	if (attr->interval > 1 && n % attr->interval != 0)
		return false;
	if (attr->probability < 100 && splitmix64(attr->seed ^ n) % 100 >= attr->probability)
		return false;
	if (!take_one(attr))
		return false;
	__atomic_add_fetch(&attr->injected, 1, __ATOMIC_RELAXED);
	return true;
}

/* fault_attr_set: see fault_inject.h. */
void fault_attr_set(struct fault_attr *attr, unsigned long interval, unsigned int probability,
		    long times, uint64_t seed)
{
	__atomic_store_n(&attr->enabled, 0, __ATOMIC_RELEASE);
	attr->interval = interval ? interval : 1;
	attr->probability = probability > 100 ? 100 : probability;
	attr->times = times < 0 ? -1 : times;
	attr->seed = seed;
	attr->calls = 0;
	attr->injected = 0;
	__atomic_store_n(&attr->enabled, 1, __ATOMIC_RELEASE);
	if (attr == &failslab)
		SLAB_FAILSLAB_SWITCH(true);
}

/* fault_attr_disable: see fault_inject.h. */
void fault_attr_disable(struct fault_attr *attr)
{
	__atomic_store_n(&attr->enabled, 0, __ATOMIC_RELEASE);
	if (attr == &failslab)
		SLAB_FAILSLAB_SWITCH(false);
}

/*
 * Read one unsigned number (decimal, or hex after 0x) from *s up to ',' or
 * the end; -1 allowed when neg_ok. Returns 0 and advances *s past it and
 * its comma, else -1.
 */
static int parse_field(const char **s, bool neg_ok, uint64_t *out, bool *negative)
{
	const char *p = *s;
	unsigned int base = 10;
	uint64_t v = 0;
	bool any = false;

	*negative = false;
	if (*p == '-') {
		if (!neg_ok)
			return -1;
		*negative = true;
		p++;
	}
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	for (;; p++) {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned int)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned int)(*p - 'a' + 10);
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned int)(*p - 'A' + 10);
		else
			break;
		if (v > (UINT64_MAX - d) / base)
			return -1;	/* too large */
		v = v * base + d;
		any = true;
	}
	if (!any || (*p != ',' && *p != '\0' && *p != ' '))
		return -1;
	if (*negative && v != 1)
		return -1;
	*out = v;
	*s = *p == ',' ? p + 1 : p;
	return 0;
}

/* fault_attr_parse: see fault_inject.h. */
int fault_attr_parse(struct fault_attr *attr, const char *spec)
{
	static const char *const field[] = { "interval", "probability", "times", "seed" };
	uint64_t v[4];
	const char *s = spec;
	bool neg[4];

	for (unsigned int i = 0; i < 4; i++) {
		bool bad = parse_field(&s, i == 2, &v[i], &neg[i]) != 0;

		if (bad || (i < 3 && s[-1] != ',')) {
			printk("%s=%s: %s %s (field %u): expected interval,probability,times,seed "
			       "(times -1: no limit), e.g. %s=1,10,-1,42\n",
			       attr->name, spec, bad ? "bad" : "no", field[bad ? i : i + 1],
			       bad ? i + 1 : i + 2, attr->name);
			return -EINVAL;
		}
	}
	if (*s != '\0' && *s != ' ') {
		printk("%s=%s: unexpected text after the seed: \"%s\"\n", attr->name, spec, s);
		return -EINVAL;
	}
	if (v[0] == 0 || v[1] > 100) {
		printk("%s=%s: %s\n", attr->name, spec,
		       v[0] == 0 ? "interval must be at least 1"
				 : "probability is a percentage, 0..100");
		return -EINVAL;
	}
	fault_attr_set(attr, (unsigned long)v[0], (unsigned int)v[1],
		       neg[2] ? -1L : (long)(v[2] > (uint64_t)__LONG_MAX__ ? __LONG_MAX__ : v[2]),
		       v[3]);
	return 0;
}

/* fault_attr_show: see fault_inject.h. */
void fault_attr_show(const struct fault_attr *attr)
{
	printk("fault injection: %s %s: interval %lu, probability %u%%, times left %ld, seed %llu: "
	       "%lu of %lu calls failed\n",
	       attr->name, attr->enabled ? "on" : "off", attr->interval, attr->probability,
	       attr->times, (unsigned long long)attr->seed, attr->injected, attr->calls);
}
