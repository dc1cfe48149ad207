/*
 * lapic.c - the local APIC (xAPIC, memory-mapped): enabling it on each CPU,
 * end of interrupt, IPIs, and the periodic timer that drives timer_tick();
 * plus the legacy devices around it: the 8259 PICs (remapped and masked:
 * Quarry takes no legacy interrupts) and PIT channel 2, used once at boot
 * as the reference clock.
 *
 * Timer: the boot CPU measures how far the APIC timer (divide by 16) and
 * the TSC advance during CALIBRATE_MS of PIT channel 2, a one-shot
 * countdown at 1.193182 MHz, and every CPU then runs its timer in periodic
 * mode at HZ with that count. All local APIC timers run from the same bus
 * clock, so one calibration serves every CPU. If the measurement is absurd
 * (broken or missing PIT), the count falls back to what QEMU's APIC runs at
 * (1 GHz, so 62500 per ms at divide 16) and says so.
 */
#include "arch/x86_64/x86.h"
#include "arch/x86_64/io.h"
#include "kernel/arch.h"
#include "kernel/irq.h"
#include "kernel/printk.h"
#include "kernel/timer.h"
#include <asm/irqflags.h>
#include <asm/processor.h>

/* Register offsets */
#define LAPIC_ID	0x020
#define LAPIC_VERSION	0x030
#define LAPIC_TPR	0x080
#define LAPIC_EOI	0x0b0
#define LAPIC_SVR	0x0f0
#define LAPIC_ESR	0x280
#define LAPIC_ICR_LO	0x300
#define LAPIC_ICR_HI	0x310
#define LAPIC_LVT_TIMER	0x320
#define LAPIC_LVT_LINT0	0x350
#define LAPIC_LVT_LINT1	0x360
#define LAPIC_LVT_ERROR	0x370
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_CUR	0x390
#define LAPIC_TIMER_DIV	0x3e0

#define APIC_BASE_ENABLE (1ULL << 11)
#define SVR_ENABLE	(1U << 8)
#define LVT_MASKED	(1U << 16)
#define LVT_PERIODIC	(1U << 17)
#define LVT_NMI		(4U << 8)
#define TIMER_DIV_16	0x3

#define ICR_FIXED	(0U << 8)
#define ICR_NMI		(4U << 8)
#define ICR_INIT	(5U << 8)
#define ICR_STARTUP	(6U << 8)
#define ICR_PENDING	(1U << 12)
#define ICR_ASSERT	(1U << 14)
#define ICR_LEVEL	(1U << 15)

#define PIT_HZ		1193182
#define CALIBRATE_MS	20
#define QEMU_APIC_COUNT_PER_MS 62500	/* QEMU's 1 GHz APIC clock, divide 16 */

static volatile uint32_t *lapic;
static uint32_t timer_count;		/* initial count for one tick at HZ */
static uint64_t tsc_khz;

static inline uint32_t lapic_read(unsigned int reg)
{
	return lapic[reg / 4];
}

static inline void lapic_write(unsigned int reg, uint32_t v)
{
	lapic[reg / 4] = v;
}

/* lapic_eoi - end of interrupt: the local APIC may deliver the next one. */
void lapic_eoi(void)
{
	lapic_write(LAPIC_EOI, 0);
}

/* lapic_id - the running CPU's local APIC ID. */
uint32_t lapic_id(void)
{
	return lapic_read(LAPIC_ID) >> 24;
}

static void icr_wait(void)
{
	while (lapic_read(LAPIC_ICR_LO) & ICR_PENDING)
		cpu_relax();
}

/*
 * The two ICR writes must not be split by an interrupt handler that sends
 * an IPI of its own, hence interrupts off.
 */
static void send_icr(uint32_t apic_id, uint32_t lo)
{
	unsigned long flags = arch_irq_save();

	icr_wait();
	lapic_write(LAPIC_ICR_HI, apic_id << 24);
	lapic_write(LAPIC_ICR_LO, lo);
	icr_wait();
	arch_irq_restore(flags);
}

/* lapic_send_init - INIT IPI: reset the target into wait-for-startup. */
void lapic_send_init(uint32_t apic_id)
{
	send_icr(apic_id, ICR_INIT | ICR_ASSERT | ICR_LEVEL);
	udelay(200);
	/* De-assert: needed by the oldest APICs, ignored by current ones. */
	send_icr(apic_id, ICR_INIT | ICR_LEVEL);
}

