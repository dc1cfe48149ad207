/*
 * bench.c - Quarry's mm/ (buddy + SLAB, built for Linux user space) against
 * user-space allocators, in one process, in real TSC ticks.
 *
 *   bench [options]
 *     --csv FILE        append result rows (arch,page_size,allocator,cpus,mode,test,size,
 *                       metric,value,unit) to FILE
 *     --meta FILE       write key=value facts (TSC rate, how each allocator was reached)
 *     --variant NAME    Quarry's allocator name in the rows (default "slab")
 *     --allocators LIST comma-separated subset of slab,glibc,jemalloc,tcmalloc,mimalloc,freelist
 *     --tests LIST      subset of 1,2,3,4 (default all)
 *     --rounds N        rounds; each round runs every allocator once per test and size (7)
 *     --count N         objects per size (10000, as in Lameter's slab_test)
 *     --sizes LIST      only these sizes (e.g. 64 for a profile)
 *     --arena-mb N      Quarry's "physical memory" (1024)
 *     --callgrind       one round on one thread, each measured loop bracketed by
 *                       callgrind client requests (collect on, then a dump named
 *                       "test|metric|allocator|size|ops"); test 4 only for Quarry,
 *                       by switching host_cpu_id on the one thread.
 *
 * Tests (Lameter's slab_test, as issue 5 lists them):
 *   1 kmalloc_then_free   count x alloc(N), one byte of each touched, then count x free,
 *                         each loop timed as a whole; ticks per op
 *   2 kmalloc_free_pair   count x (alloc(N), touch, free)
 *   3 concurrent_alloc_free  test 1 on every thread at once (1 .. all cores), each pinned,
 *                         each phase started together through a spinning barrier
 *   4 remote_free         thread 0 allocates count objects, then thread 1 frees them
 *
 * Every allocator is called from a loop compiled for it with direct calls
 * (Quarry: kmalloc/kfree; glibc: malloc/free through the PLT; the dlopen'ed
 * libraries: through the pointer dlsym gave, as a PLT call would), so no
 * allocator pays for an extra indirect call that another does not.
 */
#ifndef _GNU_SOURCE
#error "build with -D_GNU_SOURCE (the prelude header pulls in <features.h> first)"
#endif
#include "host_shim.h"
#include "peers.h"
#include "mm/slab.h"
#include "mm/page.h"
#include <asm/processor.h>

#include <gnu/libc-version.h>
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#else
#define HAVE_CALLGRIND 0
#define RUNNING_ON_VALGRIND 0
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_DUMP_STATS_AT(s) ((void)(s))
#endif

#define MAX_THREADS	NR_CPUS
#define MAX_ALLOCS	8

static const size_t single_sizes[] = { 8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096,
				       8192, 16384 };
static const size_t conc_sizes[] = { 32, 64, 128, 256, 512, 1024, 2048, 4096 };
#define NSIZES	ARRAY_SIZE(single_sizes)

/* Options. */
static unsigned int opt_rounds = 7;
static unsigned int opt_count = 10000;
static size_t opt_arena_mb = 1024;
static bool opt_callgrind;
static const char *opt_csv, *opt_meta, *opt_variant = "slab";
static const char *opt_allocators = "slab,glibc,jemalloc,tcmalloc,mimalloc,freelist";
static const char *opt_tests = "1,2,3,4";
static const char *opt_sizes;	/* NULL: every size */

static const char *page_size_str = PAGE_SIZE_NAME;
static FILE *csv;
static unsigned int ncores;
static double tsc_hz;

/* ---- time ---- */

