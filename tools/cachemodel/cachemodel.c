/*
 * cachemodel.c - a QEMU TCG plugin that runs every guest memory access and
 * instruction fetch through a model of a server core's caches and TLBs, and
 * reports, for the regions the kernel marks (marker.h), accesses, misses by
 * level, TLB misses, page walks and modelled cycles, per region and per
 * function.
 *
 * Per vCPU: L1D, L1I, a unified L2, a first-level DTLB and ITLB and a
 * second-level TLB both share; one last-level cache shared by all vCPUs
 * (under a lock). Every structure is set-associative with true LRU
 * (sim.h). Caches are indexed by the guest-physical address of a data
 * access (as a physically indexed cache is) and by the virtual address of an
 * instruction fetch (the plugin interface gives no physical address for
 * code); TLBs by virtual page, of one size for the whole guest (tlbpage=).
 * An access is one lookup at its first byte.
 *
 * What is simulated outside the regions (warm=on, the default) keeps the
 * caches as the kernel left them; only accesses inside a region are counted.
 * Under -icount the guest runs one instruction stream in one thread, so two
 * runs give the same counts.
 *
 * Modelled cycles (a model, not a measurement): instructions, plus each data
 * access at the latency of the level that served it, plus each instruction
 * fetch that missed L1I at the latency of the level that served it, plus
 * every page walk at walk_levels x lat_walk.
 *
 * x86_64 rep stos and rep movs (fast_strings=on, the default): QEMU runs
 * each iteration as an execution of the same instruction, with its own
 * accesses. Consecutive executions of one such instruction are one run,
 * priced as a fast-string engine runs it: rep_start cycles, plus its bytes
 * at rep_rate bytes a cycle, in place of a cycle per iteration and the L1D
 * hits of its accesses; its accesses still go through the caches and TLBs,
 * and what missed L1D is charged as any miss. Regions without such a run
 * report exactly what they did without this pricing.
 *
 * NUMA (nodes=N, ram=SIZE): the guest's RAM is split into N nodes as
 * scripts/numa-flags.sh splits it for QEMU, and vCPU c is on node
 * c * N / vCPUs. A data access that memory served is local when its line
 * is on the vCPU's node and remote otherwise; a remote one costs lat_mem x
 * dist / 10 cycles. Instruction fetches have no physical address and count
 * as local. With one node nothing of this shows in the report.
 *
 * Arguments (-plugin cachemodel.so,key=value,...) are listed in README.md
 * in this folder and by config_usage() (config.c).
 */
#include "qemu_api.h"
#include "geometry.h"
#include "marker.h"
#include "sim.h"
#include "config.h"
#include "syms.h"
#include "repstr.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CACHEMODEL_API_VERSION
#define CACHEMODEL_API_VERSION CACHEMODEL_QEMU_API
#endif
CM_EXPORT int qemu_plugin_version = CACHEMODEL_API_VERSION;

#define NR_REGIONS	256
#define MAX_DEPTH	8

enum { L1, L2, LLC, MEM };		/* the level that served an access */
enum { TLB1, TLB2, WALK };		/* the TLB level that translated it */

struct counts {
	uint64_t insns;
	uint64_t dacc, dl1m, dl2m, dllcm, dtlbm, dwalk;	/* data side */
	uint64_t iacc, il1m, il2m, illcm, itlbm, iwalk;	/* instruction fetch, per line */
	uint64_t io;					/* device accesses, not cached */
	uint64_t dlocal, dremote;	/* data accesses memory served: on the vCPU's node or not */
	/* rep stos/movs: runs, executions (in insns too), bytes stored, data
	 * accesses that hit L1D (in dacc too), transfer cycles */
	uint64_t rep_runs, rep_iters, rep_bytes, rep_l1, rep_xfer;
};

struct func_slot {		/* one (region, function) pair of a vCPU */
	uint32_t key;		/* region << 20 | function, + 1; 0 = empty */
	struct counts c;
};

struct entry {			/* one pass through a region (entries=on) */
	unsigned int id;
	struct counts c;
};

