# tools/cachemodel/cachemodel.mk - the cache and TLB model's QEMU plugin, built
# for this machine (included by the Makefile): `make cachemodel` gives
# build/cachemodel/cachemodel.so. It is written against QEMU 7.2's plugin
# interface (version 1, tools/cachemodel/qemu_api.h); a QEMU that does not
# accept that version refuses it at -plugin, and tools/cachemodel/run.sh says so.
CACHEMODEL_SO := build/cachemodel/cachemodel.so
CACHEMODEL_SRCS := $(addprefix tools/cachemodel/,cachemodel.c config.c repstr.c sim.c syms.c)
HOSTCC ?= cc

.PHONY: cachemodel
all: cachemodel
cachemodel: $(CACHEMODEL_SO)

$(CACHEMODEL_SO): $(CACHEMODEL_SRCS) $(wildcard tools/cachemodel/*.h) tools/cachemodel/cachemodel.mk
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  PLUGIN  $@")
	$(Q)$(HOSTCC) -std=gnu11 -O2 -g -fPIC -shared -fvisibility=hidden -Wall -Wextra -Werror \
		-Wno-unused-parameter $(CACHEMODEL_CFLAGS) -o $@.tmp $(CACHEMODEL_SRCS) -lpthread
	@mv -f $@.tmp $@	# a QEMU running the old one keeps its copy

# The modeltest patterns' data counts from the plugin (an x86_64 4K boot)
# against cachegrind's for the same loops on this machine, then SLAB's test 1
# and 2 loops in the kernel against mm/ on the host under callgrind
# -> build/cachemodel/cachegrind.md
.PHONY: cachemodel-cachegrind
cachemodel-cachegrind: cachemodel
	@$(MAKE) --no-print-directory ARCH=x86_64 PAGE_SIZE=4K ALLOC=slab kernel
	@CMDLINE=modeltest tools/cachemodel/run.sh build/x86_64-4k/quarry.elf 120 \
		build/cachemodel/modeltest.report -m 512M -smp 1 -icount shift=0,sleep=off \
		> build/cachemodel/modeltest.console
	@tools/cachemodel/cachegrind.sh build/cachemodel/modeltest.report
	@MODEL_ARGS=entries=on CMDLINE="bench icount quick" tools/cachemodel/run.sh \
		build/x86_64-4k/quarry.elf 600 build/cachemodel/bench.report -m 1G -smp 1 \
		-icount shift=0,sleep=off > build/cachemodel/bench.console
	@tools/cachemodel/cg_alloc.sh build/cachemodel/bench.console build/cachemodel/bench.report

# The seeds' memory claims under the model -> build/cachemodel/seeds.md (tools/cachemodel/seeds.sh)
.PHONY: cachemodel-seeds
cachemodel-seeds: cachemodel
	@tools/cachemodel/seeds.sh
