# Quarry - see README.md, or `make help`.
#
#   make run | test | bench | debug | gdb | help | clean
#   ARCH=x86_64  PAGE_SIZE=4K|64K  SMP=N  ALLOC=slab  SLAB_DEBUG=1

ARCH      ?= x86_64
PAGE_SIZE ?= 4K
SMP       ?= 1
ALLOC     ?= slab
MEM       ?= 256M
TIMEOUT   ?= 120

ifeq ($(PAGE_SIZE),4K)
PAGE_SHIFT := 12
PAGE_TAG   := 4k
else ifeq ($(PAGE_SIZE),64K)
PAGE_SHIFT := 16
PAGE_TAG   := 64k
else
$(error PAGE_SIZE must be 4K or 64K, not '$(PAGE_SIZE)')
endif
ifneq ($(ARCH),x86_64)
$(error ARCH=$(ARCH) is not supported yet: only x86_64)
endif
ifdef MM_ONLY
ALLOC := none
endif

include mm/files.mk
BUILD := build/$(ARCH)-$(PAGE_TAG)$(if $(filter slab,$(ALLOC)),,-$(ALLOC))$(MM_VARIANT)

# V=1 shows every command.
ifeq ($(V),1)
Q :=
else
Q := @
endif

CC      := gcc
LD      := ld
NASM    := nasm
OBJDUMP := objdump
NM      := nm

# Freestanding kernel code: no red zone (interrupts use the stack), no SSE/x87
# (we never save their state), kernel code model (linked at -2 GiB), no PIC,
# no stack protector.
KCFLAGS := -std=gnu11 -ffreestanding -fno-builtin -nostdlib -mno-red-zone \
	-mno-sse -mno-sse2 -mno-mmx -mno-80387 -mcmodel=kernel -fno-pic -fno-pie \
	-fno-stack-protector -fno-omit-frame-pointer -fno-asynchronous-unwind-tables \
	-O2 -g3 -Wall -Wextra -Werror -Wno-unused-parameter \
	-DPAGE_SHIFT=$(PAGE_SHIFT) $(ALLOC_CFLAGS) -DCONFIG_NR_CPUS=$(SMP) \
	$(MM_CONFIG_CFLAGS) \
	-I. -Iarch/$(ARCH)/include -MMD -MP
NFLAGS  := -f elf64 -F dwarf -g -Werror

