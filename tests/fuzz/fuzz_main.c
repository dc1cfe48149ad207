/*
 * fuzz_main.c - the fuzzer's command line (tests/fuzz/fuzz.h):
 *
 *   quarry-fuzz [--seed S] [--cpus N] [--threads] [--ops N] [--seconds T]
 *               [--round N] [--arena MB] [--nodes N] [--plant 1|2|3]
 *
 * runs one operation sequence (stopping at whichever limit comes first;
 * neither given: 100000 operations) and prints one line on stderr:
 *   fuzz-run: ALLOC PAGE_SIZE seed S, MODE, N CPUs: N operations, M findings, ...
 * Exit status 0, 1 after a finding (printed before with the command that
 * reproduces it; an allocator's panic too, with the operation it ended in:
 * fuzz_died), 2 on bad arguments. The kernel console (printk) goes to
 * stdout. --plant N breaks the fuzzer's own books once, halfway (1: a
 * byte of a live allocation flipped, 2: one booked twice, 3: one
 * forgotten), to show that the checks find it: the run must end with a
 * finding. Fault injection: QUARRY_FAIL_PAGE_ALLOC and QUARRY_FAILSLAB hold
 * "interval,probability,times,seed" (mm/fault_inject.h). --nodes N (1 to
 * 8; default QUARRY_NODES, else 1): the arena split into N NUMA nodes as
 * make run NODES=N splits QEMU's RAM, the fuzzer's CPU c on node
 * c * N / cpus (tests/host/shim.c, host_numa_setup).
 */
#include "tests/fuzz/fuzz.h"
#include "mm/fault_inject.h"
#include "mm/page.h"
#include "kernel/numa.h"
#include "host_shim.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(CONFIG_ALLOC_SLUB)
#define ALLOC_NAME "slub"
#elif defined(CONFIG_ALLOC_SLOB)
#define ALLOC_NAME "slob"
#elif defined(CONFIG_ALLOC_SLOB_SEG)
#define ALLOC_NAME "slob-seg"
#else
#define ALLOC_NAME "slab"
#endif

extern const char *fz_argv0;
extern char fz_repro_extra[48];

static void usage(void)
{
	fprintf(stderr, "usage: quarry-fuzz [--seed S] [--cpus 1-8] [--threads] [--ops N] "
			"[--seconds T] [--round N] [--arena MB] [--nodes 1-8] [--plant 1-3]\n");
	exit(2);
}

static unsigned long num(const char *opt, const char *s)
{
	char *end;
	unsigned long v = strtoul(s ? s : "", &end, 0);

	if (!s || !*s || *end) {
		fprintf(stderr, "quarry-fuzz: %s needs a number, not '%s'\n", opt, s ? s : "");
		exit(2);
	}
	return v;
}

/* nodes_arg - --nodes' value, 1 to MAX_NUMNODES; anything else exits with the reason. */
static unsigned int nodes_arg(const char *s)
{
	char msg[128];
	unsigned int n = host_nodes_parse(s ? s : "", "--nodes", msg, sizeof(msg));

	if (!n) {
		fprintf(stderr, "quarry-fuzz: %s\n", msg);
		exit(2);
	}
	return n;
}

/* Switch a failure point on from its environment variable, if set. */
static void fault_from_env(struct fault_attr *attr, const char *var)
{
	const char *spec = getenv(var);

	if (spec && *spec && fault_attr_parse(attr, spec) != 0) {
		fprintf(stderr, "quarry-fuzz: %s='%s' is not interval,probability,times,seed\n",
			var, spec);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct fuzz_config cfg = { .seed = 1, .cpus = 4, .ops_per_round = 2000 }; /* as in usage */
	struct fuzz_result res;
	unsigned long arena_mb = 256;
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--threads")) {
			cfg.threads = true;
			continue;
		}
		if (!strcmp(a, "--seed"))
			cfg.seed = num(a, v);
		else if (!strcmp(a, "--cpus"))
			cfg.cpus = (unsigned int)num(a, v);
		else if (!strcmp(a, "--ops"))
			cfg.max_ops = num(a, v);
		else if (!strcmp(a, "--seconds"))
			cfg.seconds = (double)num(a, v);
		else if (!strcmp(a, "--round"))
			cfg.ops_per_round = num(a, v);
		else if (!strcmp(a, "--plant"))
			cfg.plant = (unsigned int)num(a, v);
		else if (!strcmp(a, "--arena"))
			arena_mb = num(a, v);
		else if (!strcmp(a, "--nodes"))
			host_nodes = nodes_arg(v);
		else
			usage();
		i++;
	}
	if (cfg.cpus < 1 || cfg.cpus > 8 || arena_mb < 16 || !cfg.ops_per_round) {
		fprintf(stderr,
			"quarry-fuzz: --cpus is 1..8, --arena at least 16, --round at least 1\n");
		exit(2);
	}
	if (!cfg.max_ops && !cfg.seconds)
		cfg.max_ops = 100000;
	fz_argv0 = argv[0];
	if (arena_mb != 256)
		snprintf(fz_repro_extra, sizeof(fz_repro_extra), " --arena %lu", arena_mb);
	host_node_cpus = cfg.cpus;	/* the CPUs this run uses spread over the nodes */
	if (cfg.ops_per_round != 2000)
		snprintf(fz_repro_extra + strlen(fz_repro_extra),
			 sizeof(fz_repro_extra) - strlen(fz_repro_extra), " --round %lu",
			 (unsigned long)cfg.ops_per_round);
	fuzz_init(arena_mb);
	if (numa_num_nodes() > 1)	/* --nodes, or QUARRY_NODES */
		snprintf(fz_repro_extra + strlen(fz_repro_extra),
			 sizeof(fz_repro_extra) - strlen(fz_repro_extra), " --nodes %u",
			 numa_num_nodes());
	atexit(fuzz_died);	/* a panic exits: say where */
	fault_from_env(&fail_page_alloc, "QUARRY_FAIL_PAGE_ALLOC");
	fault_from_env(&failslab, "QUARRY_FAILSLAB");
	rc = fuzz_run(&cfg, &res);
	fflush(stdout);
	fprintf(stderr, "fuzz-run: %s %s seed %llu, %s, %u CPUs, %u node%s: %lu operations, "
		"%lu findings, "
		"%lu NULLs (faults: %lu page, %lu slab), %lu remote frees, %lu checkpoints, "
		"%lu caches made\n", ALLOC_NAME, PAGE_SIZE_NAME, (unsigned long long)cfg.seed,
		cfg.threads ? "threads" : "sequential", cfg.cpus, numa_num_nodes(),
		numa_num_nodes() == 1 ? "" : "s", res.ops,
		res.findings,
		res.alloc_nulls, fail_page_alloc.injected, failslab.injected, res.remote_frees,
		res.checkpoints, res.caches_made);
	return rc;
}