struct vcpu {
	struct sim l1d, l1i, l2, dtlb, itlb, stlb;
	int depth;
	uint8_t stack[MAX_DEPTH];
	struct counts region[NR_REGIONS];
	uint64_t entries[NR_REGIONS];
	struct counts at_begin[MAX_DEPTH];	/* the region's counts when each open one began */
	struct entry *log;			/* entries=on: every pass, in order */
	size_t nlog, caplog;
	struct func_slot *slots;
	uint32_t nslots, used;
	struct func_slot *last_slot;
	const struct run *last_run;		/* counted whole when it began */
	uint64_t last_done;			/* its done then */
	uint64_t overflow, unmatched;
	unsigned int node;			/* NUMA node of the vCPU */
	const struct rep_insn *rep;		/* the rep string run in progress, or NULL */
	uint64_t rep_done;			/* the bytes it has stored so far */
};

struct run {			/* consecutive instructions of one function in a TB */
	uint64_t vaddr;
	uint32_t bytes, insns, func;
	uint64_t done;		/* times its last instruction began (an inline add) */
	uint16_t off[];		/* each instruction's offset from vaddr */
};

struct rep_insn {		/* one rep stos or rep movs instruction */
	uint64_t vaddr;
	uint32_t func;
};

static struct vcpu *vcpus;
static unsigned int nvcpus;
static struct sim llc;
static pthread_mutex_t llc_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t trans_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t region_func[NR_REGIONS];	/* function of a region's first BEGIN */
static const char *target = "?";
static bool is_x86;
static uint64_t node_end[CM_MAX_NODES];	/* each node's RAM ends there (exclusive) */
static uint64_t ram_base;		/* where the guest's RAM starts */

/* ---- counting ---- */

static struct counts *func_counts(struct vcpu *v, unsigned int region, uint32_t func)
{
	uint32_t key = ((uint32_t)region << 20 | (func & 0xfffff)) + 1;
	uint32_t i;

	if (v->last_slot && v->last_slot->key == key)
		return &v->last_slot->c;
	if (2 * (v->used + 1) > v->nslots) {	/* grow, keeping at most half full */
		struct func_slot *old = v->slots;
		uint32_t oldn = v->nslots;

		v->nslots = oldn ? oldn * 2 : 1024;
		v->slots = calloc(v->nslots, sizeof(*v->slots));
		if (!v->slots) {
			fprintf(stderr, "cachemodel: out of memory for per-function counts\n");
			abort();
		}
		for (uint32_t j = 0; j < oldn; j++) {
			if (!old[j].key)
				continue;
			for (i = old[j].key * 2654435761u & (v->nslots - 1); v->slots[i].key;
			     i = (i + 1) & (v->nslots - 1))
				;
			v->slots[i] = old[j];
		}
		free(old);
	}
	for (i = key * 2654435761u & (v->nslots - 1); v->slots[i].key && v->slots[i].key != key;
	     i = (i + 1) & (v->nslots - 1))
		;
	if (!v->slots[i].key) {
		v->slots[i].key = key;
		v->used++;
	}
	v->last_slot = &v->slots[i];
	return &v->slots[i].c;
}

/* Translate vaddr through the vCPU's TLBs: TLB1, TLB2 or WALK. */
static int translate(struct vcpu *v, struct sim *first, uint64_t vaddr)
{
	if (sim_access(first, vaddr))
		return TLB1;
	return sim_access(&v->stlb, vaddr) ? TLB2 : WALK;
}

/* Look addr up from `first` down: the level that had it. */
static int fetch_line(struct vcpu *v, struct sim *first, uint64_t addr)
{
	bool hit;

	if (sim_access(first, addr))
		return L1;
	if (sim_access(&v->l2, addr))
		return L2;
	pthread_mutex_lock(&llc_lock);
	hit = sim_access(&llc, addr);
	pthread_mutex_unlock(&llc_lock);
	return hit ? LLC : MEM;
}

/* node_of - the node of guest-physical pa; anything outside the RAM is node 0. */
static unsigned int node_of(uint64_t pa)
{
	if (pa < ram_base)
		return 0;
	for (unsigned int n = 0; n < cfg.nodes; n++)
		if (pa < node_end[n])
			return n;
	return 0;
}

/* remote: 0 not served by memory or one node, 1 a local node's memory, 2 a remote one's */
static void add_data(struct counts *c, int tl, int cl, int remote)
{
	c->dlocal += remote == 1;
	c->dremote += remote == 2;
	c->dacc++;
	c->dl1m += cl > L1;
	c->dl2m += cl > L2;
	c->dllcm += cl > LLC;
	c->dtlbm += tl > TLB1;
	c->dwalk += tl == WALK;
}

