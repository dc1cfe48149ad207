/* x86.h - declarations shared inside arch/x86_64 only. */
#ifndef X86_X86_H
#define X86_X86_H

#include "kernel/compiler.h"

/* Saved by isr.asm, in push order reversed (lowest address first). */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;	/* pushed by the CPU */
};

#define KERNEL_CS	0x08
#define KERNEL_DS	0x10
#define TSS_SEL		0x18

#define MSR_APIC_BASE	0x1b
#define MSR_EFER	0xc0000080
#define MSR_GS_BASE	0xc0000101

/* Interrupt vectors Quarry uses (exceptions are 0-31). */
#define PIC_VECTOR_BASE	0x20	/* the masked 8259s (only spurious IRQs arrive) */
#define TIMER_VECTOR	0x40	/* local APIC timer */
#define WAKEUP_VECTOR	0xf0	/* IPI that wakes an idle CPU to look for work */
#define APIC_ERROR_VECTOR 0xfe
#define SPURIOUS_VECTOR	0xff	/* local APIC spurious interrupt: no EOI */

/* Where the AP trampoline is copied (a page in the reserved first MiB). */
#define TRAMPOLINE_BASE	0x8000

void serial_init(void);
void gdt_init(unsigned int cpu);
void idt_init(void);
void idt_load(void);
void x86_trap(struct trap_frame *tf);
void paging_init(uint64_t max_phys);
void *paging_map_uncached(uint64_t phys, uint64_t size);
uint64_t paging_kernel_pml4_phys(void);

void percpu_init_areas(void);
void percpu_load(unsigned int cpu);

void lapic_init(uint64_t base_phys);
void lapic_setup_cpu(void);
uint32_t lapic_id(void);
void lapic_eoi(void);
void lapic_send_init(uint32_t apic_id);
void lapic_send_sipi(uint32_t apic_id, uint8_t page);
void lapic_send_ipi(uint32_t apic_id, uint8_t vector);
void lapic_send_nmi(uint32_t apic_id);
bool lapic_ready(void);
void pic_disable(void);
void udelay(unsigned long us);
bool x86_nmi(const struct trap_frame *tf);
void x86_print_frame(const struct trap_frame *tf);
uint32_t x86_cpu_apic_id(unsigned int cpu);
void ap_start(unsigned int cpu, uint64_t kernel_cr3) __noreturn;

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

/* A "memory" clobber: nothing that depends on the MSR (GS loads) moves across. */
static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ __volatile__("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
			     : "memory");
}

static inline void invlpg(const void *va)
{
	__asm__ __volatile__("invlpg (%0)" : : "r"(va) : "memory");
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;
	__asm__ __volatile__("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr3(void)
{
	uint64_t v;
	__asm__ __volatile__("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void write_cr3(uint64_t v)
{
	__asm__ __volatile__("mov %0, %%cr3" : : "r"(v) : "memory");
}

#endif
