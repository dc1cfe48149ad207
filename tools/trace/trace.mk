# tools/trace/trace.mk - the trace tools: the converter (text -> Quarry trace)
# and one host replay binary per allocator and page size, each built from
# the same mm/ sources as the kernel (mm/files.mk) with -O2 -DQUARRY_HOST and
# the host shim (tests/host/shim.c), without sanitizers, as bench-host does.
#
#   make -f tools/trace/trace.mk convert
#   make -f tools/trace/trace.mk replay-bin ALLOC=slub PAGE_SHIFT=12 [SLUB_SHEAVES=0 ...]
#
# Every file is written under a temporary name and renamed when whole, so
# that two make replay runs at once (of different traces, sharing these
# binaries) never run or link a half-written one.
#
# Output: build/replay/bin/convert and build/replay/bin/replay-<alloc>-<4k|16k|64k><variant>
# (the variant suffix of mm/files.mk: -nosheaves, -idx4, ...); objects in
# build/replay/obj-<tag>/.

RP_OUT := build/replay
RP_BIN := $(RP_OUT)/bin
RP_DIR := tools/trace
PAGE_SHIFT ?= 12
ALLOC ?= slab
include mm/files.mk

ifeq ($(PAGE_SHIFT),12)
RP_PAGE := 4k
else ifeq ($(PAGE_SHIFT),14)
RP_PAGE := 16k
else ifeq ($(PAGE_SHIFT),16)
RP_PAGE := 64k
else
$(error PAGE_SHIFT must be 12, 14 or 16, not '$(PAGE_SHIFT)')
endif

RP_TAG := $(ALLOC)-$(RP_PAGE)$(MM_VARIANT)
RP_OBJDIR := $(RP_OUT)/obj-$(RP_TAG)
RP_REPLAY := $(RP_BIN)/replay-$(RP_TAG)
RP_SRCS := $(MM_SRCS) $(MM_HOST_KERNEL_SRCS) tests/host/shim.c \
	$(RP_DIR)/replay.c $(RP_DIR)/replay_load.c $(RP_DIR)/qtr_check.c
RP_OBJS := $(patsubst %.c,$(RP_OBJDIR)/%.o,$(RP_SRCS))
RP_STAMP := $(RP_OBJDIR)/cflags

# As bench-host: no event counters unless SLAB_STATS=1, interrupts not
# tracked (one thread), the arena at a fixed address.
RP_CFLAGS := -D_GNU_SOURCE -DQUARRY_HOST -DPAGE_SHIFT=$(PAGE_SHIFT) $(ALLOC_CFLAGS) \
	$(MM_CONFIG_CFLAGS) $(if $(SLAB_STATS),,-DCONFIG_SLAB_STATS=0) \
	-I. -Itests/host/include -include tests/host/include/host_prelude.h \
	-O2 -g -Wall -Wextra -DHOST_IRQS_UNTRACKED -DHOST_FIXED_PHYS_OFFSET=0x300000000000UL

.PHONY: convert replay-bin FORCE
.DEFAULT_GOAL := replay-bin
replay-bin: $(RP_REPLAY)
convert: $(RP_BIN)/convert

RP_CONVERT_SRCS := $(RP_DIR)/convert.c $(RP_DIR)/convert_live.c $(RP_DIR)/convert_input.c
$(RP_BIN)/convert: $(RP_CONVERT_SRCS) $(RP_DIR)/qtrace.h $(RP_DIR)/convert.h
	@mkdir -p $(@D)
	@echo "  CC      $@"
	@$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -o $@.$$$$.tmp $(RP_CONVERT_SRCS) && \
		mv -f $@.$$$$.tmp $@

$(RP_REPLAY): $(RP_OBJS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) -pthread -o $@.$$$$.tmp $(RP_OBJS) -ldl && mv -f $@.$$$$.tmp $@

$(RP_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(RP_CFLAGS)' | cmp -s - $@ || echo '$(CC) $(RP_CFLAGS)' > $@

$(RP_OBJDIR)/%.o: %.c $(RP_STAMP)
	@mkdir -p $(@D)
	@echo "  CC      $< ($(RP_TAG))"
	@$(CC) $(RP_CFLAGS) -MMD -MP -MF $(@:.o=.d) -MT $@ -c -o $@.$$$$.tmp $< && mv -f $@.$$$$.tmp $@

FORCE:

-include $(RP_OBJS:.o=.d)
