; trampoline.asm - how an application processor (AP) gets from its startup
; IPI to C in long mode.
;
; The code between trampoline_start and trampoline_end is copied by
; arch/x86_64/smp.c to TRAMPOLINE_BASE (0x8000, in the first MiB that the
; allocators never hand out); the startup IPI's vector 0x08 makes the AP
; start there in real mode with CS = 0x0800, IP = 0. It is written to run at
; that address only: every absolute address below is TRAMPOLINE_BASE plus an
; offset inside the trampoline, so nothing in it needs relocating.
;
;   16-bit real mode:  load the trampoline's GDT, set CR0.PE
;   32-bit protected:  PAE, CR3 = the AP page table, EFER.LME|NXE, CR0.PG
;   64-bit, low:       flat segments, stack from the parameter block, jump
;                      to ap_entry64 in the kernel's higher half
;   ap_entry64:        call ap_start(cpu) (smp.c), which loads the CPU's own
;                      GDT, TSS, IDT and GS base and switches to the kernel's
;                      page table
;
; The AP page table (smp.c) is the kernel's higher half plus an identity map
; of low memory, because the AP runs from low addresses for a few
; instructions after paging goes on; the kernel's own page table has no
; identity map after boot. Its PML4 must be below 4 GiB (CR3 is loaded in
; 32-bit mode): it is in the kernel image.
;
; The parameter block (struct ap_boot_params in smp.c; keep the two in step)
; is filled in the low copy by the boot CPU before each AP is started; APs
; start one at a time.

%include "boot/x86_64/cfi.inc"

%define TRAMPOLINE_BASE	0x8000		; x86.h TRAMPOLINE_BASE
%define LOW(x)		(TRAMPOLINE_BASE + ((x) - trampoline_start))

%define CR0_PE		(1 << 0)
%define CR0_WP		(1 << 16)
%define CR0_PG		(1 << 31)
%define CR4_PAE		(1 << 5)
%define MSR_EFER	0xc0000080
%define EFER_LME	(1 << 8)
%define EFER_NXE	(1 << 11)

%define SEL_CODE32	0x08
%define SEL_DATA	0x10
%define SEL_CODE64	0x18

extern ap_start
global trampoline_start
global trampoline_end
global trampoline_params

section .rodata.trampoline progbits alloc noexec nowrite align=16
bits 16
trampoline_start:
	cli
	cld
	mov ax, cs
	mov ds, ax
	; offsets from DS = CS: the trampoline's own start
	o32 lgdt [tr_gdt_ptr - trampoline_start]
	mov eax, cr0
	or eax, CR0_PE
	mov cr0, eax
	jmp dword SEL_CODE32:LOW(tr_protected)

bits 32
tr_protected:
	mov ax, SEL_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor ax, ax
	mov fs, ax
	mov gs, ax
	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	mov eax, [LOW(tr_cr3_ap)]
	mov cr3, eax
	mov ecx, MSR_EFER
	rdmsr
	or eax, EFER_LME | EFER_NXE
	wrmsr
	mov eax, cr0
	or eax, CR0_PG | CR0_WP
	mov cr0, eax
	jmp SEL_CODE64:LOW(tr_long)

bits 64
tr_long:
	mov ax, SEL_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov rsp, [abs LOW(tr_stack)]
	mov rax, [abs LOW(tr_entry)]
	jmp rax

align 8
tr_gdt:
	dq 0
	dq 0x00cf9a000000ffff		; 0x08: 32-bit code, flat
	dq 0x00cf92000000ffff		; 0x10: data, flat
	dq 0x00af9a000000ffff		; 0x18: 64-bit code
tr_gdt_end:
tr_gdt_ptr:
	dw tr_gdt_end - tr_gdt - 1
	dd LOW(tr_gdt)

; struct ap_boot_params (smp.c)
align 8
trampoline_params:
tr_cr3_ap:	dq 0		; AP page table (below 4 GiB)
tr_cr3_kernel:	dq 0		; the kernel's page table, loaded by ap_start
tr_stack:	dq 0		; top of this AP's stack (higher-half address)
tr_entry:	dq ap_entry64
tr_cpu:		dd 0		; logical CPU number
		dd 0
trampoline_end:

section .text
bits 64
; ap_entry64 - the trampoline's jump target, in the higher half. Still on the
; trampoline's GDT and the AP page table; ap_start replaces both.
ap_entry64:
	xor ebp, ebp
	mov edi, [abs LOW(tr_cpu)]
	mov rsi, [abs LOW(tr_cr3_kernel)]
	call ap_start			; ap_start(cpu, kernel_cr3): never returns
.dead:
	cli
	hlt
	jmp .dead
ap_entry64_end:
	OUTERMOST_FRAME ap_entry64, ap_entry64_end	; gdb's bt ends here

section .note.GNU-stack noalloc noexec nowrite progbits