/* lapic_send_sipi - STARTUP IPI: the target starts in real mode at page << 12. */
void lapic_send_sipi(uint32_t apic_id, uint8_t page)
{
	send_icr(apic_id, ICR_STARTUP | ICR_ASSERT | page);
}

/* lapic_send_ipi - a fixed interrupt at vector on the CPU with this APIC ID. */
void lapic_send_ipi(uint32_t apic_id, uint8_t vector)
{
	send_icr(apic_id, ICR_FIXED | ICR_ASSERT | vector);
}

/* lapic_send_nmi - a non-maskable interrupt to the CPU with this APIC ID. */
void lapic_send_nmi(uint32_t apic_id)
{
	send_icr(apic_id, ICR_NMI | ICR_ASSERT);
}

/* udelay - busy-wait us microseconds on the TSC (calibrated in lapic_init). */
void udelay(unsigned long us)
{
	uint64_t start = arch_cycles();
	uint64_t wait = us * (tsc_khz ? tsc_khz : 1000000) / 1000;

	while (arch_cycles() - start < wait)
		cpu_relax();
}

/* arch_cycles_khz: see kernel/arch.h. */
unsigned long arch_cycles_khz(void)
{
	return tsc_khz;
}

/* pic_disable - remap the 8259 PICs to vectors 0x20-0x2f and mask every line. */
void pic_disable(void)
{
	/*
	 * Remapped first: a spurious IRQ 7 or 15 (which masking cannot stop)
	 * must not arrive on an exception vector, where the BIOS leaves them.
	 */
	outb(0x20, 0x11);		/* ICW1: initialise, ICW4 follows */
	outb(0xa0, 0x11);
	outb(0x21, PIC_VECTOR_BASE);	/* ICW2: vector base */
	outb(0xa1, PIC_VECTOR_BASE + 8);
	outb(0x21, 0x04);		/* ICW3: slave on IRQ 2 */
	outb(0xa1, 0x02);
	outb(0x21, 0x01);		/* ICW4: 8086 mode */
	outb(0xa1, 0x01);
	outb(0x21, 0xff);		/* mask everything */
	outb(0xa1, 0xff);
	/*
	 * Stop PIT channel 0, which the BIOS left counting at 18.2 Hz into
	 * the masked IRQ 0: mode 0 with a count of 1 ends after one count.
	 * Its interrupts reach no CPU, but under QEMU -icount every period
	 * is a timer deadline at which QEMU restarts its vCPU round-robin, at
	 * a phase set by how long the boot's disk reads took: multi-CPU
	 * -icount benchmarks repeat more closely without it.
	 */
	outb(0x43, 0x30);		/* channel 0, lo/hi byte, mode 0 */
	outb(0x40, 1);
	outb(0x40, 0);
}

static void pic_spurious(unsigned int vector)
{
	/* A masked PIC's spurious IRQ: nothing to acknowledge. */
}

static void timer_interrupt(unsigned int vector)
{
	timer_tick(smp_processor_id());
	lapic_eoi();
}

static void wakeup_interrupt(unsigned int vector)
{
	/* Nothing to do: the CPU left hlt and will look for work. */
	lapic_eoi();
}

static void error_interrupt(unsigned int vector)
{
	uint32_t esr;

	lapic_write(LAPIC_ESR, 0);	/* latch the errors into ESR */
	esr = lapic_read(LAPIC_ESR);
	printk("lapic: APIC error 0x%x on CPU %u\n", esr, smp_processor_id());
	lapic_eoi();
}

static void spurious_interrupt(unsigned int vector)
{
	/* Not a real interrupt: no EOI (the SDM says so). */
}

/* PIT channel 2 counts down ms milliseconds once; pit_done() tells when it is over. */
static void pit_start(unsigned int ms)
{
	uint32_t count = PIT_HZ * ms / 1000;

	outb(0x61, (inb(0x61) & ~0x02) | 0x01);	/* gate 2 on, speaker off */
	outb(0x43, 0xb0);			/* channel 2, lo/hi byte, mode 0 */
	outb(0x42, count & 0xff);
	outb(0x42, (count >> 8) & 0xff);
}

