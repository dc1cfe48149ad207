/*
 * selftest.h - tests that run both in the kernel (cmdline "selftest") and on
 * the host under ASan/UBSan (tests/host). A test is a function returning 0 for
 * pass, or the value of selftest_fail() with a reason:
 *
 *	SELFTEST(buddy_order0_roundtrip)
 *	{
 *		struct page *p = alloc_pages(0);
 *		ST_EXPECT(p != NULL, "alloc_pages(0) returned NULL");
 *		...
 *		return 0;
 *	}
 *
 * The runner prints "PASS name" or "FAIL name: reason" for each and ends with
 * "N passed, N failed". Tests are registered in the .selftests section.
 * SELFTEST_HOST(name) registers a test that runs on the host only (it may
 * re-initialise mm/ on a private arena); SELFTEST_SCALE is 1 in the kernel and
 * larger on the host, for iteration counts.
 */
#ifndef QUARRY_SELFTEST_H
#define QUARRY_SELFTEST_H

#include "kernel/compiler.h"

struct selftest {
	const char *name;
	int (*fn)(void);
	int host_only;
};

#define __SELFTEST(tname, host)                                                   \
	static int st_fn_##tname(void);                                          \
	static const struct selftest st_##tname                                  \
		__attribute__((used, section("selftests"), aligned(8))) = {      \
			#tname, st_fn_##tname, host };                           \
	static int st_fn_##tname(void)

#define SELFTEST(tname) __SELFTEST(tname, 0)
#define SELFTEST_HOST(tname) __SELFTEST(tname, 1)

/* selftest_fail - record the reason (printf format) and return -1. */
int selftest_fail(const char *fmt, ...) __printf(1, 2);

#define ST_EXPECT(cond, fmt, ...)                                                 \
	do {                                                                      \
		if (!(cond))                                                      \
			return selftest_fail("%s:%d: " fmt, __FILE__, __LINE__,   \
					     ##__VA_ARGS__);                      \
	} while (0)

/*
 * selftest_run_all - run every registered test (host_only ones only when
 * on_host), print results and the summary line. Returns the failure count.
 */
int selftest_run_all(int on_host);

/*
 * selftest_run_prefix - the same for the tests whose name starts with
 * prefix ("stress_": the stress tests, which the kernel runs alone for the
 * command line word "stresstest", with faults injected in make test).
 */
int selftest_run_prefix(int on_host, const char *prefix);

/*
 * selftest_call - run one test's function, as the runner does: a test
 * that returns with interrupts off (a check failed inside a section that
 * turned them off) gets them back, and fails if it had passed. Returns 0
 * or the failure's value. Interrupts on at the call.
 */
int selftest_call(const struct selftest *t);

#ifdef QUARRY_HOST
#define SELFTEST_SCALE 10
#else
#define SELFTEST_SCALE 1
#endif

#endif