static void add_fetch(struct counts *c, int tl, int cl)
{
	c->iacc++;
	c->il1m += cl > L1;
	c->il2m += cl > L2;
	c->illcm += cl > LLC;
	c->itlbm += tl > TLB1;
	c->iwalk += tl == WALK;
}

/*
 * Send one data access through the vCPU's TLBs and caches and count it in
 * the open regions and the innermost one's function. Returns the level
 * that served it, or -1 when it was not counted (no region open, or a
 * device access).
 */
static int data_access(struct vcpu *v, qemu_plugin_meminfo_t info, uint64_t vaddr, uint32_t func)
{
	struct qemu_plugin_hwaddr *hw;
	uint64_t pa = vaddr;
	int tl, cl, remote = 0;

	if (!v->depth && !cfg.warm)
		return -1;
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (hw) {
		if (qemu_plugin_hwaddr_is_io(hw)) {
			for (int d = 0; d < v->depth; d++)
				v->region[v->stack[d]].io++;
			return -1;
		}
		pa = qemu_plugin_hwaddr_phys_addr(hw);
	}
	tl = translate(v, &v->dtlb, vaddr);
	cl = fetch_line(v, &v->l1d, pa);
	if (!v->depth)
		return -1;
	if (cl == MEM && cfg.nodes > 1)
		remote = node_of(pa) == v->node ? 1 : 2;
	for (int d = 0; d < v->depth; d++)
		add_data(&v->region[v->stack[d]], tl, cl, remote);
	add_data(func_counts(v, v->stack[v->depth - 1], func), tl, cl, remote);
	return cl;
}

static void on_mem(unsigned int cpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	data_access(&vcpus[cpu], info, vaddr, (uint32_t)(uintptr_t)udata);
}

static void sum(struct counts *a, const struct counts *b)
{
	const uint64_t *s = (const uint64_t *)b;
	uint64_t *d = (uint64_t *)a;

	for (size_t i = 0; i < sizeof(*a) / sizeof(uint64_t); i++)
		d[i] += s[i];
}

/* Add delta to every open region and to the innermost one's function func. */
static void count_open(struct vcpu *v, uint32_t func, const struct counts *delta)
{
	for (int d = 0; d < v->depth; d++)
		sum(&v->region[v->stack[d]], delta);
	sum(func_counts(v, v->stack[v->depth - 1], func), delta);
}

/*
 * An execution of a rep stos/movs instruction: it continues the vCPU's run
 * when the last instruction to run was this one (every other run begins
 * with on_run, which ends the rep run), and begins a new run otherwise.
 */
static void on_rep(unsigned int cpu, void *udata)
{
	struct vcpu *v = &vcpus[cpu];
	const struct rep_insn *ri = udata;
	struct counts delta = { .rep_iters = 1 };

	if (!v->rep || v->rep->vaddr != ri->vaddr) {
		v->rep = ri;
		v->rep_done = 0;
		delta.rep_runs = 1;
	}
	if (v->depth)
		count_open(v, ri->func, &delta);
}

/*
 * A data access of a rep stos/movs iteration: modelled as any other, and
 * then its L1D hit and the bytes it stores are counted for the run's price.
 */
static void on_rep_mem(unsigned int cpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	struct vcpu *v = &vcpus[cpu];
	const struct rep_insn *ri = udata;
	struct counts delta = { 0 };
	int cl = data_access(v, info, vaddr, ri->func);

	if (cl < 0)
		return;
	delta.rep_l1 = cl == L1;
	if (qemu_plugin_mem_is_store(info)) {
		delta.rep_bytes = 1u << qemu_plugin_mem_size_shift(info);
		delta.rep_xfer = rep_xfer_cycles(v->rep_done, delta.rep_bytes, cfg.rep_rate);
		v->rep_done += delta.rep_bytes;
	}
	count_open(v, ri->func, &delta);
}

/*
 * A run's instructions are counted when it begins. When the guest leaves a
 * run part-way (QEMU restarting an instruction, an exception) and comes
 * back to one of its instructions, that instruction begins a new run: if the
 * old run's last instruction never began, take back its instructions from
 * there on, which did not run then. (A loop jumping back into a run that
 * did finish is told apart by the run's done count.)
 */
