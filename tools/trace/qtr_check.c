/*
 * qtr_check.c - the whole-trace check shared by the host replay and the
 * kernel's (qtr_check.h). Every fault is one line naming the event number
 * or header field and the value found; the first one ends the check.
 */
#include "qtr_check.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/bug.h"
#include <stdarg.h>

/* Where the messages go: the caller's buffer. */
struct qtr_err {
	char *buf;
	size_t len;
};

static int __printf(2, 3) fail(struct qtr_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->buf, e->len, fmt, ap);
	va_end(ap);
	return -1;
}

static bool has_nul(const void *p, uint64_t n)
{
	const char *s = p;

	for (uint64_t i = 0; i < n; i++)
		if (!s[i])
			return true;
	return false;
}

/* qtr_type_name: see qtr_check.h. */
const char *qtr_type_name(unsigned int type)
{
	static const char *const names[QTR_NR_TYPES] = {
		[QTR_KMALLOC] = "kmalloc",	   [QTR_KFREE] = "kfree",
		[QTR_CACHE_ALLOC] = "cache alloc", [QTR_CACHE_FREE] = "cache free",
		[QTR_PAGE_ALLOC] = "page alloc",   [QTR_PAGE_FREE] = "page free",
	};

	return type < QTR_NR_TYPES && names[type] ? names[type] : "?";
}

static int string_at(struct qtr_view *v, struct qtr_err *e, uint32_t off, const char *what,
		     const char **out)
{
	if (off < sizeof(struct qtr_header) || off >= v->size)
		return fail(e, "header field '%s_off' (%u) is outside the file (%llu bytes)", what, off,
			    (unsigned long long)v->size);
	if (!has_nul(v->data + off, v->size - off))
		return fail(e, "the %s string at %u has no end (no NUL before the end of the file)",
			    what, off);
	*out = (const char *)v->data + off;
	return 0;
}

