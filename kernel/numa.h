/*
 * numa.h - the machine's NUMA topology: which memory ranges and which CPUs
 * belong to which node, and how far apart the nodes are.
 *
 * Two records. struct numa_firmware is what the firmware said, unchecked:
 * boot/acpi.c fills one from the SRAT and SLIT, boot/dtb.c from the
 * device tree's numa-node-id properties and /distance-map. struct
 * numa_topology is what the kernel uses: kernel/numa.c builds it from a
 * firmware record, the RAM ranges and the CPUs Quarry numbered, after
 * checking every rule below; a record that breaks one gets one "numa: ..."
 * line and the kernel runs on a single node 0 holding all RAM and CPUs.
 *
 * Distances follow the usual convention: 10 from a node to itself, more
 * (20 by default) to another node.
 */
#ifndef QUARRY_NUMA_H
#define QUARRY_NUMA_H

#include "kernel/compiler.h"
#include "mm/mm.h"

#define MAX_NUMNODES		8
#define NUMA_NO_NODE		0xffffffffU	/* firmware gave no node */
#define NUMA_MAX_RANGES		64		/* memory ranges, all nodes together */
#define NUMA_MAX_CPUS		128		/* CPUs with an affinity entry */
#define NUMA_LOCAL_DISTANCE	10
#define NUMA_REMOTE_DISTANCE	20

/* One memory range as the firmware gave it: [start, end) on node. */
struct numa_fw_mem {
	uint64_t start, end;
	uint32_t node;			/* NUMA_NO_NODE: the range named none */
};

/* One processor's affinity: its hardware ID (APIC ID, MPIDR) and node. */
struct numa_fw_cpu {
	uint64_t hwid;
	uint32_t node;
};

struct numa_firmware {
	bool present;			/* the firmware described a topology at all */
	bool bad;			/* its tables were malformed (said when found) */
	const char *source;		/* "SRAT" or "device tree", for messages */
	const char *dist_source;	/* "SLIT" or "distance-map" */
	const char *hwid_name;		/* "APIC" or "MPIDR" */
	unsigned int n_mem;
	unsigned int n_mem_dropped;	/* ranges beyond NUMA_MAX_RANGES */
	struct numa_fw_mem mem[NUMA_MAX_RANGES];
	unsigned int n_cpu;
	unsigned int n_cpu_dropped;	/* entries beyond NUMA_MAX_CPUS */
	struct numa_fw_cpu cpu[NUMA_MAX_CPUS];
	bool has_distance;		/* a SLIT or distance-map was found */
	unsigned int dist_nodes;	/* SLIT: its locality count; DT: highest node + 1 */
	uint32_t bad_dist_node;		/* a node >= MAX_NUMNODES in the distances, or NUMA_NO_NODE */
	uint32_t distance[MAX_NUMNODES][MAX_NUMNODES];	/* 0: not given */
};

/* One range of a node in the checked topology. */
struct numa_range {
	uint64_t start, end;		/* [start, end) */
	unsigned int node;
};

struct numa_topology {
	bool fallback;			/* the firmware's record was refused (said) */
	const char *source;		/* where it came from, for the boot log */
	const char *dist_source;	/* where the distances came from, or NULL */
	unsigned int nr_nodes;		/* nodes online */
	uint8_t online;			/* bit n: node n has memory or a CPU */
	unsigned int n_ranges;
	struct numa_range ranges[NUMA_MAX_RANGES];
	unsigned int n_cpus;
	uint8_t cpu_node[NUMA_MAX_CPUS];
	uint8_t distance[MAX_NUMNODES][MAX_NUMNODES];
};

/*
 * numa_build - check fw against the machine and fill *t. ram[0..n_ram) is
 * usable RAM; cpu_hwid[0..n_cpus) the hardware ID of each CPU Quarry
 * numbered (n_cpus at most NUMA_MAX_CPUS; more are on node 0 in the
 * fallback only). fw may be NULL or not present: then one node, no
 * message. Rules: every node below MAX_NUMNODES; every range non-empty,
 * overlapping some RAM and no other range; all RAM covered by ranges;
 * every CPU on a node; some node with memory; distances, when given, for
 * every pair of online nodes, 10 to itself, above 10 to another, the same
 * both ways. The first rule broken is printed as "numa: ...: using one
 * node" and *t becomes node 0 with all RAM and CPUs. Returns 0 when fw's
 * topology (or the single node of no topology) is used, -1 on a fallback.
 */
int numa_build(struct numa_topology *t, const struct numa_firmware *fw,
	       const struct mem_range *ram, unsigned int n_ram, const uint64_t *cpu_hwid,
	       unsigned int n_cpus);

/* numa_print - the boot log's lines for t: each node's ranges and CPUs, the distances. */
void numa_print(const struct numa_topology *t);

/*
 * numa_init - numa_build into the kernel's topology, then numa_print it.
 * Call once, after memory discovery and once CPUs are numbered; the
 * accessors below report one node (node 0, everything on it) before.
 */
void numa_init(const struct numa_firmware *fw, const struct mem_range *ram,
	       unsigned int n_ram, const uint64_t *cpu_hwid, unsigned int n_cpus);

/*
 * numa_generation - how many times numa_init has set the topology (0
 * before the first): a subsystem that keeps what it derived from the
 * topology compares this one word to the value it derived it at, rather
 * than the topology itself. Written only by numa_init.
 */
extern unsigned int numa_generation;

/* numa_topology - the kernel's topology (valid after numa_init). */
const struct numa_topology *numa_topology(void);

/* numa_num_nodes - how many nodes are online (at least 1). */
unsigned int numa_num_nodes(void);

/* numa_node_online - true when node (any value) is an online node. */
bool numa_node_online(unsigned int node);

/* cpu_to_node - the node of CPU cpu; 0 for a CPU the topology does not know. */
unsigned int cpu_to_node(unsigned int cpu);

/*
 * node_distance - the distance from node a to node b; 10 for a == b, and
 * 20 when either is not an online node.
 */
unsigned int node_distance(unsigned int a, unsigned int b);

/*
 * numa_node_range - the i-th memory range of node (in address order) in
 * *r; false when node has fewer than i + 1 ranges.
 */
bool numa_node_range(unsigned int node, unsigned int i, struct mem_range *r);

#endif
