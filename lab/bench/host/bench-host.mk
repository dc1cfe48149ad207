# lab/bench/host/bench-host.mk - host-native benchmark: Quarry's mm/ built for
# Linux user space against glibc malloc, jemalloc, tcmalloc, mimalloc and a bare
# free list, in real TSC ticks, plus exact instruction and simulated cache-miss
# counts under valgrind (callgrind with its cache simulator).
#
#   make -f lab/bench/host/bench-host.mk          deps, build, run, report (the default)
#   make -f lab/bench/host/bench-host.mk bench-host-build   just the four binaries
#   make -f lab/bench/host/bench-host.mk bench-host-clean
#   make bench-host                                  the same from the top-level Makefile
#   make -f lab/bench/host/bench-host.mk bench-host-profile   where Quarry's time goes on the
#                                                    multi-threaded workloads (perf, fast-path counts):
#                                                    build/bench-host/profile/profile.md
#
# Options: BH_PROCS=5 (timed processes per binary, for as many address layouts),
# BH_ROUNDS=7 (timed rounds per process), BH_COUNT=10000 (objects per size),
# BH_CG_COUNT=1000 (objects per size under callgrind), QUICK=1 (2 processes of 2
# rounds, 2000 objects, 200 under callgrind), SLAB_STATS=1 (keep mm/'s event counters; off by
# default, as in the kernel).
#
# The file can also be included by another Makefile: it then only adds the
# targets bench-host, bench-host-build, bench-host-deps and bench-host-clean
# and BH_* variables, and leaves the includer's default goal alone.
#
# Output: build/bench-host/report.md, build/bench-host/results.csv, and beside them
# the logs, callgrind dumps and binaries. Run from the top of the tree. The
# benchmark never fails on a timing; only a build or run failure fails it.
#
# Binaries: one per page size and freelist index width, each built from the
# same mm/ sources as the kernel (mm/files.mk) with -O2 and -DQUARRY_HOST, no
# sanitizers: build/bench-host/bench-{4k,64k}{,-idx4}; beside each the
# multi-threaded workloads (workloads.c, workloads_main.c, workloads_sync.c, peers.c:
# larson, mixed, prodcons),
# workloads-{4k,...}, and for SLUB, SLOB and SLOB-seg (BH_ALLOC=slub, slob,
# slob-seg) workloads-4k-slub, -slob, -slob-seg. Three host-only choices:
# -DHOST_IRQS_UNTRACKED (a thread has no interrupts to disable, so the shim's
# save/restore are empty; the unit tests keep tracking them to check mm/'s
# assertions), -ftls-model=local-exec (the program's own thread-locals in
# one %fs access, as the kernel's per-CPU data is one %gs access; the bare
# free list in bench.c gets the same) and -DHOST_FIXED_PHYS_OFFSET (the
# arena mapped at a fixed address, so the direct map's offset is a constant
# as in the kernel; the unit tests keep a variable, since they hold two
# arenas at once). Functions are aligned to 64 bytes (-falign-functions=64):
# at 16, a change elsewhere moved kfree from 0x...f80 to 0x...f50 with the
# same instructions, and larson's one-thread figure from 8.0 to 11.3 ns
# (front-end effects at some 5 instructions a cycle); aligned, the figure no
# longer depends on where the linker happens to put the fast paths. The peers
# are the distribution's builds. Each variant is built by
# a recursive make with PAGE_SHIFT and SLAB_IDX set, so mm/files.mk gives it
# exactly the flags the kernel build would get.

BH_DIR := lab/bench/host
BH_OUT := build/bench-host

ifeq ($(BH_VARIANT_BUILD),)
# ---- the driver (safe to include) ----
BH_SAVED_GOAL := $(.DEFAULT_GOAL)
BH_STANDALONE := $(if $(filter 1,$(words $(MAKEFILE_LIST))),1)

BH_PROCS ?= 5
BH_ROUNDS ?= 7
BH_COUNT ?= 10000
BH_CG_COUNT ?= 1000
ifneq ($(QUICK),)
BH_PROCS := 2
BH_ROUNDS := 2
BH_COUNT := 2000
BH_CG_COUNT := 200
endif

