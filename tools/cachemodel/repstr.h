/*
 * repstr.h - x86_64 rep string instructions for the cache model: which
 * instructions a fast-string engine runs (rep stos and rep movs, told from
 * their bytes at translation time), and what a run of one costs in
 * transfer cycles. README.md in this folder says how a run is priced.
 */
#ifndef TOOLS_CACHEMODEL_REPSTR_H
#define TOOLS_CACHEMODEL_REPSTR_H

#include <stddef.h>
#include <stdint.h>

/*
 * rep_string_size - the operand size in bytes (1, 2, 4 or 8) when the n
 * bytes at b (readable; n may be 0) are one whole x86_64 instruction that is stos or movs with an
 * F3 (rep) prefix, in any order among the other legacy prefixes, a REX
 * prefix taken only right before the opcode; 0 for any other instruction
 * (F2-prefixed, lods, scas, cmps, ins, outs, no prefix) and for n of 0.
 */
unsigned int rep_string_size(const uint8_t *b, size_t n);

/*
 * rep_xfer_cycles - the transfer cycles that `bytes` more bytes add to a
 * run that had moved `done` bytes, at `rate` bytes a cycle (rate > 0): a
 * run of N bytes costs N / rate cycles rounded up in all, however its
 * bytes arrive.
 */
uint64_t rep_xfer_cycles(uint64_t done, uint64_t bytes, unsigned int rate);

#endif
