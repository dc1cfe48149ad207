/*
 * test_selftest.c - the self-test runner's own guard: a test that returns
 * with interrupts off (one whose check failed inside an interrupts-off
 * section) gets them back and fails, instead of leaving them off for the
 * leak check and the tests after it.
 */
#include "kernel/selftest.h"
#include <asm/irqflags.h>

static int passes_with_interrupts_off(void)
{
	arch_irq_disable();
	return 0;
}

static int fails_with_interrupts_off(void)
{
	arch_irq_disable();
	return selftest_fail("the check that failed");
}

SELFTEST(selftest_returning_with_interrupts_off_fails_and_gets_them_back)
{
	const struct selftest passes = { "passes-irqs-off", passes_with_interrupts_off, 0 };
	const struct selftest fails = { "fails-irqs-off", fails_with_interrupts_off, 0 };
	int rc;

	ST_EXPECT(!arch_irqs_disabled(), "interrupts off at the start");
	rc = selftest_call(&passes);
	ST_EXPECT(!arch_irqs_disabled(), "interrupts still off after a test that passed");
	ST_EXPECT(rc != 0, "a test that returned with interrupts off passed");
	rc = selftest_call(&fails);
	ST_EXPECT(!arch_irqs_disabled(), "interrupts still off after a test that failed");
	ST_EXPECT(rc != 0, "a failed test passed");
	return 0;
}
