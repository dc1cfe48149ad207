/* config.c - the cache model's arguments (config.h). */
#include "config.h"
#include "geometry.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct cm_config cfg = {
	.l1d = CM_L1D_SIZE, .l1d_ways = CM_L1D_WAYS, .l1i = CM_L1I_SIZE, .l1i_ways = CM_L1I_WAYS,
	.l2 = CM_L2_SIZE, .l2_ways = CM_L2_WAYS, .llc = CM_LLC_SIZE, .llc_ways = CM_LLC_WAYS,
	.line = CM_LINE,
	.dtlb = CM_DTLB_ENTRIES, .dtlb_ways = CM_DTLB_WAYS, .itlb = CM_ITLB_ENTRIES,
	.itlb_ways = CM_ITLB_WAYS, .stlb = CM_STLB_ENTRIES, .stlb_ways = CM_STLB_WAYS,
	.tlbpage = 4096,
	.lat_l1 = CM_LAT_L1, .lat_l2 = CM_LAT_L2, .lat_llc = CM_LAT_LLC, .lat_mem = CM_LAT_MEM,
	.lat_walk = CM_LAT_WALK,
	.fast_strings = true, .rep_start = CM_REP_START, .rep_rate = CM_REP_RATE,
	.warm = true, .icache = true, .funcs = 20,
	.nodes = 1, .dist = 20,
};

void config_usage(FILE *f)
{
	fprintf(f,
		"cachemodel: arguments (-plugin cachemodel.so,key=value,...):\n"
		"  l1d=SIZE:WAYS l1i=SIZE:WAYS l2=SIZE:WAYS llc=SIZE:WAYS line=BYTES  caches\n"
		"  dtlb=ENTRIES:WAYS itlb=ENTRIES:WAYS stlb=ENTRIES:WAYS  TLBs\n"
		"  tlbpage=SIZE (4K, 16K, 64K, 2M, 32M, 512M, 1G) walk_levels=N  translation\n"
		"  lat_l1= lat_l2= lat_llc= lat_mem= lat_walk=  cycles for modelled cycles\n"
		"  fast_strings=on|off rep_start=CYCLES rep_rate=BYTES (1-4096 a cycle)\n"
		"      x86_64 rep stos/movs: a run costs rep_start + bytes / rep_rate cycles\n"
		"  warm=on|off (simulate outside regions) icache=on|off funcs=N (per region)\n"
		"  entries=on|off (a line for every pass through a region, in order)\n"
		"  syms=FILE (nm output: per-function lines) out=FILE (report; default stderr)\n"
		"  nodes=N (1-8) ram=SIZE (the guest's -m) dist=D (11-255, remote distance)\n"
		"      NUMA: RAM split evenly, vCPU c on node c*N/vCPUs (scripts/numa-flags.sh)\n");
}

/* parse_size - "32K", "1M", "64" -> bytes; false on anything else. */
static bool parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || v == 0)
		return false;
	switch (*end) {
	case 'K': case 'k': v <<= 10; end++; break;
	case 'M': case 'm': v <<= 20; end++; break;
	case 'G': case 'g': v <<= 30; end++; break;
	}
	if (*end)
		return false;
	*out = v;
	return true;
}

static bool parse_uint(const char *s, unsigned int *out)
{
	uint64_t v;

	if (!strcmp(s, "0")) {
		*out = 0;
		return true;
	}
	if (!parse_size(s, &v) || v > 1000000000u || strpbrk(s, "KkMmGg"))
		return false;
	*out = (unsigned int)v;
	return true;
}

