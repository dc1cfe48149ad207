/*
 * coherence.c - a QEMU TCG plugin for qemu-user that follows every data
 * access of every guest thread through a model of cache-line ownership
 * between CPUs, and reports the accesses that would move a line from one
 * core's cache to another's: which lines, which instructions, how many.
 *
 * Each guest thread is a vCPU. Each line (64 bytes by default) has a set of
 * vCPUs holding a copy and, after a store, one owner holding it modified:
 *
 *   - an access by a vCPU to a line another vCPU holds modified is a
 *     transfer (a load or store that hits a modified line in another core's
 *     cache: what perf c2c calls HITM);
 *   - a store to a line other vCPUs hold clean is an invalidation (the
 *     store must take the line away from them);
 *   - a read-modify-write (a load and then a store by the same instruction,
 *     as an atomic or x86's add to memory) that moves a line counts once,
 *     as the one request for ownership it is;
 *   - anything else costs nothing here: caches are infinite, so what is
 *     left is only the traffic that sharing between cores causes, which is
 *     the traffic that grows with cores.
 *
 * How often threads interleave decides how often a shared line moves. The
 * workloads' --lockstep option runs one allocation per thread in turn, the
 * worst interleaving and the same on every machine, so the counts are
 * properties of the program, not of the host's scheduler.
 *
 * Only accesses inside a window are counted: a vCPU enters it when it runs
 * a function named by begin= and leaves it at end= (by default the
 * workloads' wl_window_begin and wl_window_end, around the measured part).
 * Line state is kept outside the window too, so the first access inside it
 * sees where the line really is.
 *
 * Arguments: out=FILE (the report, default stderr), line=BYTES (a power of
 * two, default 64), top=N (lines and instructions listed, default 40),
 * begin=SYMBOL, end=SYMBOL, window=off (count the whole run).
 */
#include "../cachemodel/qemu_api.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

CM_EXPORT int qemu_plugin_version = CACHEMODEL_QEMU_API;

#define MAX_VCPUS 64	/* vCPU indexes are reused as threads end */
#define LINE_PCS  4	/* instructions remembered per line */

struct line {
	uint64_t tag;			/* line address + 1; 0: empty slot */
	uint64_t holders;		/* vCPUs with a copy */
	uint64_t readers, writers;	/* vCPUs that accessed it inside a window */
	uint64_t transfers, invals;	/* inside a window */
	uint64_t pc[LINE_PCS];		/* instructions that moved it, most first */
	uint64_t pc_n[LINE_PCS];
	uint8_t owner1;			/* 1 + the vCPU holding it modified; 0: none */
};

struct insn_count {
	uint64_t pc;			/* 0: empty slot */
	const char *sym;
	uint64_t accesses, transfers, invals;
};

