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

static const char *type_name(unsigned int type)
{
	static const char *const names[QTR_NR_TYPES] = {
		[QTR_KMALLOC] = "kmalloc",	   [QTR_KFREE] = "kfree",
		[QTR_CACHE_ALLOC] = "cache alloc", [QTR_CACHE_FREE] = "cache free",
		[QTR_PAGE_ALLOC] = "page alloc",   [QTR_PAGE_FREE] = "page free",
	};

	return type < QTR_NR_TYPES && names[type] ? names[type] : "?";
}

/* replay_type_name: see replay.h. */
const char *replay_type_name(unsigned int type)
{
	return type_name(type);
}

static const char *string_at(const struct replay_trace *t, uint32_t off, const char *what)
{
	if (off < sizeof(struct qtr_header) || off >= t->size)
		refuse("header field '%s_off' (%u) is outside the file (%zu bytes)", what, off, t->size);
	if (!memchr(t->data + off, '\0', t->size - off))
		refuse("the %s string at %u has no end (no NUL before the end of the file)", what, off);
	return (const char *)t->data + off;
}

static void check_header(struct replay_trace *t)
{
	const struct qtr_header *h = t->hdr;
	uint64_t end;

	if (t->size < 8 || memcmp(h->magic, QTR_MAGIC, 8))
		refuse("not a Quarry trace (no '%s' at the start): convert the recorded text first "
		       "(build/replay/bin/convert, or make replay does it)", QTR_MAGIC);
	if (t->size < sizeof(*h))
		refuse("truncated: %zu bytes, shorter than the %zu-byte header", t->size, sizeof(*h));
	if (h->version != QTR_VERSION)
		refuse("format version %u, but this replay reads version %u only", h->version, QTR_VERSION);
	if (h->header_bytes != sizeof(*h) || h->event_bytes != sizeof(struct qtr_event) ||
	    h->cache_bytes != sizeof(struct qtr_cache))
		refuse("header field 'header_bytes/event_bytes/cache_bytes' is %u/%u/%u, version %u has "
		       "%zu/%zu/%zu", h->header_bytes, h->event_bytes, h->cache_bytes, QTR_VERSION,
		       sizeof(*h), sizeof(struct qtr_event), sizeof(struct qtr_cache));
	if (!h->cpus || h->cpus > 4096)
		refuse("header field 'cpus' is %u (1 to 4096)", h->cpus);
	if (h->page_size < 4096 || (h->page_size & (h->page_size - 1)))
		refuse("header field 'page_size' is %u (a power of two, at least 4096)", h->page_size);
	t->kernel = string_at(t, h->kernel_off, "kernel");
	t->command = string_at(t, h->command_off, "command");
	end = h->caches_off + (uint64_t)h->n_caches * sizeof(struct qtr_cache);
	if (h->caches_off % 8 || h->caches_off < sizeof(*h) || end > t->size)
		refuse("header fields 'caches_off/n_caches' (%llu/%u) point outside the file (%zu bytes)",
		       (unsigned long long)h->caches_off, h->n_caches, t->size);
	if (h->n_events > QTR_NONE || h->n_objects > QTR_NONE)
		refuse("header fields 'n_events/n_objects' (%llu/%llu) are over %u",
		       (unsigned long long)h->n_events, (unsigned long long)h->n_objects, QTR_NONE);
	end = h->events_off + h->n_events * sizeof(struct qtr_event);
	if (h->events_off % 8 || h->events_off < sizeof(*h) || end != t->size)
		refuse("truncated or overlong: %llu events at offset %llu need %llu bytes, the file has %zu",
		       (unsigned long long)h->n_events, (unsigned long long)h->events_off,
		       (unsigned long long)end, t->size);
	t->caches = (const struct qtr_cache *)(t->data + h->caches_off);
	t->ev = (const struct qtr_event *)(t->data + h->events_off);
	for (uint32_t i = 0; i < h->n_caches; i++) {
		const struct qtr_cache *c = &t->caches[i];

		if (!memchr(c->name, '\0', sizeof(c->name)) || !c->name[0])
			refuse("cache %u: field 'name' is empty or has no NUL in its %zu bytes", i,
			       sizeof(c->name));
		if (!c->object_size || c->object_size > (4U << 20))
			refuse("cache %u (%s): field 'object_size' is %u (1 to 4 MiB)", i, c->name,
			       c->object_size);
	}
}

