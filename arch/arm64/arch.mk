# arch/arm64/arch.mk - how the arm64 kernel is built and booted (included by the Makefile).
# Boot: QEMU `virt` loads the ELF itself (-kernel); the command line is -append,
# which QEMU puts in the device tree's /chosen/bootargs. No ISO.

ARCH_PAGE_SIZES := 4K 16K 64K

CROSS   := aarch64-linux-gnu-
CC      := $(CROSS)gcc
LD      := $(CROSS)ld
OBJDUMP := $(CROSS)objdump
NM      := $(CROSS)nm

# CPU= picks QEMU's CPU model. cortex-a57 and cortex-a72 have no 16K granule
# (QEMU hangs at the MMU switch), so 16K pages need `max`.
ifeq ($(PAGE_SIZE),16K)
CPU ?= max
ifneq ($(filter cortex-a57 cortex-a72,$(CPU)),)
$(error PAGE_SIZE=16K needs a CPU with the 16K granule: CPU=$(CPU) has none (use CPU=max))
endif
else
CPU ?= cortex-a72
endif

# Freestanding: no FP/SIMD (exception entry does not save it), no PIC, no
# outline atomics (libgcc's helpers are not linked), armv8.0 so cortex-a57/a72
# run every instruction.
# No frame pointer: gdb unwinds arm64 through the DWARF CFI, and the
# allocator fast paths save the prologue. -fno-unwind-tables puts that CFI in
# .debug_frame (kept) rather than .eh_frame (which the linker script drops).
ARCH_CFLAGS := -mgeneral-regs-only -march=armv8-a -mno-outline-atomics -mcmodel=small \
	-fomit-frame-pointer -fno-unwind-tables -fno-section-anchors
ARCH_LDFLAGS := -z max-page-size=0x10000 --no-warn-rwx-segments --build-id=none

ARCH_SRCS := boot/dtb.c
ARCH_ASRCS := $(wildcard boot/arm64/*.S) $(wildcard arch/arm64/*.S)
ARCH_AOBJS := $(patsubst %.S,$(BUILD)/obj/%.o,$(ARCH_ASRCS))

$(BUILD)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $<")
	$(Q)$(CC) $(KCFLAGS) -D__ASSEMBLER__ -c $< -o $@

QEMU := qemu-system-aarch64

# mmu.c runs with the MMU off (Device memory: no unaligned accesses on real
# hardware) before anything else in C.
$(BUILD)/obj/arch/arm64/mmu.o: KCFLAGS += -mstrict-align
