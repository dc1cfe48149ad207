/*
 * test_fault_inject_host.c - mm/fault_inject.c on the host: the four
 * numbers parsed from "interval,probability,times,seed" and every bad form
 * refused with a message naming the failure point and the text (the point
 * left as it was); which calls fail for an interval, a probability and a
 * limit of times; the same seed failing the same calls; alloc_pages,
 * kmalloc and kmem_cache_alloc returning NULL while a point is on and
 * working again after, with every page back; and kernel/cmdline.c's
 * cmdline_value, which reads the options from the command line.
 */
#include "host_shim.h"
#include "kernel/bootinfo.h"
#include "kernel/errno.h"
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include "mm/fault_inject.h"
#ifndef CONFIG_ALLOC_NONE
#include "mm/slab.h"
#endif
#include <string.h>

static struct fault_attr test_attr = { .name = "test_point" };

SELFTEST_HOST(fault_inject_parse)
{
	static const struct {
		const char *spec, *says;
	} bad[] = {
		{ "", "bad interval" },
		{ "abc", "bad interval" },
		{ "1,10", "no times" },
		{ "1,10,-1", "no seed" },
		{ "1,10,-1,", "bad seed" },
		{ "0,10,-1,1", "interval must be at least 1" },
		{ "1,101,-1,1", "probability is a percentage" },
		{ "1,10,-2,1", "bad times" },
		{ "1,-10,5,1", "bad probability" },
		{ "1,10,5,1,7", "unexpected text after the seed" },
		{ "1,10,5,0xg", "bad seed" },
		{ "99999999999999999999,1,1,1", "bad interval" },
	};

	memset(&test_attr, 0, sizeof(test_attr));
	test_attr.name = "test_point";
	ST_EXPECT(fault_attr_parse(&test_attr, "3,25,-1,0x2a") == 0, "good spec refused");
	ST_EXPECT(test_attr.enabled && test_attr.interval == 3 && test_attr.probability == 25 &&
		      test_attr.times == -1 && test_attr.seed == 42,
		  "parsed %lu,%u,%ld,%llu", test_attr.interval, test_attr.probability,
		  test_attr.times, (unsigned long long)test_attr.seed);
	ST_EXPECT(fault_attr_parse(&test_attr, "1,100,7,5") == 0 && test_attr.times == 7,
		  "times 7 not taken");
	fault_attr_disable(&test_attr);
	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		host_console_clear();
		ST_EXPECT(fault_attr_parse(&test_attr, bad[i].spec) == -EINVAL,
			  "\"%s\" accepted", bad[i].spec);
		ST_EXPECT(host_console_contains("test_point=") &&
			  host_console_contains(bad[i].says),
			  "\"%s\": the message lacks \"test_point=\" or \"%s\"", bad[i].spec,
			  bad[i].says);
		ST_EXPECT(!test_attr.enabled && test_attr.times == 7 && test_attr.interval == 1,
			  "\"%s\" changed the point", bad[i].spec);
	}
	return 0;
}

SELFTEST_HOST(fault_inject_interval_probability_times)
{
	bool first[64];
	unsigned int fails = 0;

	/* every 3rd call, always, at most 2 failures: calls 3 and 6 */
	fault_attr_set(&test_attr, 3, 100, 2, 1);
	for (unsigned int n = 1; n <= 12; n++) {
		bool f = should_fail(&test_attr);

		ST_EXPECT(f == (n == 3 || n == 6), "call %u: %s", n, f ? "failed" : "passed");
	}
	ST_EXPECT(test_attr.injected == 2 && test_attr.calls == 12 && test_attr.times == 0,
		  "%lu injected in %lu calls, %ld left", test_attr.injected, test_attr.calls,
		  test_attr.times);
	/* 30%: about that many of 1000, and the same calls again with the same seed */
	fault_attr_set(&test_attr, 1, 30, -1, 99);
	for (unsigned int n = 0; n < 1000; n++) {
		bool f = should_fail(&test_attr);

		fails += f;
		if (n < 64)
			first[n] = f;
	}
	ST_EXPECT(fails > 200 && fails < 400, "%u of 1000 calls failed at 30%%", fails);
	fault_attr_set(&test_attr, 1, 30, -1, 99);
	for (unsigned int n = 0; n < 64; n++)
		ST_EXPECT(should_fail(&test_attr) == first[n], "call %u differs with the same seed",
			  n);
	/* probability 0 never fails; off never counts */
	fault_attr_set(&test_attr, 1, 0, -1, 5);
	for (unsigned int n = 0; n < 100; n++)
		ST_EXPECT(!should_fail(&test_attr), "probability 0 failed call %u", n);
	fault_attr_disable(&test_attr);
	ST_EXPECT(!should_fail(&test_attr) && test_attr.calls == 100, "a disabled point counted");
	return 0;
}

