# mm/files.mk - which sources each build uses; included by the kernel Makefile
# and by tests/host/host.mk so both build the same mm/ code.
#   ALLOC      slab (default), slub, slob (sequential fit), slob-seg (segregated
#              free lists); none (MM_ONLY=1: the page allocator alone)
#   MM_SRCS    mm/ sources for this ALLOC
#   TEST_SRCS  shared self-tests (run in the kernel and on the host): the
#              page allocator's, the allocator-neutral ones (kmalloc, the
#              kmem_cache API: test_cache*.c, of which test_cache_debug.c and
#              test_cache_slabinfo.c hold SLAB's and SLUB's shared checks and
#              build empty for the SLOBs) for any object allocator, and the chosen
#              allocator's own (tests/common/test_slab*.c, test_slub*.c; both
#              SLOBs: test_slob.c and test_slob_debug.c, then slob: test_slob_fit.c,
#              slob-seg: test_slob_seg.c)
ALLOC ?= slab
# Each object allocator's folder registers itself in its files.mk: its names in
# MM_ALLOCS, its sources in MM_SRCS_<name>, its internal header (the fast paths
# and struct kmem_cache, mm/slab_impl.h includes it) in MM_DEF_H_<name>. A new
# allocator is a new folder with a files.mk; nothing here changes.
MM_ALLOCS :=
include $(sort $(wildcard mm/*/files.mk))
ifeq ($(filter $(MM_ALLOCS) none,$(ALLOC)),)
$(error ALLOC must be one of $(MM_ALLOCS), not '$(ALLOC)')
endif
# The page allocator (mm/page_alloc/), and what every object allocator shares:
# kmalloc and its size classes, the cache registry and API checks, fault
# injection, the debug-info section, the misuse checks and reports
# (red zones, poison, bad pointers: mm/slab_debug.c).
MM_SRCS_COMMON := mm/debug_info.c mm/fault_inject.c $(MM_SRCS_page_alloc)
MM_SRCS_SHARED := mm/kmalloc.c mm/slab_common.c mm/slab_debug.c mm/slab_merge.c mm/slab_report.c
MM_SRCS := $(MM_SRCS_COMMON) $(if $(filter none,$(ALLOC)),,$(MM_SRCS_SHARED) $(MM_SRCS_$(ALLOC)))
# What mm/ calls in kernel/ (printk, panic, the NUMA topology), for the
# builds that link mm/ outside the kernel (host tests, replay, fuzzer, host
# benchmarks); the kernel links all of kernel/ itself.
MM_HOST_KERNEL_SRCS := kernel/printk.c kernel/panic.c kernel/numa.c
TEST_SRCS_ALLOC := tests/common/test_kmalloc.c $(wildcard tests/common/test_cache*.c)
TEST_SRCS := tests/common/test_buddy.c $(if $(filter none,$(ALLOC)),,$(sort $(TEST_SRCS_ALLOC) \
	$(TEST_SRCS_OWN_$(ALLOC))))
# The allocator as a macro name: CONFIG_ALLOC_SLAB, _SLUB, _SLOB, _SLOB_SEG ('-' is no
# identifier character), _NONE.
ALLOC_CFLAGS := -DCONFIG_ALLOC_$(shell echo $(ALLOC) | tr a-z- A-Z_) \
	$(if $(MM_DEF_H_$(ALLOC)),-DMM_ALLOC_DEF_H='"$(MM_DEF_H_$(ALLOC))"')

# Build options of mm/ (the same for the kernel and the host build):
#   SLAB_DEBUG=1        red zones, poison, double-free and bad-pointer checks in
#                       every cache; costs a fill and a check per alloc and free
#                       (SLAB and SLUB; SLUB's debug caches take the node lock)
#   SLAB_STATS=1        count events in each cache's stats (one add per event)
#   SLAB_FREELIST_RANDOM=1  SLAB hardening: each new slab's free-index stack in
#                       random order; costs a shuffle (a random number per
#                       object) per slab made, nothing per alloc or free
#   SLAB_FREELIST_HARDENED=1  SLUB hardening: every free pointer stored in an
#                       object is XORed with its own address too (every build
#                       XORs it with a per-cache key, for the double-free
#                       check: mm/slub/slub_def.h); costs an XOR more per
#                       fast-path alloc and free
#   SLAB_IDX=4          SLAB benchmark variant: force 4-byte freelist indexes (seed 000's "before")
#   SLAB_GROW_LOCKED=1  SLAB benchmark variant: refill from a new slab under the node
#                       lock, after publishing it (seed 001's "before")
#   SLAB_NODE_PER_CPU=1 SLAB variant: a node (slab lists, shared array, lock) per
#                       CPU instead of per memory node, no alien caches, and
#                       kmem_cache_alloc_node not placing objects by node; costs
#                       a node per CPU in use per cache, and on machines of
#                       several nodes slabs of whichever node the page allocator
#                       gives and remote frees under the remote node's lock
#   SLUB_SHEAVES=0      SLUB without per-CPU sheaves (seed 002's classic lockless
#                       paths; default 1: sheaves, mm/slub/slub_sheaf.c). Sheaves cost
#                       interrupts off around each fast-path pop/push, up to two
#                       512-byte sheaves per CPU per cache in use and up to 20 per
#                       cache in its barn, and the objects they hold (a barn's
#                       full sheaves at most 512 KiB of them)
MM_CONFIG_CFLAGS := $(if $(SLAB_DEBUG),-DCONFIG_SLAB_DEBUG=1) \
	$(if $(SLAB_STATS),-DCONFIG_SLAB_STATS=1) \
	$(if $(SLAB_FREELIST_RANDOM),-DCONFIG_SLAB_FREELIST_RANDOM=1) \
	$(if $(SLAB_FREELIST_HARDENED),-DCONFIG_SLAB_FREELIST_HARDENED=1) \
	$(if $(SLAB_IDX),-DCONFIG_SLAB_IDX_BYTES=$(SLAB_IDX)) \
	$(if $(SLAB_GROW_LOCKED),-DCONFIG_SLAB_GROW_LOCKED=1) \
	$(if $(SLAB_NODE_PER_CPU),-DCONFIG_SLAB_NODE_PER_CPU=1) \
	$(if $(filter 0,$(SLUB_SHEAVES)),-DCONFIG_SLUB_SHEAVES=0)
# NR_CPUS: the most CPUs the kernel starts and the host tests act as; per-CPU
# arrays of mm/ (a cache's array and node pointers, the page allocator's
# per-CPU lists) and of the kernel (per-CPU areas, GDT/TSS) are sized by it.
# 1 to 64 (kernel/smp.c keeps the online CPUs in one 64-bit mask); a build
# other than the default 8 goes to a directory with the suffix -cpusN.
NR_CPUS ?= 8
ifeq ($(shell echo '$(NR_CPUS)' | grep -Ex '[1-9][0-9]?'),)
$(error NR_CPUS must be a CPU count from 1 to 64 (default 8), not '$(NR_CPUS)')
endif
ifeq ($(shell [ $(NR_CPUS) -le 64 ] && echo ok),)
$(error NR_CPUS=$(NR_CPUS) is out of range: Quarry starts at most 64 CPUs (one bit each in a 64-bit mask))
endif
MM_CONFIG_CFLAGS += -DNR_CPUS=$(NR_CPUS)
# Variant builds get their own output directory suffix.
MM_VARIANT := $(if $(SLAB_DEBUG),-debug)$(if $(SLAB_FREELIST_RANDOM),-random)$(if $(SLAB_FREELIST_HARDENED),-hardened)$(if $(SLAB_IDX),-idx$(SLAB_IDX))$(if $(SLAB_GROW_LOCKED),-growlocked)$(if $(SLAB_NODE_PER_CPU),-nodepercpu)$(if $(filter 0,$(SLUB_SHEAVES)),-nosheaves)$(if $(SLAB_STATS),-stats)$(if $(filter-out 8,$(NR_CPUS)),-cpus$(NR_CPUS))
