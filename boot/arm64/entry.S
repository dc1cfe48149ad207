/*
 * entry.S - from QEMU virt's reset state to kmain, and a secondary CPU's
 * way from PSCI CPU_ON to arm64_secondary_start.
 *
 * QEMU enters _start at EL1 (EL2 with virtualization=on) with the MMU off;
 * x0 holds the device tree's address for an Image, 0 for an ELF (the tree
 * is then at the start of RAM). _start opens with an arm64 Image header, so
 * the ELF's raw binary (objcopy -O binary) boots as a Linux Image too: QEMU
 * then loads it at RAM + 2 MiB, where it is linked, and passes an -initrd
 * (a trace for "replay") in the tree's /chosen, which it does not do for an
 * ELF. We:
 *   1. mask every exception and, at EL2, set up EL2 for a kernel at EL1
 *      (timer and PMU access, GIC system registers, AArch64 EL1) and drop;
 *   2. take the boot stack, clear .bss, install the exception vectors (so a
 *      mistake from here on is reported, not a silent hang);
 *   3. build the boot page tables in C with the MMU off (arm64_mmu_boot:
 *      identity map of the kernel's RAM and the device windows), turn the
 *      MMU and caches on (mmu_on);
 *   4. call kmain(magic, dtb) with magic = the tree's first word read
 *      big-endian (0xd00dfeed for a valid tree).
 * A secondary CPU starts at secondary_entry with x0 = its logical number
 * (PSCI CPU_ON's context id) and takes steps 1-3 with the boot CPU's tables
 * and its own stack (secondary_stack_top[cpu]).
 *
 * The CFI marks x30 undefined in these frames: debuggers end a backtrace
 * here instead of walking into whatever the link register held.
 */
#include <asm/memlayout.h>

#define SCTLR_M		(1 << 0)
#define SCTLR_A		(1 << 1)
#define SCTLR_C		(1 << 2)
#define SCTLR_I		(1 << 12)

	.cfi_sections .debug_frame

	.section .text.boot, "ax"
	.globl _start
_start:
	.cfi_startproc
	.cfi_undefined x30
	b	.Lprimary_start			/* code0; the Image header follows */
	.long	0				/* code1 */
	.quad	0x200000			/* text_offset: linked at a 2 MiB boundary + 2 MiB */
	.quad	__kernel_image_size		/* image_size, .bss included */
#if PAGE_SHIFT == 12
	.quad	1 << 1				/* flags: little-endian, 4K pages */
#elif PAGE_SHIFT == 14
	.quad	2 << 1				/* flags: little-endian, 16K pages */
#else
	.quad	3 << 1				/* flags: little-endian, 64K pages */
#endif
	.quad	0, 0, 0				/* res2-res4 */
	.ascii	"ARM\x64"			/* magic */
	.long	0				/* res5 */
.Lprimary_start:					/* a local label: gdb names the frame _start */
	mov	x19, x0
	msr	daifset, #0xf
	bl	drop_to_el1
	adrp	x1, boot_stack_top
	add	x1, x1, :lo12:boot_stack_top
	mov	sp, x1
	mov	x29, #0

	/* .bss: bounds are 16-byte aligned (linker.ld) */
	adrp	x1, __bss_start
	add	x1, x1, :lo12:__bss_start
	adrp	x2, __bss_end
	add	x2, x2, :lo12:__bss_end
1:	cmp	x1, x2
	b.hs	2f
	stp	xzr, xzr, [x1], #16
	b	1b
2:
	cbnz	x19, 3f
	mov	x19, #ARCH_PHYS_OFFSET		/* ELF boot: the tree is at the start of RAM */
3:	adrp	x0, __percpu_start		/* per-CPU template: the boot CPU's until */
	msr	tpidr_el1, x0			/* percpu_load(0) gives it its own copy */
	bl	cpu_setup_early
	mov	x0, x19
	bl	arm64_mmu_boot			/* C with the MMU off */
	bl	mmu_on
	ldr	w0, [x19]
	rev	w0, w0				/* the tree is big-endian */
	mov	x1, x19
	bl	kmain
