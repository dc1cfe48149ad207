/*
 * test_slab_host_smp.c - host threads as CPUs (host_cpu_id 1..SMP_THREADS)
 * hammering the kmalloc caches and one cache of their own at once.
 *
 * Each thread allocates objects of mixed sizes and fills every byte with a
 * pattern naming its owner and the object's serial number; it frees most
 * of its own objects, and passes a share to the next thread through a
 * single-producer single-consumer ring, so objects are freed on another
 * CPU than the one that took them (into that CPU's array, then the shared
 * array, then their slabs). Every object's pattern is checked before it is
 * freed, so two owners of one object, or a write into a free object, show
 * up. Now and then a thread runs slab_reap() as its timer would.
 *
 * A warm-up pass first gives every thread's CPU its arrays (they are made
 * on first use and stay); slab_drain_all() then fixes the free page count.
 * After the run every CPU drains (slab_drain_all again) and the free page
 * count must be what it was: nothing leaked, nothing freed twice.
 */
#include "tests/common/test_slab.h"
#include <pthread.h>

#define SMP_THREADS	4
#define SMP_OPS		(4000UL * SELFTEST_SCALE)
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
};

struct worker {
	unsigned int cpu;
	unsigned long ops;
	struct ring *out, *in;
	pthread_barrier_t *barrier;
	unsigned long allocs, frees, remote_frees, bad, failed;
};

static struct kmem_cache *smp_cache;

static size_t obj_bytes(const struct obj *o)
{
	return o->size ? o->size : SMP_OBJ_SIZE;
}

static uint8_t pattern_at(const struct obj *o, size_t i)
{
	return (uint8_t)(o->owner * 31 + o->serial + i * 7);
}

static void fill(struct obj *o)
{
	for (size_t i = 0; i < obj_bytes(o); i++)
		o->p[i] = pattern_at(o, i);
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
	struct worker *w = arg;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (w->cpu + 1);
	struct obj held[SMP_HELD], o;
	unsigned int nheld = 0;
	uint32_t serial = 0;

	host_set_cpu(w->cpu);
	for (unsigned long op = 0; op < w->ops; op++) {
		unsigned int r = (unsigned int)(xorshift(&x) % 100);

		if (r < 50 && nheld < SMP_HELD) {
			struct obj *n = &held[nheld];

			n->size = (x >> 8) % 3 == 0 ? 0 : 1 + (size_t)((x >> 16) % 1100);
			if ((x >> 40) % 64 == 0)
				n->size = KMALLOC_MAX_CACHE_SIZE + 1 + (x >> 20) % PAGE_SIZE;
			n->p = n->size ? kmalloc(n->size) : kmem_cache_alloc(smp_cache);
			if (!n->p) {
				w->failed++;
				continue;
			}
			n->owner = (uint8_t)w->cpu;
			n->serial = serial++;
			fill(n);
			nheld++;
			w->allocs++;
		} else if (r < 72 && nheld) {
			obj_free(w, &held[--nheld], false);
		} else if (r < 92 && nheld) {
			if (ring_put(w->out, &held[nheld - 1]))
				nheld--;
		} else if (r == 99) {
			slab_reap();
		}
		while (ring_get(w->in, &o))
			obj_free(w, &o, true);
	}
	while (nheld)
		obj_free(w, &held[--nheld], false);
	pthread_barrier_wait(w->barrier);	/* nothing more enters the rings */
	while (ring_get(w->in, &o))
		obj_free(w, &o, true);
	return NULL;
}

/* Run the workers; returns 0 or fails with what went wrong. */
static int run_workers(unsigned long ops, unsigned long *allocs, unsigned long *remote)
{
	static struct ring rings[SMP_THREADS];
	struct worker w[SMP_THREADS];
	pthread_t threads[SMP_THREADS];
	pthread_barrier_t barrier;
	unsigned long frees;

	pthread_barrier_init(&barrier, NULL, SMP_THREADS);
	for (unsigned int i = 0; i < SMP_THREADS; i++) {
		rings[i].head = rings[i].tail = 0;
		w[i] = (struct worker){ .cpu = i + 1, .ops = ops, .out = &rings[i],
					.in = &rings[(i + SMP_THREADS - 1) % SMP_THREADS],
					.barrier = &barrier };
	}
	for (unsigned int i = 0; i < SMP_THREADS; i++)
		ST_EXPECT(pthread_create(&threads[i], NULL, smp_worker, &w[i]) == 0,
			  "pthread_create failed");
	for (unsigned int i = 0; i < SMP_THREADS; i++)
		pthread_join(threads[i], NULL);
	pthread_barrier_destroy(&barrier);
	*allocs = *remote = 0;
	frees = 0;
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

SELFTEST_HOST(slab_host_threads_as_cpus)
{
	unsigned long pages, allocs, remote, bad = slab_bad_frees;

	smp_cache = kmem_cache_create("test-smp", SMP_OBJ_SIZE, 0, 0, NULL);
	ST_EXPECT(smp_cache, "create failed");
	/* Warm-up: every thread's CPU makes its arrays (and the shared ones appear). */
	if (run_workers(SMP_OPS / 8, &allocs, &remote))
		return -1;
	slab_drain_all();
	pages = nr_free_pages();
	if (run_workers(SMP_OPS, &allocs, &remote))
		return -1;
	ST_EXPECT(remote > SMP_OPS / 20, "only %lu objects freed by another CPU", remote);
	ST_EXPECT(slab_bad_frees == bad, "good frees reported as bad");
	ST_EXPECT(kmem_cache_check(smp_cache) == 0, "test-smp inconsistent");
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
		if (kmalloc_caches[i])
			ST_EXPECT(kmem_cache_check(kmalloc_caches[i]) == 0, "%s inconsistent",
				  kmalloc_caches[i]->name);
	slab_drain_all();
	ST_EXPECT(nr_free_pages() == pages, "pages not back: %lu free, %lu before",
		  nr_free_pages(), pages);
	ST_EXPECT(buddy_check() == 0, "buddy_check failed");
	printk("threads: %d CPUs, %lu objects allocated, %lu freed by another CPU\n", SMP_THREADS,
	       allocs, remote);
	ST_EXPECT(kmem_cache_destroy(smp_cache) == 0, "destroy refused");
	return 0;
}
