/*
 * convert.c - turn a recorded kmem trace (text from tools/trace/record.sh, or
 * any tracefs "trace"/"trace_pipe" text of the six kmem events; plain, .gz
 * or .xz) into a Quarry binary trace (tools/trace/qtrace.h).
 *
 *   convert [-q] [--cpus N] [--kernel TEXT] [--command TEXT] IN OUT
 *
 * Allocations and frees are paired by pointer (slab objects) or pfn (page
 * blocks), whatever the event's name; a free of something allocated before
 * the capture is dropped and counted, as is kfree(NULL); an allocation of a
 * pointer the trace still holds live gets a free inserted before it
 * (QTR_F_IMPLICIT: Linux does not trace bulk and some RCU frees). A page
 * allocation's stack (record.sh adds one) says whether the traced kernel's
 * slab allocator took it for a slab (QTR_F_SLAB_PAGE) or a large kmalloc
 * did (QTR_F_LARGE); kmallocs made by the traced slab allocator for its own
 * bookkeeping are QTR_F_INTERNAL.
 *
 * Bad input stops the conversion with "convert: FILE:LINE: ..." naming the
 * field, and exit status 1; nothing is written then (OUT is made at the end).
 */
#include "qtrace.h"
#include "convert.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_CPUS	4096
#define MAX_ORDER_SEEN	20	/* a 4 GiB block of 4K pages: anything larger is malformed */

static const char *in_name;
static unsigned long lineno;

/* Print "convert: FILE:LINE: ..." and exit 1. */
static void __attribute__((noreturn, format(printf, 1, 2))) bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "convert: %s:%lu: ", in_name, lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* convert_oom: see convert.h. */
void __attribute__((noreturn)) convert_oom(void)
{
	fprintf(stderr, "convert: out of memory at line %lu of %s\n", lineno, in_name);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		convert_oom();
	return p;
}

/* ---- caches ---- */

static struct qtr_cache *caches;
static uint32_t n_caches, caches_cap;

static uint32_t cache_index(const char *name, size_t len, uint32_t size, uint32_t linux_size)
{
	struct qtr_cache *c;

	if (len >= sizeof(c->name))
		bad("field 'name': cache name of %zu characters (at most %zu)", len, sizeof(c->name) - 1);
	for (uint32_t i = 0; i < n_caches; i++)
		if (caches[i].object_size == size && !strncmp(caches[i].name, name, len) &&
		    !caches[i].name[len])
			return i;
	if (n_caches == caches_cap) {
		caches_cap = caches_cap ? caches_cap * 2 : 64;
		caches = xrealloc(caches, caches_cap * sizeof(*caches));
	}
	c = &caches[n_caches];
	memset(c, 0, sizeof(*c));
	memcpy(c->name, name, len);
	c->object_size = size;
	c->linux_size = linux_size;
	return n_caches++;
}

/* ---- events ---- */

static struct qtr_event *ev;
static uint64_t n_ev, ev_cap;
static struct qtr_header hdr;
static uint32_t next_object;
static uint64_t live_objects, live_req, live_pages, live_user_pages;
static long pending_stack[MAX_CPUS];	/* page_alloc event awaiting its stack, or -1 */
static uint64_t pending_key[MAX_CPUS];	/* ... and its live key */

static struct qtr_event *emit(uint8_t type, uint8_t flags, unsigned int cpu)
{
	struct qtr_event *e;

	if (n_ev == ev_cap) {
		ev_cap = ev_cap ? ev_cap * 2 : 1 << 16;
		ev = xrealloc(ev, ev_cap * sizeof(*ev));
	}
	if (n_ev >= QTR_NONE)
		bad("more than %u events: split the trace", QTR_NONE - 1);
	e = &ev[n_ev++];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->flags = flags;
	e->cpu = (uint16_t)cpu;
	e->alloc_event = QTR_NONE;
	hdr.counts[type]++;
	return e;
}

static bool is_page_type(uint8_t type)
{
	return type == QTR_PAGE_ALLOC;
}

