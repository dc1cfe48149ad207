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
	bool warm, icache, entries;
	unsigned int funcs;
	const char *syms, *out;
};

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

/* log2_exact - n when v is 2^n, else -1. */
int log2_exact(uint64_t v);

/* default_walk_levels - the table levels a walk reads to reach an entry of `page` bytes. */
unsigned int default_walk_levels(uint64_t page);

#endif
