/*
 * test_kmalloc_host_smp.c - host threads as CPUs (host_cpu_id 1..SMP_THREADS)
 * hammering kmalloc and a cache of their own at once, one test for every
 * allocator (ALLOC=slab, slub, slob, slob-seg).
 *
 * Each thread allocates objects of mixed sizes (now and then one past the
 * largest kmalloc class: a large allocation) and fills every byte with a
 * pattern naming its owner and the object's serial number; it frees most
 * of its own objects and passes a share to the next thread through a
 * single-producer single-consumer ring, so objects are freed on another
 * CPU than the one that took them: SLAB into that CPU's array, then the
 * shared array and the slabs; SLUB onto page freelists, into frozen slabs
 * and through the sheaves and barns; SLOB into the heap under its lock.
 * Every object's pattern is checked before it is freed, so two owners of
 * one object, or a write into a free object, show up. Now and then a
 * thread reaps, drains its CPU or shrinks the cache, as its tick and users
 * would.
 *
 * A warm-up pass first makes what a CPU keeps once it has used a cache
 * (SLAB's per-CPU arrays of the kmalloc caches); the free page count is
 * taken after it. Afterwards every cache passes kmem_cache_check, nothing
 * was reported as a bad free, every object came back, the allocator's own
 * checks hold (smp_alloc_check below), and once the cache is destroyed and
 * every CPU drained the free page count is what it was.
 */
#include "tests/common/test_alloc.h"
#if defined(CONFIG_ALLOC_SLUB)
#include "tests/common/test_slub.h"
#elif defined(CONFIG_ALLOC_SLOB) || defined(CONFIG_ALLOC_SLOB_SEG)
#include "tests/common/test_slob.h"
#endif
#include <pthread.h>
#include <sched.h>

#define SMP_THREADS	4
#define SMP_OPS		(5000UL * SELFTEST_SCALE)
#define SMP_HELD	128
#define RING_SLOTS	256
#define SMP_OBJ_SIZE	72

struct obj {
	unsigned char *p;
	size_t size;		/* 0: from the threads' own cache */
	uint32_t serial;
	uint8_t owner;
};

/* One producer (the thread before), one consumer (this thread). */
struct ring {
	struct obj slot[RING_SLOTS];
	unsigned long head;	/* written by the producer, release */
	unsigned long tail;	/* written by the consumer, release */
	bool closed;		/* the consumer's loop is over: a full ring stays full */
};

struct worker {
	unsigned int cpu;
	unsigned long ops;
	struct ring *out, *in;
	pthread_barrier_t *barrier;
	unsigned long allocs, frees, remote_frees, bad, failed;
};

static struct kmem_cache *smp_cache;

/*
 * The allocator's own checks: smp_alloc_mark before the run notes what
 * they compare against, smp_alloc_check after it (every object freed, the
 * cache not yet destroyed) returns 0 or fails the test.
 */
struct smp_alloc_mark {
	unsigned long inuse[KMALLOC_SHIFT_HIGH + 1];	/* SLOB: each kmalloc cache's objects */
};

#if defined(CONFIG_ALLOC_SLUB)
static void smp_alloc_mark(struct smp_alloc_mark *m)
{
	(void)m;
}

/*
 * With sheaves, full sheaves pass from a freeing CPU to an allocating one
 * through the cache's barn. The threads' mix frees about as much on each
 * CPU as it allocates, so whether they exchange any is up to the host's
 * timing; here one thread plays three CPUs in turn instead: CPU 1 takes
 * four sheaves' worth, CPU 2 frees them (its sheaves fill and go to the
 * barn), CPU 3 takes them again (from the barn).
 */
