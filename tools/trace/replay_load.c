/*
 * replay_load.c - read a Quarry trace (tools/trace/qtrace.h) into memory and
 * check all of it before anything is replayed: the header, every offset and
 * string, and every event (type, CPU, cache, object id used once by one
 * allocation, each free after its allocation and naming it). A bad file is
 * refused with "replay: FILE: ..." naming the event and field.
 */
#include "replay.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *trace_path;

/* Print "replay: FILE: ..." and exit with status 1. */
static void __attribute__((noreturn, format(printf, 1, 2))) refuse(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "replay: %s: ", trace_path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* replay_type_name: see replay.h. */
const char *replay_type_name(unsigned int type)
{
	return qtr_type_name(type);
}

static struct qtr_obj *obj_in_array(void *ctx, uint32_t id)
{
	return (struct qtr_obj *)ctx + id;
}

/* replay_load: see replay.h. */
void replay_load(const char *path, struct replay_trace *t)
{
	assert(path && t);
	FILE *f = fopen(path, "rb");
	struct qtr_obj *objs;
	unsigned char *data;
	char err[256];
	long size;

	trace_path = path;
	memset(t, 0, sizeof(*t));
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(errno));
		exit(1);
	}
	t->size = (uint64_t)size;
	/* 8-aligned, with room for a header even in a short file. */
	data = aligned_alloc(8, (t->size + sizeof(struct qtr_header) + 7) & ~(size_t)7);
	if (!data)
		refuse("out of memory for %zu bytes", (size_t)t->size);
	memset(data, 0, sizeof(struct qtr_header));
	if (fread(data, 1, t->size, f) != t->size) {
		fprintf(stderr, "replay: reading %s: %s\n", path, strerror(errno));
		exit(1);
	}
	fclose(f);
	if (qtr_check_header(t, data, t->size, err, sizeof(err)))
		refuse("%s", err);
	objs = calloc(t->hdr->n_objects ? t->hdr->n_objects : 1, sizeof(*objs));
	if (!objs)
		refuse("out of memory checking %llu objects", (unsigned long long)t->hdr->n_objects);
	if (qtr_check_events(t, obj_in_array, objs, err, sizeof(err)))
		refuse("%s", err);
	free(objs);
}

/* replay_dump: see replay.h. */
void replay_dump(const struct replay_trace *t, FILE *f)
{
	assert(t && t->hdr && t->ev && f);
	const struct qtr_header *h = t->hdr;
	static const struct {
		uint8_t bit;
		const char *name;
	} fl[] = {{QTR_F_ZERO, "zero"},	      {QTR_F_USER, "user"},	    {QTR_F_SLAB_PAGE, "slab-page"},
		  {QTR_F_LARGE, "large"},     {QTR_F_INTERNAL, "internal"}, {QTR_F_IMPLICIT, "implicit"}};

	fprintf(f, "trace: version %u, kernel '%s', command '%s', %u CPUs, page size %u\n", h->version,
		t->kernel, t->command, h->cpus, h->page_size);
	fprintf(f, "events %llu, objects %llu, caches %u:", (unsigned long long)h->n_events,
		(unsigned long long)h->n_objects, h->n_caches);
	for (unsigned int ty = 1; ty < QTR_NR_TYPES; ty++)
		fprintf(f, " %s %llu%s", qtr_type_name(ty), (unsigned long long)h->counts[ty],
			ty + 1 < QTR_NR_TYPES ? "," : "\n");
	fprintf(f, "source: %llu lines, %llu events; dropped: %llu kfree(NULL), %llu early frees, %llu "
		   "early page frees, %llu failed allocations; added: %llu implicit frees, %llu implicit "
		   "page frees; %llu order mismatches; %llu live at the end\n",
		(unsigned long long)h->source_lines, (unsigned long long)h->source_events,
		(unsigned long long)h->kfree_null, (unsigned long long)h->early_frees,
		(unsigned long long)h->early_page_frees, (unsigned long long)h->failed_allocs,
		(unsigned long long)h->implicit_frees, (unsigned long long)h->implicit_page_frees,
		(unsigned long long)h->order_mismatches, (unsigned long long)h->live_at_end);
	fprintf(f, "peaks: %llu objects, %llu bytes requested, %llu page bytes (%llu user)\n",
		(unsigned long long)h->peak_live_objects, (unsigned long long)h->peak_req_bytes,
		(unsigned long long)h->peak_page_bytes, (unsigned long long)h->peak_user_page_bytes);
	for (uint32_t i = 0; i < h->n_caches; i++)
		fprintf(f, "cache %u: %s object_size %u linux_size %u allocs %llu\n", i, t->caches[i].name,
			t->caches[i].object_size, t->caches[i].linux_size,
			(unsigned long long)t->caches[i].allocs);
	for (uint64_t i = 0; i < h->n_events; i++) {
		const struct qtr_event *e = &t->ev[i];
		bool page = e->type == QTR_PAGE_ALLOC || e->type == QTR_PAGE_FREE;

		fprintf(f, "%llu: cpu %u %s object %u", (unsigned long long)i, e->cpu, qtr_type_name(e->type),
			e->object);
		if (page)
			fprintf(f, " order %u", e->cache);
		else if (e->cache != QTR_NONE)
			fprintf(f, " cache %u", e->cache);
		if (e->alloc_event != QTR_NONE)
			fprintf(f, " of event %u", e->alloc_event);
		else
			fprintf(f, " req %u alloc %u", e->size_req, e->size_alloc);
		for (size_t b = 0; b < sizeof(fl) / sizeof(fl[0]); b++)
			if (e->flags & fl[b].bit)
				fprintf(f, " %s", fl[b].name);
		fputc('\n', f);
	}
}