.PHONY: bench-host bench-host-build bench-host-deps bench-host-clean bench-host-profile
bench-host: bench-host-build
	@PROCS=$(BH_PROCS) ROUNDS=$(BH_ROUNDS) COUNT=$(BH_COUNT) CG_COUNT=$(BH_CG_COUNT) OUT=$(BH_OUT) \
		$(BH_DIR)/run.sh

bench-host-deps:
	@$(BH_DIR)/deps.sh

# The variants: natural index width and 4-byte (SLAB_IDX=4), at 4K and 64K pages.
bench-host-build: bench-host-deps
	@echo "bench-host: building (mm/ with -O2 -DQUARRY_HOST, no sanitizers)"
	@$(MAKE) --no-print-directory -f $(BH_DIR)/bench-host.mk BH_VARIANT_BUILD=1 PAGE_SHIFT=12 SLAB_IDX= \
		SLAB_DEBUG= SLAB_GROW_LOCKED=
	@$(MAKE) --no-print-directory -f $(BH_DIR)/bench-host.mk BH_VARIANT_BUILD=1 PAGE_SHIFT=16 SLAB_IDX= \
		SLAB_DEBUG= SLAB_GROW_LOCKED=
	@$(MAKE) --no-print-directory -f $(BH_DIR)/bench-host.mk BH_VARIANT_BUILD=1 PAGE_SHIFT=12 SLAB_IDX=4 \
		SLAB_DEBUG= SLAB_GROW_LOCKED=
	@$(MAKE) --no-print-directory -f $(BH_DIR)/bench-host.mk BH_VARIANT_BUILD=1 PAGE_SHIFT=16 SLAB_IDX=4 \
		SLAB_DEBUG= SLAB_GROW_LOCKED=
	@$(MAKE) --no-print-directory -f $(BH_DIR)/bench-host.mk BH_VARIANT_BUILD=1 PAGE_SHIFT=12 SLAB_IDX= \
		SLAB_DEBUG= SLAB_GROW_LOCKED= SLAB_FREELIST_HARDENED= BH_ALLOC=slub
	@$(MAKE) --no-print-directory -f $(BH_DIR)/bench-host.mk BH_VARIANT_BUILD=1 PAGE_SHIFT=12 SLAB_IDX= \
		SLAB_DEBUG= SLAB_GROW_LOCKED= BH_ALLOC=slob
	@$(MAKE) --no-print-directory -f $(BH_DIR)/bench-host.mk BH_VARIANT_BUILD=1 PAGE_SHIFT=12 SLAB_IDX= \
		SLAB_DEBUG= SLAB_GROW_LOCKED= BH_ALLOC=slob-seg

# The profile needs perf (Debian: linux-perf) and SLAB_STATS=1 builds of the workloads.
bench-host-profile: bench-host-build
	@$(MAKE) --no-print-directory -f $(BH_DIR)/bench-host.mk BH_VARIANT_BUILD=1 PAGE_SHIFT=12 SLAB_IDX= \
		SLAB_DEBUG= SLAB_GROW_LOCKED= SLAB_STATS=1 BH_OUT=$(BH_OUT)-stats BH_ALLOC=slab
	@$(MAKE) --no-print-directory -f $(BH_DIR)/bench-host.mk BH_VARIANT_BUILD=1 PAGE_SHIFT=12 SLAB_IDX= \
		SLAB_DEBUG= SLAB_GROW_LOCKED= SLAB_STATS=1 BH_OUT=$(BH_OUT)-stats BH_ALLOC=slub
	@OUT=$(BH_OUT) STATS_OUT=$(BH_OUT)-stats $(BH_DIR)/profile.sh

bench-host-clean:
	rm -rf $(BH_OUT) $(BH_OUT)-stats

# Included: give the includer its default goal back.
ifeq ($(BH_STANDALONE),)
.DEFAULT_GOAL := $(BH_SAVED_GOAL)
endif

