/*
 * qtr_check.h - the check of a whole Quarry trace (qtrace.h) before any of
 * it is replayed, written once for the host replay (tools/trace/replay.c)
 * and the kernel's (lab/replay.c): the header, every offset and string, the
 * cache table, and every event against the ones before it (type, CPU,
 * cache, object ids used once, each free after its allocation and naming
 * it, the header's counts). It reads the trace in place and allocates
 * nothing: the per-object state lives in memory the caller hands it.
 */
#ifndef TOOLS_TRACE_QTR_CHECK_H
#define TOOLS_TRACE_QTR_CHECK_H

#include "kernel/compiler.h"
#include "qtrace.h"

/* A trace in memory, as the check found it. */
struct qtr_view {
	const unsigned char *data;	/* the whole file, 8-aligned */
	uint64_t size;
	const struct qtr_header *hdr;
	const struct qtr_cache *caches;
	const struct qtr_event *ev;
	const char *kernel, *command;
	unsigned long long live_end;	/* objects and blocks the trace never frees */
	/* Peaks counted from the events (not the header's): the replay's memory. */
	unsigned long long peak_objects, peak_req, peak_pages, peak_user_pages;
};

/* What the event check keeps per object id: 8 bytes, the caller's memory. */
struct qtr_obj {
	uint32_t alloc_event;	/* the event that allocated it */
	uint32_t state;		/* 0 never allocated, 1 live, 2 freed */
};

/*
 * qtr_obj_at - the caller's record of object id (0..n_objects-1), zeroed
 * before qtr_check_events starts. A plain array or a table in pieces.
 */
typedef struct qtr_obj *(*qtr_obj_at)(void *ctx, uint32_t id);

/*
 * qtr_check_header - check the header, strings, offsets and cache table of
 * the size bytes at data (8-aligned, at least size bytes readable) and fill
 * v's pointers. Returns 0, or -1 with the fault in err (errlen bytes, NUL-
 * terminated): "not a Quarry trace ...", "truncated: ...", "header field
 * 'cpus' is ...", "cache 3 (name): field 'object_size' is ...".
 */
int qtr_check_header(struct qtr_view *v, const void *data, uint64_t size, char *err,
		     size_t errlen);

/*
 * qtr_check_events - after qtr_check_header returned 0: check every event
 * in file order, through obj(ctx, id) for each object's record (zeroed by
 * the caller, hdr->n_objects of them), and fill v's live_end and peaks.
 * Returns 0, or -1 with the first fault in err naming the event number and
 * field: "event 7 (kfree): object 3 is not live (freed already)". On
 * return 0 every record holds its object's allocation event.
 */
int qtr_check_events(struct qtr_view *v, qtr_obj_at obj, void *ctx, char *err, size_t errlen);

/* qtr_type_name - "kmalloc", "kfree", "cache alloc", ... for a QTR_* type; "?" otherwise. */
const char *qtr_type_name(unsigned int type);

/* qtr_is_alloc - true for the three allocation types. */
static inline bool qtr_is_alloc(unsigned int type)
{
	return type == QTR_KMALLOC || type == QTR_CACHE_ALLOC || type == QTR_PAGE_ALLOC;
}

#endif