static void uncount_cut_run(struct vcpu *v, uint64_t vaddr)
{
	const struct run *last = v->last_run;
	uint32_t at, done = 0;
	struct counts *fc;

	if (!last || last->done != v->last_done || vaddr <= last->vaddr ||
	    vaddr >= last->vaddr + last->bytes)
		return;
	at = (uint32_t)(vaddr - last->vaddr);
	while (done < last->insns && last->off[done] < at)
		done++;
	fc = func_counts(v, v->stack[v->depth - 1], last->func);
	for (int d = 0; d < v->depth; d++)
		v->region[v->stack[d]].insns -= last->insns - done;
	fc->insns -= last->insns - done;
}

static void on_run(unsigned int cpu, void *udata)
{
	struct vcpu *v = &vcpus[cpu];
	const struct run *r = udata;
	struct counts *fc = NULL;

	if (v->rep && v->rep->vaddr != r->vaddr)
		v->rep = NULL;	/* another instruction ran: the rep run is over */
	if (!v->depth && !cfg.warm)
		return;
	if (v->depth) {
		uncount_cut_run(v, r->vaddr);
		v->last_run = r;
		v->last_done = r->done;
		fc = func_counts(v, v->stack[v->depth - 1], r->func);
		for (int d = 0; d < v->depth; d++)
			v->region[v->stack[d]].insns += r->insns;
		fc->insns += r->insns;
	}
	if (!cfg.icache)
		return;
	for (uint64_t a = r->vaddr & ~(cfg.line - 1); a < r->vaddr + r->bytes; a += cfg.line) {
		int tl = translate(v, &v->itlb, a);
		int cl = fetch_line(v, &v->l1i, a);

		if (!v->depth)
			continue;
		for (int d = 0; d < v->depth; d++)
			add_fetch(&v->region[v->stack[d]], tl, cl);
		add_fetch(fc, tl, cl);
	}
}

/* Record the pass through region id that began with its counts at *begin. */
static void log_entry(struct vcpu *v, unsigned int id, const struct counts *begin)
{
	const uint64_t *now = (const uint64_t *)&v->region[id], *then = (const uint64_t *)begin;
	uint64_t *d;

	if (v->nlog == v->caplog) {
		v->caplog = v->caplog ? v->caplog * 2 : 256;
		v->log = realloc(v->log, v->caplog * sizeof(*v->log));
		if (!v->log) {
			fprintf(stderr, "cachemodel: out of memory for entries=on\n");
			abort();
		}
	}
	v->log[v->nlog].id = id;
	d = (uint64_t *)&v->log[v->nlog].c;
	for (size_t i = 0; i < sizeof(struct counts) / sizeof(uint64_t); i++)
		d[i] = now[i] - then[i];
	v->nlog++;
}

static void on_marker(unsigned int cpu, void *udata)
{
	struct vcpu *v = &vcpus[cpu];
	uintptr_t m = (uintptr_t)udata;
	unsigned int op = (m >> 8) & 0xff, id = m & 0xff;

	v->last_run = NULL;	/* the mark ended the run before it */
	v->rep = NULL;
	if (op == MODEL_OP_BEGIN) {
		if (v->depth == MAX_DEPTH) {
			v->overflow++;
			return;
		}
		v->at_begin[v->depth] = v->region[id];
		v->stack[v->depth++] = (uint8_t)id;
		v->entries[id]++;
		if (!region_func[id])
			region_func[id] = (uint32_t)(m >> 16);
		return;
	}
	if (!v->depth || v->stack[v->depth - 1] != id) {
		v->unmatched++;
		return;
	}
	v->depth--;
	if (cfg.entries)
		log_entry(v, id, &v->at_begin[v->depth]);
}

/* decode_marker - the marker's op << 8 | id, or -1 when insn is none. */
static int decode_marker(const uint8_t *b, size_t n)
{
	uint32_t w;

	if (is_x86) {
		if (n != 7 || b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80 ||
		    b[5] != (MODEL_MAGIC & 0xff) || b[6] != (MODEL_MAGIC >> 8))
			return -1;
		w = (uint32_t)b[4] << 8 | b[3];
	} else {
		if (n != 4)
			return -1;
		memcpy(&w, b, 4);
		if ((w & MODEL_ARM64_MASK) != MODEL_ARM64_BASE)
			return -1;
		w = (w >> 5) & 0xffff;
	}
	if ((w >> 8) != MODEL_OP_BEGIN && (w >> 8) != MODEL_OP_END)
		return -1;
	return (int)w;
}

