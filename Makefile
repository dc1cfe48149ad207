# Quarry - see README.md, or `make help`.
#
#   make run | test | bench | debug | gdb | help | clean
#   ARCH=x86_64|arm64  PAGE_SIZE=4K|16K|64K  SMP=N  NODES=N  ALLOC=slab|slub|slob|slob-seg  SLAB_DEBUG=1
#   CPU=...  OPT=2|g

ARCH      ?= x86_64
PAGE_SIZE ?= 4K
SMP       ?= 1
# NODES: NUMA nodes of the QEMU machine, 1-8 (scripts/numa-flags.sh); for
# test-host, of the host tests' arena (tests/host/host.mk, QUARRY_NODES).
NODES     ?= 1
# NR_CPUS: the most CPUs the kernel starts (mm/files.mk: 1-64, default 8).
ALLOC     ?= slab
MEM       ?= 256M
TIMEOUT   ?= 120
# OPT=g builds with -Og (for stepping: `next` follows the source) into its own
# directory (build/<arch>-<page>[-alloc]-og/); the default is -O2.
OPT       ?= 2
# CMDLINE: words appended to the kernel command line of `make run` ("bench")
# and `make test-kernel` ("selftest"); `make debug` boots with CMDLINE alone
# (bench when it is empty).
CMDLINE   ?=

# `make replay ALLOC=slab,slub PAGE_SIZE=4K,64K` names lists for
# tools/trace/replay.sh, which builds each itself: this make builds nothing with them.
ifneq ($(filter replay,$(MAKECMDGOALS)),)
REPLAY_ALLOC := $(if $(filter command line,$(origin ALLOC)),$(ALLOC))
REPLAY_PAGE := $(if $(filter command line,$(origin PAGE_SIZE)),$(PAGE_SIZE))
REPLAY_ARCH := $(if $(filter command line,$(origin ARCH)),$(ARCH))
REPLAY_SMP := $(if $(filter command line,$(origin SMP)),$(SMP))
override ALLOC := slab
override PAGE_SIZE := 4K
override ARCH := x86_64
override SMP := 1
endif

ifeq ($(filter x86_64 arm64,$(ARCH)),)
$(error ARCH must be x86_64 or arm64, not '$(ARCH)')
endif
ifeq ($(PAGE_SIZE),4K)
PAGE_SHIFT := 12
else ifeq ($(PAGE_SIZE),16K)
PAGE_SHIFT := 14
else ifeq ($(PAGE_SIZE),64K)
PAGE_SHIFT := 16
else
$(error PAGE_SIZE must be 4K, 16K (arm64 only) or 64K, not '$(PAGE_SIZE)')
endif
PAGE_TAG := $(shell echo $(PAGE_SIZE) | tr K k)
ifeq ($(filter 2 g,$(OPT)),)
$(error OPT must be 2 (-O2, the default) or g (-Og, for stepping), not '$(OPT)')
endif
ifdef MM_ONLY
ALLOC := none
endif
# `make bench ALLOC=slab,slub` names a list for lab/bench/run.sh, which
# builds each allocator itself: this make builds nothing with it.
BENCH_ALLOC := $(if $(filter command line,$(origin ALLOC)),$(ALLOC))
ifneq ($(filter bench,$(MAKECMDGOALS)),)
override ALLOC := slab
endif

include mm/files.mk
BUILD := build/$(ARCH)-$(PAGE_TAG)$(if $(filter slab,$(ALLOC)),,-$(ALLOC))$(MM_VARIANT)$(if $(filter g,$(OPT)),-og)

include arch/$(ARCH)/arch.mk
# (host-only targets build mm/ for Linux at any page size)
ifeq ($(filter $(PAGE_SIZE),$(ARCH_PAGE_SIZES))$(filter test-host fuzz fuzz-cov deps-fuzz clean help,$(MAKECMDGOALS)),)
$(error PAGE_SIZE=$(PAGE_SIZE) is not available on $(ARCH): use one of $(ARCH_PAGE_SIZES))
endif