struct table {
	void *slot;
	size_t size, used, elem;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct table lines = {.elem = sizeof(struct line)};
static struct table insns = {.elem = sizeof(struct insn_count)};
static unsigned int line_shift = 6, top = 40;
static const char *out_path, *begin_sym = "wl_window_begin", *end_sym = "wl_window_end";
static bool use_window = true;
static bool in_window[MAX_VCPUS];
static uint64_t win_accesses[MAX_VCPUS], win_stores[MAX_VCPUS];
static unsigned int max_vcpu_seen;
static uint64_t vcpus_folded;	/* accesses by vCPUs at or above MAX_VCPUS */
/*
 * Each vCPU's last load if it moved a line: a store by the same instruction
 * to the same line is its write half and moves nothing more.
 */
static uint64_t last_load_line[MAX_VCPUS], last_load_pc[MAX_VCPUS];

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* The key of a slot is its first 8 bytes (line tag or pc); 0 is empty. */
static void *table_find(struct table *t, uint64_t key, bool insert);

static void table_grow(struct table *t)
{
	struct table n = {.size = t->size ? t->size * 2 : 1 << 16, .elem = t->elem};

	n.slot = calloc(n.size, n.elem);
	if (!n.slot) {
		fprintf(stderr, "coherence: out of memory for %zu table slots\n", n.size);
		abort();
	}
	for (size_t i = 0; i < t->size; i++) {
		char *s = (char *)t->slot + i * t->elem;
		uint64_t key;

		memcpy(&key, s, sizeof(key));
		if (key)
			memcpy(table_find(&n, key, true), s, t->elem);
	}
	free(t->slot);
	*t = n;
}

static void *table_find(struct table *t, uint64_t key, bool insert)
{
	if (insert && (t->used + 1) * 2 > t->size)
		table_grow(t);
	for (size_t i = hash64(key) & (t->size - 1);; i = (i + 1) & (t->size - 1)) {
		char *s = (char *)t->slot + i * t->elem;
		uint64_t k;

		memcpy(&k, s, sizeof(k));
		if (k == key)
			return s;
		if (!k) {
			if (!insert)
				return NULL;
			memset(s, 0, t->elem);
			memcpy(s, &key, sizeof(key));
			t->used++;
			return s;
		}
	}
}

static void line_blame(struct line *l, uint64_t pc)
{
	unsigned int i, low = 0;

	for (i = 0; i < LINE_PCS; i++) {
		if (l->pc[i] == pc || !l->pc_n[i]) {
			l->pc[i] = pc;
			l->pc_n[i]++;
			return;
		}
		if (l->pc_n[i] < l->pc_n[low])
			low = i;
	}
	/* All slots taken by others: the least blamed gives way (an approximation). */
	l->pc[low] = pc;
	l->pc_n[low]++;
}

/* One access by vcpu to the line at addr: update ownership, count what moved. */
static void access_line(unsigned int vcpu, uint64_t addr, bool store, struct insn_count *ic)
{
	uint64_t bit = 1ULL << vcpu;
	struct line *l = table_find(&lines, (addr >> line_shift) + 1, true);
	bool counting = !use_window || in_window[vcpu];
	bool moved = false;

	if (l->owner1 && l->owner1 != vcpu + 1) {
		moved = true;
		if (counting) {
			l->transfers++;
			ic->transfers++;
		}
	} else if (store && (l->holders & ~bit) &&
		   !(last_load_line[vcpu] == l->tag && last_load_pc[vcpu] == ic->pc)) {
		moved = true;
		if (counting) {
			l->invals++;
			ic->invals++;
		}
	}
	last_load_line[vcpu] = !store && moved ? l->tag : 0;
	last_load_pc[vcpu] = ic->pc;
	if (store) {
		l->holders = bit;
		l->owner1 = (uint8_t)(vcpu + 1);
	} else {
		if (l->owner1 && l->owner1 != vcpu + 1)
			l->owner1 = 0;	/* the writer keeps a clean copy */
		l->holders |= bit;
	}
	if (counting) {
		if (store)
			l->writers |= bit;
		else
			l->readers |= bit;
		if (moved)
			line_blame(l, ic->pc);
	}
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	uint64_t pc = (uint64_t)(uintptr_t)udata;
	bool store = qemu_plugin_mem_is_store(info);
	unsigned int size = 1u << qemu_plugin_mem_size_shift(info);
	uint64_t first = vaddr >> line_shift, last = (vaddr + size - 1) >> line_shift;
	struct insn_count *ic;

	pthread_mutex_lock(&lock);
	if (vcpu >= MAX_VCPUS) {
		vcpus_folded++;
		vcpu %= MAX_VCPUS;
	}
	if (vcpu > max_vcpu_seen)
		max_vcpu_seen = vcpu;
	ic = table_find(&insns, pc, true);
	if (!use_window || in_window[vcpu]) {
		ic->accesses++;
		win_accesses[vcpu]++;
		win_stores[vcpu] += store;
	}
	for (uint64_t a = first; a <= last; a++)
		access_line(vcpu, a << line_shift, store, ic);
	pthread_mutex_unlock(&lock);
}

static void on_window(unsigned int vcpu, void *udata)
{
	pthread_mutex_lock(&lock);
	in_window[vcpu % MAX_VCPUS] = udata != NULL;
	pthread_mutex_unlock(&lock);
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		const char *sym = qemu_plugin_insn_symbol(insn);

		if (use_window && sym && i == 0 && (!strcmp(sym, begin_sym) || !strcmp(sym, end_sym)))
			qemu_plugin_register_vcpu_insn_exec_cb(
			    insn, on_window, QEMU_PLUGIN_CB_NO_REGS,
			    !strcmp(sym, begin_sym) ? (void *)1 : NULL);
		if (sym) {
			struct insn_count *ic;

			pthread_mutex_lock(&lock);
			ic = table_find(&insns, pc, true);
			if (!ic->sym)
				ic->sym = strdup(sym);
			pthread_mutex_unlock(&lock);
		}
		qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, (void *)(uintptr_t)pc);
	}
}

static int by_moves_line(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	uint64_t mx = x->transfers + x->invals, my = y->transfers + y->invals;

	return mx < my ? 1 : mx > my ? -1 : (x->tag > y->tag) - (x->tag < y->tag);
}

static int by_moves_insn(const void *a, const void *b)
{
	const struct insn_count *x = a, *y = b;
	uint64_t mx = x->transfers + x->invals, my = y->transfers + y->invals;

	return mx < my ? 1 : mx > my ? -1 : (x->pc > y->pc) - (x->pc < y->pc);
}

static unsigned int popcount64(uint64_t x)
{
	return (unsigned int)__builtin_popcountll(x);
}

/* Copy a table's used slots into a packed array (caller frees). */
static void *table_pack(const struct table *t, size_t *n)
{
	char *v = malloc((t->used ? t->used : 1) * t->elem);

	*n = 0;
	for (size_t i = 0; i < t->size; i++) {
		const char *s = (const char *)t->slot + i * t->elem;
		uint64_t key;

		memcpy(&key, s, sizeof(key));
		if (key)
			memcpy(v + (*n)++ * t->elem, s, t->elem);
	}
	return v;
}

