# tests/fuzz/fuzz.mk - build the allocator fuzzer (tests/fuzz/fuzz.h) for the host.
#
#   make -f tests/fuzz/fuzz.mk [PAGE_SHIFT=12|16] [ALLOC=slab|slub|slob|slob-seg] [SLAB_DEBUG=1]
#        quarry-fuzz under ASan+UBSan (gcc), in build/fuzz-<page>/
#   make -f tests/fuzz/fuzz.mk ... libfuzzer
#        quarry-libfuzzer: clang -fsanitize=fuzzer,address,undefined with
#        source-based coverage (-fprofile-instr-generate -fcoverage-mapping),
#        the same interpreter fed by libFuzzer's input bytes (tests/fuzz/fuzz_libfuzzer.c)
#
# mm/ is built from the same sources and options as the host unit tests
# (mm/files.mk), with the harness's arch shim (tests/host/shim.c). Run from
# the top of the tree; tests/fuzz/run.sh and tests/fuzz/cov.sh use it.

PAGE_SHIFT ?= 12
include mm/files.mk

ifeq ($(PAGE_SHIFT),12)
PAGE_TAG := 4k
else ifeq ($(PAGE_SHIFT),14)
PAGE_TAG := 16k
else ifeq ($(PAGE_SHIFT),16)
PAGE_TAG := 64k
else
$(error PAGE_SHIFT must be 12, 14 or 16, not '$(PAGE_SHIFT)')
endif
ifeq ($(ALLOC),none)
$(error the fuzzer needs an object allocator: ALLOC=slab, slub, slob or slob-seg)
endif

OUT := build/fuzz-$(PAGE_TAG)
NAME := $(ALLOC)$(MM_VARIANT)
SRCS := $(MM_SRCS) $(MM_HOST_KERNEL_SRCS) tests/host/shim.c \
	tests/fuzz/fuzz.c tests/fuzz/fuzz_check.c tests/fuzz/fuzz_null.c
COMMON_CFLAGS := -DQUARRY_HOST -DPAGE_SHIFT=$(PAGE_SHIFT) $(ALLOC_CFLAGS) $(MM_CONFIG_CFLAGS) \
	-I. -Itests/host/include -include tests/host/include/host_prelude.h \
	-g -fno-omit-frame-pointer -Wall -Wextra -Werror

# The fuzzer proper: gcc, as the host unit tests.
CFLAGS_GCC := $(COMMON_CFLAGS) -O1 -fsanitize=address,undefined -fno-sanitize-recover=all
BIN := $(OUT)/quarry-fuzz-$(NAME)
OBJDIR := $(OUT)/obj-$(NAME)
OBJS := $(patsubst %.c,$(OBJDIR)/%.o,$(SRCS) tests/fuzz/fuzz_main.c)

# libFuzzer: clang, coverage of everything, mm/ included.
CLANG ?= clang
CFLAGS_LF := $(COMMON_CFLAGS) -O1 -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined -fprofile-instr-generate -fcoverage-mapping
LF_BIN := $(OUT)/quarry-libfuzzer-$(NAME)
LF_OBJDIR := $(OUT)/lfobj-$(NAME)
LF_OBJS := $(patsubst %.c,$(LF_OBJDIR)/%.o,$(SRCS) tests/fuzz/fuzz_libfuzzer.c)

.PHONY: all libfuzzer print-bin print-lf-bin
all: $(BIN)
libfuzzer: $(LF_BIN)
print-bin:
	@echo $(BIN)
print-lf-bin:
	@echo $(LF_BIN)

$(BIN): $(OBJS)
	$(CC) -fsanitize=address,undefined -pthread -o $@ $(OBJS)

$(LF_BIN): $(LF_OBJS)
	$(CLANG) -fsanitize=fuzzer,address,undefined -fprofile-instr-generate -pthread -o $@ $(LF_OBJS)

# Objects are rebuilt when the flags change.
$(OBJDIR)/cflags $(LF_OBJDIR)/cflags: FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(CFLAGS_GCC) $(CLANG) $(CFLAGS_LF)' | cmp -s - $@ || \
		echo '$(CC) $(CFLAGS_GCC) $(CLANG) $(CFLAGS_LF)' > $@

$(OBJDIR)/%.o: %.c $(OBJDIR)/cflags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_GCC) -MMD -MP -c -o $@ $<

# The pattern and shadow loops (most of the fuzzer's time) touch only the
# arena, which ASan does not track: optimised and not instrumented.
$(OBJDIR)/tests/fuzz/fuzz_check.o: tests/fuzz/fuzz_check.c $(OBJDIR)/cflags
	@mkdir -p $(@D)
	$(CC) $(COMMON_CFLAGS) -O2 -MMD -MP -c -o $@ $<

$(LF_OBJDIR)/%.o: %.c $(LF_OBJDIR)/cflags
	@mkdir -p $(@D)
	$(CLANG) $(CFLAGS_LF) -MMD -MP -c -o $@ $<

FORCE:

-include $(OBJS:.o=.d) $(LF_OBJS:.o=.d)