# SMP and MEM are checked here, before anything is built or booted: SMP from 1
# to NR_CPUS (the build option, checked in mm/files.mk), MEM a
# size QEMU's -m takes (a number of MiB, or with an M or G suffix) from 8M
# (the least Quarry boots in) to 8G (the most it has been booted with).
NR_CPUS_MAX := $(NR_CPUS)
ifeq ($(shell echo '$(SMP)' | grep -Ex '[1-9][0-9]{0,3}'),)
$(error SMP must be a CPU count from 1 to $(NR_CPUS_MAX), not '$(SMP)')
endif
ifeq ($(shell [ $(SMP) -le $(NR_CPUS_MAX) ] && echo ok),)
$(error SMP=$(SMP) is more CPUs than Quarry starts (NR_CPUS is $(NR_CPUS_MAX)): use 1 to $(NR_CPUS_MAX), or build with NR_CPUS=$(SMP))
endif
MEM_MIB := $(shell echo '$(MEM)' | sed -En 's/^([1-9][0-9]{0,5})[mM]?$$/\1/p; s/^([1-9][0-9]{0,2})[gG]$$/\1 1024/p' | awk '{ print $$1 * ($$2 ? $$2 : 1) }')
ifeq ($(MEM_MIB),)
$(error MEM must be a RAM size such as 256M or 1G, not '$(MEM)')
endif
ifeq ($(shell [ $(MEM_MIB) -ge 8 ] && [ $(MEM_MIB) -le 8192 ] && echo ok),)
$(error MEM=$(MEM) is out of range: Quarry boots with 8M to 8G)
endif
ifeq ($(shell echo '$(NODES)' | grep -Ex '[1-8]'),)
$(error NODES must be a NUMA node count from 1 to 8, not '$(NODES)')
endif
NODES_MIN_MIB := $(shell echo $$(( $(NODES) * 8 )))
ifeq ($(shell [ $(MEM_MIB) -ge $(NODES_MIN_MIB) ] && echo ok),)
$(error NODES=$(NODES) with MEM=$(MEM): each node needs at least 8M, give MEM=$(NODES_MIN_MIB)M or more)
endif
# MERGE=0 (make replay): Quarry's caches are not merged (default 1: merged, as Linux's are).
ifneq ($(filter-out 0 1,$(MERGE)),)
$(error MERGE must be 0 (make replay: no cache merging) or 1 (merging, the default), not '$(MERGE)')
endif
# LINUX=1 (make replay): Linux's own allocators replay the trace too.
ifneq ($(filter-out 1,$(LINUX)),)
$(error LINUX must be 1 (make replay: the trace in the Linux kernels of make bench-linux too) or unset, not '$(LINUX)')
endif

# V=1 shows every command.
ifeq ($(V),1)
Q :=
else
Q := @
endif

KCFLAGS := -std=gnu11 -ffreestanding -fno-builtin -nostdlib -fno-pic -fno-pie \
	-fno-stack-protector -fno-omit-frame-pointer -fno-asynchronous-unwind-tables \
	-O$(OPT) -g3 -Wall -Wextra -Werror -Wno-unused-parameter $(ARCH_CFLAGS) \
	-DPAGE_SHIFT=$(PAGE_SHIFT) $(ALLOC_CFLAGS) \
	$(MM_CONFIG_CFLAGS) \
	-I. -Iarch/$(ARCH)/include -MMD -MP

