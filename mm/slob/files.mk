# mm/slob/files.mk - SLOB in seed 004's two forms, sharing everything but the
# heap: ALLOC=slob (sequential fit, slob_fit.c) and ALLOC=slob-seg (segregated
# free lists, slob_seg*.c). Design header in slob_def.h.
MM_ALLOCS += slob slob-seg
MM_SRCS_slob := $(sort $(filter-out mm/slob/slob_seg%.c,$(wildcard mm/slob/*.c)))
MM_SRCS_slob-seg := $(sort $(filter-out mm/slob/slob_fit%.c,$(wildcard mm/slob/*.c)))
# its own shared self-tests (tests/common/), beside the allocator-neutral ones
TEST_SRCS_OWN_slob := $(wildcard tests/common/test_slob.c tests/common/test_slob_debug.c \
	tests/common/test_slob_fit*.c)
TEST_SRCS_OWN_slob-seg := $(wildcard tests/common/test_slob.c tests/common/test_slob_debug.c \
	tests/common/test_slob_seg*.c)
MM_DEF_H_slob := mm/slob/slob_def.h
MM_DEF_H_slob-seg := mm/slob/slob_def.h
