# tests/host/host.mk - build and run the self-tests on the host under ASan and UBSan.
#
#   make -f tests/host/host.mk [PAGE_SIZE=4K|16K|64K or PAGE_SHIFT=12|14|16]
#        [ALLOC=slab|slub|slob|slob-seg] [MM_ONLY=1]
#        build; add 'run' to build and run
#   make -f tests/host/host.mk [PAGE_SHIFT=12|14|16] clean
#   make -f tests/host/host.mk NODES=2 run
#        run every test on 2 NUMA nodes (QUARRY_NODES, tests/host/shim.c:
#        the arena split evenly, as make run NODES=N splits QEMU's RAM)
#
# Output goes to build/host-4k/ or build/host-64k/. MM_ONLY=1 builds just the
# page allocator: as in the top-level Makefile it means ALLOC=none
# (CONFIG_ALLOC_NONE, no slab/slub/kmalloc sources), and it also leaves out
# the object allocator's tests (tests/*/test_slab*.c, test_slub*.c,
# test_kmalloc*.c, test_cache*.c, and tests/host/stress.c, misuse_after.c). It links
# a separate binary so the two never get mixed up; so do the mm/ build options
# (SLAB_DEBUG, SLAB_IDX, SLAB_GROW_LOCKED: see mm/files.mk). Run from the top
# of the tree.

# PAGE_SIZE=4K|16K|64K (as the top-level Makefile names it) sets PAGE_SHIFT;
# given both, they must agree.
ifneq ($(PAGE_SIZE),)
host_shift_4K := 12
host_shift_16K := 14
host_shift_64K := 16
ifeq ($(host_shift_$(PAGE_SIZE)),)
$(error PAGE_SIZE must be 4K, 16K or 64K, not '$(PAGE_SIZE)')
endif
ifneq ($(origin PAGE_SHIFT),undefined)
ifneq ($(PAGE_SHIFT),$(host_shift_$(PAGE_SIZE)))
$(error PAGE_SIZE=$(PAGE_SIZE) and PAGE_SHIFT=$(PAGE_SHIFT) disagree)
endif
endif
PAGE_SHIFT := $(host_shift_$(PAGE_SIZE))
endif
PAGE_SHIFT ?= 12
MM_ONLY ?=
NODES ?=
ifneq ($(NODES),)
ifeq ($(shell echo '$(NODES)' | grep -Ex '[1-8]'),)
$(error NODES must be a NUMA node count from 1 to 8, not '$(NODES)')
endif
endif
ifneq ($(MM_ONLY),)
ALLOC := none
endif

include mm/files.mk

ifeq ($(PAGE_SHIFT),12)
OUT := build/host-4k
else ifeq ($(PAGE_SHIFT),14)
OUT := build/host-16k
else ifeq ($(PAGE_SHIFT),16)
OUT := build/host-64k
else
$(error PAGE_SHIFT must be 12, 14 or 16, not '$(PAGE_SHIFT)')
endif

# Host-only tests: tests/host/test_slab_host*.c are SLAB's, test_slub_host*.c
# SLUB's, test_slob_host*.c both SLOBs'; each builds with its allocator only.
# tests/host/stress.c is the random run SLAB's, SLUB's and SLOB's share, and
# misuse_after.c what every misuse test checks after its misuse: they build with
# any object allocator.
HOST_TEST_SRCS := $(filter-out $(if $(filter slab,$(ALLOC)),,tests/host/test_slab_host%) \
	$(if $(filter slub,$(ALLOC)),,tests/host/test_slub_host%) \
	$(if $(filter slob slob-seg,$(ALLOC)),,tests/host/test_slob_host%),$(sort $(wildcard tests/host/*.c)))
SRCS := $(MM_SRCS) $(MM_HOST_KERNEL_SRCS) kernel/selftest.c lab/leakcheck.c \
	kernel/cmdline.c boot/bootinfo.c boot/dtb.c boot/acpi.c \
	$(TEST_SRCS) $(HOST_TEST_SRCS)
ifneq ($(MM_ONLY),)
SRCS := $(filter-out mm/slab% mm/slub% mm/slob% mm/kmalloc% tests/common/test_slab% \
	tests/common/test_slub% tests/common/test_slob% tests/common/test_kmalloc% \
	tests/common/test_cache% tests/host/test_slab% tests/host/test_slub% tests/host/test_slob% \
	tests/host/test_kmalloc% tests/host/test_cache% tests/host/stress.c tests/host/misuse_after.c,$(SRCS))
BIN := $(OUT)/quarry-host-mm$(MM_VARIANT)
else
# One binary per allocator (slab keeps the old name), so switching ALLOC relinks.
BIN := $(OUT)/quarry-host$(if $(filter slab,$(ALLOC)),,-$(ALLOC))$(MM_VARIANT)
endif

HOST_CFLAGS := -DQUARRY_HOST -DPAGE_SHIFT=$(PAGE_SHIFT) $(ALLOC_CFLAGS) $(MM_CONFIG_CFLAGS) -I. -Itests/host/include \
	-include tests/host/include/host_prelude.h \
	-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all \
	-Wall -Wextra -Werror
HOST_LDFLAGS := -fsanitize=address,undefined -pthread

# One object tree per ALLOC (MM_ONLY=1 is ALLOC=none), so switching never mixes them.
OBJDIR := $(OUT)/obj-$(ALLOC)$(MM_VARIANT)
OBJS := $(patsubst %.c,$(OBJDIR)/%.o,$(SRCS))
STAMP := $(OBJDIR)/cflags

.PHONY: all run clean
all: $(BIN)

run: $(BIN)
	$(if $(NODES),QUARRY_NODES=$(NODES) )ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 ./$(BIN)

$(BIN): $(OBJS)
	$(CC) $(HOST_LDFLAGS) -o $@ $(OBJS)

# Objects are rebuilt when the flags change (another compiler, say).
$(STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(HOST_CFLAGS)' | cmp -s - $@ || echo '$(CC) $(HOST_CFLAGS)' > $@

$(OBJDIR)/%.o: %.c $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -MMD -MP -c -o $@ $<

clean:
	rm -rf $(OUT)

FORCE:

-include $(OBJS:.o=.d)