static bool pit_done(void)
{
	return inb(0x61) & 0x20;		/* OUT2 rises at zero */
}

static void calibrate(void)
{
	uint64_t t0, t1, per_ms;
	uint32_t left;
	unsigned long spins = 0;

	lapic_write(LAPIC_TIMER_DIV, TIMER_DIV_16);
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | TIMER_VECTOR);
	pit_start(CALIBRATE_MS);
	lapic_write(LAPIC_TIMER_INIT, 0xffffffff);
	t0 = arch_cycles();
	while (!pit_done() && ++spins < 100000000UL)
		;
	t1 = arch_cycles();
	left = lapic_read(LAPIC_TIMER_CUR);
	lapic_write(LAPIC_TIMER_INIT, 0);

	per_ms = (0xffffffffULL - left) / CALIBRATE_MS;
	tsc_khz = (t1 - t0) / CALIBRATE_MS;
	if (!pit_done() || per_ms < 1000 || per_ms > 100000000ULL) {
		printk("lapic: timer calibration against the PIT failed (%llu counts/ms); "
		       "using QEMU's %d\n", (unsigned long long)per_ms, QEMU_APIC_COUNT_PER_MS);
		per_ms = QEMU_APIC_COUNT_PER_MS;
		tsc_khz = 0;
	}
	timer_count = (uint32_t)(per_ms * 1000 / HZ);
	printk("lapic: timer %d Hz: %u counts per tick at divide 16 (calibrated against the "
	       "PIT), TSC %llu kHz\n", HZ, timer_count, (unsigned long long)tsc_khz);
}

/*
 * lapic_setup_cpu - enable the running CPU's local APIC: LINT0/LINT1 masked
 * (no legacy PIC; NMIs come as IPIs), errors to APIC_ERROR_VECTOR, spurious
 * interrupts to SPURIOUS_VECTOR, and start its periodic timer at HZ. Each
 * CPU once, interrupts off; lapic_init first.
 */
void lapic_setup_cpu(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);

	if (!(base & APIC_BASE_ENABLE))
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_ENABLE);
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_LVT_LINT0, LVT_MASKED);
	lapic_write(LAPIC_LVT_LINT1, LVT_MASKED);
	lapic_write(LAPIC_LVT_ERROR, APIC_ERROR_VECTOR);
	lapic_write(LAPIC_ESR, 0);
	lapic_write(LAPIC_ESR, 0);
	lapic_write(LAPIC_SVR, SVR_ENABLE | SPURIOUS_VECTOR);
	lapic_eoi();

	lapic_write(LAPIC_TIMER_DIV, TIMER_DIV_16);
	lapic_write(LAPIC_LVT_TIMER, LVT_PERIODIC | TIMER_VECTOR);
	lapic_write(LAPIC_TIMER_INIT, timer_count);
}

/*
 * lapic_init - on the boot CPU, once: map the local APIC registers at
 * base_phys uncached, register the interrupt handlers, calibrate the timer
 * against the PIT and set up the boot CPU's local APIC (lapic_setup_cpu).
 * The PICs must be masked already (pic_disable).
 */
void lapic_init(uint64_t base_phys)
{
	lapic = paging_map_uncached(base_phys, 4096);
	for (unsigned int v = PIC_VECTOR_BASE; v < PIC_VECTOR_BASE + 16; v++)
		irq_register(v, pic_spurious);
	irq_register(TIMER_VECTOR, timer_interrupt);
	irq_register(WAKEUP_VECTOR, wakeup_interrupt);
	irq_register(APIC_ERROR_VECTOR, error_interrupt);
	irq_register(SPURIOUS_VECTOR, spurious_interrupt);
	lapic_write(LAPIC_SVR, SVR_ENABLE | SPURIOUS_VECTOR);
	printk("lapic: local APIC at 0x%llx, ID %u, version 0x%x\n",
	       (unsigned long long)base_phys, lapic_id(), lapic_read(LAPIC_VERSION) & 0xff);
	calibrate();
	lapic_setup_cpu();
}

/* lapic_ready - the boot CPU's local APIC is mapped and IPIs can be sent. */
bool lapic_ready(void)
{
	return lapic != NULL;
}
