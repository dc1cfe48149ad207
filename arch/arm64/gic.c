/*
 * gic.c - the GICv3 interrupt controller: distributor (GICD), one
 * redistributor per CPU (GICR: its SGIs and PPIs), and the CPU interface
 * through system registers (ICC_*).
 *
 * Quarry uses only private interrupts: the virtual timer's PPI and two
 * SGIs. QEMU virt runs the GIC with a single security state (GICD_CTLR.DS
 * reads 1), where Group 1 interrupts arrive as IRQs and Group 0 as FIQs.
 * The wake-up SGI is Group 1 and masked with interrupts; the NMI SGI
 * (stop, report: kernel/nmi.c) is Group 0, so it reaches a CPU that has
 * IRQs masked: the FIQ is our NMI.
 *
 * gic_init runs once on the boot CPU; gic_cpu_init on every CPU for itself.
 * Neither takes a lock: each writes only its own redistributor and system
 * registers, and the distributor is set before any other CPU starts.
 */
#include "arch/arm64/arm64.h"
#include "boot/dtb.h"
#include "kernel/bug.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"

#define GICD_CTLR		0x0000
#define GICD_CTLR_RWP		(1U << 31)
#define GICD_CTLR_ARE		(1U << 4)
#define GICD_CTLR_GRP1		(1U << 1)
#define GICD_CTLR_GRP0		(1U << 0)

#define GICR_FRAME		0x20000		/* RD_base + SGI_base, per CPU */
#define GICR_TYPER		0x0008
#define GICR_TYPER_LAST		(1ULL << 4)
#define GICR_WAKER		0x0014
#define WAKER_PROCESSOR_SLEEP	(1U << 1)
#define WAKER_CHILDREN_ASLEEP	(1U << 2)
#define GICR_SGI		0x10000		/* SGI_base within a frame */
#define GICR_IGROUPR0		0x0080
#define GICR_ISENABLER0		0x0100
#define GICR_IPRIORITYR		0x0400

#define PRIO_IRQ		0xa0
#define PRIO_FIQ		0x20

static uint8_t *gicd;
static bool ready;
static DEFINE_PER_CPU(uint8_t *, gicr_sgi);	/* this CPU's SGI_base */

static inline uint32_t rd32(const uint8_t *base, unsigned int off)
{
	return *(volatile const uint32_t *)(base + off);
}

static inline void wr32(uint8_t *base, unsigned int off, uint32_t v)
{
	*(volatile uint32_t *)(base + off) = v;
}

/* gic_ready - true once gic_init has run (SGIs can be sent). */
bool gic_ready(void)
{
	return ready;
}

/*
 * gic_init - check the GIC is a v3, enable the distributor with affinity
 * routing and both groups. Boot CPU, once, before gic_cpu_init.
 */
void gic_init(void)
{
	if (dt_platform.gic_version != 3)
		panic("gic: Quarry needs a GICv3 (QEMU: -M virt,gic-version=3); the device tree "
		      "has %s", dt_platform.gic_version ? "a GICv2" : "no GIC");
	gicd = (uint8_t *)(uintptr_t)dt_platform.gicd_base;
	wr32(gicd, GICD_CTLR, GICD_CTLR_ARE | GICD_CTLR_GRP1 | GICD_CTLR_GRP0);
	while (rd32(gicd, GICD_CTLR) & GICD_CTLR_RWP)
		;
	ready = true;
}

static uint8_t *find_redistributor(void)
{
	uint64_t mpidr = read_sysreg(mpidr_el1);
	uint32_t aff = (uint32_t)(((mpidr >> 32) & 0xff) << 24 | (mpidr & 0xffffff));
	uint8_t *rd = (uint8_t *)(uintptr_t)dt_platform.gicr_base;
	uint8_t *end = rd + dt_platform.gicr_size;

	for (; rd < end; rd += GICR_FRAME) {
		uint64_t typer = *(volatile const uint64_t *)(rd + GICR_TYPER);

		if ((uint32_t)(typer >> 32) == aff)
			return rd;
		if (typer & GICR_TYPER_LAST)
			break;
	}
	panic("gic: no redistributor for MPIDR %lx", (unsigned long)mpidr);
}