/*
 * Whether instruction i of a block joins the run of instruction i - 1: the
 * same function, no mark between, and i - 1 not a rep string instruction
 * (the instruction after one begins a run, so that on_run ends the rep run
 * even where QEMU did not end the block after it).
 */
static bool joins_run(const uint32_t *func, const int *mark, const unsigned int *rep, size_t i)
{
	return i && mark[i] < 0 && mark[i - 1] < 0 && func[i] == func[i - 1] && !rep[i - 1];
}

/* The data accesses of an instruction: on_rep_mem for a rep string instruction, else on_mem. */
static void register_data(struct qemu_plugin_insn *insn, uint32_t func, bool rep, uint64_t va)
{
	struct rep_insn *ri;

	if (!rep) {
		qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, (void *)(uintptr_t)func);
		return;
	}
	ri = calloc(1, sizeof(*ri));	/* lives as long as the code may run */
	if (!ri) {
		fprintf(stderr, "cachemodel: out of memory translating %#" PRIx64 "\n", va);
		abort();
	}
	ri->vaddr = va;
	ri->func = func;
	qemu_plugin_register_vcpu_insn_exec_cb(insn, on_rep, QEMU_PLUGIN_CB_NO_REGS, ri);
	qemu_plugin_register_vcpu_mem_cb(insn, on_rep_mem, QEMU_PLUGIN_CB_NO_REGS,
					 QEMU_PLUGIN_MEM_RW, ri);
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint32_t func[n ? n : 1];
	int mark[n ? n : 1];
	unsigned int rep[n ? n : 1];	/* rep string operand size, 0: not one */
	struct run *cur = NULL;
	size_t len = 0;		/* the current run's instructions */

	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *data = qemu_plugin_insn_data(insn);
		size_t size = qemu_plugin_insn_size(insn);

		func[i] = sym_find(qemu_plugin_insn_vaddr(insn));
		mark[i] = decode_marker(data, size);
		rep[i] = is_x86 && cfg.fast_strings ? rep_string_size(data, size) : 0;
	}
	pthread_mutex_lock(&trans_lock);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		size_t size = qemu_plugin_insn_size(insn);

		if (mark[i] >= 0) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS,
				(void *)(((uintptr_t)func[i] << 16) | (uintptr_t)mark[i]));
			cur = NULL;
			continue;
		}
		if (!cur || !joins_run(func, mark, rep, i)) {
			len = 1;
			while (i + len < n && joins_run(func, mark, rep, i + len))
				len++;
			/* lives as long as the code may run */
			cur = calloc(1, sizeof(*cur) + len * sizeof(cur->off[0]));
			if (!cur) {
				fprintf(stderr, "cachemodel: out of memory translating %#" PRIx64 "\n", va);
				abort();
			}
			cur->vaddr = va;
			cur->func = func[i];
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_run, QEMU_PLUGIN_CB_NO_REGS, cur);
		}
		cur->off[cur->insns++] = (uint16_t)(va - cur->vaddr);
		if (cur->insns == len)
			qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
								   &cur->done, 1);
		cur->bytes = (uint32_t)(va + size - cur->vaddr);
		register_data(insn, func[i], rep[i] != 0, va);
	}
	pthread_mutex_unlock(&trans_lock);
}

/* ---- report ---- */

static uint64_t modelled_cycles(const struct counts *c)
{
	uint64_t d_l2 = c->dl1m - c->dl2m, d_llc = c->dl2m - c->dllcm;
	uint64_t i_l2 = c->il1m - c->il2m, i_llc = c->il2m - c->illcm;

	uint64_t base = c->insns - c->rep_iters + c->rep_runs * cfg.rep_start + c->rep_xfer;

	return base + (c->dacc - c->dl1m - c->rep_l1) * cfg.lat_l1 + (d_l2 + i_l2) * cfg.lat_l2 +
	       (d_llc + i_llc) * cfg.lat_llc + (c->dllcm + c->illcm - c->dremote) * cfg.lat_mem +
	       c->dremote * cfg.lat_mem * cfg.dist / 10 +
	       (c->dwalk + c->iwalk) * (uint64_t)cfg.walk_levels * cfg.lat_walk;
}

