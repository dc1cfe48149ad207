# tools/coherence/coherence.mk - the cache-line ownership model (a QEMU plugin
# for qemu-user), included by the Makefile:
#   make coherence          build/coherence/coherence.so
#   make coherence-report   the host workloads in lock step under it, every
#                           allocator -> build/coherence/report.md (run.sh)
COHERENCE_SO := build/coherence/coherence.so
HOSTCC ?= cc

.PHONY: coherence coherence-report
coherence: $(COHERENCE_SO)

$(COHERENCE_SO): tools/coherence/coherence.c tools/cachemodel/qemu_api.h tools/coherence/coherence.mk
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  PLUGIN  $@")
	$(Q)$(HOSTCC) -std=gnu11 -O2 -g -fPIC -shared -fvisibility=hidden -Wall -Wextra -Werror \
		-Wno-unused-parameter -o $@.tmp tools/coherence/coherence.c -lpthread
	@mv -f $@.tmp $@

coherence-report: coherence
	@$(MAKE) --no-print-directory -f lab/bench/host/bench-host.mk bench-host-build NR_CPUS=16
	@tools/coherence/run.sh
