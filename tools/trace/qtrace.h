/*
 * qtrace.h - the Quarry trace format: a Linux kernel's recorded allocations
 * (tools/trace/record.sh), converted by tools/trace/convert into fixed-size
 * little-endian records that a replayer reads without parsing text.
 * Documentation/trace-replay.md describes it for readers and writers.
 *
 * Layout of a file, every number little-endian (the converter refuses to
 * run on a big-endian host), every offset from the
 * start of the file:
 *   struct qtr_header        at 0 (header_bytes long)
 *   strings                  the source kernel and the capture command,
 *                            each NUL-terminated, where the header points
 *   struct qtr_cache[]       n_caches entries at caches_off
 *   struct qtr_event[]       n_events entries at events_off, in the order
 *                            the traced kernel's clock gave them
 *
 * Pairing: every allocation gets an object id, 0..n_objects-1, used once;
 * the free that gives it back (if the trace has one) carries the same id
 * and the index of the allocation's event (alloc_event), so a replayer on
 * several CPUs knows what a remote free waits for. A free always follows
 * its allocation in the file. Slab objects and pages are paired apart: an
 * id belongs either to a slab object or to a block of pages.
 *
 * Compatibility: a reader refuses any magic other than QTR_MAGIC and any
 * version other than one it knows; a newer version may grow the header
 * (header_bytes) and the records (event_bytes, cache_bytes), never change
 * the meaning of a field that exists.
 */
#ifndef TOOLS_TRACE_QTRACE_H
#define TOOLS_TRACE_QTRACE_H

#include <stdint.h>

#define QTR_MAGIC	"QUARRYTR"	/* 8 bytes, no NUL */
#define QTR_VERSION	1

/* Event types (qtr_event.type). */
enum qtr_type {
	QTR_KMALLOC = 1,	/* kmalloc(size_req): Linux gave size_alloc bytes */
	QTR_KFREE = 2,		/* kfree of a slab object (any allocation event's) */
	QTR_CACHE_ALLOC = 3,	/* kmem_cache_alloc from cache (size_req = its object size) */
	QTR_CACHE_FREE = 4,	/* kmem_cache_free to the cache its object came from */
	QTR_PAGE_ALLOC = 5,	/* alloc_pages(order) */
	QTR_PAGE_FREE = 6,	/* free_pages(order) of that block */
	QTR_NR_TYPES = 7	/* counts[] is indexed by type; counts[0] unused */
};

/* Event flags (qtr_event.flags). */
#define QTR_F_ZERO	0x01	/* allocation asked for zeroed memory (__GFP_ZERO) */
#define QTR_F_USER	0x02	/* page block for user memory (GFP_HIGHUSER*, GFP_USER, GFP_TRANSHUGE*) */
#define QTR_F_SLAB_PAGE	0x04	/* page block the traced kernel's slab allocator took for a slab */
#define QTR_F_LARGE	0x08	/* page block behind a large kmalloc (the kmalloc event has it too) */
#define QTR_F_INTERNAL	0x10	/* kmalloc the traced slab allocator made for its own bookkeeping */
#define QTR_F_IMPLICIT	0x20	/* free not in the trace: the pointer was allocated again while live */
/* Page blocks a replay of slab and page events together must skip, as the
 * replaying allocator makes its own slabs and large kmallocs. */
#define QTR_F_NOT_REPLAYED (QTR_F_SLAB_PAGE | QTR_F_LARGE | QTR_F_INTERNAL)

#define QTR_NONE	0xffffffffu	/* no cache, no allocation event */

/* The file header. */
struct qtr_header {
	char magic[8];		/* QTR_MAGIC */
	uint32_t version;	/* QTR_VERSION */
	uint32_t header_bytes;	/* sizeof(struct qtr_header) of the writer */
	uint32_t cpus;		/* CPUs of the traced machine (events name 0..cpus-1) */
	uint32_t page_size;	/* the traced machine's page size, bytes */
	uint32_t n_caches;
	uint32_t cache_bytes;	/* sizeof(struct qtr_cache) */
	uint32_t event_bytes;	/* sizeof(struct qtr_event) */
	uint32_t kernel_off;	/* "6.18.44 x86_64": the traced kernel (NUL-terminated) */
	uint32_t command_off;	/* the command that ran during the capture */
	uint32_t reserved0;
	uint64_t caches_off;
	uint64_t events_off;
	uint64_t n_events;
	uint64_t n_objects;	/* object ids are 0..n_objects-1 */
	uint64_t counts[QTR_NR_TYPES];	/* events of each type in the file */
	/* What the converter read and left out or added. */
	uint64_t source_lines;
	uint64_t source_events;		/* kmem events read */
	uint64_t kfree_null;		/* kfree(NULL) and kmem_cache_free(NULL): dropped */
	uint64_t early_frees;		/* frees of objects allocated before the capture: dropped */
	uint64_t early_page_frees;	/* the same for page blocks */
	uint64_t implicit_frees;	/* QTR_F_IMPLICIT frees added (objects) */
	uint64_t implicit_page_frees;	/* ... and page blocks */
	uint64_t order_mismatches;	/* page frees of another order than their allocation */
	uint64_t failed_allocs;		/* allocations the traced kernel failed: dropped */
	uint64_t live_at_end;		/* objects and blocks never freed in the trace */
	/* Peaks over the trace, to size a replayer's memory. */
	uint64_t peak_live_objects;
	uint64_t peak_req_bytes;	/* slab objects: bytes requested, live at once */
	uint64_t peak_page_bytes;	/* replayed page blocks (kernel and user) live at once */
	uint64_t peak_user_page_bytes;
	uint64_t reserved[8];
};

/* One cache the trace allocated from with kmem_cache_alloc. */
struct qtr_cache {
	char name[48];		/* as Linux named it, NUL-terminated (merged caches: one name) */
	uint32_t object_size;	/* bytes requested per object (Linux's bytes_req) */
	uint32_t linux_size;	/* bytes Linux used per object (bytes_alloc) */
	uint64_t allocs;	/* allocation events of this cache */
};

/* One event: 24 bytes. */
struct qtr_event {
	uint8_t type;		/* enum qtr_type */
	uint8_t flags;		/* QTR_F_* */
	uint16_t cpu;		/* the CPU it ran on, < header.cpus */
	uint32_t cache;		/* slab events: index in the cache table of the object's
				 * allocation (frees too), QTR_NONE for a kmalloc'd one;
				 * page events: the block's order in trace pages */
	uint32_t object;	/* object id */
	uint32_t size_req;	/* allocations: bytes requested; frees: 0 */
	uint32_t size_alloc;	/* allocations: bytes Linux gave (pages: page_size << order) */
	uint32_t alloc_event;	/* frees: index of the allocation's event; allocations: QTR_NONE */
};

_Static_assert(sizeof(struct qtr_event) == 24, "qtr_event is 24 bytes");
_Static_assert(sizeof(struct qtr_cache) == 64, "qtr_cache is 64 bytes");
_Static_assert(sizeof(struct qtr_header) == 312, "qtr_header layout");

#endif