static uint64_t block_bytes(const struct live *l)
{
	return (uint64_t)hdr.page_size << l->cache;
}

/* Emit the free of live entry l on cpu (implicit: flagged) and forget it. */
static void free_live(struct live *l, uint8_t free_type, unsigned int cpu, uint8_t extra_flags)
{
	struct qtr_event *e = emit(free_type, (uint8_t)((l->flags & ~QTR_F_ZERO) | extra_flags), cpu);

	e->cache = l->cache;
	e->object = l->object;
	e->alloc_event = l->alloc_event;
	if (is_page_type(l->type)) {
		if (l->counted) {
			live_pages -= block_bytes(l);
			if (l->flags & QTR_F_USER)
				live_user_pages -= block_bytes(l);
		}
	} else {
		live_req -= l->size_req;
	}
	live_objects--;
	live_remove(l);
}

/* The free event type that gives back live entry l, as its allocation asks. */
static uint8_t free_type_of(const struct live *l, uint8_t traced)
{
	if (is_page_type(l->type))
		return QTR_PAGE_FREE;
	/* A cache free of a kmalloc'd object (no cache to name) replays as kfree. */
	if (traced == QTR_CACHE_FREE && l->type == QTR_CACHE_ALLOC)
		return QTR_CACHE_FREE;
	if (traced == QTR_KFREE || l->type == QTR_KMALLOC)
		return QTR_KFREE;
	return QTR_CACHE_FREE;
}

static void note_peaks(void)
{
	if (live_objects > hdr.peak_live_objects)
		hdr.peak_live_objects = live_objects;
	if (live_req > hdr.peak_req_bytes)
		hdr.peak_req_bytes = live_req;
	if (live_pages > hdr.peak_page_bytes)
		hdr.peak_page_bytes = live_pages;
	if (live_user_pages > hdr.peak_user_page_bytes)
		hdr.peak_user_page_bytes = live_user_pages;
}

static void alloc_event(uint8_t type, uint8_t flags, unsigned int cpu, uint64_t key, uint32_t cache,
			uint32_t req, uint32_t got)
{
	struct live *l = live_find(key);
	struct qtr_event *e;

	if (l) {
		if (is_page_type(l->type))
			hdr.implicit_page_frees++;
		else
			hdr.implicit_frees++;
		free_live(l, free_type_of(l, 0), cpu, QTR_F_IMPLICIT);
	}
	if (next_object == QTR_NONE)
		bad("more than %u objects: split the trace", QTR_NONE - 1);
	e = emit(type, flags, cpu);
	e->cache = cache;
	e->object = next_object++;
	e->size_req = req;
	e->size_alloc = got;
	l = live_insert(key);
	l->object = e->object;
	l->alloc_event = (uint32_t)(n_ev - 1);
	l->cache = cache;
	l->type = type;
	l->flags = flags;
	l->size_req = req;
	l->size_alloc = got;
	l->counted = 0;
	live_objects++;
	if (type != QTR_PAGE_ALLOC)
		live_req += req;
}

/*
 * The page block allocated last on cpu has all its stack now (another event
 * of that CPU came, or the end): count it in the live page bytes unless the
 * stack showed that the replay leaves it out.
 */
static void resolve_pending(unsigned int cpu)
{
	long i = pending_stack[cpu];
	struct live *l;

	pending_stack[cpu] = -1;
	if (i < 0)
		return;
	l = live_find(pending_key[cpu]);
	if (!l || l->alloc_event != (uint32_t)i || (l->flags & QTR_F_NOT_REPLAYED))
		return;
	l->counted = 1;
	live_pages += block_bytes(l);
	if (l->flags & QTR_F_USER)
		live_user_pages += block_bytes(l);
}

/* ---- text parsing ---- */

/* The value of "key=" in s (after the event name), its length in *len; NULL if absent. */
static const char *field(const char *s, const char *key, size_t *len)
{
	size_t k = strlen(key);

	for (const char *p = s; (p = strstr(p, key)); p += k) {
		if ((p == s || p[-1] == ' ') && p[k] == '=') {
			const char *v = p + k + 1;

			*len = strcspn(v, " \n");
			return v;
		}
	}
	return NULL;
}

