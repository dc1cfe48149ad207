/*
 * convert.h - what convert.c shares with its table of live objects
 * (convert_live.c) and its input (convert_input.c).
 */
#ifndef TOOLS_TRACE_CONVERT_H
#define TOOLS_TRACE_CONVERT_H

#include <stdint.h>
#include <stdio.h>

/* A live slab object (key: its pointer) or page block (key: pfn | KEY_PAGE). */
struct live {
	uint64_t key;		/* 0: empty slot (a NULL pointer is never live) */
	uint32_t object;
	uint32_t alloc_event;
	uint32_t cache;		/* cache index, or the block's order */
	uint8_t type;		/* its allocation's type */
	uint8_t flags;
	uint8_t counted;	/* page block: in the live page bytes (its stack is read) */
	uint32_t size_req;
	uint32_t size_alloc;
};

#define KEY_PAGE (1ULL << 63)

/*
 * live_find - the entry of key, or NULL. live_insert - a new entry for key
 * (not already in the table, not 0), its other fields for the caller to
 * fill; the table grows as needed (exits on out of memory). live_remove - take
 * out an entry live_find or live_insert returned; other entries' pointers
 * are no longer valid after an insert or a remove.
 */
struct live *live_find(uint64_t key);
struct live *live_insert(uint64_t key);
void live_remove(struct live *e);

/* convert_oom - "convert: out of memory ..." and exit 1 (convert.c). */
void __attribute__((noreturn)) convert_oom(void);

/*
 * open_input - the trace at path as a text stream: plain, or through
 * "gzip -dc"/"xz -dc" when its first bytes are theirs. A converted trace
 * (QTR_MAGIC) or an unreadable file is refused with a message and exit 1.
 * check_decompressor - after the stream's end, or at a line cut short:
 * if a decompressor ran and failed, "convert: FILE: 'xz -dc' failed after
 * line N ..." and exit 1; otherwise it returns.
 */
FILE *open_input(const char *path);
void check_decompressor(const char *in_name, unsigned long lineno);

#endif
