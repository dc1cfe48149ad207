# arch/x86_64/arch.mk - how the x86_64 kernel is built and booted (included by the Makefile).
# Boot: GRUB (Multiboot2) from an ISO; the command line is the GRUB entry's.

ARCH_PAGE_SIZES := 4K 64K

CC      := gcc
LD      := ld
OBJDUMP := objdump -M intel
NM      := nm
NASM    := nasm

# Freestanding kernel code: no red zone (interrupts use the stack), no SSE/x87
# (we never save their state), kernel code model (linked at -2 GiB), no PIC.
ARCH_CFLAGS := -mno-red-zone -mno-sse -mno-sse2 -mno-mmx -mno-80387 -mcmodel=kernel
ARCH_LDFLAGS := -n -z max-page-size=0x1000
NFLAGS := -f elf64 -F dwarf -g -Werror

ARCH_SRCS := boot/multiboot.c boot/multiboot1.c boot/multiboot2.c
ARCH_ASRCS := $(wildcard boot/x86_64/*.asm) $(wildcard arch/x86_64/*.asm)
ARCH_AOBJS := $(patsubst %.asm,$(BUILD)/obj/%.o,$(ARCH_ASRCS))

$(BUILD)/obj/%.o: %.asm boot/x86_64/cfi.inc
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NASM    $<")
	$(Q)$(NASM) $(NFLAGS) $< -o $@

QEMU := qemu-system-x86_64
