/* repstr.c - x86_64 rep string instructions for the cache model (repstr.h). */
#include "repstr.h"

#include <stdbool.h>

enum {
	OP_MOVSB = 0xa4, OP_MOVS = 0xa5, OP_STOSB = 0xaa, OP_STOS = 0xab,
	PFX_REP = 0xf3, PFX_REPNE = 0xf2, PFX_OPSIZE = 0x66,
};

/* A legacy prefix other than rep and repne: lock, segment overrides, operand and address size. */
static bool is_other_prefix(uint8_t b)
{
	switch (b) {
	case 0xf0: case 0x2e: case 0x36: case 0x3e: case 0x26: case 0x64: case 0x65:
	case PFX_OPSIZE: case 0x67:
		return true;
	default:
		return false;
	}
}

static bool is_rex(uint8_t b)
{
	return (b & 0xf0) == 0x40;
}

/* The operand size of a word-or-wider string opcode: REX.W 8, else 0x66 2, else 4. */
static unsigned int wide_size(bool rex_w, bool opsize)
{
	if (rex_w)
		return 8;
	return opsize ? 2 : 4;
}

/* rep_string_size: see repstr.h. */
unsigned int rep_string_size(const uint8_t *b, size_t n)
{
	bool rep = false, opsize = false, rex_w = false;
	size_t i;
	uint8_t op;

	if (!n)
		return 0;
	for (i = 0; i + 1 < n; i++) {
		if (b[i] == PFX_REP || b[i] == PFX_REPNE)
			rep = b[i] == PFX_REP;	/* the last of the two decides */
		else if (is_other_prefix(b[i]))
			opsize |= b[i] == PFX_OPSIZE;
		else if (is_rex(b[i]) && i + 2 == n)
			rex_w = b[i] & 0x08;
		else if (!is_rex(b[i]))
			return 0;	/* not a prefix: some other instruction */
	}
	op = b[n - 1];
	if (!rep)
		return 0;
	if (op == OP_MOVSB || op == OP_STOSB)
		return 1;
	if (op == OP_MOVS || op == OP_STOS)
		return wide_size(rex_w, opsize);
	return 0;
}

/* rep_xfer_cycles: see repstr.h. */
uint64_t rep_xfer_cycles(uint64_t done, uint64_t bytes, unsigned int rate)
{
	uint64_t before = (done + rate - 1) / rate, after = (done + bytes + rate - 1) / rate;

	return after - before;
}