/* qtr_check_header: see qtr_check.h. */
int qtr_check_header(struct qtr_view *v, const void *data, uint64_t size, char *err, size_t errlen)
{
	struct qtr_err e = { err, errlen };
	const struct qtr_header *h = data;
	uint64_t end;

	ASSERT(v && data && err && errlen);
	memset(v, 0, sizeof(*v));
	v->data = data;
	v->size = size;
	v->hdr = h;
	if ((uintptr_t)data % 8)
		return fail(&e, "the trace is at %p, not 8-byte aligned", data);
	if (size < 8 || memcmp(h->magic, QTR_MAGIC, 8))
		return fail(&e, "not a Quarry trace (no '%s' at the start): convert the recorded text "
				"first (build/replay/bin/convert, or make replay does it)", QTR_MAGIC);
	if (size < sizeof(*h))
		return fail(&e, "truncated: %llu bytes, shorter than the %zu-byte header",
			    (unsigned long long)size, sizeof(*h));
	if (h->version != QTR_VERSION)
		return fail(&e, "format version %u, but this replay reads version %u only", h->version,
			    QTR_VERSION);
	if (h->header_bytes != sizeof(*h) || h->event_bytes != sizeof(struct qtr_event) ||
	    h->cache_bytes != sizeof(struct qtr_cache))
		return fail(&e, "header field 'header_bytes/event_bytes/cache_bytes' is %u/%u/%u, "
				"version %u has %zu/%zu/%zu", h->header_bytes, h->event_bytes,
			    h->cache_bytes, QTR_VERSION, sizeof(*h), sizeof(struct qtr_event),
			    sizeof(struct qtr_cache));
	if (!h->cpus || h->cpus > 4096)
		return fail(&e, "header field 'cpus' is %u (1 to 4096)", h->cpus);
	if (h->page_size < 4096 || (h->page_size & (h->page_size - 1)))
		return fail(&e, "header field 'page_size' is %u (a power of two, at least 4096)",
			    h->page_size);
	if (string_at(v, &e, h->kernel_off, "kernel", &v->kernel) ||
	    string_at(v, &e, h->command_off, "command", &v->command))
		return -1;
	end = h->caches_off + (uint64_t)h->n_caches * sizeof(struct qtr_cache);
	if (h->caches_off % 8 || h->caches_off < sizeof(*h) || h->caches_off > size || end > size)
		return fail(&e, "header fields 'caches_off/n_caches' (%llu/%u) point outside the file "
				"(%llu bytes)", (unsigned long long)h->caches_off, h->n_caches,
			    (unsigned long long)size);
	if (h->n_events > QTR_NONE || h->n_objects > QTR_NONE)
		return fail(&e, "header fields 'n_events/n_objects' (%llu/%llu) are over %u",
			    (unsigned long long)h->n_events, (unsigned long long)h->n_objects, QTR_NONE);
	end = h->events_off + h->n_events * sizeof(struct qtr_event);
	if (h->events_off % 8 || h->events_off < sizeof(*h) || h->events_off > size || end != size)
		return fail(&e, "truncated or overlong: %llu events at offset %llu need %llu bytes, "
				"the file has %llu", (unsigned long long)h->n_events,
			    (unsigned long long)h->events_off, (unsigned long long)end,
			    (unsigned long long)size);
	v->caches = (const struct qtr_cache *)(v->data + h->caches_off);
	v->ev = (const struct qtr_event *)(v->data + h->events_off);
	for (uint32_t i = 0; i < h->n_caches; i++) {
		const struct qtr_cache *c = &v->caches[i];

		if (!has_nul(c->name, sizeof(c->name)) || !c->name[0])
			return fail(&e, "cache %u: field 'name' is empty or has no NUL in its %zu bytes",
				    i, sizeof(c->name));
		if (!c->object_size || c->object_size > (4U << 20))
			return fail(&e, "cache %u (%s): field 'object_size' is %u (1 to 4 MiB)", i,
				    c->name, c->object_size);
	}
	return 0;
}

/* What is live at one point of the check. */
struct live_now {
	unsigned long long objs, req, pages, user;
};

/* Count allocation a in (dir 1) or out of (dir -1) the live figures, and note the peaks. */
static void live_add(struct qtr_view *v, struct live_now *n, const struct qtr_event *a, int dir)
{
	unsigned long long bytes = a->type == QTR_PAGE_ALLOC
					   ? (unsigned long long)v->hdr->page_size << a->cache
					   : a->size_req;

	n->objs += dir;
	if (a->type != QTR_PAGE_ALLOC)
		n->req += dir * bytes;
	else if (!(a->flags & QTR_F_NOT_REPLAYED)) {
		n->pages += dir * bytes;
		if (a->flags & QTR_F_USER)
			n->user += dir * bytes;
	}
	if (n->objs > v->peak_objects)
		v->peak_objects = n->objs;
	if (n->req > v->peak_req)
		v->peak_req = n->req;
	if (n->pages > v->peak_pages)
		v->peak_pages = n->pages;
	if (n->user > v->peak_user_pages)
		v->peak_user_pages = n->user;
}

