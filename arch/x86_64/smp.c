/*
 * smp.c - starting the application processors (APs) on x86_64, and the
 * arch side of kernel/smp.c: wake-up IPIs, idling, stopping other CPUs.
 *
 * Logical CPU numbers: the boot CPU is 0; the other enabled processors of
 * the ACPI MADT follow in MADT order, up to NR_CPUS. cpu_apic_id[] maps a
 * logical number to the local APIC ID that IPIs are addressed to.
 *
 * Bring-up of one AP (arch_cpu_start), one at a time:
 *   1. give it a stack (16 KiB from the buddy allocator) and write its
 *      number, stack and the page tables into the trampoline's parameters;
 *   2. INIT IPI, 10 ms, STARTUP IPI (vector = trampoline page), 200 us,
 *      a second STARTUP IPI if the AP has not yet said it is running
 *      (the MP specification's sequence; QEMU needs only the first);
 *   3. the AP climbs to long mode in trampoline.asm and calls ap_start,
 *      which sets up its GDT/TSS, IDT, page table, GS base and local APIC
 *      and enters kernel/smp.c's smp_secondary_main, which marks it online;
 *   4. the boot CPU waits for that (at most AP_START_TIMEOUT_MS).
 */
#include "arch/x86_64/x86.h"
#include "kernel/arch.h"
#include "kernel/acpi.h"
#include "kernel/printk.h"
#include "kernel/bug.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "mm/buddy.h"
#include <asm/barrier.h>
#include <asm/memlayout.h>
#include <asm/irqflags.h>

#define AP_STACK_SIZE		(16 * 1024)
#define AP_STACK_ORDER		(AP_STACK_SIZE > PAGE_SIZE ? 14 - PAGE_SHIFT : 0)
#define AP_START_TIMEOUT_MS	5000
#define XAPIC_MAX_ID		254	/* 255 is the broadcast ID */

/* trampoline.asm's parameter block; the layouts must match. */
struct ap_boot_params {
	uint64_t cr3_ap;
	uint64_t cr3_kernel;
	uint64_t stack_top;
	uint64_t entry;
	uint32_t cpu;
	uint32_t pad;
};

extern const char trampoline_start[], trampoline_end[], trampoline_params[];

static uint32_t cpu_apic_id[NR_CPUS];
static unsigned int nr_possible = 1;

/* The AP page table: the kernel's PML4 entries plus the direct map at 0 as identity map. */
static uint64_t ap_pml4[512] __aligned(4096);

/*
 * Hand-shake between the boot CPU and the AP it is starting: the boot CPU
 * sets ap_claim to the AP's number; the AP, once in ap_start, claims it by
 * changing it to number | AP_CLAIMED; a boot CPU that gives up changes it to
 * -1 instead. Both use compare-and-swap, so exactly one of them wins: an AP
 * that arrives too late finds -1 and parks itself, and an AP that claimed
 * in time is waited for.
 */
#define AP_CLAIMED	0x10000
static int ap_claim = -1;

/* x86_cpu_apic_id - the local APIC ID of logical CPU cpu. */
uint32_t x86_cpu_apic_id(unsigned int cpu)
{
	return cpu_apic_id[cpu];
}

/* arch_cpu_hw_id: see kernel/arch.h. */
uint32_t arch_cpu_hw_id(unsigned int cpu)
{
	return cpu_apic_id[cpu];
}

/* arch_this_cpu_hw_id: see kernel/arch.h. */
uint32_t arch_this_cpu_hw_id(void)
{
	return lapic_ready() ? lapic_id() : cpu_apic_id[0];
}

static struct ap_boot_params *low_params(void)
{
	return PHYS_TO_VIRT(TRAMPOLINE_BASE + (trampoline_params - trampoline_start));
}

static void trampoline_install(void)
{
	size_t size = (size_t)(trampoline_end - trampoline_start);
	const uint64_t *kernel_pml4 = PHYS_TO_VIRT(paging_kernel_pml4_phys());

	BUILD_BUG_ON(TRAMPOLINE_BASE % 4096 || TRAMPOLINE_BASE >= (1 << 20));
	ASSERT(size <= 4096);
	memcpy(PHYS_TO_VIRT(TRAMPOLINE_BASE), trampoline_start, size);
	/*
	 * Higher half as the kernel has it; the low half's first entry is the
	 * direct map's (phys 0 at virtual 0), so the trampoline's low addresses
	 * stay mapped while the AP turns paging on.
	 */
	memcpy(ap_pml4, kernel_pml4, sizeof(ap_pml4));
	ap_pml4[0] = kernel_pml4[256];
	ASSERT(KERNEL_TO_PHYS(ap_pml4) < (1ULL << 32));
}