static void print_counts(FILE *f, const struct counts *c)
{
	fprintf(f,
		" insns=%" PRIu64 " dacc=%" PRIu64 " dl1_miss=%" PRIu64 " dl2_miss=%" PRIu64
		" dllc_miss=%" PRIu64 " dtlb_miss=%" PRIu64 " dwalks=%" PRIu64 " ifetch=%" PRIu64
		" il1_miss=%" PRIu64 " il2_miss=%" PRIu64 " illc_miss=%" PRIu64
		" itlb_miss=%" PRIu64 " iwalks=%" PRIu64 " io=%" PRIu64,
		c->insns, c->dacc, c->dl1m, c->dl2m, c->dllcm, c->dtlbm, c->dwalk, c->iacc, c->il1m,
		c->il2m, c->illcm, c->itlbm, c->iwalk, c->io);
	if (cfg.nodes > 1)
		fprintf(f, " dmem_local=%" PRIu64 " dmem_remote=%" PRIu64, c->dlocal, c->dremote);
	if (c->rep_iters)
		fprintf(f, " rep_runs=%" PRIu64 " rep_iters=%" PRIu64 " rep_bytes=%" PRIu64
			" rep_dl1_hits=%" PRIu64 " rep_xfer_cycles=%" PRIu64, c->rep_runs, c->rep_iters,
			c->rep_bytes, c->rep_l1, c->rep_xfer);
	fprintf(f, " modelled_cycles=%" PRIu64 "\n", modelled_cycles(c));
}

struct func_total {
	uint32_t func;
	struct counts c;
};

static int ft_cmp(const void *a, const void *b)
{
	const struct func_total *x = a, *y = b;
	uint64_t cx = modelled_cycles(&x->c), cy = modelled_cycles(&y->c);

	if (cx != cy)
		return cx < cy ? 1 : -1;
	return x->func < y->func ? -1 : x->func > y->func;
}

static void report_region(FILE *f, unsigned int r)
{
	struct counts total = { 0 };
	uint64_t entries = 0;
	struct func_total *ft = NULL;
	uint32_t nft = 0;

	for (unsigned int c = 0; c < nvcpus; c++) {
		sum(&total, &vcpus[c].region[r]);
		entries += vcpus[c].entries[r];
	}
	if (!entries)
		return;
	fprintf(f, "region id=%u name=%s entries=%" PRIu64, r, syms ? syms[region_func[r]].name : "?",
		entries);
	print_counts(f, &total);
	for (unsigned int c = 0; c < nvcpus; c++) {
		struct vcpu *v = &vcpus[c];

		for (uint32_t i = 0; i < v->nslots; i++) {
			uint32_t key = v->slots[i].key, j;

			if (!key || ((key - 1) >> 20) != r)
				continue;
			for (j = 0; j < nft && ft[j].func != ((key - 1) & 0xfffff); j++)
				;
			if (j == nft) {
				ft = realloc(ft, (nft + 1) * sizeof(*ft));
				memset(&ft[nft], 0, sizeof(*ft));
				ft[nft++].func = (key - 1) & 0xfffff;
			}
			sum(&ft[j].c, &v->slots[i].c);
		}
	}
	qsort(ft, nft, sizeof(*ft), ft_cmp);
	for (uint32_t j = 0; j < nft && j < cfg.funcs; j++) {
		fprintf(f, "func region=%u name=%s", r, syms ? syms[ft[j].func].name : "?");
		print_counts(f, &ft[j].c);
	}
	free(ft);
}

/* Whether any region counted a rep string instruction (on any vCPU). */
static bool any_rep_counted(void)
{
	for (unsigned int c = 0; c < nvcpus; c++)
		for (unsigned int r = 0; r < NR_REGIONS; r++)
			if (vcpus[c].region[r].rep_iters)
				return true;
	return false;
}