static const char *need(const char *s, const char *event, const char *key, size_t *len)
{
	const char *v = field(s, key, len);

	if (!v)
		bad("%s event without the field '%s'", event, key);
	if (!*len)
		bad("%s event: field '%s' is empty", event, key);
	return v;
}

static uint64_t num(const char *s, const char *event, const char *key, int base, uint64_t max)
{
	size_t len;
	const char *v = need(s, event, key, &len);
	char buf[32], *end;
	unsigned long long x;

	if (len >= sizeof(buf))
		bad("%s event: field '%s' is not a number: '%.*s'", event, key, (int)(len > 40 ? 40 : len), v);
	memcpy(buf, v, len);
	buf[len] = '\0';
	errno = 0;
	x = strtoull(buf, &end, base);
	if (*end || errno || buf[0] == '-' || buf[0] == '+')
		bad("%s event: field '%s' is not a %s number: '%s'", event, key,
		    base == 16 ? "hexadecimal" : "decimal", buf);
	if (x > max)
		bad("%s event: field '%s' is %llu, more than %llu", event, key, x, (unsigned long long)max);
	return x;
}

/* gfp_flags=A|B|C: does it name flag (a whole |-separated word)? */
static bool gfp_has(const char *v, size_t len, const char *flag)
{
	size_t k = strlen(flag);

	for (const char *p = v; p < v + len;) {
		size_t w = strcspn(p, "| \n");

		if (w > (size_t)(v + len - p))
			w = (size_t)(v + len - p);
		if (w == k && !strncmp(p, flag, k))
			return true;
		p += w + 1;
	}
	return false;
}

static bool gfp_user(const char *v, size_t len)
{
	return gfp_has(v, len, "GFP_HIGHUSER_MOVABLE") || gfp_has(v, len, "GFP_HIGHUSER") ||
	       gfp_has(v, len, "GFP_USER") || gfp_has(v, len, "GFP_TRANSHUGE") ||
	       gfp_has(v, len, "GFP_TRANSHUGE_LIGHT");
}

/* Call sites inside the traced kernel's slab allocator: its own bookkeeping. */
static bool internal_site(const char *v, size_t len)
{
	static const char *const sites[] = {"alloc_slab_obj_exts", "alloc_empty_sheaf",
					    "__alloc_empty_sheaf", "init_kmem_cache_nodes"};

	for (size_t i = 0; i < sizeof(sites) / sizeof(sites[0]); i++) {
		size_t k = strlen(sites[i]);

		if (len >= k && !strncmp(v, sites[i], k) && (len == k || v[k] == '+' || v[k] == '.'))
			return true;
	}
	return false;
}

static uint64_t ptr_key(const char *s, const char *event)
{
	return num(s, event, "ptr", 16, UINT64_MAX) & ~KEY_PAGE;
}

static void slab_alloc_line(const char *s, const char *event, uint8_t type, unsigned int cpu)
{
	size_t glen, slen, nlen;
	uint64_t key = ptr_key(s, event);
	uint64_t req = num(s, event, "bytes_req", 10, UINT32_MAX);
	uint64_t got = num(s, event, "bytes_alloc", 10, UINT32_MAX);
	const char *gfp = need(s, event, "gfp_flags", &glen);
	const char *site = need(s, event, "call_site", &slen);
	uint32_t cache = QTR_NONE;
	uint8_t flags = 0;

	if (got < req)
		bad("%s event: bytes_alloc %llu is less than bytes_req %llu", event,
		    (unsigned long long)got, (unsigned long long)req);
	if (!key) {
		hdr.failed_allocs++;
		return;
	}
	if (type == QTR_CACHE_ALLOC) {
		const char *name = need(s, event, "name", &nlen);

		cache = cache_index(name, nlen, (uint32_t)req, (uint32_t)got);
		caches[cache].allocs++;
	}
	if (gfp_has(gfp, glen, "__GFP_ZERO"))
		flags |= QTR_F_ZERO;
	if (internal_site(site, slen))
		flags |= QTR_F_INTERNAL;
	alloc_event(type, flags, cpu, key, cache, (uint32_t)req, (uint32_t)got);
}

