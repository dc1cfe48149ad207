/*
 * dtb.h - what the arm64 arch code needs from the flattened device tree
 * (FDT, "DTB") beyond struct boot_info. boot/dtb.c fills dt_platform in
 * platform_discover() (kernel/bootinfo.h): on QEMU `virt` the entry code
 * passes magic = the DTB's first word read big-endian (0xd00dfeed) and
 * info = the DTB's physical address.
 *
 * Addresses are taken from "reg" as they are: no "ranges" translation, which
 * is right for devices that are children of the root (all of them on `virt`).
 */
#ifndef QUARRY_DTB_H
#define QUARRY_DTB_H

#include "kernel/compiler.h"
#include "kernel/numa.h"

#define DTB_MAGIC	0xd00dfeed
#define DT_MAX_CPUS	128

enum dt_psci_method {
	DT_PSCI_NONE,	/* no /psci node, or a method other than these two */
	DT_PSCI_HVC,
	DT_PSCI_SMC,
};

struct dt_platform {
	uint64_t dtb_phys;		/* the blob: [dtb_phys, dtb_phys + dtb_size) */
	uint64_t dtb_size;		/* the header's totalsize */
	uint64_t uart_base;		/* first available "arm,pl011": reg address, or 0 */
	unsigned int gic_version;	/* 3 ("arm,gic-v3"), 2 ("arm,cortex-a15-gic",
					 * "arm,gic-400"), 0 if none */
	uint64_t gicd_base, gicd_size;	/* distributor: reg entry 0 */
	uint64_t gicr_base, gicr_size;	/* v3: first redistributor region, reg entry 1 */
	uint64_t gicc_base, gicc_size;	/* v2: CPU interface, reg entry 1 */
	enum dt_psci_method psci_method;	/* /psci "method", compatible "arm,psci*" */
	unsigned int timer_phys_intid;	/* non-secure physical timer PPI INTID (default 30) */
	unsigned int timer_virt_intid;	/* virtual timer PPI INTID (default 27) */
	unsigned int n_cpus;		/* entries of cpu_mpidr[] in use */
	unsigned int n_cpus_dropped;	/* cpu nodes beyond DT_MAX_CPUS, not kept */
	uint64_t cpu_mpidr[DT_MAX_CPUS];	/* /cpus/cpu@* "reg" (MPIDR affinity), DTB order */
	/* numa-node-id of the CPUs (by MPIDR) and memory nodes, /distance-map's
	 * distance-matrix (compatible "numa-distance-map-v1"); present is false
	 * when the tree has neither. */
	struct numa_firmware numa;
};

/* Valid once platform_discover() has returned 0 for a DTB boot. */
extern struct dt_platform dt_platform;

#endif