static void set_private(uint8_t *sgi, unsigned int intid, bool fiq)
{
	uint32_t bit = 1U << intid;
	uint32_t group = rd32(sgi, GICR_IGROUPR0);

	wr32(sgi, GICR_IGROUPR0, fiq ? group & ~bit : group | bit);
	*(volatile uint8_t *)(sgi + GICR_IPRIORITYR + intid) = fiq ? PRIO_FIQ : PRIO_IRQ;
	wr32(sgi, GICR_ISENABLER0, bit);
}

/*
 * gic_cpu_init - wake this CPU's redistributor, set up its SGIs (wake-up
 * as IRQ, the NMI as FIQ) and enable its CPU interface for both
 * groups at every priority. Every CPU, once, IRQs masked.
 */
void gic_cpu_init(void)
{
	uint8_t *rd = find_redistributor();
	uint8_t *sgi = rd + GICR_SGI;

	wr32(rd, GICR_WAKER, rd32(rd, GICR_WAKER) & ~WAKER_PROCESSOR_SLEEP);
	while (rd32(rd, GICR_WAKER) & WAKER_CHILDREN_ASLEEP)
		;
	this_cpu_write(gicr_sgi, sgi);
	set_private(sgi, SGI_WAKEUP, false);
	set_private(sgi, SGI_NMI, true);

	write_sysreg(S3_0_C12_C12_5, read_sysreg(S3_0_C12_C12_5) | 1);	/* ICC_SRE_EL1.SRE */
	isb();
	write_sysreg(S3_0_C4_C6_0, 0xff);		/* ICC_PMR_EL1: every priority */
	write_sysreg(S3_0_C12_C12_3, 0);		/* ICC_BPR1_EL1 */
	write_sysreg(S3_0_C12_C8_3, 0);			/* ICC_BPR0_EL1 */
	write_sysreg(S3_0_C12_C12_6, 1);		/* ICC_IGRPEN0_EL1 */
	write_sysreg(S3_0_C12_C12_7, 1);		/* ICC_IGRPEN1_EL1 */
	isb();
}

/* gic_enable_ppi - route private interrupt intid (16..31) of this CPU to its IRQ. */
void gic_enable_ppi(unsigned int intid)
{
	ASSERT(intid >= 16 && intid < 32);
	set_private(this_cpu_read(gicr_sgi), intid, false);
}

/*
 * gic_send_sgi - send SGI sgi to the CPU with affinity mpidr: a Group 0
 * SGI (FIQ) for SGI_NMI, Group 1 (IRQ) otherwise.
 */
void gic_send_sgi(uint64_t mpidr, unsigned int sgi)
{
	uint64_t v = ((mpidr >> 32) & 0xff) << 48 |		/* Aff3 */
		     ((mpidr >> 16) & 0xff) << 32 |		/* Aff2 */
		     ((mpidr >> 8) & 0xff) << 16 |		/* Aff1 */
		     (uint64_t)sgi << 24 |
		     ((mpidr >> 4) & 0xf) << 44 |		/* RS: Aff0 / 16 */
		     1ULL << (mpidr & 0xf);			/* target list */

	dsb(ishst);	/* what the target will read is written before it is woken */
	if (sgi == SGI_NMI)
		write_sysreg(S3_0_C12_C11_7, v);	/* ICC_SGI0R_EL1 */
	else
		write_sysreg(S3_0_C12_C11_5, v);	/* ICC_SGI1R_EL1 */
	isb();
}

/* gic_ack_irq - acknowledge the highest pending Group 1 interrupt; 1020+ is spurious. */
unsigned int gic_ack_irq(void)
{
	unsigned int intid = (unsigned int)read_sysreg(S3_0_C12_C12_0) & 0xffffff; /* IAR1 */

	dsb(sy);
	return intid;
}

/* gic_eoi_irq - end of a Group 1 interrupt that gic_ack_irq returned. */
void gic_eoi_irq(unsigned int intid)
{
	write_sysreg(S3_0_C12_C12_1, intid);	/* ICC_EOIR1_EL1 */
	isb();
}

/* gic_ack_fiq - acknowledge the highest pending Group 0 interrupt; 1020+ is spurious. */
unsigned int gic_ack_fiq(void)
{
	unsigned int intid = (unsigned int)read_sysreg(S3_0_C12_C8_0) & 0xffffff; /* IAR0 */

	dsb(sy);
	return intid;
}

/* gic_eoi_fiq - end of a Group 0 interrupt that gic_ack_fiq returned. */
void gic_eoi_fiq(unsigned int intid)
{
	write_sysreg(S3_0_C12_C8_1, intid);	/* ICC_EOIR0_EL1 */
	isb();
}