static void slab_free_line(const char *s, const char *event, uint8_t type, unsigned int cpu)
{
	uint64_t key = ptr_key(s, event);
	struct live *l;
	size_t len;

	need(s, event, "call_site", &len);
	if (type == QTR_CACHE_FREE)
		need(s, event, "name", &len);
	if (!key) {
		hdr.kfree_null++;
		return;
	}
	l = live_find(key);
	if (!l) {
		hdr.early_frees++;
		return;
	}
	free_live(l, free_type_of(l, type), cpu, 0);
}

static void page_alloc_line(const char *s, const char *event, unsigned int cpu)
{
	size_t glen, plen;
	const char *page = need(s, event, "page", &plen);
	uint64_t pfn = num(s, event, "pfn", 16, UINT64_MAX >> 2);
	uint64_t order = num(s, event, "order", 10, MAX_ORDER_SEEN);
	const char *gfp = need(s, event, "gfp_flags", &glen);
	uint8_t flags = 0;

	num(s, event, "migratetype", 10, 64);
	if (strspn(page, "0") == plen || !strncmp(page, "(null)", plen)) {
		hdr.failed_allocs++;
		return;
	}
	if (gfp_has(gfp, glen, "__GFP_ZERO"))
		flags |= QTR_F_ZERO;
	if (gfp_user(gfp, glen))
		flags |= QTR_F_USER;
	alloc_event(QTR_PAGE_ALLOC, flags, cpu, pfn | KEY_PAGE, (uint32_t)order, 0,
		    hdr.page_size << order);
	pending_stack[cpu] = (long)(n_ev - 1);
	pending_key[cpu] = pfn | KEY_PAGE;
}

static void page_free_line(const char *s, const char *event, unsigned int cpu)
{
	uint64_t pfn = num(s, event, "pfn", 16, UINT64_MAX >> 2);
	uint64_t order = num(s, event, "order", 10, MAX_ORDER_SEEN);
	struct live *l = live_find(pfn | KEY_PAGE);

	if (!l) {
		hdr.early_page_frees++;
		return;
	}
	if (l->cache != order)
		hdr.order_mismatches++;
	free_live(l, QTR_PAGE_FREE, cpu, 0);
}

/*
 * A frame of the stack the tracer printed after a page allocation on cpu:
 * the traced kernel's slab allocator (making a slab) or a large kmalloc
 * asked for the block, so a replay that makes its own slabs leaves it out.
 */
static void stack_frame(const char *s, unsigned int cpu)
{
	long i = pending_stack[cpu];
	struct qtr_event *e;
	struct live *l;
	uint8_t add = 0;

	if (i < 0)
		return;
	if (strstr(s, "allocate_slab") || strstr(s, "new_slab") || strstr(s, "alloc_slab_page"))
		add = QTR_F_SLAB_PAGE;
	else if (strstr(s, "kmalloc_large"))
		add = QTR_F_LARGE;
	e = &ev[i];
	if (!add || (e->flags & QTR_F_NOT_REPLAYED))
		return;
	e->flags |= add;
	l = live_find(pending_key[cpu]);
	if (l && l->alloc_event == (uint32_t)i)
		l->flags |= add;	/* its free will carry it */
}

static unsigned int cpus_limit(void)
{
	return hdr.cpus ? hdr.cpus : MAX_CPUS;
}

static int stack_cpu = -1;	/* CPU of the stack trace whose frames follow, or -1 */
static unsigned long ignored_lines;
static char kernel_str[256] = "unknown", command_str[4096] = "unknown";