static inline uint64_t tsc_begin(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/*
 * lfence; rdtsc; lfence rather than rdtscp; lfence: the same ordering (the
 * loop's instructions done before the read, nothing after it started early),
 * and valgrind 3.19 (Debian 12), which runs this program for the callgrind
 * counts, does not know rdtscp.
 */
static inline uint64_t tsc_end(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The TSC rate against CLOCK_MONOTONIC_RAW over 200 ms; the median of three. */
static double measure_tsc_hz(void)
{
	double r[3];

	for (int i = 0; i < 3; i++) {
		uint64_t n0 = now_ns(), c0 = tsc_begin(), n1, c1;

		do
			n1 = now_ns();
		while (n1 - n0 < 200000000u);
		c1 = tsc_end();
		r[i] = (double)(c1 - c0) * 1e9 / (double)(n1 - n0);
	}
	for (int i = 0; i < 2; i++)
		for (int j = i + 1; j < 3; j++)
			if (r[j] < r[i]) {
				double t = r[i];

				r[i] = r[j];
				r[j] = t;
			}
	return r[1];
}

/* ---- futex-backed waiting: spin first (natively), sleep under valgrind ---- */

static long spin_limit = 1L << 26;

static void futex_wait(uint32_t *addr, uint32_t val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(uint32_t *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

/* Wait until *addr != old. */
static void wait_change(uint32_t *addr, uint32_t old, uint32_t *sleepers, long limit)
{
	for (long spins = 0; __atomic_load_n(addr, __ATOMIC_ACQUIRE) == old; spins++) {
		if (spins < limit) {
			cpu_relax();
			continue;
		}
		__atomic_fetch_add(sleepers, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(addr, __ATOMIC_SEQ_CST) == old)
			futex_wait(addr, old);
		__atomic_fetch_sub(sleepers, 1, __ATOMIC_SEQ_CST);
	}
}

static void publish(uint32_t *addr, uint32_t val, uint32_t *sleepers)
{
	__atomic_store_n(addr, val, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(sleepers, __ATOMIC_SEQ_CST))
		futex_wake(addr);
}

/* Sense-reversing barrier for the threads of one job. */
struct barrier {
	uint32_t count __aligned(64);
	uint32_t sense __aligned(64);
	uint32_t sleepers;
	uint32_t n;
};

static void barrier_wait(struct barrier *b, uint32_t *local_sense)
{
	uint32_t s = *local_sense ^ 1;

	*local_sense = s;
	if (__atomic_add_fetch(&b->count, 1, __ATOMIC_ACQ_REL) == b->n) {
		__atomic_store_n(&b->count, 0, __ATOMIC_RELAXED);
		publish(&b->sense, s, &b->sleepers);
	} else {
		wait_change(&b->sense, s ^ 1, &b->sleepers, spin_limit);
	}
}

/* ---- the bare one-pointer free list (the floor any allocator is measured against) ---- */

struct fl_list {
	void *head;
	size_t objsize;
};

struct fl_thread {
	struct fl_list lists[NSIZES];
	char *bump, *bump_end;
};

static struct fl_thread fl_threads[MAX_THREADS + 1];
static __thread struct fl_thread *fl_me;
static __thread struct fl_list *fl_cur;

static void fl_select(size_t n)
{
	for (unsigned int i = 0; i < NSIZES; i++) {
		if (single_sizes[i] == n) {
			fl_cur = &fl_me->lists[i];
			fl_cur->objsize = ALIGN_UP(n, 16);
			return;
		}
	}
	fprintf(stderr, "bench: freelist: no list for size %zu\n", n);
	exit(2);
}

static __noinline void *fl_carve(struct fl_list *l)
{
	struct fl_thread *t = fl_me;
	void *p;

	if (t->bump + l->objsize > t->bump_end) {
		size_t chunk = 64UL << 20;

		t->bump = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (t->bump == MAP_FAILED) {
			perror("bench: freelist mmap");
			exit(2);
		}
		t->bump_end = t->bump + chunk;
	}
	p = t->bump;
	t->bump += l->objsize;
	return p;
}

/* Pop the list of the size selected; carve a new object when it is empty. */
static __noinline void *fl_alloc(size_t n)
{
	struct fl_list *l = fl_cur;
	void *p = l->head;

	(void)n;
	if (likely(p)) {
		l->head = *(void **)p;
		return p;
	}
	return fl_carve(l);
}

/* Push on the list of the size selected. */
static __noinline void fl_free(void *p)
{
	struct fl_list *l = fl_cur;

	*(void **)p = l->head;
	l->head = p;
}

/* Move thread 'from's list of size n to the front of thread 'to's (remote free, untimed). */
static void fl_give(unsigned int from, unsigned int to, size_t n)
{
	for (unsigned int i = 0; i < NSIZES; i++) {
		struct fl_list *a = &fl_threads[from].lists[i], *b = &fl_threads[to].lists[i];
		void **tail;

		if (single_sizes[i] != n || !a->head)
			continue;
		for (tail = a->head; *tail; tail = *tail)
			;
		*tail = b->head;
		b->head = a->head;
		a->head = NULL;
	}
}

/* ---- measured loops, one set per allocator, with direct calls ---- */

#define DEFINE_LOOPS(NAME, ALLOC, FREE)						\
static __noinline uint64_t NAME##_alloc_n(size_t n, void **v, unsigned int cnt)	\
{										\
	uint64_t t0 = tsc_begin();						\
	for (unsigned int i = 0; i < cnt; i++) {				\
		char *q = ALLOC(n);						\
		*(volatile char *)q = (char)i;					\
		v[i] = q;							\
	}									\
	return tsc_end() - t0;							\
}										\
static __noinline uint64_t NAME##_free_n(void **v, unsigned int cnt)		\
{										\
	uint64_t t0 = tsc_begin();						\
	for (unsigned int i = 0; i < cnt; i++)					\
		FREE(v[i]);							\
	return tsc_end() - t0;							\
}										\
static __noinline uint64_t NAME##_pair_n(size_t n, unsigned int cnt)		\
{										\
	uint64_t t0 = tsc_begin();						\
	for (unsigned int i = 0; i < cnt; i++) {				\
		char *q = ALLOC(n);						\
		*(volatile char *)q = (char)i;					\
		FREE(q);							\
	}									\
	return tsc_end() - t0;							\
}

#define Q_ALLOC(n)	kmalloc(n)
#define Q_FREE(p)	kfree(p)
#define G_ALLOC(n)	malloc(n)
#define G_FREE(p)	free(p)
#define J_ALLOC(n)	peer_je_mallocx(n, 0)
#define J_FREE(p)	peer_je_dallocx(p, 0)
#define T_ALLOC(n)	peer_tc_malloc(n)
#define T_FREE(p)	peer_tc_free(p)
#define M_ALLOC(n)	peer_mi_malloc(n)
#define M_FREE(p)	peer_mi_free(p)
#define F_ALLOC(n)	fl_alloc(n)
#define F_FREE(p)	fl_free(p)

DEFINE_LOOPS(quarry, Q_ALLOC, Q_FREE)
DEFINE_LOOPS(glibc, G_ALLOC, G_FREE)
DEFINE_LOOPS(jemalloc, J_ALLOC, J_FREE)
DEFINE_LOOPS(tcmalloc, T_ALLOC, T_FREE)
DEFINE_LOOPS(mimalloc, M_ALLOC, M_FREE)
DEFINE_LOOPS(freelist, F_ALLOC, F_FREE)

struct allocator {
	const char *key;	/* as in --allocators */
	const char *name;	/* in the rows */
	char how[256];		/* how the benchmark reached it */
	bool on;
	void (*select)(size_t n);
	uint64_t (*alloc_n)(size_t n, void **v, unsigned int cnt);
	uint64_t (*free_n)(void **v, unsigned int cnt);
	uint64_t (*pair_n)(size_t n, unsigned int cnt);
};

#define ALLOCATOR(KEY, NAME, SEL) \
	{ KEY, #NAME, "", false, SEL, NAME##_alloc_n, NAME##_free_n, NAME##_pair_n }

static struct allocator allocs[] = {
	ALLOCATOR("slab", quarry, NULL),
	ALLOCATOR("glibc", glibc, NULL),
	ALLOCATOR("jemalloc", jemalloc, NULL),
	ALLOCATOR("tcmalloc", tcmalloc, NULL),
	ALLOCATOR("mimalloc", mimalloc, NULL),
	ALLOCATOR("freelist", freelist, fl_select),
};
#define NALLOCS	ARRAY_SIZE(allocs)

static const char *alloc_name(const struct allocator *a)
{
	return a->alloc_n == quarry_alloc_n ? opt_variant : a->key;
}

static bool listed(const char *list, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == k && !strncmp(p, key, k))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

static bool size_on(size_t n)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%zu", n);
	return !opt_sizes || listed(opt_sizes, buf);
}

static void setup_allocators(void)
{
	for (unsigned int i = 0; i < NALLOCS; i++)
		allocs[i].on = listed(opt_allocators, allocs[i].key);

	snprintf(allocs[0].how, sizeof(allocs[0].how),
		 "Quarry mm/ (buddy + SLAB) compiled into this program: kmalloc()/kfree(), "
		 "threads as CPUs (host_cpu_id), arena pre-faulted");
	snprintf(allocs[1].how, sizeof(allocs[1].how),
		 "glibc %s malloc()/free(), the process's own allocator", gnu_get_libc_version());
	snprintf(allocs[5].how, sizeof(allocs[5].how),
		 "one-pointer LIFO free list per size and thread: pop/push in a noinline function, "
		 "objects carved from mmap'd chunks when empty");
	for (unsigned int i = 2; i <= 4; i++)	/* jemalloc, tcmalloc, mimalloc (peers.c) */
		if (allocs[i].on)
			allocs[i].on = peer_open(allocs[i].key, allocs[i].how, sizeof(allocs[i].how));
}

/* ---- results: kept per (allocator, test, size, metric, cpu), summarised at the end ---- */

struct series {
	char key[96];
	unsigned int alloc, cpus;
	char test[40];
	size_t size;
	char metric[32];
	double v[64];
	unsigned int n;
};

static struct series *series;
static unsigned int nseries, series_cap;

static void record(unsigned int alloc, unsigned int cpus, const char *test, size_t size,
		   const char *metric, double value)
{
	struct series *s = NULL;
	char key[96];

	snprintf(key, sizeof(key), "%u|%u|%s|%zu|%s", alloc, cpus, test, size, metric);
	for (unsigned int i = 0; i < nseries; i++)
		if (!strcmp(series[i].key, key))
			s = &series[i];
	if (!s) {
		if (nseries == series_cap) {
			series_cap = series_cap ? 2 * series_cap : 256;
			series = realloc(series, series_cap * sizeof(*series));
			if (!series)
				exit(2);
		}
		s = &series[nseries++];
		memset(s, 0, sizeof(*s));
		snprintf(s->key, sizeof(s->key), "%s", key);
		s->alloc = alloc;
		s->cpus = cpus;
		snprintf(s->test, sizeof(s->test), "%s", test);
		s->size = size;
		snprintf(s->metric, sizeof(s->metric), "%s", metric);
	}
	if (s->n < ARRAY_SIZE(s->v))
		s->v[s->n++] = value;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void csv_row(const char *alloc, unsigned int cpus, const char *test, size_t size,
		    const char *metric, double value, const char *unit)
{
	if (!csv)
		return;
	fprintf(csv, "x86_64,%s,%s,%u,host,%s,%zu,%s,%.2f,%s\n", page_size_str, alloc, cpus, test,
		size, metric, value, unit);
}

static void write_series(void)
{
	for (unsigned int i = 0; i < nseries; i++) {
		struct series *s = &series[i];
		const char *name = alloc_name(&allocs[s->alloc]);
		char m[48];
		double med;

		qsort(s->v, s->n, sizeof(s->v[0]), cmp_double);
		med = s->n % 2 ? s->v[s->n / 2] : (s->v[s->n / 2 - 1] + s->v[s->n / 2]) / 2;
		csv_row(name, s->cpus, s->test, s->size, s->metric, med, "ticks");
		snprintf(m, sizeof(m), "%s_min", s->metric);
		csv_row(name, s->cpus, s->test, s->size, m, s->v[0], "ticks");
		snprintf(m, sizeof(m), "%s_max", s->metric);
		csv_row(name, s->cpus, s->test, s->size, m, s->v[s->n - 1], "ticks");
	}
}

/* ---- worker threads: pinned, one per core, acting as Quarry's CPUs ---- */

struct worker {
	pthread_t thread;
	unsigned int id;
	void **vec;		/* opt_count object pointers */
	uint32_t sense;		/* barrier sense */
	uint64_t t_alloc, t_free, t_pair; /* last measured phases */
} __aligned(64);

struct job {
	void (*fn)(struct worker *w);
	unsigned int nthreads;
	unsigned int alloc;
	size_t size;
};

static struct worker workers[MAX_THREADS];
static unsigned int nworkers;
static struct job job;
static uint32_t job_seq, job_done, job_sleepers, done_sleepers;
static struct barrier job_barrier;

static void pin(unsigned int core)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(core, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		fprintf(stderr, "bench: cannot pin to core %u\n", core);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint32_t seen = 0;

	pin(w->id % ncores);
	host_set_cpu(w->id);
	fl_me = &fl_threads[w->id];
	for (;;) {
		wait_change(&job_seq, seen, &job_sleepers, 0);	/* idle workers sleep */
		seen = __atomic_load_n(&job_seq, __ATOMIC_ACQUIRE);
		if (w->id < job.nthreads) {
			/* Threads that sat out jobs have a stale sense: start from the barrier's. */
			w->sense = __atomic_load_n(&job_barrier.sense, __ATOMIC_ACQUIRE);
			job.fn(w);
		}
		if (__atomic_add_fetch(&job_done, 1, __ATOMIC_ACQ_REL) == nworkers)
			publish(&job_done, nworkers + 1, &done_sleepers);
	}
	return NULL;
}

static void start_workers(unsigned int n)
{
	nworkers = n;
	for (unsigned int i = 0; i < n; i++) {
		workers[i].id = i;
		workers[i].vec = calloc(opt_count, sizeof(void *));
		if (!workers[i].vec || pthread_create(&workers[i].thread, NULL, worker_main,
						      &workers[i])) {
			fprintf(stderr, "bench: cannot start worker %u\n", i);
			exit(2);
		}
	}
}

/* Run fn on threads 0 .. nthreads-1 and wait for every worker to report back. */
static void run_job(void (*fn)(struct worker *), unsigned int nthreads, unsigned int alloc,
		    size_t size)
{
	job = (struct job){ fn, nthreads, alloc, size };
	job_barrier.n = nthreads;
	__atomic_store_n(&job_done, 0, __ATOMIC_RELAXED);
	publish(&job_seq, job_seq + 1, &job_sleepers);
	/* The main thread sleeps: the workers have the cores. */
	while (__atomic_load_n(&job_done, __ATOMIC_ACQUIRE) != nworkers + 1) {
		uint32_t d = __atomic_load_n(&job_done, __ATOMIC_ACQUIRE);

		if (d == nworkers + 1)
			break;
		__atomic_fetch_add(&done_sleepers, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&job_done, __ATOMIC_SEQ_CST) == d)
			futex_wait(&job_done, d);
		__atomic_fetch_sub(&done_sleepers, 1, __ATOMIC_SEQ_CST);
	}
}

static void check_objs(void **v, unsigned int cnt, const char *what)
{
	for (unsigned int i = 0; i < cnt; i++) {
		if (!v[i] || v[i] == ZERO_SIZE_PTR) {
			fprintf(stderr, "bench: %s: allocation %u failed\n", what, i);
			exit(1);
		}
	}
}

/* Tests 1 and 2 on one thread: a warm-up, then the measured loops. */
static void job_single(struct worker *w)
{
	struct allocator *a = &allocs[job.alloc];
	size_t n = job.size;
	uint64_t ta, tf, tp;

	if (a->select)
		a->select(n);
	/* Warm-up: one untimed round of the same loop. */
	if (listed(opt_tests, "1")) {
		a->alloc_n(n, w->vec, opt_count);
		check_objs(w->vec, opt_count, a->key);
		a->free_n(w->vec, opt_count);
		ta = a->alloc_n(n, w->vec, opt_count);
		tf = a->free_n(w->vec, opt_count);
		record(job.alloc, 1, "kmalloc_then_free", n, "alloc_cost", (double)ta / opt_count);
		record(job.alloc, 1, "kmalloc_then_free", n, "free_cost", (double)tf / opt_count);
	}
	if (listed(opt_tests, "2")) {
		a->pair_n(n, opt_count);
		tp = a->pair_n(n, opt_count);
		record(job.alloc, 1, "kmalloc_free_pair", n, "pair_cost", (double)tp / opt_count);
	}
}

/* Test 3 on job.nthreads threads: every phase starts together. */
static void job_concurrent(struct worker *w)
{
	struct allocator *a = &allocs[job.alloc];
	size_t n = job.size;

	if (a->select)
		a->select(n);
	barrier_wait(&job_barrier, &w->sense);
	a->alloc_n(n, w->vec, opt_count);
	check_objs(w->vec, opt_count, a->key);
	barrier_wait(&job_barrier, &w->sense);
	a->free_n(w->vec, opt_count);
	barrier_wait(&job_barrier, &w->sense);
	w->t_alloc = a->alloc_n(n, w->vec, opt_count);
	barrier_wait(&job_barrier, &w->sense);
	w->t_free = a->free_n(w->vec, opt_count);
	barrier_wait(&job_barrier, &w->sense);
	/* Pairs, all threads at once. */
	a->pair_n(n, opt_count / 4);
	barrier_wait(&job_barrier, &w->sense);
	w->t_pair = a->pair_n(n, opt_count);
	barrier_wait(&job_barrier, &w->sense);
}

/* Test 4: thread 0 allocates, thread 1 frees what thread 0 allocated. */
static void job_remote(struct worker *w)
{
	struct allocator *a = &allocs[job.alloc];
	size_t n = job.size;
	void **v = workers[0].vec;

	if (a->select)
		a->select(n);
	for (int pass = 0; pass < 2; pass++) {	/* pass 0 warms up */
		barrier_wait(&job_barrier, &w->sense);
		if (w->id == 0) {
			w->t_alloc = a->alloc_n(n, v, opt_count);
			check_objs(v, opt_count, a->key);
		}
		barrier_wait(&job_barrier, &w->sense);
		if (w->id == 1)
			w->t_free = a->free_n(v, opt_count);
		barrier_wait(&job_barrier, &w->sense);
		if (w->id == 1 && a->select)
			fl_give(1, 0, n);
		barrier_wait(&job_barrier, &w->sense);
	}
}

static void progress(const char *fmt, ...) __printf(1, 2);
static void progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

static void run_native(void)
{
	unsigned int nthreads = ncores < MAX_THREADS ? ncores : MAX_THREADS;
	unsigned int on[NALLOCS], non = 0;

	for (unsigned int i = 0; i < NALLOCS; i++)
		if (allocs[i].on)
			on[non++] = i;
	start_workers(nthreads);
	for (unsigned int r = 0; r < opt_rounds; r++) {
		uint64_t t0 = now_ns();

		if (listed(opt_tests, "1") || listed(opt_tests, "2")) {
			progress("  round %u/%u: tests 1+2 (single CPU) ...", r + 1, opt_rounds);
			for (unsigned int s = 0; s < NSIZES; s++)
				for (unsigned int k = 0; k < non && size_on(single_sizes[s]); k++)
					run_job(job_single, 1, on[(k + r) % non], single_sizes[s]);
		}
		if (listed(opt_tests, "3")) {
			progress(" test 3 (concurrent, 1..%u threads) ...", nthreads);
			for (unsigned int s = 0; s < ARRAY_SIZE(conc_sizes); s++) {
				for (unsigned int k = 0; k < non && size_on(conc_sizes[s]); k++) {
					unsigned int ai = on[(k + r) % non];

					for (unsigned int c = 1; c <= nthreads; c++) {
						double sa = 0, sf = 0, sp = 0;

						run_job(job_concurrent, c, ai, conc_sizes[s]);
						for (unsigned int t = 0; t < c; t++) {
							struct worker *w = &workers[t];
							char m[32];

							sa += (double)w->t_alloc / opt_count;
							sf += (double)w->t_free / opt_count;
							sp += (double)w->t_pair / opt_count;
							if (c < 2)
								continue;
							snprintf(m, sizeof(m), "cpu%u_alloc_cost", t);
							record(ai, c, "concurrent_alloc_free_cpu",
							       conc_sizes[s], m,
							       (double)w->t_alloc / opt_count);
							snprintf(m, sizeof(m), "cpu%u_free_cost", t);
							record(ai, c, "concurrent_alloc_free_cpu",
							       conc_sizes[s], m,
							       (double)w->t_free / opt_count);
						}
						record(ai, c, "concurrent_alloc_free", conc_sizes[s],
						       "alloc_cost", sa / c);
						record(ai, c, "concurrent_alloc_free", conc_sizes[s],
						       "free_cost", sf / c);
						record(ai, c, "concurrent_pair", conc_sizes[s],
						       "pair_cost", sp / c);
					}
				}
			}
		}
		if (listed(opt_tests, "4") && nthreads >= 2) {
			progress(" test 4 (remote free) ...");
			for (unsigned int s = 0; s < ARRAY_SIZE(conc_sizes); s++) {
				for (unsigned int k = 0; k < non && size_on(conc_sizes[s]); k++) {
					unsigned int ai = on[(k + r) % non];

					run_job(job_remote, 2, ai, conc_sizes[s]);
					record(ai, 2, "remote_free", conc_sizes[s], "alloc_cost",
					       (double)workers[0].t_alloc / opt_count);
					record(ai, 2, "remote_free", conc_sizes[s], "free_cost",
					       (double)workers[1].t_free / opt_count);
				}
			}
		}
		progress(" %.1f s\n", (double)(now_ns() - t0) / 1e9);
	}
	write_series();
}

/* ---- callgrind mode: everything on the main thread, each loop bracketed ---- */

static void cg_region_begin(void)
{
	CALLGRIND_TOGGLE_COLLECT;
}

static void cg_region_end(const char *test, const char *metric, const char *alloc, size_t size,
			  unsigned int ops)
{
	char name[160];

	CALLGRIND_TOGGLE_COLLECT;
	snprintf(name, sizeof(name), "%s|%s|%s|%zu|%u", test, metric, alloc, size, ops);
	CALLGRIND_DUMP_STATS_AT(name);
}

static void run_callgrind(void)
{
	void **v = calloc(opt_count, sizeof(void *));

	if (!v)
		exit(2);
	host_set_cpu(0);
	fl_me = &fl_threads[0];
	for (unsigned int i = 0; i < NALLOCS; i++) {
		struct allocator *a = &allocs[i];
		const char *name = alloc_name(a);

		if (!a->on)
			continue;
		progress("  callgrind: %s ...\n", name);
		for (unsigned int s = 0; s < NSIZES; s++) {
			size_t n = single_sizes[s];

			if (!size_on(n))
				continue;
			if (a->select)
				a->select(n);
			a->alloc_n(n, v, opt_count);
			check_objs(v, opt_count, a->key);
			a->free_n(v, opt_count);
			cg_region_begin();
			a->alloc_n(n, v, opt_count);
			cg_region_end("kmalloc_then_free", "alloc", name, n, opt_count);
			cg_region_begin();
			a->free_n(v, opt_count);
			cg_region_end("kmalloc_then_free", "free", name, n, opt_count);
			a->pair_n(n, opt_count);
			cg_region_begin();
			a->pair_n(n, opt_count);
			cg_region_end("kmalloc_free_pair", "pair", name, n, opt_count);
		}
		/* Remote free, Quarry only: one thread plays CPU 0, then CPU 1. */
		if (a->alloc_n != quarry_alloc_n || !listed(opt_tests, "4"))
			continue;
		for (unsigned int s = 0; s < ARRAY_SIZE(conc_sizes); s++) {
			size_t n = conc_sizes[s];

			if (!size_on(n))
				continue;
			for (int pass = 0; pass < 2; pass++) {
				host_set_cpu(0);
				if (pass)
					cg_region_begin();
				a->alloc_n(n, v, opt_count);
				if (pass)
					cg_region_end("remote_free", "alloc", name, n, opt_count);
				host_set_cpu(1);
				if (pass)
					cg_region_begin();
				a->free_n(v, opt_count);
				if (pass)
					cg_region_end("remote_free", "free", name, n, opt_count);
			}
			host_set_cpu(0);
		}
	}
	free(v);
}

/* ---- set-up ---- */

static void quarry_setup(void)
{
	host_set_cpu(0);
	/* The kernel's RAM is mapped: fault the arena in now, contents unchanged. */
	host_mm_setup_bench(opt_arena_mb << 20, true);
	kmem_cache_init();
}

/* The 1, 5 and 15 minute load averages: other work on the machine skews timings. */
static const char *loadavg(char *buf, size_t len)
{
	FILE *f = fopen("/proc/loadavg", "r");
	char a[16], b[16], c[16];

	/* Not snprintf: Quarry's own (kernel/printk.c) is linked in and has no %f. */
	if (!f || fscanf(f, "%15s %15s %15s", a, b, c) != 3)
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%s %s %s", a, b, c);
	if (f)
		fclose(f);
	return buf;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench [--csv F] [--meta F] [--variant NAME] [--allocators L] "
			"[--tests L] [--sizes L] [--rounds N] [--count N] [--arena-mb N] "
			"[--callgrind]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	cpu_set_t set;
	FILE *meta;
	char buf[64];

	peer_static_tls(argv);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--callgrind")) {
			opt_callgrind = true;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--csv"))
			opt_csv = v;
		else if (!strcmp(a, "--meta"))
			opt_meta = v;
		else if (!strcmp(a, "--variant"))
			opt_variant = v;
		else if (!strcmp(a, "--allocators"))
			opt_allocators = v;
		else if (!strcmp(a, "--tests"))
			opt_tests = v;
		else if (!strcmp(a, "--rounds"))
			opt_rounds = (unsigned int)atoi(v);
		else if (!strcmp(a, "--count"))
			opt_count = (unsigned int)atoi(v);
		else if (!strcmp(a, "--sizes"))
			opt_sizes = v;
		else if (!strcmp(a, "--arena-mb"))
			opt_arena_mb = (size_t)atol(v);
		else
			usage();
	}
	if (opt_rounds < 1 || opt_rounds > 64 || opt_count < 1)
		usage();
	if (opt_callgrind && !HAVE_CALLGRIND) {
		fprintf(stderr, "bench: built without <valgrind/callgrind.h>\n");
		return 2;
	}
	if (RUNNING_ON_VALGRIND)
		spin_limit = 0;

	sched_getaffinity(0, sizeof(set), &set);
	ncores = (unsigned int)CPU_COUNT(&set);
	if (ncores < 1)
		ncores = 1;

	if (opt_csv) {
		csv = fopen(opt_csv, "a");
		if (!csv) {
			perror(opt_csv);
			return 2;
		}
	}
	setup_allocators();
	quarry_setup();	/* before the workers: kmem_cache_init runs as CPU 0 */
	fl_me = &fl_threads[MAX_THREADS];

	if (!opt_callgrind) {
		progress("  measuring the TSC rate ...");
		tsc_hz = measure_tsc_hz();
		progress(" %.1f MHz\n", tsc_hz / 1e6);
		csv_row(opt_variant, 1, "tsc", 0, "frequency", tsc_hz, "Hz");
	}
	if (opt_meta) {
		meta = fopen(opt_meta, "w");
		if (!meta) {
			perror(opt_meta);
			return 2;
		}
		fprintf(meta, "page_size=%s\nvariant=%s\ncores=%u\ncount=%u\nrounds=%u\n",
			page_size_str, opt_variant, ncores, opt_count, opt_rounds);
		fprintf(meta, "callgrind=%d\n", HAVE_CALLGRIND);
		fprintf(meta, "loadavg_start=%s\n", loadavg(buf, sizeof(buf)));
		if (tsc_hz > 0)
			fprintf(meta, "tsc_hz=%.0f\n", tsc_hz);
		for (unsigned int i = 0; i < NALLOCS; i++)
			if (listed(opt_allocators, allocs[i].key))
				fprintf(meta, "how_%s=%s\n", alloc_name(&allocs[i]), allocs[i].how);
		fclose(meta);
	}
	for (unsigned int i = 0; i < NALLOCS; i++)
		if (listed(opt_allocators, allocs[i].key))
			progress("  %-9s %s\n", alloc_name(&allocs[i]), allocs[i].how);

	if (opt_callgrind)
		run_callgrind();
	else
		run_native();
	if (csv)
		fclose(csv);
	if (opt_meta && (meta = fopen(opt_meta, "a"))) {
		fprintf(meta, "loadavg_end=%s\n", loadavg(buf, sizeof(buf)));
		fclose(meta);
	}
	return 0;
}
