; isr.asm - interrupt entry points, one per vector. Each makes the stack look the same
; (an error code, real or 0, then the vector), saves the general registers as
; struct trap_frame (x86.h) and calls x86_trap(frame).

extern x86_trap
global isr_entry_table

section .text
bits 64

%macro ISR_NOERR 1
isr_%1:
	push 0
	push %1
	jmp isr_common
%endmacro

%macro ISR_ERR 1
isr_%1:
	push %1
	jmp isr_common
%endmacro

; vectors that push an error code: 8, 10-14, 17, 21, 29, 30
%assign v 0
%rep 256
%if v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30
	ISR_ERR v
%else
	ISR_NOERR v
%endif
%assign v v + 1
%endrep

isr_common:
	push rax
	push rbx
	push rcx
	push rdx
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
	mov rdi, rsp
	cld
	call x86_trap
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rbp
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rbx
	pop rax
	add rsp, 16
	iretq

section .rodata
align 8
isr_entry_table:
%assign v 0
%rep 256
	dq isr_ %+ v
%assign v v + 1
%endrep

section .note.GNU-stack noalloc noexec nowrite progbits
