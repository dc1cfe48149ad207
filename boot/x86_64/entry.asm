; entry.asm - from GRUB's 32-bit protected mode to kmain in long mode.
;
; GRUB enters _start with EAX = Multiboot2 magic, EBX = physical address of
; the boot information, paging off; QEMU's Multiboot loader the same with
; Multiboot's (version 1) magic and information (boot/multiboot.c tells
; them apart). We:
;   1. check the CPU has long mode, else print a message on COM1 and halt;
;   2. build boot page tables (all 2 MiB pages, phys 0..4 GiB):
;        PML4[0]   -> identity map of the first 1 GiB (needed only while we jump)
;        PML4[256] -> direct map: 0xffff800000000000 + phys, 4 GiB
;        PML4[511] -> kernel: 0xffffffff80000000 + phys, first 1 GiB
;      All three share the page directories. arch code later extends the
;      direct map above 4 GiB and removes the identity map, so NULL faults.
;   3. enable PAE, long mode (EFER.LME, and NXE), paging; far jump to 64-bit;
;   4. jump to the higher half, switch to the kernel stack, clear .bss and
;      call kmain(magic, mbi_phys).

%include "boot/x86_64/cfi.inc"

%define KERNEL_VMA 0xffffffff80000000
%define PTE_P	0x1
%define PTE_W	0x2
%define PTE_PS	0x80

extern kmain
extern __bss_start
extern __bss_end
global _start
global boot_pml4
global boot_pd
global boot_stack_top

section .boot.text
bits 32
_start:
	cli
	cld
	mov esp, boot_stack32_top
	mov [boot_magic], eax
	mov [boot_mbi], ebx

	; zero the boot tables (the loader should have; be sure)
	mov edi, boot_pml4
	mov ecx, (boot_tables_end - boot_pml4) / 4
	xor eax, eax
	rep stosd

	; long mode available? (CPUID 0x80000001 EDX bit 29)
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	jb .no_long_mode
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 29
	jz .no_long_mode

	; four page directories: 2048 entries of 2 MiB covering 0..4 GiB
	mov ecx, 0
.fill_pd:
	mov eax, ecx
	shl eax, 21
	or eax, PTE_P | PTE_W | PTE_PS
	mov [boot_pd + ecx * 8], eax
	mov dword [boot_pd + ecx * 8 + 4], 0
	inc ecx
	cmp ecx, 2048
	jne .fill_pd

	; identity PDPT: first 1 GiB
	mov eax, boot_pd
	or eax, PTE_P | PTE_W
	mov [boot_pdpt_ident], eax
	; direct-map PDPT: 4 GiB
	mov ecx, 0
.fill_direct:
	mov eax, ecx
	shl eax, 12
	add eax, boot_pd
	or eax, PTE_P | PTE_W
	mov [boot_pdpt_direct + ecx * 8], eax
	inc ecx
	cmp ecx, 4
	jne .fill_direct
	; kernel PDPT: entry 510 maps 0xffffffff80000000 -> phys 0
	mov eax, boot_pd
	or eax, PTE_P | PTE_W
	mov [boot_pdpt_kernel + 510 * 8], eax

	mov eax, boot_pdpt_ident
	or eax, PTE_P | PTE_W
	mov [boot_pml4], eax
	mov eax, boot_pdpt_direct
	or eax, PTE_P | PTE_W
	mov [boot_pml4 + 256 * 8], eax
	mov eax, boot_pdpt_kernel
	or eax, PTE_P | PTE_W
	mov [boot_pml4 + 511 * 8], eax

	mov eax, cr4
	or eax, 1 << 5			; PAE
	mov cr4, eax
	mov eax, boot_pml4
	mov cr3, eax
	mov ecx, 0xc0000080		; EFER
	rdmsr
	or eax, (1 << 8) | (1 << 11)	; LME, NXE
	wrmsr
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16)	; PG, WP
	mov cr0, eax

	lgdt [boot_gdt_ptr]
	jmp 0x08:.long_mode_low

.no_long_mode:
	mov esi, no_lm_msg
.putc:
	lodsb
	test al, al
	jz .halt
	mov dx, 0x3f8
	out dx, al
	jmp .putc
.halt:
	hlt
	jmp .halt

bits 64
.long_mode_low:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor ax, ax
	mov fs, ax
	mov gs, ax
	mov edi, [boot_magic]
	mov esi, [boot_mbi]
	mov rax, long_mode_high
	jmp rax

section .text
long_mode_high:
	mov rsp, boot_stack_top
	xor ebp, ebp
	; clear .bss (the boot tables live in .boot.bss, untouched here)
	mov r12d, edi			; the stack is in .bss: keep arguments in registers
	mov r13d, esi
	mov rdi, __bss_start
	mov rcx, __bss_end
	sub rcx, rdi
	xor eax, eax
	rep stosb
	mov edi, r12d
	mov esi, r13d
	call kmain			; kmain(magic, mbi physical address)
.dead:
	cli
	hlt
	jmp .dead
long_mode_high_end:
	OUTERMOST_FRAME long_mode_high, long_mode_high_end	; gdb's bt ends here

section .boot.data
align 8
boot_gdt:
	dq 0
	dq 0x00af9a000000ffff		; 0x08: 64-bit code
	dq 0x00cf92000000ffff		; 0x10: data
boot_gdt_end:
boot_gdt_ptr:
	dw boot_gdt_end - boot_gdt - 1
	dd boot_gdt
boot_magic:	dd 0
boot_mbi:	dd 0
no_lm_msg:
	db "Quarry: this CPU has no long mode (x86_64); halting.", 13, 10, 0

section .boot.bss nobits
alignb 4096
boot_pml4:		resb 4096
boot_pdpt_ident:	resb 4096
boot_pdpt_direct:	resb 4096
boot_pdpt_kernel:	resb 4096
boot_pd:		resb 4096 * 4
boot_tables_end:
boot_stack32:		resb 1024
boot_stack32_top:

section .bss
alignb 16
boot_stack:		resb 16384
boot_stack_top:

section .note.GNU-stack noalloc noexec nowrite progbits