/* qtr_check_events: see qtr_check.h. */
int qtr_check_events(struct qtr_view *v, qtr_obj_at obj, void *ctx, char *err, size_t errlen)
{
	struct qtr_err er = { err, errlen };
	const struct qtr_header *h = v->hdr;
	uint64_t counts[QTR_NR_TYPES] = { 0 };
	struct live_now now = { 0 };

	ASSERT(v && v->hdr && v->ev && obj && err && errlen);
	for (uint64_t i = 0; i < h->n_events; i++) {
		const struct qtr_event *e = &v->ev[i];
		bool page = e->type == QTR_PAGE_ALLOC || e->type == QTR_PAGE_FREE;
		const char *tn = qtr_type_name(e->type);
		unsigned long long n = (unsigned long long)i;
		struct qtr_obj *o;

		if (!e->type || e->type >= QTR_NR_TYPES)
			return fail(&er, "event %llu: field 'type' is %u (1 to %u)", n, e->type,
				    QTR_NR_TYPES - 1);
		counts[e->type]++;
		if (e->cpu >= h->cpus)
			return fail(&er, "event %llu (%s): field 'cpu' is %u, the trace has %u CPUs", n,
				    tn, e->cpu, h->cpus);
		if (e->object >= h->n_objects)
			return fail(&er, "event %llu (%s): field 'object' is %u, the trace has %llu "
					 "objects", n, tn, e->object, (unsigned long long)h->n_objects);
		if (page && e->cache > 20)
			return fail(&er, "event %llu (%s): field 'order' (cache) is %u (0 to 20)", n, tn,
				    e->cache);
		if (!page && e->cache != QTR_NONE && e->cache >= h->n_caches)
			return fail(&er, "event %llu (%s): field 'cache' is %u, the trace has %u caches",
				    n, tn, e->cache, h->n_caches);
		if (e->type == QTR_CACHE_ALLOC && e->cache == QTR_NONE)
			return fail(&er, "event %llu (cache alloc): field 'cache' names no cache", n);
		o = obj(ctx, e->object);
		if (qtr_is_alloc(e->type)) {
			if (o->state)
				return fail(&er, "event %llu (%s): object %u was allocated before, by "
						 "event %u", n, tn, e->object, o->alloc_event);
			if (e->alloc_event != QTR_NONE)
				return fail(&er, "event %llu (%s): field 'alloc_event' is %u, an "
						 "allocation has %u", n, tn, e->alloc_event, QTR_NONE);
			if (e->size_alloc < e->size_req)
				return fail(&er, "event %llu (%s): field 'size_alloc' %u is less than "
						 "'size_req' %u", n, tn, e->size_alloc, e->size_req);
			o->state = 1;
			o->alloc_event = (uint32_t)i;
			live_add(v, &now, e, 1);
			continue;
		}
		if (o->state != 1)
			return fail(&er, "event %llu (%s): object %u is not live (%s)", n, tn, e->object,
				    o->state ? "freed already" : "never allocated");
		if (e->alloc_event != o->alloc_event)
			return fail(&er, "event %llu (%s): field 'alloc_event' is %u, object %u was "
					 "allocated by event %u", n, tn, e->alloc_event, e->object,
				    o->alloc_event);
		if (page != (v->ev[e->alloc_event].type == QTR_PAGE_ALLOC))
			return fail(&er, "event %llu (%s): frees object %u, allocated as a %s", n, tn,
				    e->object, qtr_type_name(v->ev[e->alloc_event].type));
		if (e->cache != v->ev[e->alloc_event].cache)
			return fail(&er, "event %llu (%s): field '%s' is %u, object %u was allocated "
					 "with %u", n, tn, page ? "order" : "cache", e->cache, e->object,
				    v->ev[e->alloc_event].cache);
		o->state = 2;
		live_add(v, &now, &v->ev[e->alloc_event], -1);
	}
	for (unsigned int ty = 1; ty < QTR_NR_TYPES; ty++)
		if (counts[ty] != h->counts[ty])
			return fail(&er, "header field 'counts[%s]' is %llu, the file holds %llu such "
					 "events", qtr_type_name(ty), (unsigned long long)h->counts[ty],
				    (unsigned long long)counts[ty]);
	v->live_end = 0;
	for (uint64_t id = 0; id < h->n_objects; id++) {
		struct qtr_obj *o = obj(ctx, (uint32_t)id);

		if (!o->state)
			return fail(&er, "object %llu is never allocated (header field 'n_objects' is "
					 "%llu)", (unsigned long long)id, (unsigned long long)h->n_objects);
		v->live_end += o->state == 1;
	}
	return 0;
}
