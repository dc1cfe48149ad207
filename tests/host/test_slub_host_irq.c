/*
 * test_slub_host_irq.c - SLUB's fast paths under "interrupts", host only:
 * threads acting as CPUs run alloc/free storms on a few caches (now and
 * then flushing their CPU slabs, so the slow paths run too) while a
 * per-thread timer (timer_create, SIGEV_THREAD_ID) sends each a signal
 * IRQ_PERIOD_NS after the last one was handled. The handler plays an
 * interrupt handler on the same CPU: it allocates and frees objects of the
 * same caches, so it lands now and then between a fast path's read of
 * (freelist, tid) and its cmpxchg, and that cmpxchg must fail and retry.
 *
 * As in the kernel, an "interrupt" that arrives while the thread has them
 * off (host_irqs_off: the slow paths, locks) is held back (counted, not
 * run), and the handler runs with them off. The fast paths disable
 * nothing: every handler run that finds them on is a real nesting.
 *
 * Checked: every object, the storm's and the handler's, carries a stamp
 * from its allocation to its free (nothing handed out twice, nothing
 * lost); the caches pass kmem_cache_check; the retry counters of SLUB's
 * stats (alloc_retries, free_retries) went up, so the tid did its work;
 * every page comes back.
 */
#include "tests/common/test_slub.h"
#include <pthread.h>
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define IRQ_THREADS	3
#define IRQ_OPS		(30000UL * SELFTEST_SCALE)
#define IRQ_HELD	64
#define IRQ_KEEP	8		/* objects a handler keeps for its next run */
#define IRQ_PERIOD_NS	20000		/* between signals (CLOCK_MONOTONIC) */
#define IRQ_SIG		SIGRTMIN

static struct kmem_cache *irq_cache;
static const size_t irq_sizes[] = { 0, 32, 64, 96 };	/* 0: irq_cache */

struct stamped {
	uint64_t *p;
	size_t size;
	uint64_t stamp;
};

struct storm {
	unsigned int cpu;
	volatile sig_atomic_t running;
	timer_t timer;
	struct stamped keep[IRQ_KEEP];	/* the handler's objects between runs */
	unsigned int nkeep;
	unsigned long serial;
	unsigned long ops, handler_runs, held_back, handler_allocs, bad, failed;
};

static __thread struct storm *this_storm;

/*
 * The next "interrupt" IRQ_PERIOD_NS after this one is done: a one-shot
 * timer re-armed by the handler, so that a handler slower than the period
 * (debug builds, lock contention) cannot starve the thread it interrupts.
 */
static void irq_rearm(struct storm *w)
{
	struct itimerspec its = { { 0, 0 }, { 0, IRQ_PERIOD_NS } };

	timer_settime(w->timer, 0, &its, NULL);
}

static void *s_alloc(size_t size)
{
	return size ? kmalloc(size) : kmem_cache_alloc(irq_cache);
}

static void s_free(const struct stamped *o)
{
	if (o->size)
		kfree(o->p);
	else
		kmem_cache_free(irq_cache, o->p);
}

static bool take(struct storm *w, struct stamped *o, size_t size, uint64_t tag)
{
	o->size = size;
	o->p = s_alloc(size);
	if (!o->p)
		return false;
	o->stamp = tag ^ (w->serial++ << 8) ^ w->cpu;
	o->p[0] = o->stamp;
	o->p[1] = ~o->stamp;
	return true;
}

static bool intact(const struct stamped *o)
{
	return o->p[0] == o->stamp && o->p[1] == ~o->stamp;
}

/* The "interrupt handler": runs on the storm thread, as its CPU. */
static void irq_handler(int sig)
{
	struct storm *w = this_storm;
	int saved_errno = errno;

	(void)sig;
	if (!w || !w->running)
		return;
	if (host_irqs_off) {		/* interrupts off: held back, as the kernel would */
		w->held_back++;
		irq_rearm(w);
		return;
	}
	host_irqs_off = 1;
	w->handler_runs++;
	for (unsigned int k = 0; k < ARRAY_SIZE(irq_sizes); k++) {
		struct stamped o;

		if (w->nkeep == IRQ_KEEP) {
			w->bad += !intact(&w->keep[0]);
			s_free(&w->keep[0]);
			w->keep[0] = w->keep[--w->nkeep];
		}
		if (!take(w, &o, irq_sizes[(w->serial + k) % ARRAY_SIZE(irq_sizes)],
			  0x1eaf000000000000ULL)) {
			w->failed++;
			continue;
		}
		w->handler_allocs++;
		if (k % 2) {
			w->bad += !intact(&o);
			s_free(&o);
		} else {
			w->keep[w->nkeep++] = o;
		}
	}
	host_irqs_off = 0;
	irq_rearm(w);
	errno = saved_errno;
}

