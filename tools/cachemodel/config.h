/*
 * config.h - the cache model's configuration: the defaults of geometry.h,
 * changed by the plugin's key=value arguments (README.md in this folder).
 */
#ifndef TOOLS_CACHEMODEL_CONFIG_H
#define TOOLS_CACHEMODEL_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Sizes in bytes (caches, pages) or entries (TLBs); latencies in cycles. */
struct cm_config {
	uint64_t l1d, l1i, l2, llc, line;
	unsigned int l1d_ways, l1i_ways, l2_ways, llc_ways;
	uint64_t dtlb, itlb, stlb, tlbpage;
	unsigned int dtlb_ways, itlb_ways, stlb_ways, walk_levels;
	unsigned int lat_l1, lat_l2, lat_llc, lat_mem, lat_walk;
	/* x86_64 rep stos/movs: priced as a fast-string engine runs them, with a
	 * start-up in cycles and a rate in bytes a cycle */
	bool fast_strings;
	unsigned int rep_start, rep_rate;
	bool warm, icache, entries;
	unsigned int funcs;
	const char *syms, *out;
	/* NUMA: nodes of the guest (1: none), its RAM in bytes, the remote distance */
	unsigned int nodes, dist;
	uint64_t ram;
};

#define CM_MAX_NODES	8	/* as `make run NODES=N` allows */
#define CM_MAX_REP_RATE	4096	/* bytes a cycle: more than any core stores */

extern struct cm_config cfg;

/*
 * config_parse_arg - apply one "key=value" argument to cfg. Returns 0, or
 * -1 after printing on stderr a line that names the argument and what is
 * wrong with it (and the list of arguments). Geometry is checked later,
 * when the structures are made.
 */
int config_parse_arg(const char *arg);

/* config_usage - print the list of arguments to f. */
void config_usage(FILE *f);

/*
 * config_check_numa - check nodes=, ram= and dist= together once every
 * argument is in: nodes > 1 needs ram= with at least 8 MiB a node, in whole
 * MiB, and (x86_64, is_x86) below the 3.5 GiB where QEMU's pc machine ends
 * its low memory. Returns 0, or -1 after a "cachemodel: ..." line naming
 * the argument at fault.
 */
int config_check_numa(bool is_x86);

/* log2_exact - n when v is 2^n, else -1. */
int log2_exact(uint64_t v);

/* default_walk_levels - the table levels a walk reads to reach an entry of `page` bytes. */
unsigned int default_walk_levels(uint64_t page);

#endif