static int smp_barn_exchange(struct kmem_cache *c)
{
	unsigned long puts = c->stats.barn_put, gets = c->stats.barn_get;
	unsigned int n = 4 * c->sheaf_capacity;
	void **objs = kmalloc_array(n, sizeof(void *));

	ST_EXPECT(objs, "no table");
	for (unsigned int cpu = 1; cpu <= 3; cpu++) {
		host_set_cpu(cpu);
		for (unsigned int i = 0; i < n; i++) {
			if (cpu == 2) {
				kmem_cache_free(c, objs[i]);
				continue;
			}
			objs[i] = kmem_cache_alloc(c);
			ST_EXPECT(objs[i], "alloc %u on CPU %u failed", i, cpu);
		}
	}
	for (unsigned int i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
	host_set_cpu(0);
	kfree(objs);
	puts = c->stats.barn_put - puts;
	gets = c->stats.barn_get - gets;
	printk("slub threads: %lu full sheaves given to the barn, %lu taken\n", puts, gets);
	ST_EXPECT(puts > 0 && gets > 0, "no barn exchange: %lu puts, %lu gets", puts, gets);
	return 0;
}

/* The page-freelist paths were taken; with sheaves, full sheaves go through the barn. */
static int smp_alloc_check(const struct smp_alloc_mark *m)
{
	unsigned long page_frees = smp_cache->stats.free_slow;
	unsigned long frozen_frees = smp_cache->stats.free_frozen + smp_cache->stats.cpu_partial_free;

	(void)m;
	ST_EXPECT(page_frees > 0 && frozen_frees > 0,
		  "page freelist paths not taken: %lu page frees, %lu into frozen slabs",
		  page_frees, frozen_frees);
	ST_EXPECT(slub_test_held(smp_cache) == 0, "%lu objects held", slub_test_held(smp_cache));
	if (smp_cache->sheaf_capacity && smp_barn_exchange(smp_cache))
		return -1;
	return 0;
}
#elif defined(CONFIG_ALLOC_SLOB) || defined(CONFIG_ALLOC_SLOB_SEG)
static void smp_alloc_mark(struct smp_alloc_mark *m)
{
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
		m->inuse[i] = kmalloc_caches[i] ? kmalloc_caches[i]->inuse : 0;
}

/* Every cache's count of objects in use is what it was. */
static int smp_alloc_check(const struct smp_alloc_mark *m)
{
	printk(SLOB_NAME " threads: %lu heap pages now\n", slob_test_pages());
	ST_EXPECT(smp_cache->inuse == 0, "%lu objects of smp-own held", smp_cache->inuse);
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
		if (kmalloc_caches[i])
			ST_EXPECT(kmalloc_caches[i]->inuse == m->inuse[i], "%s holds %lu objects, "
				  "%lu before", kmalloc_caches[i]->name, kmalloc_caches[i]->inuse,
				  m->inuse[i]);
	return 0;
}
#else
/* SLAB: the common checks say it all (its arrays are checked by kmem_cache_check). */
static void smp_alloc_mark(struct smp_alloc_mark *m)
{
	(void)m;
}

static int smp_alloc_check(const struct smp_alloc_mark *m)
{
	(void)m;
	return 0;
}
#endif

static size_t obj_bytes(const struct obj *o)
{
	return o->size ? o->size : SMP_OBJ_SIZE;
}

static uint8_t pattern_at(const struct obj *o, size_t i)
{
	return (uint8_t)(o->owner * 37 + o->serial * 3 + i);
}

static bool intact(const struct obj *o)
{
	for (size_t i = 0; i < obj_bytes(o); i++)
		if (o->p[i] != pattern_at(o, i))
			return false;
	return true;
}

static bool ring_put(struct ring *r, const struct obj *o)
{
	unsigned long head = r->head;

	if (head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) == RING_SLOTS)
		return false;
	r->slot[head % RING_SLOTS] = *o;
	__atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
	return true;
}

static bool ring_get(struct ring *r, struct obj *o)
{
	unsigned long tail = r->tail;

	if (tail == __atomic_load_n(&r->head, __ATOMIC_ACQUIRE))
		return false;
	*o = r->slot[tail % RING_SLOTS];
	__atomic_store_n(&r->tail, tail + 1, __ATOMIC_RELEASE);
	return true;
}

