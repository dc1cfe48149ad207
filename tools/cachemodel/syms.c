/* syms.c - the guest's function symbols (syms.h). */
#include "syms.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct symbol *syms;
uint32_t nsyms;

static int sym_cmp(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int load_symbols(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], name[400], type;
	unsigned long long addr;
	uint32_t cap = 1024, n = 1;

	if (!f) {
		fprintf(stderr, "cachemodel: cannot open the symbol file syms=%s: %s\n", path,
			strerror(errno));
		return -1;
	}
	syms = malloc(cap * sizeof(*syms));
	syms[0].addr = 0;
	syms[0].name = strdup("?");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %399s", &addr, &type, name) != 3)
			continue;
		if (!strchr("TtWw", type))
			continue;
		if (n == cap)
			syms = realloc(syms, (cap *= 2) * sizeof(*syms));
		syms[n].addr = addr;
		syms[n].name = strdup(name);
		n++;
	}
	fclose(f);
	if (n == 1) {
		fprintf(stderr, "cachemodel: no text symbols in syms=%s (expected `nm` output)\n",
			path);
		return -1;
	}
	qsort(syms + 1, n - 1, sizeof(*syms), sym_cmp);
	nsyms = n;
	return 0;
}

uint32_t sym_find(uint64_t vaddr)
{
	uint32_t lo = 1, hi = nsyms;	/* first symbol above vaddr is in [lo, hi] */

	if (nsyms <= 1)
		return 0;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;	/* 0 when vaddr is below every symbol */
}