static void print_header(FILE *f)
{
	fprintf(f, "cachemodel: QEMU plugin API %d, target %s, %u vCPU(s), warm=%s icache=%s\n",
		qemu_plugin_version, target, nvcpus, cfg.warm ? "on" : "off",
		cfg.icache ? "on" : "off");
	fprintf(f,
		"geometry l1d=%" PRIu64 ":%u l1i=%" PRIu64 ":%u l2=%" PRIu64 ":%u llc=%" PRIu64
		":%u line=%" PRIu64 " dtlb=%" PRIu64 ":%u itlb=%" PRIu64 ":%u stlb=%" PRIu64
		":%u tlbpage=%" PRIu64 " walk_levels=%u\n",
		cfg.l1d, cfg.l1d_ways, cfg.l1i, cfg.l1i_ways, cfg.l2, cfg.l2_ways, cfg.llc,
		cfg.llc_ways, cfg.line, cfg.dtlb, cfg.dtlb_ways, cfg.itlb, cfg.itlb_ways, cfg.stlb,
		cfg.stlb_ways, cfg.tlbpage, cfg.walk_levels);
	fprintf(f,
		"cachemodel: modelled cycles (a model, not a measurement) = insns + L1D hits x %u"
		" + L2 hits x %u + LLC hits x %u + memory x %u + page walks x %u levels x %u\n",
		cfg.lat_l1, cfg.lat_l2, cfg.lat_llc, cfg.lat_mem, cfg.walk_levels, cfg.lat_walk);
	if (any_rep_counted())
		fprintf(f, "cachemodel: rep stos/movs: a run of one costs rep_start=%u cycles + its bytes"
			" / rep_rate=%u a cycle (rounded up), not a cycle an iteration nor its L1D hits;"
			" its misses as above\n", cfg.rep_start, cfg.rep_rate);
	if (cfg.nodes == 1)
		return;
	fprintf(f, "numa nodes=%u ram=%" PRIu64 " dist=%u remote_lat_mem=%u", cfg.nodes, cfg.ram,
		cfg.dist, cfg.lat_mem * cfg.dist / 10);
	for (unsigned int n = 0; n < cfg.nodes; n++)
		fprintf(f, " node%u=%#" PRIx64 "-%#" PRIx64, n, n ? node_end[n - 1] : ram_base,
			node_end[n] - 1);
	fprintf(f, " cpus=");
	for (unsigned int c = 0; c < nvcpus; c++)
		fprintf(f, "%s%u", c ? ":" : "", vcpus[c].node);
	fprintf(f, "\n");
}

static void on_exit_report(qemu_plugin_id_t id, void *p)
{
	FILE *f = stderr;
	uint64_t overflow = 0, unmatched = 0;

	if (cfg.out && !(f = fopen(cfg.out, "w"))) {
		fprintf(stderr, "cachemodel: cannot write the report to out=%s: %s\n", cfg.out,
			strerror(errno));
		f = stderr;
	}
	print_header(f);
	for (unsigned int c = 0; c < nvcpus; c++) {
		overflow += vcpus[c].overflow;
		unmatched += vcpus[c].unmatched;
	}
	if (overflow)
		fprintf(f, "cachemodel: warning: %" PRIu64 " MODEL_BEGIN marks past %d open regions"
			" were ignored\n", overflow, MAX_DEPTH);
	if (unmatched)
		fprintf(f, "cachemodel: warning: %" PRIu64 " MODEL_END marks closed no open region"
			" of their id\n", unmatched);
	for (unsigned int r = 0; r < NR_REGIONS; r++)
		report_region(f, r);
	for (unsigned int c = 0; c < nvcpus; c++)
		for (size_t i = 0; i < vcpus[c].nlog; i++) {
			fprintf(f, "entry cpu=%u id=%u", c, vcpus[c].log[i].id);
			print_counts(f, &vcpus[c].log[i].c);
		}
	fprintf(f, "cachemodel: end\n");
	if (f != stderr)
		fclose(f);
}

/* ---- install ---- */

static int make_vcpu(struct vcpu *v, int line_shift, int page_shift)
{
	char err[160];

	if (sim_init(&v->l1d, "L1D", cfg.l1d / cfg.line, cfg.l1d_ways, line_shift, err, sizeof(err)) ||
	    sim_init(&v->l1i, "L1I", cfg.l1i / cfg.line, cfg.l1i_ways, line_shift, err, sizeof(err)) ||
	    sim_init(&v->l2, "L2", cfg.l2 / cfg.line, cfg.l2_ways, line_shift, err, sizeof(err)) ||
	    sim_init(&v->dtlb, "DTLB", cfg.dtlb, cfg.dtlb_ways, page_shift, err, sizeof(err)) ||
	    sim_init(&v->itlb, "ITLB", cfg.itlb, cfg.itlb_ways, page_shift, err, sizeof(err)) ||
	    sim_init(&v->stlb, "STLB", cfg.stlb, cfg.stlb_ways, page_shift, err, sizeof(err))) {
		fprintf(stderr, "cachemodel: impossible geometry: %s\n", err);
		return -1;
	}
	return 0;
}

