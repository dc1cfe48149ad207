; header.asm - the boot headers loaders look for at the start of the image.
;
; Multiboot2, for GRUB (the ISO): in the first 32 KiB. We ask only for the
; memory map and module info GRUB always gives, so the header has no tags
; but the end tag.
;
; Multiboot (version 1), for QEMU's own loader (-kernel, the -icount boots:
; tests/qemu/run.sh): in the first 8 KiB, with the address fields, since
; QEMU loads no 64-bit ELF. It is given the flat image (objcopy -O binary of
; quarry.elf, its first byte at __kernel_phys_start): load it all from its
; start, zero up to __kernel_phys_end, enter _start in 32-bit protected mode;
; modules page-aligned, the memory map asked for.

MB2_MAGIC	equ 0xe85250d6
MB2_ARCH_I386	equ 0

MB1_MAGIC	equ 0x1badb002
MB1_FLAGS	equ (1 << 0) | (1 << 1) | (1 << 16)	; aligned modules, memory map, addresses

extern _start
extern __kernel_phys_start
extern __kernel_phys_end

section .multiboot1
align 4
mb1_header:
	dd MB1_MAGIC
	dd MB1_FLAGS
	dd -(MB1_MAGIC + MB1_FLAGS)
	dd mb1_header			; header_addr: .boot.text runs where it is loaded
	dd __kernel_phys_start		; load_addr: the flat image's first byte
	dd 0				; load_end_addr: 0, the whole file
	dd __kernel_phys_end		; bss_end_addr: zeroed up to here
	dd _start			; entry_addr

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
