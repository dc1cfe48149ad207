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

void serial_init(void);
void gdt_init(void);
void idt_init(void);
void x86_trap(struct trap_frame *tf);
void paging_init(uint64_t max_phys);

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
