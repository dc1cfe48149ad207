# mm/slub/files.mk - SLUB (ALLOC=slub): design header in slub_def.h.
MM_ALLOCS += slub
MM_SRCS_slub := $(sort $(wildcard mm/slub/*.c))
# its own shared self-tests (tests/common/), beside the allocator-neutral ones
TEST_SRCS_OWN_slub := $(wildcard tests/common/test_slub*.c)
MM_DEF_H_slub := mm/slub/slub_def.h