/* The node ranges of scripts/numa-flags.sh: whole MiB each, the last takes the rest. */
static void set_node_map(void)
{
	uint64_t per = (cfg.ram >> 20) / cfg.nodes << 20;

	ram_base = is_x86 ? 0 : 0x40000000;	/* where QEMU virt's RAM starts */
	for (unsigned int n = 0; n < cfg.nodes; n++)
		node_end[n] = ram_base + (n == cfg.nodes - 1 ? cfg.ram : per * (n + 1));
}

static int check_size(const char *what, uint64_t size, unsigned int ways)
{
	if (size % cfg.line || (size / cfg.line) % ways) {
		fprintf(stderr, "cachemodel: %s of %" PRIu64 " bytes does not divide into %u-way"
			" sets of %" PRIu64 "-byte lines\n", what, size, ways, cfg.line);
		return -1;
	}
	return 0;
}

/*
 * qemu_plugin_install - QEMU's call after loading the plugin: check that
 * this is system emulation of x86_64 or aarch64, apply the arguments, make
 * every vCPU's structures and the shared LLC, load the symbols, and hook
 * translation and exit. Returns 0, or -1 (QEMU then stops) after a
 * "cachemodel: ..." line on stderr naming the argument, file or target at
 * fault. Everything it allocates lives until QEMU exits.
 */
CM_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
				  char **argv)
{
	int line_shift, page_shift;
	char err[160];

	if (!info->system_emulation) {
		fprintf(stderr, "cachemodel: needs system emulation (qemu-system-*), not qemu-user\n");
		return -1;
	}
	target = info->target_name;
	is_x86 = !strcmp(target, "x86_64") || !strcmp(target, "i386");
	if (!is_x86 && strcmp(target, "aarch64")) {
		fprintf(stderr, "cachemodel: knows the region marks of x86_64 and aarch64, not %s\n",
			target);
		return -1;
	}
	if (is_x86)
		cfg.tlbpage = 2u << 20;	/* Quarry maps all of x86_64's memory with 2 MiB pages */
	for (int i = 0; i < argc; i++)
		if (config_parse_arg(argv[i]))
			return -1;
	line_shift = log2_exact(cfg.line);
	page_shift = log2_exact(cfg.tlbpage);
	if (line_shift < 4 || line_shift > 12) {
		fprintf(stderr, "cachemodel: line=%" PRIu64 " must be a power of two from 16 to 4096\n",
			cfg.line);
		return -1;
	}
	if (page_shift < 12) {
		fprintf(stderr, "cachemodel: tlbpage=%" PRIu64 " must be a power of two, 4K or more\n",
			cfg.tlbpage);
		return -1;
	}
	if (!cfg.walk_levels)
		cfg.walk_levels = default_walk_levels(cfg.tlbpage);
	if (check_size("l1d", cfg.l1d, cfg.l1d_ways) || check_size("l1i", cfg.l1i, cfg.l1i_ways) ||
	    check_size("l2", cfg.l2, cfg.l2_ways) || check_size("llc", cfg.llc, cfg.llc_ways))
		return -1;
	if (config_check_numa(is_x86))
		return -1;
	if (cfg.syms && load_symbols(cfg.syms))
		return -1;
	nvcpus = info->system.max_vcpus > 0 ? (unsigned int)info->system.max_vcpus : 1;
	vcpus = calloc(nvcpus, sizeof(*vcpus));
	if (!vcpus) {
		fprintf(stderr, "cachemodel: no memory for %u vCPUs\n", nvcpus);
		return -1;
	}
	for (unsigned int c = 0; c < nvcpus; c++) {
		if (make_vcpu(&vcpus[c], line_shift, page_shift))
			return -1;
		vcpus[c].node = c * cfg.nodes / nvcpus;
	}
	set_node_map();
	if (sim_init(&llc, "LLC", cfg.llc / cfg.line, cfg.llc_ways, line_shift, err, sizeof(err))) {
		fprintf(stderr, "cachemodel: impossible geometry: %s\n", err);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
	qemu_plugin_register_atexit_cb(id, on_exit_report, NULL);
	return 0;
}
