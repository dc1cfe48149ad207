/*
 * workloads_sample.c - the workloads' own CPU-time profiler: see
 * workloads_sample.h. The program's functions are named from its own ELF
 * symbol table, so the file it writes needs nothing else to be read; shared
 * libraries' by dladdr.
 */
#ifndef _GNU_SOURCE
#error "build with -D_GNU_SOURCE"
#endif
#include "workloads_sample.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef REG_RIP
#error "the workloads' sampler reads x86_64's instruction pointer (REG_RIP)"
#endif

/* One thread's samples: an open-addressing table of instruction pointers. */
#define SAMPLE_SLOTS_SHIFT	13
#define SAMPLE_SLOTS		(1u << SAMPLE_SLOTS_SHIFT)

struct sample_slot {
	uintptr_t pc;
	unsigned long n;
};

struct sample_table {
	struct sample_slot slot[SAMPLE_SLOTS];
	unsigned long lost;	/* samples that found the table full */
	timer_t timer;
	bool armed;
};

static struct sample_table *tables;
static unsigned int ntables;
static const char *out_file;
static FILE *out;
static __thread struct sample_table *my_table;

/* Functions named in the file at the most; the rest are summed as "(other)". */
#define SAMPLE_LINES		4096

static void on_sigprof(int sig, siginfo_t *si, void *ctx)
{
	struct sample_table *tb = my_table;
	uintptr_t pc = (uintptr_t)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
	unsigned int h = (unsigned int)((pc * 0x9e3779b97f4a7c15ULL) >> (64 - SAMPLE_SLOTS_SHIFT));

	/* A late handler stands for the expirations it missed too. */
	unsigned long w = 1 + (unsigned long)(si->si_overrun > 0 ? si->si_overrun : 0);

	(void)sig;
	if (!tb)
		return;
	for (unsigned int k = 0; k < SAMPLE_SLOTS; k++, h = (h + 1) & (SAMPLE_SLOTS - 1)) {
		if (tb->slot[h].pc == pc) {
			tb->slot[h].n += w;
			return;
		}
		if (!tb->slot[h].pc) {
			tb->slot[h].pc = pc;
			tb->slot[h].n = w;
			return;
		}
	}
	tb->lost += w;
}

/* wl_sample_init: see workloads_sample.h. */
bool wl_sample_init(const char *file, unsigned int nthreads)
{
	struct sigaction sa;

	out = fopen(file, "w");
	if (!out) {
		fprintf(stderr, "workloads: --sample: %s: %s\n", file, strerror(errno));
		return false;
	}
	tables = calloc(nthreads, sizeof(*tables));
	if (!tables) {
		fprintf(stderr, "workloads: --sample: no memory for %u threads' tables\n", nthreads);
		return false;
	}
	ntables = nthreads;
	out_file = file;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigprof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL)) {
		fprintf(stderr, "workloads: --sample: sigaction(SIGPROF): %s\n", strerror(errno));
		return false;
	}
	return true;
}

/* wl_sample_thread_start: see workloads_sample.h. */
void wl_sample_thread_start(unsigned int id)
{
	struct sample_table *tb = &tables[id];
	struct sigevent sev;
	struct itimerspec its = {
		.it_interval = {0, WL_SAMPLE_PERIOD_NS},
		.it_value = {0, WL_SAMPLE_PERIOD_NS},
	};
	static bool said;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGPROF;
	sev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, &tb->timer) ||
	    timer_settime(tb->timer, 0, &its, NULL)) {
		if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
			fprintf(stderr, "workloads: --sample: thread %u: no timer: %s\n", id,
				strerror(errno));
		return;
	}
	tb->armed = true;
	my_table = tb;
}

/* wl_sample_thread_stop: see workloads_sample.h. */
void wl_sample_thread_stop(void)
{
	struct sample_table *tb = my_table;

	if (!tb || !tb->armed)
		return;
	timer_delete(tb->timer);
	tb->armed = false;
	my_table = NULL;
}

/* A function of the program: [start, end) from its load address. */
struct self_sym {
	uintptr_t start, end;
	const char *name;
};

