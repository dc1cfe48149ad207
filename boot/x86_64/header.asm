; header.asm - the Multiboot2 header GRUB looks for in the first 32 KiB.
; We ask only for the memory map and module info GRUB always gives, so the
; header has no tags but the end tag.

MB2_MAGIC	equ 0xe85250d6
MB2_ARCH_I386	equ 0

section .multiboot2
align 8
mb2_header_start:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header_start
	dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header_start))
	; end tag: type 0, flags 0, size 8
	dw 0
	dw 0
	dd 8
mb2_header_end:

section .note.GNU-stack noalloc noexec nowrite progbits