/* "# quarry-trace key: value" (record.sh), or tracefs's own "#P:N". */
static void comment_line(const char *s)
{
	const char *p;

	if (!strncmp(s, "# quarry-trace ", 15)) {
		const char *k = s + 15, *v = strstr(k, ": ");

		if (!v)
			bad("header line without ': ' after its key");
		v += 2;
		if (!strncmp(k, "kernel:", 7)) {
			snprintf(kernel_str, sizeof(kernel_str), "%s", v);
		} else if (!strncmp(k, "command:", 8)) {
			snprintf(command_str, sizeof(command_str), "%s", v);
		} else if (!strncmp(k, "cpus:", 5) || !strncmp(k, "page_size:", 10)) {
			char *end;
			unsigned long x = strtoul(v, &end, 10);
			bool cpus = k[0] == 'c';

			if (end == v || *end || x == 0 || x > (cpus ? MAX_CPUS : 1UL << 30) ||
			    (!cpus && (x & (x - 1))))
				bad("header field '%s' is not %s: '%s'", cpus ? "cpus" : "page_size",
				    cpus ? "a CPU count from 1 to 4096" : "a power of two", v);
			if (cpus) {
				if (n_ev && x < hdr.cpus)
					bad("header field 'cpus' (%lu) after events of CPU %u", x, hdr.cpus - 1);
				hdr.cpus = (uint32_t)x;
			} else {
				if (n_ev)
					bad("header field 'page_size' after the first event");
				hdr.page_size = (uint32_t)x;
			}
		}
		return;
	}
	p = strstr(s, "entries-in-buffer/entries-written:");
	if (p) {
		unsigned long in, written;

		if (sscanf(p + 35, " %lu/%lu", &in, &written) == 2 && in != written)
			bad("the tracer kept %lu of %lu events (the rest were overwritten): record "
			    "again with a bigger buffer (tools/trace/record.sh -b)", in, written);
	}
	p = strstr(s, "#P:");
	if (p && !hdr.cpus) {
		unsigned long x = strtoul(p + 3, NULL, 10);

		if (x && x <= MAX_CPUS)
			hdr.cpus = (uint32_t)x;
	}
}

static void parse_line(char *s)
{
	const char *p, *name, *rest;
	char *end;
	unsigned long cpu;
	size_t nlen;

	if (s[strspn(s, " \t")] == '\0')
		return;
	if (s[0] == '#') {
		comment_line(s);
		return;
	}
	if (!strncmp(s, "CPU:", 4) && strstr(s, "LOST"))
		bad("the tracer says '%s': events were lost, record again with a bigger buffer "
		    "(tools/trace/record.sh -b)", s);
	p = s + strspn(s, " ");
	if (!strncmp(p, "=> ", 3)) {
		if (stack_cpu < 0)
			bad("stack frame '%s' outside a stack trace", p + 3);
		stack_frame(p + 3, (unsigned int)stack_cpu);
		return;
	}
	/* TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: FIELDS (TASK may hold spaces and brackets). */
	for (p = strstr(s, " ["); p; p = strstr(p + 1, " ["))
		if (p[2] >= '0' && p[2] <= '9' && p[2 + strspn(p + 2, "0123456789")] == ']')
			break;
	if (!p)
		bad("not a trace event: no CPU field '[NNN]' (expected 'TASK-PID [CPU] FLAGS "
		    "TIMESTAMP: EVENT: FIELDS')");
	cpu = strtoul(p + 2, &end, 10);
	if (cpu >= cpus_limit())
		bad("field 'CPU' is %lu, but the trace has %u CPUs", cpu, cpus_limit());
	name = strstr(end, ": ");
	if (!name)
		bad("no ': ' after the timestamp (field 'timestamp' missing or cut)");
	{
		const char *t = name;

		while (t > end && ((t[-1] >= '0' && t[-1] <= '9') || t[-1] == '.'))
			t--;
		if (t == name || !strchr(t, '.') || strchr(t, '.') > name)
			bad("field 'timestamp' is not SECONDS.MICROSECONDS before ': '");
	}
	name += 2;
	if (!strncmp(name, "<stack trace>", 13)) {
		stack_cpu = (int)cpu;
		return;
	}
	stack_cpu = -1;
	nlen = strcspn(name, ":");
	if (name[nlen] != ':')
		bad("no ':' after the event name");
	rest = name + nlen + 1;
	resolve_pending((unsigned int)cpu);
	note_peaks();
	if (!hdr.cpus && cpu + 1 > hdr.reserved[0])
		hdr.reserved[0] = cpu + 1;	/* CPUs seen, when no header says */
#define IS(ev) (nlen == sizeof(ev) - 1 && !strncmp(name, ev, nlen))
	if (IS("kmalloc"))
		slab_alloc_line(rest, "kmalloc", QTR_KMALLOC, (unsigned int)cpu);
	else if (IS("kmem_cache_alloc"))
		slab_alloc_line(rest, "kmem_cache_alloc", QTR_CACHE_ALLOC, (unsigned int)cpu);
	else if (IS("kfree"))
		slab_free_line(rest, "kfree", QTR_KFREE, (unsigned int)cpu);
	else if (IS("kmem_cache_free"))
		slab_free_line(rest, "kmem_cache_free", QTR_CACHE_FREE, (unsigned int)cpu);
	else if (IS("mm_page_alloc"))
		page_alloc_line(rest, "mm_page_alloc", (unsigned int)cpu);
	else if (IS("mm_page_free"))
		page_free_line(rest, "mm_page_free", (unsigned int)cpu);
	else {
		ignored_lines++;
		return;
	}
#undef IS
	hdr.source_events++;
}