/* arch_smp_prepare: see kernel/arch.h. */
unsigned int arch_smp_prepare(void)
{
	const struct acpi_madt_info *madt = acpi_madt();
	uint64_t base = madt->valid ? madt->lapic_base : rdmsr(MSR_APIC_BASE) & ~0xfffULL;
	unsigned int skipped = 0, too_high = 0;

	pic_disable();
	lapic_init(base);
	cpu_apic_id[0] = lapic_id();
	if (!madt->valid) {
		printk("smp: no usable MADT; only the boot CPU runs\n");
		return 1;
	}
	for (unsigned int i = 0; i < madt->n_cpus; i++) {
		uint32_t id = madt->cpus[i].apic_id;

		if (id == cpu_apic_id[0])
			continue;
		if (id > XAPIC_MAX_ID)
			too_high++;
		else if (nr_possible == NR_CPUS)
			skipped++;
		else
			cpu_apic_id[nr_possible++] = id;
	}
	if (skipped)
		printk("smp: %u more CPUs in the MADT not started: NR_CPUS is %d\n", skipped,
		       NR_CPUS);
	if (too_high)
		printk("smp: %u CPUs with APIC IDs above %d not started (no x2APIC support)\n",
		       too_high, XAPIC_MAX_ID);
	if (nr_possible > 1)
		trampoline_install();
	return nr_possible;
}

/* arch_cpu_start: see kernel/arch.h. */
int arch_cpu_start(unsigned int cpu)
{
	struct ap_boot_params *p = low_params();
	uint32_t apic = cpu_apic_id[cpu];
	uint8_t *stack;
	int expect;

	ASSERT(cpu > 0 && cpu < nr_possible);
	stack = get_free_pages(AP_STACK_ORDER);
	if (!stack) {
		printk("smp: no memory for CPU %u's stack\n", cpu);
		return -1;
	}
	/*
	 * Every byte written once: under QEMU TCG, a page the boot loader ran
	 * code from (the top of RAM, where GRUB relocates itself) stays slow to
	 * write until all of that code is overwritten, and an AP's stack there
	 * made the CPU 200 times slower. Harmless elsewhere.
	 */
	memset(stack, 0, PAGE_SIZE << AP_STACK_ORDER);
	p->cr3_ap = KERNEL_TO_PHYS(ap_pml4);
	p->cr3_kernel = read_cr3();
	p->stack_top = (uint64_t)(stack + AP_STACK_SIZE);
	p->cpu = cpu;
	/* Release: the parameters are written before an AP can see its number here. */
	__atomic_store_n(&ap_claim, (int)cpu, __ATOMIC_RELEASE);
	mb();	/* ... and before the IPIs (uncached stores to the local APIC) */

	lapic_send_init(apic);
	udelay(10000);
	lapic_send_sipi(apic, TRAMPOLINE_BASE >> 12);
	udelay(200);
	if (__atomic_load_n(&ap_claim, __ATOMIC_ACQUIRE) == (int)cpu)
		lapic_send_sipi(apic, TRAMPOLINE_BASE >> 12);

	for (unsigned int ms = 0; ms < AP_START_TIMEOUT_MS; ms++) {
		if (__atomic_load_n(&ap_claim, __ATOMIC_ACQUIRE) != (int)cpu)
			break;
		udelay(1000);
	}
	expect = (int)cpu;
	if (__atomic_compare_exchange_n(&ap_claim, &expect, -1, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		printk("smp: CPU %u (APIC ID %u) did not start within %d ms\n", cpu, apic,
		       AP_START_TIMEOUT_MS);
		/* The stack stays allocated: the AP might still be in the trampoline. */
		return -1;
	}
	/* It claimed its number: its setup is short and cannot fail. */
	while (!cpu_online(cpu))
		cpu_relax();
	__atomic_store_n(&ap_claim, -1, __ATOMIC_RELAXED);
	return 0;
}

/*
 * ap_start - an AP's first C code, called by trampoline.asm's ap_entry64
 * on the AP's own stack with interrupts off, still on the trampoline's GDT
 * and page table. Sets up this CPU and never returns.
 */
void ap_start(unsigned int cpu, uint64_t kernel_cr3)
{
	int expect = (int)cpu;

	gdt_init(cpu);
	idt_load();
	write_cr3(kernel_cr3);
	percpu_load(cpu);	/* from here smp_processor_id() == cpu */
	if (!__atomic_compare_exchange_n(&ap_claim, &expect, (int)cpu | AP_CLAIMED, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		for (;;)	/* the boot CPU gave up on us: stay out of the way */
			__asm__ __volatile__("cli; hlt");
	}
	lapic_setup_cpu();
	smp_secondary_main(cpu);
}

/* arch_send_wakeup: see kernel/arch.h. */
void arch_send_wakeup(unsigned int cpu)
{
	lapic_send_ipi(cpu_apic_id[cpu], WAKEUP_VECTOR);
}

/* arch_cpu_idle: see kernel/arch.h. */
void arch_cpu_idle(void)
{
	/* sti's one-instruction delay: an interrupt can only arrive once hlt waits. */
	__asm__ __volatile__("sti; hlt" : : : "memory");
}
