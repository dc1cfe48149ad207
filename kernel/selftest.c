/*
 * selftest.c - runs the tests registered with SELFTEST() (see selftest.h).
 * Used by the kernel (cmdline "selftest") and by the host test binary.
 * Around every test, leak accounting (lab/leakcheck.h): free pages and
 * each cache's objects in use after the test, with all caching drained,
 * must equal what they were before it; a difference is printed by cache
 * and fails the test. A host-only test may bring mm/ up again on its own
 * arena, so after one the next test is compared with a fresh mark. A
 * test that returns with interrupts off (a check failed inside a section
 * that turned them off) gets them back before the leak mark, which asks
 * every CPU to drain and so needs them on; one that passed that way fails.
 */
#include "kernel/selftest.h"
#include "lab/leakcheck.h"
#include "kernel/printk.h"
#include <asm/irqflags.h>
#include <stdarg.h>

extern const struct selftest __start_selftests[], __stop_selftests[];

static char fail_reason[256];

/* selftest_fail: see selftest.h. */
int selftest_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(fail_reason, sizeof(fail_reason), fmt, ap);
	va_end(ap);
	return -1;
}

/* selftest_run_all: see selftest.h. */
int selftest_run_all(int on_host)
{
	return selftest_run_prefix(on_host, "");
}

/* selftest_call: see selftest.h. */
int selftest_call(const struct selftest *t)
{
	int rc = t->fn();

	if (arch_irqs_disabled()) {
		arch_irq_enable();
		if (rc == 0)
			rc = selftest_fail("returned with interrupts off");
	}
	return rc;
}

static bool has_prefix(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return false;
	return true;
}

/* selftest_run_prefix: see selftest.h. */
int selftest_run_prefix(int on_host, const char *prefix)
{
	static struct leak_mark marks[2];
	struct leak_mark *before = &marks[0], *after = &marks[1], *swap;
	int passed = 0, failed = 0, rc, leaks;

	leak_mark_take(before);
	for (const struct selftest *t = __start_selftests; t < __stop_selftests; t++) {
		if ((t->host_only && !on_host) || !has_prefix(t->name, prefix))
			continue;
		fail_reason[0] = '\0';
		rc = selftest_call(t);
		if (t->host_only) {
			leak_mark_take(before);
		} else {
			leaks = leak_mark_compare(before, after, t->name);
			if (leaks && rc == 0)
				rc = selftest_fail("leaked: %d differences in pages or objects "
						   "(the 'leak:' lines above)", leaks);
			swap = before;
			before = after;
			after = swap;
		}
		if (rc == 0) {
			printk("PASS %s\n", t->name);
			passed++;
		} else {
			printk("FAIL %s: %s\n", t->name, fail_reason);
			failed++;
		}
	}
	printk("%d passed, %d failed\n", passed, failed);
	return failed;
}