/* ---- output ---- */

static void write_all(FILE *f, const void *p, size_t n, const char *path)
{
	if (n && fwrite(p, 1, n, f) != n) {
		fprintf(stderr, "convert: writing %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void write_output(const char *path)
{
	char tmp[4096];
	FILE *f;
	uint64_t off;
	static const char zeros[8];
	size_t klen = strlen(kernel_str) + 1, clen = strlen(command_str) + 1;

	memcpy(hdr.magic, QTR_MAGIC, 8);
	hdr.version = QTR_VERSION;
	hdr.header_bytes = sizeof(hdr);
	hdr.n_caches = n_caches;
	hdr.cache_bytes = sizeof(struct qtr_cache);
	hdr.event_bytes = sizeof(struct qtr_event);
	hdr.kernel_off = sizeof(hdr);
	hdr.command_off = (uint32_t)(sizeof(hdr) + klen);
	off = sizeof(hdr) + klen + clen;
	hdr.caches_off = (off + 7) & ~7ULL;
	hdr.events_off = hdr.caches_off + (uint64_t)n_caches * sizeof(struct qtr_cache);
	hdr.n_events = n_ev;
	hdr.n_objects = next_object;
	hdr.live_at_end = live_objects;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (!f) {
		fprintf(stderr, "convert: cannot create %s: %s\n", tmp, strerror(errno));
		exit(1);
	}
	write_all(f, &hdr, sizeof(hdr), tmp);
	write_all(f, kernel_str, klen, tmp);
	write_all(f, command_str, clen, tmp);
	write_all(f, zeros, hdr.caches_off - off, tmp);
	write_all(f, caches, n_caches * sizeof(*caches), tmp);
	write_all(f, ev, n_ev * sizeof(*ev), tmp);
	if (fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "convert: writing %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: convert [-q] [--cpus N] [--page-size BYTES] [--kernel TEXT] "
			"[--command TEXT] IN OUT\n"
			"  IN: kmem trace text (tools/trace/record.sh; plain, .gz or .xz); OUT: Quarry trace\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	bool quiet = false;
	FILE *in;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "-q"))
			quiet = true;
		else if (i + 1 < argc && !strcmp(argv[i], "--cpus"))
			hdr.cpus = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (i + 1 < argc && !strcmp(argv[i], "--page-size"))
			hdr.page_size = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (i + 1 < argc && !strcmp(argv[i], "--kernel"))
			snprintf(kernel_str, sizeof(kernel_str), "%s", argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--command"))
			snprintf(command_str, sizeof(command_str), "%s", argv[++i]);
		else
			usage();
	}
	if (argc - i != 2)
		usage();
	in_name = argv[i];
	out = argv[i + 1];
	if (hdr.cpus > MAX_CPUS || (hdr.page_size & (hdr.page_size - 1))) {
		fprintf(stderr, "convert: --cpus must be 1..%d and --page-size a power of two\n", MAX_CPUS);
		exit(2);
	}
	{
		const uint16_t one = 1;

		if (*(const uint8_t *)&one != 1) {
			fprintf(stderr, "convert: this host is big-endian; the Quarry trace format is "
					"little-endian and this converter writes host order\n");
			exit(2);
		}
	}
	memset(pending_stack, 0xff, sizeof(pending_stack));
	in = open_input(in_name);
	if (!hdr.page_size)
		hdr.page_size = 4096;
	while ((len = getline(&line, &cap, in)) > 0) {
		lineno++;
		if (strlen(line) != (size_t)len)
			bad("a NUL byte: this is not a text trace");
		if (line[len - 1] != '\n') {
			check_decompressor(in_name, lineno);
			bad("the file ends inside a line (truncated?): '%.60s'", line);
		}
		line[len - 1] = '\0';
		parse_line(line);
	}
	if (ferror(in)) {
		fprintf(stderr, "convert: reading %s: %s\n", in_name, strerror(errno));
		exit(1);
	}
	check_decompressor(in_name, lineno);
	fclose(in);
	for (unsigned int c = 0; c < MAX_CPUS; c++)
		resolve_pending(c);
	note_peaks();
	if (!hdr.source_events) {
		fprintf(stderr, "convert: %s: no kmem events in %lu lines (kmalloc, kfree, kmem_cache_alloc, "
			"kmem_cache_free, mm_page_alloc, mm_page_free)\n", in_name, lineno);
		exit(1);
	}
	if (!hdr.cpus)
		hdr.cpus = (uint32_t)hdr.reserved[0];
	hdr.reserved[0] = 0;
	hdr.source_lines = lineno;
	write_output(out);
	if (!quiet)
		printf("convert: %s -> %s: %llu events from %llu lines on %u CPUs, %u caches, %llu objects\n"
		       "  kmalloc %llu, kfree %llu, cache alloc %llu, cache free %llu, page alloc %llu, page free %llu\n"
		       "  dropped: %llu kfree(NULL), %llu frees and %llu page frees of what was allocated before "
		       "the capture, %llu failed allocations\n"
		       "  added: %llu implicit frees and %llu implicit page frees (allocated again while live); "
		       "%llu page frees of another order; %llu live at the end\n"
		       "  peaks: %llu objects, %llu bytes requested, %llu bytes of replayed pages (%llu user)\n",
		       in_name, out, (unsigned long long)n_ev, (unsigned long long)lineno, hdr.cpus, n_caches,
		       (unsigned long long)next_object, (unsigned long long)hdr.counts[QTR_KMALLOC],
		       (unsigned long long)hdr.counts[QTR_KFREE], (unsigned long long)hdr.counts[QTR_CACHE_ALLOC],
		       (unsigned long long)hdr.counts[QTR_CACHE_FREE], (unsigned long long)hdr.counts[QTR_PAGE_ALLOC],
		       (unsigned long long)hdr.counts[QTR_PAGE_FREE], (unsigned long long)hdr.kfree_null,
		       (unsigned long long)hdr.early_frees, (unsigned long long)hdr.early_page_frees,
		       (unsigned long long)hdr.failed_allocs, (unsigned long long)hdr.implicit_frees,
		       (unsigned long long)hdr.implicit_page_frees, (unsigned long long)hdr.order_mismatches,
		       (unsigned long long)live_objects, (unsigned long long)hdr.peak_live_objects,
		       (unsigned long long)hdr.peak_req_bytes, (unsigned long long)hdr.peak_page_bytes,
		       (unsigned long long)hdr.peak_user_page_bytes);
	free(line);
	return 0;
}