static void on_plugin_exit(qemu_plugin_id_t id, void *udata)
{
	FILE *f = out_path ? fopen(out_path, "w") : stderr;
	uint64_t acc = 0, st = 0, tr = 0, inv = 0;
	struct line *lv;
	struct insn_count *iv;
	size_t nl, ni;

	if (!f) {
		fprintf(stderr, "coherence: cannot write out=%s: %s\n", out_path, strerror(errno));
		return;
	}
	pthread_mutex_lock(&lock);
	lv = table_pack(&lines, &nl);
	iv = table_pack(&insns, &ni);
	for (unsigned int v = 0; v < MAX_VCPUS; v++) {
		acc += win_accesses[v];
		st += win_stores[v];
	}
	for (size_t i = 0; i < nl; i++) {
		tr += lv[i].transfers;
		inv += lv[i].invals;
	}
	fprintf(f, "coherence 1 line=%u window=%s vcpus=%u start_code=0x%" PRIx64
		   " end_code=0x%" PRIx64 " binary=%s folded=%" PRIu64 "\n",
		1u << line_shift, use_window ? begin_sym : "off", max_vcpu_seen + 1,
		qemu_plugin_start_code(), qemu_plugin_end_code(), qemu_plugin_path_to_binary(),
		vcpus_folded);
	fprintf(f, "total accesses=%" PRIu64 " stores=%" PRIu64 " transfers=%" PRIu64
		   " invalidations=%" PRIu64 " lines=%zu\n",
		acc, st, tr, inv, nl);
	for (unsigned int v = 0; v <= max_vcpu_seen; v++)
		if (win_accesses[v])
			fprintf(f, "vcpu %u accesses=%" PRIu64 " stores=%" PRIu64 "\n", v,
				win_accesses[v], win_stores[v]);
	qsort(iv, ni, sizeof(*iv), by_moves_insn);
	for (size_t i = 0; i < ni && iv[i].transfers + iv[i].invals; i++)
		fprintf(f, "insn 0x%" PRIx64 " %s accesses=%" PRIu64 " transfers=%" PRIu64
			   " invalidations=%" PRIu64 "\n",
			iv[i].pc, iv[i].sym ? iv[i].sym : "?", iv[i].accesses, iv[i].transfers,
			iv[i].invals);
	qsort(lv, nl, sizeof(*lv), by_moves_line);
	for (size_t i = 0; i < nl && i < top && lv[i].transfers + lv[i].invals; i++) {
		fprintf(f, "line 0x%" PRIx64 " transfers=%" PRIu64 " invalidations=%" PRIu64
			   " readers=%u writers=%u by",
			(lv[i].tag - 1) << line_shift, lv[i].transfers, lv[i].invals,
			popcount64(lv[i].readers), popcount64(lv[i].writers));
		for (unsigned int k = 0; k < LINE_PCS && lv[i].pc_n[k]; k++)
			fprintf(f, " 0x%" PRIx64 ":%" PRIu64, lv[i].pc[k], lv[i].pc_n[k]);
		fputc('\n', f);
	}
	pthread_mutex_unlock(&lock);
	free(lv);
	free(iv);
	if (f != stderr)
		fclose(f);
}

static bool parse_arg(const char *arg)
{
	const char *eq = strchr(arg, '=');
	const char *v = eq ? eq + 1 : "";
	size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);
	char *end;

	if (klen == 3 && !strncmp(arg, "out", 3))
		out_path = strdup(v);
	else if (klen == 5 && !strncmp(arg, "begin", 5))
		begin_sym = strdup(v);
	else if (klen == 3 && !strncmp(arg, "end", 3))
		end_sym = strdup(v);
	else if (klen == 6 && !strncmp(arg, "window", 6) && (!strcmp(v, "on") || !strcmp(v, "off")))
		use_window = !strcmp(v, "on");
	else if (klen == 3 && !strncmp(arg, "top", 3)) {
		unsigned long n = strtoul(v, &end, 10);

		if (*end || !*v || n < 1 || n > 100000)
			return false;
		top = (unsigned int)n;
	} else if (klen == 4 && !strncmp(arg, "line", 4)) {
		unsigned long n = strtoul(v, &end, 10);

		if (*end || !*v || n < 8 || n > 4096 || (n & (n - 1)))
			return false;
		line_shift = (unsigned int)__builtin_ctzl(n);
	} else
		return false;
	return true;
}

CM_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
				  char **argv)
{
	if (info->system_emulation) {
		fprintf(stderr, "coherence: this plugin is for qemu-user (threads as vCPUs), "
				"not qemu-system\n");
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		if (!parse_arg(argv[i])) {
			fprintf(stderr,
				"coherence: bad argument '%s' (out=FILE, line=BYTES a power of two "
				"from 8 to 4096, top=N from 1 to 100000, begin=SYMBOL, end=SYMBOL, "
				"window=on|off)\n",
				argv[i]);
			return -1;
		}
	}
	table_grow(&lines);
	table_grow(&insns);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
	qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
	return 0;
}