static int self_sym_cmp(const void *a, const void *b)
{
	const struct self_sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The program's functions from its ELF symbol table, sorted by address; *n
 * their count; *pie whether the addresses are from the load address (a
 * position-independent program) or absolute. NULL (and *n 0) when the table
 * cannot be read: the program's samples are then written by address.
 */
static struct self_sym *self_syms(const char *path, size_t *n, bool *pie)
{
	FILE *f = fopen(path, "rb");
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	char *str = NULL;
	Elf64_Sym *sym = NULL;
	struct self_sym *out = NULL;
	size_t nsym = 0;

	*n = 0;
	if (!f || fread(&eh, sizeof(eh), 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_shentsize != sizeof(Elf64_Shdr))
		goto out;
	sh = calloc(eh.e_shnum, sizeof(*sh));
	*pie = eh.e_type == ET_DYN;
	if (!sh || fseek(f, (long)eh.e_shoff, SEEK_SET) ||
	    fread(sh, sizeof(*sh), eh.e_shnum, f) != eh.e_shnum)
		goto out;
	for (unsigned int i = 0; i < eh.e_shnum; i++) {
		const Elf64_Shdr *st = &sh[i], *ss;

		if (st->sh_type != SHT_SYMTAB || st->sh_link >= eh.e_shnum)
			continue;
		ss = &sh[st->sh_link];
		nsym = st->sh_size / sizeof(Elf64_Sym);
		sym = malloc(st->sh_size);
		str = malloc(ss->sh_size + 1);
		out = calloc(nsym, sizeof(*out));
		if (!sym || !str || !out || fseek(f, (long)st->sh_offset, SEEK_SET) ||
		    fread(sym, sizeof(Elf64_Sym), nsym, f) != nsym ||
		    fseek(f, (long)ss->sh_offset, SEEK_SET) ||
		    fread(str, 1, ss->sh_size, f) != ss->sh_size)
			goto out;
		str[ss->sh_size] = '\0';
		for (size_t k = 0; k < nsym; k++)
			if (ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC && sym[k].st_size &&
			    sym[k].st_name < ss->sh_size)
				out[(*n)++] = (struct self_sym){ sym[k].st_value,
								 sym[k].st_value + sym[k].st_size,
								 str + sym[k].st_name };
		break;
	}
	qsort(out, *n, sizeof(*out), self_sym_cmp);
out:
	if (f)
		fclose(f);
	free(sh);
	free(sym);
	if (!*n) {
		free(out);
		free(str);
		return NULL;
	}
	return out;	/* the names point into str, kept with it for the program's life */
}

static const char *self_sym_at(const struct self_sym *s, size_t n, uintptr_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && off < s[lo - 1].end ? s[lo - 1].name : NULL;
}

/* One line of the output: a function (or an address) and its samples. */
struct sample_line {
	char name[160];
	unsigned long n;
};

static int sample_line_cmp(const void *a, const void *b)
{
	const struct sample_line *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(x->name, y->name);
}

/* wl_sample_write: see workloads_sample.h. */
bool wl_sample_write(void)
{
	Dl_info self;
	size_t nsyms, nlines = 0;
	bool pie = true;
	struct self_sym *syms;
	struct sample_line *lines = calloc(SAMPLE_LINES + 1, sizeof(*lines));
	unsigned long total = 0, lost = 0;

	if (!lines || !dladdr((void *)wl_sample_write, &self)) {
		fprintf(stderr, "workloads: --sample: cannot merge the samples\n");
		return false;
	}
	/*
	 * The program's file: the name its loader gave it, which is the program
	 * even when it was started through a dynamic loader named on the command
	 * line (the bundle's), where /proc/self/exe is the loader.
	 */
	syms = self_syms(self.dli_fname && *self.dli_fname ? self.dli_fname : "/proc/self/exe",
			 &nsyms, &pie);
	if (!syms && self.dli_fname && *self.dli_fname)
		syms = self_syms("/proc/self/exe", &nsyms, &pie);
	for (unsigned int t = 0; t < ntables; t++) {
		lost += tables[t].lost;
		for (unsigned int k = 0; k < SAMPLE_SLOTS; k++) {
			const struct sample_slot *s = &tables[t].slot[k];
			char name[160];
			Dl_info di;
			const char *fn = NULL;
			size_t j;

			if (!s->pc)
				continue;
			total += s->n;
			if (dladdr((void *)s->pc, &di) && di.dli_fbase == self.dli_fbase) {
				uintptr_t off = s->pc - (pie ? (uintptr_t)self.dli_fbase : 0);

				fn = syms ? self_sym_at(syms, nsyms, off) : NULL;
				if (fn)
					snprintf(name, sizeof(name), "%s", fn);
				else
					snprintf(name, sizeof(name), "0x%lx", (unsigned long)off);
			} else if (di.dli_fname) {
				const char *lib = strrchr(di.dli_fname, '/');

				snprintf(name, sizeof(name), "%s [%s]", di.dli_sname ? di.dli_sname : "?",
					 lib ? lib + 1 : di.dli_fname);
			} else {
				snprintf(name, sizeof(name), "0x%lx [?]", (unsigned long)s->pc);
			}
			for (j = 0; j < nlines && strcmp(lines[j].name, name); j++)
				;
			if (j == nlines && nlines == SAMPLE_LINES)
				snprintf(lines[j].name, sizeof(lines[j].name), "(other)");
			else if (j == nlines)
				memcpy(lines[nlines++].name, name, sizeof(name));
			lines[j].n += s->n;
		}
	}
	if (lines[SAMPLE_LINES].n)
		nlines++;	/* "(other)" */
	qsort(lines, nlines, sizeof(*lines), sample_line_cmp);
	fprintf(out, "# workloads --sample: SIGPROF to each thread every %ld ns; "
		   "samples %lu, lost %lu (a thread's table full)\n", WL_SAMPLE_PERIOD_NS, total, lost);
	for (size_t j = 0; j < nlines; j++)
		fprintf(out, "%6.2f%% %lu %s\n", total ? 100.0 * (double)lines[j].n / (double)total : 0.0,
			lines[j].n, lines[j].name);
	free(lines);
	if (fclose(out)) {
		fprintf(stderr, "workloads: --sample: %s: %s\n", out_file, strerror(errno));
		return false;
	}
	return true;
}