static void obj_free(struct worker *w, const struct obj *o, bool remote)
{
	w->bad += !intact(o);
	if (o->size)
		kfree(o->p);
	else
		kmem_cache_free(smp_cache, o->p);
	w->frees++;
	w->remote_frees += remote;
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void *smp_worker(void *arg)
{
	static const size_t sizes[] = { 0, 16, 32, 48, 64, 96, 128, 200, 512, 1024, 1500, 3000 };
	struct worker *w = arg;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (w->cpu + 3);
	struct obj held[SMP_HELD], o;
	unsigned int nheld = 0;
	uint32_t serial = 0;

	host_set_cpu(w->cpu);
	pthread_barrier_wait(w->barrier);
	for (unsigned long op = 0; op < w->ops; op++) {
		uint64_t r = xorshift(&x);

		while (ring_get(w->in, &o))
			obj_free(w, &o, true);
		if (r % 512 == 0)
			slab_reap();
		else if (r % 512 == 1)
			slab_drain_local_all();
		else if (r % 512 == 2)
			kmem_cache_shrink(smp_cache);
		if (nheld < SMP_HELD && (nheld == 0 || r % 8 < 5)) {
			o.size = sizes[(r >> 8) % ARRAY_SIZE(sizes)];
			if ((r >> 40) % 64 == 0)	/* a large allocation: whole pages */
				o.size = KMALLOC_MAX_CACHE_SIZE + 1 + (r >> 20) % PAGE_SIZE;
			o.p = o.size ? kmalloc(o.size) : kmem_cache_alloc(smp_cache);
			if (!o.p) {
				w->failed++;
				continue;
			}
			o.owner = (uint8_t)w->cpu;
			o.serial = serial++;
			for (size_t i = 0; i < obj_bytes(&o); i++)
				o.p[i] = pattern_at(&o, i);
			held[nheld++] = o;
			w->allocs++;
		} else {
			unsigned int k = (unsigned int)((r >> 16) % nheld);

			o = held[k];
			held[k] = held[--nheld];
			if (r % 4 == 0) {	/* the next CPU frees it */
				/*
				 * A full ring waits for its reader, which frees
				 * its own ring while it waits too: every fourth
				 * free is remote however the host schedules
				 * (until the reader is done with its loop).
				 */
				bool sent;

				while (!(sent = ring_put(w->out, &o)) &&
				       !__atomic_load_n(&w->out->closed, __ATOMIC_ACQUIRE)) {
					struct obj in;

					while (ring_get(w->in, &in))
						obj_free(w, &in, true);
					sched_yield();
				}
				if (sent)
					continue;
			}
			obj_free(w, &o, false);
		}
	}
	while (nheld)
		obj_free(w, &held[--nheld], false);
	__atomic_store_n(&w->in->closed, true, __ATOMIC_RELEASE);
	pthread_barrier_wait(w->barrier);	/* every send is done */
	while (ring_get(w->in, &o))
		obj_free(w, &o, true);
	return NULL;
}

/* Run the workers for ops operations each; returns 0 or fails with what went wrong. */
static int run_workers(unsigned long ops, unsigned long *allocs, unsigned long *remote)
{
	static struct ring rings[SMP_THREADS];
	struct worker w[SMP_THREADS];
	pthread_t threads[SMP_THREADS];
	pthread_barrier_t barrier;
	unsigned long frees = 0;

	memset(rings, 0, sizeof(rings));
	pthread_barrier_init(&barrier, NULL, SMP_THREADS);
	for (unsigned int i = 0; i < SMP_THREADS; i++)
		w[i] = (struct worker){ .cpu = i + 1, .ops = ops, .out = &rings[(i + 1) % SMP_THREADS],
					.in = &rings[i], .barrier = &barrier };
	for (unsigned int i = 0; i < SMP_THREADS; i++)
		ST_EXPECT(pthread_create(&threads[i], NULL, smp_worker, &w[i]) == 0,
			  "pthread_create failed");
	for (unsigned int i = 0; i < SMP_THREADS; i++)
		pthread_join(threads[i], NULL);
	pthread_barrier_destroy(&barrier);
	*allocs = *remote = 0;
	for (unsigned int i = 0; i < SMP_THREADS; i++) {
		ST_EXPECT(w[i].bad == 0, "CPU %u found %lu objects overwritten", w[i].cpu, w[i].bad);
		ST_EXPECT(w[i].failed == 0, "CPU %u: %lu allocations failed", w[i].cpu, w[i].failed);
		*allocs += w[i].allocs;
		*remote += w[i].remote_frees;
		frees += w[i].frees;
	}
	ST_EXPECT(frees == *allocs, "%lu objects allocated, %lu freed", *allocs, frees);
	return 0;
}

SELFTEST_HOST(kmalloc_host_threads_as_cpus)
{
	unsigned long pages, allocs, remote, bad = slab_bad_frees;
	struct smp_alloc_mark mark;

	/* Warm-up: every thread's CPU uses every cache once. */
	smp_cache = kmem_cache_create("smp-own", SMP_OBJ_SIZE, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(smp_cache, "create failed");
	if (run_workers(SMP_OPS / 8, &allocs, &remote))
		return -1;
	ST_EXPECT(kmem_cache_destroy(smp_cache) == 0, "destroy refused after the warm-up");
	slab_drain_all();
	pages = slab_test_settle();
	smp_alloc_mark(&mark);

	smp_cache = kmem_cache_create("smp-own", SMP_OBJ_SIZE, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(smp_cache, "create failed");
	if (run_workers(SMP_OPS, &allocs, &remote))
		return -1;
	printk("%s threads: %d CPUs, %lu objects allocated, %lu freed by another CPU\n",
	       SLAB_ALLOC_NAME, SMP_THREADS, allocs, remote);
	ST_EXPECT(remote > SMP_OPS / 20, "only %lu objects freed by another CPU", remote);
	ST_EXPECT(slab_bad_frees == bad, "good frees reported as bad");
	ST_EXPECT(kmem_cache_check(smp_cache) == 0, "smp-own inconsistent");
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
		if (kmalloc_caches[i])
			ST_EXPECT(kmem_cache_check(kmalloc_caches[i]) == 0, "%s inconsistent",
				  kmalloc_caches[i]->name);
	if (smp_alloc_check(&mark))
		return -1;
	ST_EXPECT(kmem_cache_destroy(smp_cache) == 0, "destroy refused");
	slab_drain_all();
	ST_EXPECT(slab_test_settle() == pages, "pages not back: %lu free, %lu before",
		  nr_free_pages(), pages);
	ST_EXPECT(buddy_check() == 0, "buddy_check failed");
	return 0;
}