else
# ---- one variant (recursive make with BH_VARIANT_BUILD=1, PAGE_SHIFT, SLAB_IDX, BH_ALLOC) ----
PAGE_SHIFT ?= 12
BH_ALLOC ?= slab
ALLOC := $(BH_ALLOC)
include mm/files.mk

BH_ALLOC_TAG := $(if $(filter slab,$(BH_ALLOC)),,-$(BH_ALLOC))
ifeq ($(PAGE_SHIFT),12)
BH_TAG := 4k$(BH_ALLOC_TAG)$(MM_VARIANT)
else ifeq ($(PAGE_SHIFT),16)
BH_TAG := 64k$(BH_ALLOC_TAG)$(MM_VARIANT)
else
$(error PAGE_SHIFT must be 12 or 16, not '$(PAGE_SHIFT)')
endif

BH_OBJDIR := $(BH_OUT)/obj-$(BH_TAG)
BH_BIN := $(BH_OUT)/bench-$(BH_TAG)
BH_WL_BIN := $(BH_OUT)/workloads-$(BH_TAG)
BH_LIB_SRCS := $(MM_SRCS) $(MM_HOST_KERNEL_SRCS) tests/host/shim.c
BH_LIB_OBJS := $(patsubst %.c,$(BH_OBJDIR)/%.o,$(BH_LIB_SRCS))
BH_OBJS := $(BH_LIB_OBJS) $(BH_OBJDIR)/$(BH_DIR)/bench.o $(BH_OBJDIR)/$(BH_DIR)/peers.o
BH_WL_OBJS := $(BH_LIB_OBJS) $(BH_OBJDIR)/$(BH_DIR)/workloads.o \
	$(BH_OBJDIR)/$(BH_DIR)/workloads_sync.o $(BH_OBJDIR)/$(BH_DIR)/workloads_main.o \
	$(BH_OBJDIR)/$(BH_DIR)/workloads_sample.o \
	$(BH_OBJDIR)/$(BH_DIR)/peers.o
BH_STAMP := $(BH_OBJDIR)/cflags

# The kernel counts slab events only with SLAB_STATS=1; the host build would
# count them by default (one atomic add per event), so say "off" unless asked.
BH_CFLAGS := -D_GNU_SOURCE -DQUARRY_HOST -DPAGE_SHIFT=$(PAGE_SHIFT) $(ALLOC_CFLAGS) \
	$(MM_CONFIG_CFLAGS) $(if $(SLAB_STATS),,-DCONFIG_SLAB_STATS=0) \
	-I. -Itests/host/include -include tests/host/include/host_prelude.h \
	-O2 -g -Wall -Wextra -ftls-model=local-exec -DHOST_IRQS_UNTRACKED \
	-DHOST_FIXED_PHYS_OFFSET=0x300000000000UL -falign-functions=64
BH_LDFLAGS := -pthread
BH_LIBS := -ldl

.PHONY: bench-host-bin
.DEFAULT_GOAL := bench-host-bin
bench-host-bin: $(BH_BIN) $(BH_WL_BIN)

$(BH_BIN): $(BH_OBJS)
	@echo "  LD      $@"
	@$(CC) $(BH_LDFLAGS) -o $@ $(BH_OBJS) $(BH_LIBS)

$(BH_WL_BIN): $(BH_WL_OBJS)
	@echo "  LD      $@"
	@$(CC) $(BH_LDFLAGS) -o $@ $(BH_WL_OBJS) $(BH_LIBS)

$(BH_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(BH_CFLAGS)' | cmp -s - $@ || echo '$(CC) $(BH_CFLAGS)' > $@

$(BH_OBJDIR)/%.o: %.c $(BH_STAMP)
	@mkdir -p $(@D)
	@echo "  CC      $< ($(BH_TAG))"
	@$(CC) $(BH_CFLAGS) -MMD -MP -c -o $@ $<

.PHONY: FORCE
FORCE:

-include $(BH_OBJS:.o=.d) $(BH_WL_OBJS:.o=.d)
endif
