# mm/slab/files.mk - SLAB (ALLOC=slab): design header in slab_def.h.
MM_ALLOCS += slab
MM_SRCS_slab := $(sort $(wildcard mm/slab/*.c))
# its own shared self-tests (tests/common/), beside the allocator-neutral ones
TEST_SRCS_OWN_slab := $(wildcard tests/common/test_slab*.c)
MM_DEF_H_slab := mm/slab/slab_def.h
