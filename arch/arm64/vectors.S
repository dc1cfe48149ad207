/*
 * vectors.S - the EL1 exception vector table and the register save/restore
 * around arm64_trap (traps.c).
 *
 * Every entry saves the whole register file into a struct trap_frame on the
 * current stack (SP_EL1; Quarry never runs on SP_EL0 or at EL0), with the
 * kind of exception (the vector's index, 0-15) in x1, and calls
 * arm64_trap(frame, kind). On return the frame's x0-x30, ELR and SPSR are
 * restored and we eret, so a handler that returns (IRQ, FIQ report) resumes
 * the interrupted code. The layout matches struct trap_frame in arm64.h.
 */
#define FRAME_SIZE	(36 * 8)	/* x0-x30, sp, elr, spsr, esr, far */

	.macro	ventry kind
	.balign	128
	sub	sp, sp, #FRAME_SIZE
	stp	x0, x1, [sp, #0]
	mov	x1, #\kind
	b	trap_save
	.endm

	.text
	.balign	2048
	.globl	arm64_vectors
arm64_vectors:
	ventry	0	/* current EL, SP_EL0: sync */
	ventry	1	/* IRQ */
	ventry	2	/* FIQ */
	ventry	3	/* SError */
	ventry	4	/* current EL, SP_ELx: sync */
	ventry	5	/* IRQ */
	ventry	6	/* FIQ */
	ventry	7	/* SError */
	ventry	8	/* lower EL, AArch64: sync */
	ventry	9
	ventry	10
	ventry	11
	ventry	12	/* lower EL, AArch32 */
	ventry	13
	ventry	14
	ventry	15

trap_save:
	.cfi_startproc
	.cfi_undefined x30
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	stp	x18, x19, [sp, #144]
	stp	x20, x21, [sp, #160]
	stp	x22, x23, [sp, #176]
	stp	x24, x25, [sp, #192]
	stp	x26, x27, [sp, #208]
	stp	x28, x29, [sp, #224]
	add	x2, sp, #FRAME_SIZE
	stp	x30, x2, [sp, #240]		/* x30, and sp before the exception */
	mrs	x2, elr_el1
	mrs	x3, spsr_el1
	stp	x2, x3, [sp, #256]
	mrs	x2, esr_el1
	mrs	x3, far_el1
	stp	x2, x3, [sp, #272]
	mov	x0, sp
	mov	x29, #0				/* backtraces end at the trap */
	bl	arm64_trap
	ldp	x2, x3, [sp, #256]
	msr	elr_el1, x2
	msr	spsr_el1, x3
	ldp	x0, x1, [sp, #0]
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldp	x8, x9, [sp, #64]
	ldp	x10, x11, [sp, #80]
	ldp	x12, x13, [sp, #96]
	ldp	x14, x15, [sp, #112]
	ldp	x16, x17, [sp, #128]
	ldp	x18, x19, [sp, #144]
	ldp	x20, x21, [sp, #160]
	ldp	x22, x23, [sp, #176]
	ldp	x24, x25, [sp, #192]
	ldp	x26, x27, [sp, #208]
	ldp	x28, x29, [sp, #224]
	ldr	x30, [sp, #240]
	add	sp, sp, #FRAME_SIZE
	eret
	.cfi_endproc