/* What is live at one point of the check. */
struct live_now {
	unsigned long long objs, req, pages, user;
};

/* Count allocation a in (dir 1) or out of (dir -1) the live figures, and note the peaks. */
static void live_add(struct replay_trace *t, struct live_now *n, const struct qtr_event *a, int dir)
{
	unsigned long long bytes = a->type == QTR_PAGE_ALLOC ? (unsigned long long)t->hdr->page_size << a->cache
							     : a->size_req;

	n->objs += dir;
	if (a->type != QTR_PAGE_ALLOC)
		n->req += dir * bytes;
	else if (!(a->flags & QTR_F_NOT_REPLAYED)) {
		n->pages += dir * bytes;
		if (a->flags & QTR_F_USER)
			n->user += dir * bytes;
	}
	if (n->objs > t->peak_objects)
		t->peak_objects = n->objs;
	if (n->req > t->peak_req)
		t->peak_req = n->req;
	if (n->pages > t->peak_pages)
		t->peak_pages = n->pages;
	if (n->user > t->peak_user_pages)
		t->peak_user_pages = n->user;
}

/* Every event against the ones before it; fills t->live_end and the peaks. */
static void check_events(struct replay_trace *t)
{
	const struct qtr_header *h = t->hdr;
	uint32_t *alloc_at = malloc((size_t)(h->n_objects ? h->n_objects : 1) * sizeof(uint32_t));
	uint8_t *state = calloc(h->n_objects ? h->n_objects : 1, 1);	/* 0 never, 1 live, 2 freed */
	uint64_t counts[QTR_NR_TYPES] = {0};
	struct live_now now = {0};

	if (!alloc_at || !state)
		refuse("out of memory checking %llu objects", (unsigned long long)h->n_objects);
	for (uint64_t i = 0; i < h->n_events; i++) {
		const struct qtr_event *e = &t->ev[i];
		bool page = e->type == QTR_PAGE_ALLOC || e->type == QTR_PAGE_FREE;
		bool alloc = e->type == QTR_KMALLOC || e->type == QTR_CACHE_ALLOC ||
			     e->type == QTR_PAGE_ALLOC;

		if (!e->type || e->type >= QTR_NR_TYPES)
			refuse("event %llu: field 'type' is %u (1 to %u)", (unsigned long long)i, e->type,
			       QTR_NR_TYPES - 1);
		counts[e->type]++;
		if (e->cpu >= h->cpus)
			refuse("event %llu (%s): field 'cpu' is %u, the trace has %u CPUs",
			       (unsigned long long)i, type_name(e->type), e->cpu, h->cpus);
		if (e->object >= h->n_objects)
			refuse("event %llu (%s): field 'object' is %u, the trace has %llu objects",
			       (unsigned long long)i, type_name(e->type), e->object,
			       (unsigned long long)h->n_objects);
		if (page && e->cache > 20)
			refuse("event %llu (%s): field 'order' (cache) is %u (0 to 20)",
			       (unsigned long long)i, type_name(e->type), e->cache);
		if (!page && e->cache != QTR_NONE && e->cache >= h->n_caches)
			refuse("event %llu (%s): field 'cache' is %u, the trace has %u caches",
			       (unsigned long long)i, type_name(e->type), e->cache, h->n_caches);
		if (e->type == QTR_CACHE_ALLOC && e->cache == QTR_NONE)
			refuse("event %llu (cache alloc): field 'cache' names no cache",
			       (unsigned long long)i);
		if (alloc) {
			if (state[e->object])
				refuse("event %llu (%s): object %u was allocated before, by event %u",
				       (unsigned long long)i, type_name(e->type), e->object,
				       alloc_at[e->object]);
			if (e->alloc_event != QTR_NONE)
				refuse("event %llu (%s): field 'alloc_event' is %u, an allocation has %u",
				       (unsigned long long)i, type_name(e->type), e->alloc_event, QTR_NONE);
			if (e->size_alloc < e->size_req)
				refuse("event %llu (%s): field 'size_alloc' %u is less than 'size_req' %u",
				       (unsigned long long)i, type_name(e->type), e->size_alloc,
				       e->size_req);
			state[e->object] = 1;
			alloc_at[e->object] = (uint32_t)i;
			live_add(t, &now, e, 1);
			continue;
		}
		if (state[e->object] != 1)
			refuse("event %llu (%s): object %u is not live (%s)", (unsigned long long)i,
			       type_name(e->type), e->object,
			       state[e->object] ? "freed already" : "never allocated");
		if (e->alloc_event != alloc_at[e->object])
			refuse("event %llu (%s): field 'alloc_event' is %u, object %u was allocated by "
			       "event %u", (unsigned long long)i, type_name(e->type), e->alloc_event,
			       e->object, alloc_at[e->object]);
		if (page != (t->ev[e->alloc_event].type == QTR_PAGE_ALLOC))
			refuse("event %llu (%s): frees object %u, allocated as a %s", (unsigned long long)i,
			       type_name(e->type), e->object, type_name(t->ev[e->alloc_event].type));
		if (e->cache != t->ev[e->alloc_event].cache)
			refuse("event %llu (%s): field '%s' is %u, object %u was allocated with %u",
			       (unsigned long long)i, type_name(e->type), page ? "order" : "cache", e->cache,
			       e->object, t->ev[e->alloc_event].cache);
		state[e->object] = 2;
		live_add(t, &now, &t->ev[e->alloc_event], -1);
	}
	for (unsigned int ty = 1; ty < QTR_NR_TYPES; ty++)
		if (counts[ty] != h->counts[ty])
			refuse("header field 'counts[%s]' is %llu, the file holds %llu such events",
			       type_name(ty), (unsigned long long)h->counts[ty],
			       (unsigned long long)counts[ty]);
	t->live_end = 0;
	for (uint64_t o = 0; o < h->n_objects; o++) {
		if (!state[o])
			refuse("object %llu is never allocated (header field 'n_objects' is %llu)",
			       (unsigned long long)o, (unsigned long long)h->n_objects);
		t->live_end += state[o] == 1;
	}
	free(alloc_at);
	free(state);
}

/* replay_load: see replay.h. */
void replay_load(const char *path, struct replay_trace *t)
{
	assert(path && t);
	FILE *f = fopen(path, "rb");
	long size;

	trace_path = path;
	memset(t, 0, sizeof(*t));
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(errno));
		exit(1);
	}
	t->size = (size_t)size;
	/* 8-aligned, with room for a header even in a short file. */
	t->data = aligned_alloc(8, (t->size + sizeof(struct qtr_header) + 7) & ~(size_t)7);
	if (!t->data)
		refuse("out of memory for %zu bytes", t->size);
	memset(t->data, 0, sizeof(struct qtr_header));
	if (fread(t->data, 1, t->size, f) != t->size) {
		fprintf(stderr, "replay: reading %s: %s\n", path, strerror(errno));
		exit(1);
	}
	fclose(f);
	t->hdr = (const struct qtr_header *)t->data;
	check_header(t);
	check_events(t);
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
		fprintf(f, " %s %llu%s", type_name(ty), (unsigned long long)h->counts[ty],
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

		fprintf(f, "%llu: cpu %u %s object %u", (unsigned long long)i, e->cpu, type_name(e->type),
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
