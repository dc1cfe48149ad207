/*
 * timer.c - time on arm64: the generic timer's virtual counter (CNTVCT_EL0,
 * CNTFRQ_EL0 Hz) for delays, its virtual timer as every CPU's periodic tick
 * at HZ (a PPI through the GIC: INTID from the device tree, 27 on virt),
 * and the PMU cycle counter's rate, measured once against the counter.
 *
 * The tick re-arms itself by comparator (CNTV_CVAL_EL0 += one period), so
 * ticks do not drift with interrupt latency; a CPU that fell more than a
 * period behind (a long stretch with IRQs masked) restarts from now.
 */
#include "arch/arm64/arm64.h"
#include "boot/dtb.h"
#include "kernel/arch.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/timer.h"
#include <asm/processor.h>

#define CALIBRATE_MS	10

static uint64_t cnt_hz;
static uint64_t period;		/* counter ticks per timer tick */
static unsigned long cycles_khz;

static inline uint64_t counter(void)
{
	isb();
	return read_sysreg(cntvct_el0);
}

/* udelay - spin for at least us microseconds. */
void udelay(unsigned long us)
{
	uint64_t hz = cnt_hz ? cnt_hz : read_sysreg(cntfrq_el0);
	uint64_t start = counter();
	uint64_t ticks = (us * hz + 999999) / 1000000;

	while (counter() - start < ticks)
		cpu_relax();
}

/*
 * cycles_calibrate - measure arch_cycles()'s rate against the counter over
 * CALIBRATE_MS. Boot CPU, once, after pmu_init.
 */
void cycles_calibrate(void)
{
	uint64_t c0, t0, c1, t1;

	cnt_hz = read_sysreg(cntfrq_el0);
	period = cnt_hz / HZ;
	t0 = counter();
	c0 = arch_cycles();
	udelay(CALIBRATE_MS * 1000);
	c1 = arch_cycles();
	t1 = counter();
	if (t1 > t0)
		cycles_khz = (unsigned long)((c1 - c0) * cnt_hz / (t1 - t0) / 1000);
	printk("timer: counter at %lu Hz, %s at %lu kHz, tick every %lu counts (HZ %d)\n",
	       (unsigned long)cnt_hz, ARCH_CYCLE_COUNTER, cycles_khz, (unsigned long)period, HZ);
}

/* arch_cycles_khz: see kernel/arch.h. */
unsigned long arch_cycles_khz(void)
{
	return cycles_khz;
}

/* timer_intid - the virtual timer's interrupt ID. */
unsigned int timer_intid(void)
{
	return dt_platform.timer_virt_intid;
}

/* timer_cpu_start - start this CPU's periodic tick. Every CPU, IRQs masked, after gic_cpu_init. */
void timer_cpu_start(void)
{
	gic_enable_ppi(timer_intid());
	write_sysreg(cntv_cval_el0, counter() + period);
	write_sysreg(cntv_ctl_el0, 1);		/* enabled, not masked */
	isb();
}

/* timer_irq - the virtual timer fired on this CPU: re-arm it and take the tick. */
void timer_irq(void)
{
	uint64_t next = read_sysreg(cntv_cval_el0) + period;
	uint64_t now = counter();

	if (next <= now)
		next = now + period;
	write_sysreg(cntv_cval_el0, next);
	isb();
	timer_tick(smp_processor_id());
}