/* Every cache and CPU list drained: the pages free with nothing cached. */
static unsigned long settled_free_pages(void)
{
#ifndef CONFIG_ALLOC_NONE
	slab_drain_all();
#endif
	drain_all_pages();
	return nr_free_pages();
}

SELFTEST_HOST(fault_inject_allocators_fail_and_recover)
{
	unsigned long before = settled_free_pages();

	fault_attr_set(&fail_page_alloc, 1, 100, 3, 0);
	for (unsigned int order = 0; order < 3; order++)
		ST_EXPECT(alloc_pages(order) == NULL, "alloc_pages(%u) did not fail", order);
	ST_EXPECT(fail_page_alloc.injected == 3, "%lu page faults injected",
		  fail_page_alloc.injected);
	{
		struct page *p = alloc_pages(0);	/* times used up */

		ST_EXPECT(p != NULL, "alloc_pages failed after its 3 failures");
		free_pages(p, 0);
	}
	fault_attr_disable(&fail_page_alloc);
#ifndef CONFIG_ALLOC_NONE
	{
		struct kmem_cache *c = kmem_cache_create("fault-test", 40, 0, 0, NULL);
		void *p;

		ST_EXPECT(c != NULL, "create failed");
		fault_attr_set(&failslab, 1, 100, -1, 0);
		ST_EXPECT(kmalloc(64) == NULL, "kmalloc did not fail");
		ST_EXPECT(kmem_cache_alloc(c) == NULL, "kmem_cache_alloc did not fail");
		p = kmalloc(PAGE_SIZE * 4);	/* large: pages, not failslab */
		ST_EXPECT(p != NULL, "large kmalloc failed under failslab");
		kfree(p);
		fault_attr_disable(&failslab);
		p = kmem_cache_alloc(c);
		ST_EXPECT(p != NULL, "kmem_cache_alloc failed after failslab went off");
		kmem_cache_free(c, p);
		ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	}
#endif
	ST_EXPECT(settled_free_pages() == before, "pages not back: %lu free, %lu before",
		  nr_free_pages(), before);
	return 0;
}

SELFTEST_HOST(cmdline_value_reads_key_value)
{
	struct boot_info bi;
	char buf[16];

	memset(&bi, 0, sizeof(bi));
	strcpy(bi.cmdline,
	       "selftest xfailslab=9 failslab=1,2,3,4 fail_page_alloc=5,6,-1,0x7 last=");
	ST_EXPECT(cmdline_value(&bi, "failslab", buf, sizeof(buf)) &&
		  strcmp(buf, "1,2,3,4") == 0, "failslab: \"%s\"", buf);
	ST_EXPECT(cmdline_value(&bi, "fail_page_alloc", buf, sizeof(buf)) &&
		  strcmp(buf, "5,6,-1,0x7") == 0, "fail_page_alloc: \"%s\"", buf);
	ST_EXPECT(cmdline_value(&bi, "last", buf, sizeof(buf)) && buf[0] == '\0', "empty value");
	ST_EXPECT(!cmdline_value(&bi, "selftest", buf, sizeof(buf)),
		  "a word without = has a value");
	ST_EXPECT(!cmdline_value(&bi, "fail", buf, sizeof(buf)), "a key prefix matched");
	ST_EXPECT(cmdline_value(&bi, "fail_page_alloc", buf, 4) && strcmp(buf, "5,6") == 0,
		  "not cut to the buffer: \"%s\"", buf);
	return 0;
}