/* parse_pair - "SIZE:WAYS" */
static bool parse_pair(const char *s, uint64_t *size, unsigned int *ways)
{
	char buf[64], *colon;

	if (strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (!colon)
		return false;
	*colon = 0;
	return parse_size(buf, size) && parse_uint(colon + 1, ways) && *ways > 0;
}

static bool parse_bool(const char *s, bool *out)
{
	if (!strcmp(s, "on") || !strcmp(s, "1") || !strcmp(s, "yes"))
		*out = true;
	else if (!strcmp(s, "off") || !strcmp(s, "0") || !strcmp(s, "no"))
		*out = false;
	else
		return false;
	return true;
}

int log2_exact(uint64_t v)
{
	int n = 0;

	if (!v || (v & (v - 1)))
		return -1;
	while ((1ull << n) != v)
		n++;
	return n;
}

int config_parse_arg(const char *arg)
{
	const char *eq = strchr(arg, '=');
	char key[32];
	const char *val;
	bool ok;

	if (!eq || (size_t)(eq - arg) >= sizeof(key)) {
		fprintf(stderr, "cachemodel: argument '%s' is not key=value\n", arg);
		return -1;
	}
	memcpy(key, arg, eq - arg);
	key[eq - arg] = 0;
	val = eq + 1;
	if (!strcmp(key, "l1d"))
		ok = parse_pair(val, &cfg.l1d, &cfg.l1d_ways);
	else if (!strcmp(key, "l1i"))
		ok = parse_pair(val, &cfg.l1i, &cfg.l1i_ways);
	else if (!strcmp(key, "l2"))
		ok = parse_pair(val, &cfg.l2, &cfg.l2_ways);
	else if (!strcmp(key, "llc"))
		ok = parse_pair(val, &cfg.llc, &cfg.llc_ways);
	else if (!strcmp(key, "line"))
		ok = parse_size(val, &cfg.line);
	else if (!strcmp(key, "dtlb"))
		ok = parse_pair(val, &cfg.dtlb, &cfg.dtlb_ways);
	else if (!strcmp(key, "itlb"))
		ok = parse_pair(val, &cfg.itlb, &cfg.itlb_ways);
	else if (!strcmp(key, "stlb"))
		ok = parse_pair(val, &cfg.stlb, &cfg.stlb_ways);
	else if (!strcmp(key, "tlbpage"))
		ok = parse_size(val, &cfg.tlbpage);
	else if (!strcmp(key, "walk_levels"))
		ok = parse_uint(val, &cfg.walk_levels) && cfg.walk_levels >= 1 &&
		     cfg.walk_levels <= 5;
	else if (!strcmp(key, "lat_l1"))
		ok = parse_uint(val, &cfg.lat_l1);
	else if (!strcmp(key, "lat_l2"))
		ok = parse_uint(val, &cfg.lat_l2);
	else if (!strcmp(key, "lat_llc"))
		ok = parse_uint(val, &cfg.lat_llc);
	else if (!strcmp(key, "lat_mem"))
		ok = parse_uint(val, &cfg.lat_mem);
	else if (!strcmp(key, "lat_walk"))
		ok = parse_uint(val, &cfg.lat_walk);
	else if (!strcmp(key, "fast_strings"))
		ok = parse_bool(val, &cfg.fast_strings);
	else if (!strcmp(key, "rep_start"))
		ok = parse_uint(val, &cfg.rep_start);
	else if (!strcmp(key, "rep_rate"))
		ok = parse_uint(val, &cfg.rep_rate) && cfg.rep_rate >= 1 &&
		     cfg.rep_rate <= CM_MAX_REP_RATE;
	else if (!strcmp(key, "warm"))
		ok = parse_bool(val, &cfg.warm);
	else if (!strcmp(key, "icache"))
		ok = parse_bool(val, &cfg.icache);
	else if (!strcmp(key, "entries"))
		ok = parse_bool(val, &cfg.entries);
	else if (!strcmp(key, "funcs"))
		ok = parse_uint(val, &cfg.funcs);
	else if (!strcmp(key, "nodes"))
		ok = parse_uint(val, &cfg.nodes) && cfg.nodes >= 1 && cfg.nodes <= CM_MAX_NODES;
	else if (!strcmp(key, "ram"))
		ok = parse_size(val, &cfg.ram);
	else if (!strcmp(key, "dist"))
		ok = parse_uint(val, &cfg.dist) && cfg.dist > 10 && cfg.dist <= 255;
	else if (!strcmp(key, "syms"))
		ok = *(cfg.syms = val) != 0;
	else if (!strcmp(key, "out"))
		ok = *(cfg.out = val) != 0;
	else {
		fprintf(stderr, "cachemodel: unknown argument '%s'\n", arg);
		config_usage(stderr);
		return -1;
	}
	if (!ok) {
		fprintf(stderr, "cachemodel: bad value in '%s'\n", arg);
		config_usage(stderr);
		return -1;
	}
	return 0;
}

int config_check_numa(bool is_x86)
{
	if (cfg.nodes == 1)
		return 0;
	if (!cfg.ram) {
		fprintf(stderr, "cachemodel: nodes=%u needs ram=SIZE, the guest's memory (-m)\n",
			cfg.nodes);
		return -1;
	}
	if (cfg.ram % (1u << 20) || cfg.ram < (uint64_t)cfg.nodes * (8u << 20)) {
		fprintf(stderr, "cachemodel: ram=%" PRIu64 " must be whole MiB, at least 8M for each"
			" of nodes=%u\n", cfg.ram, cfg.nodes);
		return -1;
	}
	if (is_x86 && cfg.ram >= 0xe0000000ull) {
		fprintf(stderr, "cachemodel: ram=%" PRIu64 " with nodes=%u: x86_64's node map is"
			" modelled below 3584M only (QEMU pc's low memory)\n", cfg.ram, cfg.nodes);
		return -1;
	}
	return 0;
}

unsigned int default_walk_levels(uint64_t page)
{
	switch (page) {
	case 4096: case 16384: return 4;
	case 65536: case 2u << 20: case 32u << 20: return 3;
	default: return 2;	/* 512M, 1G blocks */
	}
}