# boot/: the arch-free parts of platform discovery (ACPI tables, boot_info)
# plus the arch's boot protocol (ARCH_SRCS). tests/kernel/: self-tests that
# only make sense in the kernel (SMP, interrupts). lab/: the lab's tools the
# kernel carries (benchmark runners, the GDB walkthrough, the leak check);
# a page-allocator-only build (ALLOC=none) keeps the leak check alone.
KSRCS := $(wildcard kernel/*.c) \
	$(if $(filter none,$(ALLOC)),lab/leakcheck.c,$(wildcard lab/*.c)) \
	$(wildcard arch/$(ARCH)/*.c) boot/acpi.c boot/bootinfo.c $(ARCH_SRCS) \
	$(MM_SRCS) $(TEST_SRCS) $(wildcard tests/kernel/*.c)
KSRCS += tools/cachemodel/modeltest.c $(if $(filter none,$(ALLOC)),,tools/trace/qtr_check.c)
KOBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(KSRCS)) $(ARCH_AOBJS)

ELF := $(BUILD)/quarry.elf
ISO := $(BUILD)/quarry.iso
TEST_ISO := $(BUILD)/quarry-test.iso

# QEMU's CPUs and RAM; with more than one CPU tests/qemu/run.sh runs them in
# parallel host threads (MTTCG). NODES > 1: the RAM and CPUs split over that
# many NUMA nodes (QEMU then gives x86_64 an SRAT and SLIT, arm64's device
# tree numa-node-id properties and a /distance-map).
QEMU_FLAGS := -smp $(SMP) -m $(MEM) $(if $(filter-out 1,$(NODES)),$(shell scripts/numa-flags.sh $(NODES) $(SMP) $(MEM_MIB)))

# What `make run` and `make test-kernel` boot. x86_64: a GRUB ISO whose
# default entry carries the command line; arm64: the ELF itself, with the
# command line in CMDLINE (tests/qemu/run.sh passes it to -append).
# `make debug` boots the ELF with CMDLINE (run.sh makes x86_64's ISO).
ifeq ($(ARCH),x86_64)
IMAGES     := $(ISO) $(TEST_ISO)
RUN_IMAGE  := $(ISO)
TEST_IMAGE := $(TEST_ISO)
GDB_ARCH   := i386:x86-64
else
IMAGES     := $(ELF)
RUN_IMAGE  := $(ELF)
TEST_IMAGE := $(ELF)
GDB_ARCH   := aarch64
endif
export CPU

.PHONY: all kernel images iso deps deps-fuzz run test test-host test-kernel test-gdb debug gdb help clean
all: images

deps:
	@scripts/deps.sh

kernel: $(ELF)

# kernel/string.c's loops must not turn into calls to memset/memcpy themselves.
$(BUILD)/obj/kernel/string.o: KCFLAGS += -fno-tree-loop-distribute-patterns

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(KCFLAGS) -c $< -o $@

# Flags live in these files: a change to them rebuilds everything.
$(KOBJS): Makefile arch/$(ARCH)/arch.mk mm/files.mk

# The ELF keeps full DWARF; beside it a symbol map, a link map and a disassembly.
LDSCRIPT := arch/$(ARCH)/linker.ld
$(ELF): $(KOBJS) $(LDSCRIPT)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) -nostdlib $(ARCH_LDFLAGS) -T $(LDSCRIPT) -Map=$(BUILD)/quarry.map -o $@ $(KOBJS)
	$(Q)$(NM) -n $@ > $(BUILD)/quarry.sym
	$(Q)$(OBJDUMP) -d -S $@ > $(BUILD)/quarry.dis 2>/dev/null

images: $(IMAGES)
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
# status is the kernel's. CMDLINE='words' appends to the kernel command line
# on both arches: arm64 passes "bench words" to -append; x86_64 then boots
# the ELF through a one-entry GRUB ISO whose multiboot2 line carries
# "bench words" (tests/qemu/run.sh, tests/qemu/mkiso.sh) instead of the
# prebuilt ISO. test-kernel does the same after "selftest".
run: deps images
	CMDLINE="bench$(if $(CMDLINE), $(CMDLINE))" tests/qemu/run.sh \
		$(if $(CMDLINE),$(ELF),$(RUN_IMAGE)) $(TIMEOUT) $(QEMU_FLAGS)

.PHONY: bench
# Benchmarks: every configuration, single-CPU under -icount (checked to repeat
# exactly), multi-CPU under MTTCG and at 2/4/8 CPUs under -icount (MCPU=only:
# that alone; MCPU=0: without it); report in build/bench/. QUICK=1: a short run.
# Both arches and both allocators unless ARCH= or ALLOC= (slab, slub or a
# list: ALLOC=slab,slub) is given on the command line.
bench: deps
	@NODES=$(NODES) lab/bench/run.sh $(if $(QUICK),quick) $(if $(filter command line,$(origin ARCH)),$(ARCH)) $(if $(BENCH_ALLOC),alloc=$(BENCH_ALLOC)) $(if $(filter only,$(MCPU)),mcpu,$(if $(filter 0,$(MCPU)),nomcpu))

# Every single-CPU -icount figure of this tree against OLD (a revision or a
# checkout), all 20 configurations (lab/bench/icount-compare.sh; Documentation/benchmarks.md).
.PHONY: icount-compare
icount-compare: deps
	@[ -n "$(OLD)" ] || { echo "make icount-compare: give OLD=<revision or directory> to compare with"; exit 2; }
	@lab/bench/icount-compare.sh "$(OLD)"

# SMP=N given to `make test` runs the SMP self-tests and boot checks on N
# CPUs instead of the default counts (2, 4 and 8; see tests/run-all.sh);
# ARCH=arm64 (or ARCHES="x86_64 arm64") narrows it to those arches.
test: deps
	@SMP_LIST="$(if $(filter command line environment,$(origin SMP)),$(SMP))" \
		ARCHES="$(if $(filter command line,$(origin ARCH)),$(ARCH),$(ARCHES))" tests/run-all.sh

test-host:
	@$(MAKE) --no-print-directory -f tests/host/host.mk PAGE_SHIFT=$(PAGE_SHIFT) ALLOC=$(ALLOC) \
		NODES=$(NODES) run

# The allocator fuzzer on the host (tests/fuzz/): every allocator and page
# size for FUZZ_SECONDS in all; ends with "fuzz: N operations, M findings".
# fuzz-cov: libFuzzer on the same interpreter, then mm/'s line coverage.
FUZZ_SECONDS ?= 60
.PHONY: fuzz fuzz-cov
fuzz:
	@tests/fuzz/run.sh fuzz $(FUZZ_SECONDS)

fuzz-cov: deps-fuzz
	@tests/fuzz/cov.sh $(FUZZ_SECONDS) "$(if $(filter command line,$(origin ALLOC)),$(ALLOC))" $(PAGE_SIZE)

deps-fuzz:
	@scripts/deps.sh fuzz

test-kernel: deps images
	@CMDLINE="selftest$(if $(CMDLINE), $(CMDLINE))" tests/qemu/selftest.sh kernel-$(ARCH)-$(PAGE_TAG) \
		$(if $(CMDLINE),$(ELF),$(TEST_IMAGE)) $(TIMEOUT) $(QEMU_FLAGS)

# The GDB tests of this build: stepping through kmain, and the helpers of
# scripts/gdb stopped in the allocator (any ALLOC, OPT=g too).
test-gdb: deps images
	@tests/gdb/stepping.sh gdb-$(notdir $(BUILD)) $(ELF) $(RUN_IMAGE)
	@tests/gdb/helpers.sh gdb-helpers-$(notdir $(BUILD)) $(ELF)

# QEMU paused at reset with its gdbstub on the first free port from 1234,
# written to $(BUILD)/gdb-port for `make gdb` (so a second `make debug`, of
# another build or the same, runs beside the first). CMDLINE= the kernel
# command line (default bench; gdbtest: the walkthrough's cache sequence).
debug: deps kernel
	@scripts/gdb/debug.sh $(BUILD) $(ELF) "$(if $(CMDLINE),$(CMDLINE),bench)" $(QEMU_FLAGS)

# gdb-multiarch with the kernel's symbols and Quarry's helpers
# (scripts/gdb/quarry.py), attached to `make debug` of the same build
# (the port from $(BUILD)/gdb-port, or PORT=N).
gdb: deps kernel
	@port=$${PORT:-$$(cat $(BUILD)/gdb-port 2>/dev/null)}; \
	if [ -z "$$port" ]; then \
		echo "make gdb: no 'make debug' is running for $(BUILD) (no $(BUILD)/gdb-port): start it with the same ARCH/PAGE_SIZE/ALLOC/OPT first, or give PORT=N"; \
		exit 1; \
	fi; \
	echo "make gdb: attaching to localhost:$$port ($(ELF))"; \
	gdb-multiarch -q -ex 'set architecture $(GDB_ARCH)' -x scripts/gdb/quarry.py \
		-ex "target remote localhost:$$port" -x scripts/gdb/quarry.gdb $(ELF)

help:
	@echo "Quarry targets:"
	@echo "  make run      build, make the GRUB ISO and boot it in QEMU: boot reports, then the"
	@echo "                benchmark tables (serial on this terminal)"
	@echo "  make test     every test: host unit tests (ASan/UBSan), in-kernel self-tests"
	@echo "                on x86_64 (4K, 64K) and arm64 (4K, 16K, 64K), boot checks, the"
	@echo "                benchmark mode, the GDB tests (stepping, helpers) on both arches"
	@echo "  make bench    boot-time benchmarks of every configuration -> build/bench/report.md"
	@echo "                (QUICK=1: natural configuration only, one multi-CPU boot;"
	@echo "                MCPU=only: just the 2/4/8-CPU -icount mode; MCPU=0: without it)"
	@echo "                MODEL=1: also the cache model's misses and modelled cycles per operation"
	@echo "                -> build/bench/model.md (tools/cachemodel/README.md)"
	@echo "                NODES=N: also each allocator on N NUMA nodes, local against remote"
	@echo "                (with MODEL=1 modelled, remote memory dearer; Documentation/numa.md)"
	@echo "  make icount-compare OLD=<rev or dir>  every single-CPU -icount figure of the 20"
	@echo "                configurations against OLD's, field by field -> build/icount-compare/"
	@echo "  make cachemodel  the cache and TLB model's QEMU plugin; make cachemodel-cachegrind,"
	@echo "                make cachemodel-seeds: its comparison with cachegrind, the seeds' claims"
	@echo "  make bench-host  mm/ as a Linux program against glibc, jemalloc, tcmalloc, mimalloc:"
	@echo "                loops and multi-threaded workloads -> build/bench-host/report.md;"
	@echo "                make bench-host-profile: perf + fast-path counts on the workloads"
	@echo "  make bench-scale  throughput against threads (1, 2, 4, ... nproc): the host workloads"
	@echo "                for SLAB, SLUB, SLOB, SLOB-seg and the peers, and the SLAB and SLUB"
	@echo "                x86_64 and arm64 kernels under QEMU MTTCG at as many vCPUs"
	@echo "                -> build/bench-scale/report.md and scale.png; about 2 min on 2 cores"
	@echo "                (SCALE_THREADS=1,2,4 SCALE_RUNS=3 SCALE_PCT=20 SCALE_KERNEL=0"
	@echo "                SCALE_HOST=0 SCALE_ARCHES=x86_64,arm64)"
	@echo "  make bench-linux  Linux 6.1 SLAB/SLUB/SLOB and 6.12 SLUB kernels (Debian's source), x86_64 4K"
	@echo "                and arm64 4K/16K/64K, running Quarry's kmalloc benchmarks under QEMU -icount"
	@echo "                -> build/linux/report.md (LINUX_MATRIX=\"6.1:slub:x86_64:4K ...\" LINUX_CPUS=N;"
	@echo "                cold: ~7 min a kernel, 16 kernels)"
	@echo "  make bench-scale-bundle  the same as one self-contained tarball for a machine where"
	@echo "                nothing can be installed (SCALE_CORES=16: its NR_CPUS and counts)"
	@echo "                -> build/bench-scale-bundle-cpusN.tar.xz; there: tar xf, ./run.sh"
	@echo "  make coherence-report  cache-line moves between CPUs per operation, modelled on any"
	@echo "                machine: the host workloads in lock step under qemu-user with the"
	@echo "                coherence plugin, each allocator at 2, 4, 16 threads ->"
	@echo "                build/coherence/report.md (CO_ALLOCATORS= CO_THREADS= CO_WORKLOADS= CO_SCALE=)"
	@echo "  make trace-record CMD='...'  (root) record this machine's kernel allocations (the six"
	@echo "                kmem events) while CMD runs -> OUT (build/trace/trace.txt); BUFFER_KB="
	@echo "  make replay TRACE=file  replay a recorded trace (text, .gz, .xz or converted) through"
	@echo "                Quarry's mm/ on the host: ALLOC=slab,slub,... PAGE_SIZE=4K,16K,64K lists,"
	@echo "                PAGES=1 with the page events -> build/replay/<trace>/report.md, memory.png;"
	@echo "                ARCH=x86_64|arm64|all adds the kernel half (the trace as a boot module,"
	@echo "                replayed inside Quarry under -icount, twice, and in real time; SMP=n CPUs;"
	@echo "                MODEL=1: the cache model's misses and modelled cycles per operation too;"
	@echo "                NODES=N: its multi-CPU boots on N NUMA nodes, each traced CPU's node;"
	@echo "                MERGE=0: caches not merged; by default they are, as Linux merges them)"
	@echo "                (Documentation/trace-replay.md)"
	@echo "  make debug    boot QEMU paused with a gdbstub on a free port from 1234, printed"
	@echo "                (ARCH=arm64 too; CMDLINE=gdbtest: a cache sequence to stop in)"
	@echo "  make gdb      attach gdb-multiarch to 'make debug' (same options), with the"
	@echo "                quarry-* helpers (quarry-help) and pretty printers loaded"
	@echo "  make clean    remove build/"
	@echo "Options:"
	@echo "  ARCH=x86_64|arm64  target architecture (arm64: QEMU virt, GICv3)"
	@echo "  PAGE_SIZE=4K|64K   page size (default 4K); arm64 also 16K. On arm64 it is the"
	@echo "                     MMU granule; x86_64 makes a 64K page of 16 MMU pages"
	@echo "  CPU=cortex-a72     arm64 QEMU CPU (cortex-a57, cortex-a72, cortex-a76, max); 16K needs a76 or max"
	@echo "  SMP=N              QEMU CPU count (default 1; 1-NR_CPUS; >1 runs MTTCG)"
	@echo "  NODES=N            QEMU NUMA nodes, 1-8 (default 1): RAM and CPUs split evenly,"
	@echo "                     distance 10 local, 20 remote; the kernel prints the topology"
	@echo "                     (make test-host NODES=N: the host tests' arena split the same way)"
	@echo "  NR_CPUS=8          most CPUs the kernel starts, 1-64 (per-CPU arrays are sized"
	@echo "                     by it); other than 8: build/<arch>-<page>[-alloc]-cpusN/"
	@echo "  ALLOC=slab         object allocator: slab (default), slub (seed 002: lockless"
	@echo "                     per-CPU fast paths), slob (seed 004's sequential-fit heap) or"
	@echo "                     slob-seg (seed 004's segregated free lists); builds other than"
	@echo "                     slab go to build/<arch>-<page>-<alloc>/"
	@echo "  SLAB_DEBUG=1       red zones, poisoning, double-free and bad-pointer checks in"
	@echo "                     every cache, in all four allocators; costs a check and a"
	@echo "                     fill per alloc and free"
	@echo "  SLAB_STATS=1       per-cache event counters (one add per counted event)"
	@echo "  SLAB_FREELIST_RANDOM=1   SLAB: shuffle each new slab's free-index stack (cost per slab made)"
	@echo "  SLAB_FREELIST_HARDENED=1 SLUB: store free pointers XORed with a secret and their address"
	@echo "  SLAB_IDX=4         variant: 4-byte freelist indexes (seed 000's 'before')"
	@echo "  SLAB_GROW_LOCKED=1 variant: refill a new slab under the node lock (seed 001's 'before')"
	@echo "  SLUB_SHEAVES=0     SLUB without per-CPU sheaves (classic lockless paths, seed 002); default 1:"
	@echo "                     sheaves cost irqs off per fast-path op, 2 x 512-byte sheaves per CPU per"
	@echo "                     cache in use, up to 20 in each cache's barn (full ones: <= 512 KiB of objects)"
	@echo "  OPT=g              -Og instead of -O2 (stepping follows the source); its own"
	@echo "                     build directory, build/<arch>-<page>[-alloc]-og/"
	@echo "  MEM=256M           QEMU RAM, 8M to 8G;  TIMEOUT=120  seconds before a QEMU run is killed"
	@echo "  CMDLINE='...'      appended to the kernel command line (make run, test-kernel;"
	@echo "                     e.g. 'fail_page_alloc=1,5,-1,42 failslab=2,10,-1,7'); make debug"
	@echo "                     boots with CMDLINE alone (default bench), both arches"
	@echo "Fuzzing (host, ASan+UBSan; see Documentation/testing.md):"
	@echo "  make fuzz          every allocator and page size for FUZZ_SECONDS (60); ends with"
	@echo "                     'fuzz: N operations, M findings'"
	@echo "  make fuzz-cov      libFuzzer on the same interpreter for FUZZ_SECONDS, then mm/'s"
	@echo "                     line coverage (ALLOC=one allocator, default all four; PAGE_SIZE=)"

clean:
	rm -rf build

-include $(KOBJS:.o=.d)

include tools/cachemodel/cachemodel.mk
include tools/coherence/coherence.mk

bench-host:
	@$(MAKE) --no-print-directory -f lab/bench/host/bench-host.mk

bench-host-profile:
	@$(MAKE) --no-print-directory -f lab/bench/host/bench-host.mk bench-host-profile

# Throughput against threads on this machine (lab/bench/scale.sh), and the
# bundle that runs the same on a machine without packages (scale_bundle.sh).
.PHONY: bench-scale bench-scale-bundle
bench-scale: deps
	@SCALE_THREADS="$(SCALE_THREADS)" SCALE_RUNS="$(SCALE_RUNS)" SCALE_PCT="$(SCALE_PCT)" \
		SCALE_HOST="$(SCALE_HOST)" SCALE_KERNEL="$(SCALE_KERNEL)" SCALE_ARCHES="$(SCALE_ARCHES)" \
		lab/bench/scale.sh

bench-scale-bundle: deps
	@lab/bench/scale_bundle.sh $(SCALE_CORES)

# Linux's own SLAB, SLUB and SLOB under the same kmalloc benchmarks: small
# kernels from Debian's linux-source-6.1/6.12 (x86_64 4K; arm64 4K, 16K, 64K),
# Quarry's module, QEMU -icount (lab/linux/matrix.sh; LINUX_MATRIX=
# "6.1:slub:x86_64:4K ..." LINUX_CPUS=N) -> build/linux/report.md.
# Cold: about 7 minutes a kernel at -j2.
.PHONY: bench-linux
bench-linux:
	@LINUX_MATRIX="$(LINUX_MATRIX)" LINUX_CPUS="$(LINUX_CPUS)" lab/linux/matrix.sh

# Record this machine's kernel allocations while CMD runs (root; tools/trace/record.sh):
# make trace-record CMD='perf bench sched messaging' [OUT=build/trace/trace.txt] [BUFFER_KB=131072]
# Replay a recorded kernel trace (text, .gz, .xz, or converted) through Quarry's mm/ on
# the host: every allocator and page size unless ALLOC=/PAGE_SIZE= lists narrow it;
# PAGES=1 replays the page events too; ARCH=x86_64|arm64|all [SMP=n] replays it
# inside the kernel as well (tools/trace/kreplay.sh); LINUX=1 inside the Linux kernels
# make bench-linux built (tools/trace/lreplay.sh). Report in build/replay/<trace>/report.md.
.PHONY: replay trace-record
replay:
	@PAGES="$(PAGES)" MERGE="$(MERGE)" SMP="$(REPLAY_SMP)" NODES="$(NODES)" MODEL="$(MODEL)" LINUX="$(LINUX)" tools/trace/replay.sh "$(TRACE)" "$(REPLAY_ALLOC)" "$(REPLAY_PAGE)" "$(REPLAY_ARCH)"

trace-record:
	@[ -n "$(CMD)" ] || { echo "make trace-record: give the command to record, e.g. CMD='perf bench sched messaging'"; exit 1; }
	@tools/trace/record.sh -o "$(if $(OUT),$(OUT),build/trace/trace.txt)" $(if $(BUFFER_KB),-b $(BUFFER_KB)) -- sh -c '$(CMD)'
