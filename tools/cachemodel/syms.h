/*
 * syms.h - the guest's functions, from `nm -n` output (syms=FILE), for
 * per-function lines and region names.
 */
#ifndef TOOLS_CACHEMODEL_SYMS_H
#define TOOLS_CACHEMODEL_SYMS_H

#include <stdint.h>

struct symbol {
	uint64_t addr;
	char *name;
};

/* syms[0] is "?", for addresses below every symbol; NULL before load_symbols. */
extern struct symbol *syms;
extern uint32_t nsyms;

/*
 * load_symbols - read the text symbols (types T, t, W, w) of an nm listing
 * at path. Returns 0, or -1 after a line on stderr naming the file when it
 * cannot be read or holds no text symbol. Call once; the table lives as
 * long as the plugin.
 */
int load_symbols(const char *path);

/* sym_find - the index in syms of the function holding vaddr (0: none, or no table). */
uint32_t sym_find(uint64_t vaddr);

#endif