static void *storm_thread(void *arg)
{
	struct storm *w = arg;
	struct stamped held[IRQ_HELD];
	unsigned int nheld = 0;
	uint64_t x = 0x2545f4914f6cdd1dULL * (w->cpu + 1);
	struct sigevent sev = { 0 };

	host_set_cpu(w->cpu);
	this_storm = w;
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = IRQ_SIG;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &w->timer) != 0) {
		w->failed++;
		return NULL;
	}
	w->running = 1;
	irq_rearm(w);
	for (unsigned long op = 0; op < IRQ_OPS; op++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (x % 1024 == 0)
			slab_drain_local_all();
		if (nheld < IRQ_HELD && (nheld == 0 || x % 2)) {
			if (take(w, &held[nheld], irq_sizes[(x >> 8) % ARRAY_SIZE(irq_sizes)],
				 0x5707000000000000ULL))
				nheld++;
			else
				w->failed++;
		} else {
			unsigned int k = (unsigned int)((x >> 16) % nheld);

			w->bad += !intact(&held[k]);
			s_free(&held[k]);
			held[k] = held[--nheld];
		}
		w->ops++;
	}
	w->running = 0;
	timer_delete(w->timer);
	while (nheld) {
		w->bad += !intact(&held[--nheld]);
		s_free(&held[nheld]);
	}
	while (w->nkeep) {
		w->bad += !intact(&w->keep[--w->nkeep]);
		s_free(&w->keep[w->nkeep]);
	}
	return NULL;
}

static unsigned long retries(void)
{
	unsigned long n = irq_cache->stats.alloc_retries + irq_cache->stats.free_retries;

	for (unsigned int i = 1; i < ARRAY_SIZE(irq_sizes); i++)
		n += kmalloc_slab(irq_sizes[i])->stats.alloc_retries +
		     kmalloc_slab(irq_sizes[i])->stats.free_retries;
	return n;
}

SELFTEST_HOST(slub_host_fast_paths_under_interrupts)
{
	static struct storm storms[IRQ_THREADS];
	pthread_t threads[IRQ_THREADS];
	unsigned long pages, before, runs = 0, held_back = 0, hallocs = 0, bad = 0, failed = 0;
	struct sigaction sa = { 0 };

	slab_drain_all();
	pages = slab_test_settle();
	/* Classic: its tid retries are tested; the kmalloc caches' sheaves disable interrupts. */
	irq_cache = slub_test_classic(kmem_cache_create("irq-storm", 40, 0, SLAB_NO_DEBUG, NULL));
	ST_EXPECT(irq_cache, "create failed");
	sa.sa_handler = irq_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	ST_EXPECT(sigaction(IRQ_SIG, &sa, NULL) == 0, "sigaction failed");
	before = retries();
	for (unsigned int i = 0; i < IRQ_THREADS; i++) {
		storms[i] = (struct storm){ .cpu = i + 1 };
		ST_EXPECT(pthread_create(&threads[i], NULL, storm_thread, &storms[i]) == 0,
			  "pthread_create failed");
	}
	for (unsigned int i = 0; i < IRQ_THREADS; i++) {
		pthread_join(threads[i], NULL);
		runs += storms[i].handler_runs;
		held_back += storms[i].held_back;
		hallocs += storms[i].handler_allocs;
		bad += storms[i].bad;
		failed += storms[i].failed;
	}
	sa.sa_handler = SIG_IGN;
	sigaction(IRQ_SIG, &sa, NULL);
	printk("irq storms: %d CPUs x %lu ops, %lu handler runs (%lu held back while "
	       "interrupts were off), %lu objects taken in handlers, %lu fast-path retries\n",
	       IRQ_THREADS, IRQ_OPS, runs, held_back, hallocs, retries() - before);
	ST_EXPECT(failed == 0, "%lu allocations (or timers) failed", failed);
	ST_EXPECT(bad == 0, "%lu objects found changed: handed out twice?", bad);
	ST_EXPECT(runs > 100, "only %lu handler runs", runs);
	ST_EXPECT(retries() > before,
		  "no fast-path cmpxchg ever failed: the tid retry is untested");
	ST_EXPECT(kmem_cache_check(irq_cache) == 0, "irq-storm inconsistent");
	for (unsigned int i = 1; i < ARRAY_SIZE(irq_sizes); i++)
		ST_EXPECT(kmem_cache_check(kmalloc_slab(irq_sizes[i])) == 0,
			  "kmalloc-%zu inconsistent", irq_sizes[i]);
	ST_EXPECT(slub_test_held(irq_cache) == 0, "%lu objects held", slub_test_held(irq_cache));
	ST_EXPECT(kmem_cache_destroy(irq_cache) == 0, "destroy refused");
	slab_drain_all();
	ST_EXPECT(slab_test_settle() == pages, "pages not back: %lu free, %lu before",
		  nr_free_pages(), pages);
	return 0;
}