# tests/kernel/: self-tests that only make sense in the kernel (SMP, interrupts).
KSRCS := $(filter-out $(if $(filter none,$(ALLOC)),kernel/bench%),$(wildcard kernel/*.c)) $(wildcard arch/$(ARCH)/*.c) boot/multiboot2.c boot/acpi.c \
	$(MM_SRCS) $(TEST_SRCS) $(wildcard tests/kernel/*.c)
ASRCS := $(wildcard boot/$(ARCH)/*.asm) $(wildcard arch/$(ARCH)/*.asm)
KOBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(KSRCS)) $(patsubst %.asm,$(BUILD)/obj/%.o,$(ASRCS))

ELF := $(BUILD)/quarry.elf
ISO := $(BUILD)/quarry.iso
TEST_ISO := $(BUILD)/quarry-test.iso

# With more than one CPU, TCG runs each in its own host thread (MTTCG);
# tests/qemu/run.sh does the same for the runs it starts.
QEMU_FLAGS := -smp $(SMP) -m $(MEM)
ifneq ($(SMP),1)
QEMU_ACCEL := -accel tcg,thread=multi
else
QEMU_ACCEL := -accel tcg
endif

.PHONY: all kernel iso deps run test test-host test-kernel test-gdb debug gdb help clean
all: iso

deps:
	@scripts/deps.sh

kernel: $(ELF)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(KCFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.asm
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NASM    $<")
	$(Q)$(NASM) $(NFLAGS) $< -o $@

# The ELF keeps full DWARF; beside it a symbol map, a link map and a disassembly.
$(ELF): $(KOBJS) linker.ld
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) -n -nostdlib -z max-page-size=0x1000 -T linker.ld -Map=$(BUILD)/quarry.map -o $@ $(KOBJS)
	$(Q)$(NM) -n $@ > $(BUILD)/quarry.sym
	$(Q)$(OBJDUMP) -d -S -M intel $@ > $(BUILD)/quarry.dis 2>/dev/null

iso: $(ISO) $(TEST_ISO)

# $(call make_iso,default-entry,output)
define make_iso
	@echo "  ISO     $@"
	@rm -rf $@.d && mkdir -p $@.d/boot/grub
	@cp $(ELF) $@.d/boot/quarry.elf
	@sed 's/@DEFAULT@/$(1)/' iso/grub.cfg.in > $@.d/boot/grub/grub.cfg
	$(Q)grub-mkrescue -d /usr/lib/grub/i386-pc -o $@ $@.d 2>$(BUILD)/grub-mkrescue.log || \
		{ cat $(BUILD)/grub-mkrescue.log; exit 1; }
	@rm -rf $@.d
endef

$(ISO): $(ELF) iso/grub.cfg.in | deps
	$(call make_iso,0)

$(TEST_ISO): $(ELF) iso/grub.cfg.in | deps
	$(call make_iso,2)

# Boot the default entry with the console on this terminal; QEMU's exit
# status is the kernel's.
run: deps iso
	tests/qemu/run.sh $(ISO) $(TIMEOUT) $(QEMU_FLAGS)

.PHONY: bench
# Benchmarks: every configuration, single-CPU under -icount (checked to repeat
# exactly), multi-CPU under MTTCG; report in build/bench/. QUICK=1: a short run.
bench: deps
	@tests/bench/run.sh $(if $(QUICK),quick)

# SMP=N given to `make test` runs the SMP self-tests and boot checks on N
# CPUs instead of the default counts (2, 4 and 8; see tests/run-all.sh).
test: deps
	@SMP_LIST="$(if $(filter command line environment,$(origin SMP)),$(SMP))" tests/run-all.sh

test-host:
	@$(MAKE) --no-print-directory -f tests/host/host.mk PAGE_SHIFT=$(PAGE_SHIFT) ALLOC=$(ALLOC) run

test-kernel: deps iso
	@tests/qemu/selftest.sh kernel-$(ARCH)-$(PAGE_TAG) $(TEST_ISO) $(TIMEOUT) $(QEMU_FLAGS)

test-gdb: deps iso
	@tests/gdb/stepping.sh gdb-$(ARCH)-$(PAGE_TAG) $(ELF) $(ISO)

# QEMU paused with its gdbstub on :1234; `make gdb` in another terminal attaches.
debug: deps iso
	@echo "QEMU is paused with a gdbstub on localhost:1234; run 'make gdb' in another terminal."
	qemu-system-x86_64 $(QEMU_ACCEL) $(QEMU_FLAGS) -cdrom $(ISO) -serial stdio -display none -no-reboot \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 -s -S

gdb: deps kernel
	gdb-multiarch -q -x tests/gdb/quarry.gdb $(ELF)

help:
	@echo "Quarry targets:"
	@echo "  make run      build, make the GRUB ISO and boot it in QEMU: boot reports, then the"
	@echo "                benchmark tables (serial on this terminal)"
	@echo "  make test     every test: host unit tests (ASan/UBSan), in-kernel self-tests"
	@echo "                at 4K and 64K pages, and the GDB stepping test"
	@echo "  make bench    boot-time benchmarks of every configuration -> build/bench/report.md"
	@echo "                (QUICK=1: natural configuration only, one multi-CPU boot)"
	@echo "  make debug    boot QEMU paused with a gdbstub on :1234"
	@echo "  make gdb      attach gdb-multiarch to 'make debug' (break kmain, continue, ...)"
	@echo "  make clean    remove build/"
	@echo "Options:"
	@echo "  ARCH=x86_64        target architecture (arm64 comes later)"
	@echo "  PAGE_SIZE=4K|64K   software page size (default 4K)"
	@echo "  SMP=N              QEMU CPU count (default 1; 1-8; >1 runs MTTCG)"
	@echo "  ALLOC=slab         object allocator (slub and slob come later)"
	@echo "  SLAB_DEBUG=1       red zones, poisoning, double-free and bad-pointer checks in"
	@echo "                     every cache; costs a check and a fill per alloc and free"
	@echo "  SLAB_STATS=1       per-cache event counters (one add per counted event)"
	@echo "  SLAB_IDX=4         variant: 4-byte freelist indexes (seed 000's 'before')"
	@echo "  SLAB_GROW_LOCKED=1 variant: refill a new slab under the node lock (seed 001's 'before')"
	@echo "  MEM=256M           QEMU RAM;  TIMEOUT=120  seconds before a QEMU run is killed"

clean:
	rm -rf build

-include $(KOBJS:.o=.d)

bench-host:
	@$(MAKE) --no-print-directory -f tests/bench/host/bench-host.mk