4:	wfi
	b	4b
	.cfi_endproc

	.globl secondary_entry
secondary_entry:
	.cfi_startproc
	.cfi_undefined x30
	mov	x19, x0
	msr	daifset, #0xf
	bl	drop_to_el1
	adrp	x1, secondary_stack_top
	add	x1, x1, :lo12:secondary_stack_top
	ldr	x1, [x1, x19, lsl #3]
	mov	sp, x1
	mov	x29, #0
	bl	cpu_setup_early
	bl	mmu_on
	mov	x0, x19
	bl	arm64_secondary_start		/* never returns */
1:	wfi
	b	1b
	.cfi_endproc

/*
 * drop_to_el1 - at EL2, give EL1 what a kernel needs and return at EL1;
 * at EL1, just return. Clobbers x0-x2.
 */
drop_to_el1:
	mrs	x0, CurrentEL
	lsr	x0, x0, #2
	cmp	x0, #2
	b.eq	1f
	ret
1:	mov	x0, #(1 << 31)			/* HCR_EL2.RW: EL1 is AArch64 */
	msr	hcr_el2, x0
	mrs	x0, cnthctl_el2
	orr	x0, x0, #3			/* EL1PCTEN, EL1PCEN: counters and timer */
	msr	cnthctl_el2, x0
	msr	cntvoff_el2, xzr
	mrs	x0, pmcr_el0
	ubfx	x0, x0, #11, #5			/* MDCR_EL2.HPMN = PMCR.N: all counters */
	msr	mdcr_el2, x0
	mov	x0, #0x33ff			/* CPTR_EL2: no FP/SIMD traps */
	msr	cptr_el2, x0
	msr	hstr_el2, xzr
	mov	x0, #0xf			/* ICC_SRE_EL2: SRE, DFB, DIB, Enable (EL1 may) */
	msr	S3_4_C12_C9_5, x0
	isb
	msr	S3_4_C12_C11_0, xzr		/* ICH_HCR_EL2: no virtual interrupts */
	ldr	x0, =0x30d00800			/* SCTLR_EL1: RES1 bits, MMU off */
	msr	sctlr_el1, x0
	mov	x0, #0x3c5			/* EL1h, DAIF masked */
	msr	spsr_el2, x0
	msr	elr_el2, x30
	isb
	eret

/*
 * cpu_setup_early - EL1 state every CPU needs before C: exception vectors,
 * FP/SIMD access not trapped, alignment checks off. Clobbers x0.
 */
cpu_setup_early:
	adrp	x0, arm64_vectors
	add	x0, x0, :lo12:arm64_vectors
	msr	vbar_el1, x0
	mov	x0, #(3 << 20)			/* CPACR_EL1.FPEN */
	msr	cpacr_el1, x0
	mrs	x0, sctlr_el1
	bic	x0, x0, #SCTLR_A
	msr	sctlr_el1, x0
	isb
	ret

/*
 * mmu_on - load MAIR, TCR and TTBR0 from mmu_regs (arm64_mmu_boot fills it),
 * invalidate this CPU's TLB and turn on the MMU and both caches. Clobbers
 * x0-x3.
 */
mmu_on:
	adrp	x0, mmu_regs
	add	x0, x0, :lo12:mmu_regs
	ldp	x1, x2, [x0]
	ldr	x3, [x0, #16]
	msr	mair_el1, x1
	msr	tcr_el1, x2
	msr	ttbr0_el1, x3
	isb
	tlbi	vmalle1
	dsb	nsh
	isb
	mrs	x0, sctlr_el1
	mov	x1, #(SCTLR_M | SCTLR_C | SCTLR_I)
	orr	x0, x0, x1
	msr	sctlr_el1, x0
	isb
	ret

	.section .bss
	.balign 16
boot_stack:
	.space	16384
	.globl boot_stack_top
boot_stack_top:
