/*
 * cpu.c - descriptor tables: a GDT (kernel code/data and a TSS) per CPU and
 * the IDT all CPUs share. Each CPU's TSS gives double faults (IST1) and NMIs
 * (IST2) stacks of their own, so a kernel stack overflow still reaches the
 * exception report and an NMI that stops a CPU needs nothing of its stack.
 */
#include "arch/x86_64/x86.h"
#include <asm/processor.h>

struct __packed tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
};

struct __packed idt_entry {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t zero;
};

struct __packed desc_ptr {
	uint16_t limit;
	uint64_t base;
};

#define IST_STACK_SIZE 8192

static uint64_t gdt[NR_CPUS][5] __aligned(16);
static struct tss64 tss[NR_CPUS] __aligned(16);
static struct idt_entry idt[256] __aligned(16);
static uint8_t df_stack[NR_CPUS][IST_STACK_SIZE] __aligned(16);
static uint8_t nmi_stack[NR_CPUS][IST_STACK_SIZE] __aligned(16);

extern const uint64_t isr_entry_table[256];

/*
 * gdt_init - build CPU cpu's GDT and TSS, load them on the running CPU and
 * reload CS, DS, ES and SS (FS and GS are left alone: GS holds the per-CPU
 * base). Each CPU calls it once for itself.
 */
void gdt_init(unsigned int cpu)
{
	uint64_t *g = gdt[cpu];
	struct tss64 *t = &tss[cpu];
	uint64_t base = (uint64_t)t;
	uint64_t limit = sizeof(*t) - 1;
	struct desc_ptr p = { sizeof(gdt[cpu]) - 1, (uint64_t)g };

	g[0] = 0;
	g[1] = 0x00af9a000000ffffULL;	/* 64-bit code, DPL 0 */
	g[2] = 0x00cf92000000ffffULL;	/* data, DPL 0 */
	/* 64-bit available TSS: a 16-byte descriptor in slots 3 and 4 */
	g[3] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89ULL << 40) |
	       (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
	g[4] = base >> 32;
	t->ist[0] = (uint64_t)(df_stack[cpu] + IST_STACK_SIZE);
	t->ist[1] = (uint64_t)(nmi_stack[cpu] + IST_STACK_SIZE);
	t->iomap_base = sizeof(*t);

	__asm__ __volatile__(
		"lgdt %0\n\t"
		"pushq %1\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movw %w2, %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%ss\n\t"
		"ltr %w3\n\t"
		:
		: "m"(p), "i"(KERNEL_CS), "r"(KERNEL_DS), "r"(TSS_SEL)
		: "rax", "memory");
}

static void idt_set(int vec, uint64_t handler, uint8_t ist)
{
	idt[vec] = (struct idt_entry){
		.offset_lo = handler & 0xffff,
		.selector = KERNEL_CS,
		.ist = ist,
		.type_attr = 0x8e,	/* present, DPL 0, 64-bit interrupt gate */
		.offset_mid = (handler >> 16) & 0xffff,
		.offset_hi = handler >> 32,
	};
}

/* idt_init - point every vector at its isr.asm entry point and load the IDT. Boot CPU, once. */
void idt_init(void)
{
	for (int v = 0; v < 256; v++)
		idt_set(v, isr_entry_table[v], v == 8 ? 1 : v == 2 ? 2 : 0);
	idt_load();
}

/* idt_load - load the shared IDT on the running CPU (APs; idt_init did it for the boot CPU). */
void idt_load(void)
{
	struct desc_ptr p = { sizeof(idt) - 1, (uint64_t)idt };

	__asm__ __volatile__("lidt %0" : : "m"(p) : "memory");
}
