# mm/files.mk - which sources each build uses; included by the kernel Makefile
# and by tests/host/host.mk so both build the same mm/ code.
#   ALLOC      slab (default); slub and slob come later
#   MM_SRCS    mm/ sources for this ALLOC
#   TEST_SRCS  shared self-tests (run in the kernel and on the host)
ALLOC ?= slab
MM_SRCS_COMMON := mm/memmap.c mm/buddy.c
MM_SRCS_slab := $(sort $(wildcard mm/slab*.c mm/kmalloc*.c))
MM_SRCS := $(MM_SRCS_COMMON) $(MM_SRCS_$(ALLOC))
TEST_SRCS := $(sort $(wildcard tests/common/*.c))
ALLOC_CFLAGS := -DCONFIG_ALLOC_$(shell echo $(ALLOC) | tr a-z A-Z)
