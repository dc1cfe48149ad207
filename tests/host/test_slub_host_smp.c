/*
 * test_slub_host_smp.c - host threads as CPUs (host_cpu_id 1..SMP_THREADS)
 * hammering SLUB's kmalloc caches and one cache of their own at once.
 *
 * Each thread allocates objects of mixed sizes and fills every byte with a
 * pattern naming its owner and the object's serial number; it frees most
 * of its own objects (onto its CPU freelist when the object is in its CPU
 * slab), and passes a share to the next thread through a single-producer
 * single-consumer ring, so objects are freed on another CPU than the one
 * that took them: onto their slab's page freelist with cmpxchg_double,
 * into another CPU's frozen slab, or freezing a full slab onto the freeing
 * CPU's partial list. Every object's pattern is checked before it is
 * freed, so two owners of one object, or a write into a free object, show
 * up. Now and then a thread reaps or drains its CPU, as its tick would.
 * With sheaves (SLUB_SHEAVES=1) the frees go to the freeing CPU's sheaves
 * first and full sheaves move through the barn to the allocating CPUs:
 * barn puts and gets must both have happened.
 * Afterwards every cache passes kmem_cache_check, the page-freelist paths
 * were taken, and after slab_drain_all every page is back.
 */
#include "tests/common/test_slub.h"
#include <pthread.h>

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

struct ring {
	struct obj slot[RING_SLOTS];
	unsigned long head;	/* written by the producer, release */
	unsigned long tail;	/* written by the consumer, release */
};

struct worker {
	unsigned int cpu;
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
	static const size_t sizes[] = { 0, 16, 32, 48, 64, 96, 128, 200, 512, 1024, 3000 };
	struct worker *w = arg;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (w->cpu + 3);
	struct obj held[SMP_HELD], o;
	unsigned int nheld = 0;
	uint32_t serial = 0;

	host_set_cpu(w->cpu);
	pthread_barrier_wait(w->barrier);
	for (unsigned long op = 0; op < SMP_OPS; op++) {
		uint64_t r = xorshift(&x);

		while (ring_get(w->in, &o))
			obj_free(w, &o, true);
		if (r % 512 == 0)
			slab_reap();
		else if (r % 512 == 1)
			slab_drain_local_all();
		if (nheld < SMP_HELD && (nheld == 0 || r % 8 < 5)) {
			o.size = sizes[(r >> 8) % ARRAY_SIZE(sizes)];
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
			if (r % 4 == 0 && ring_put(w->out, &o))
				continue;	/* the next CPU frees it */
			obj_free(w, &o, false);
		}
	}
	while (nheld)
		obj_free(w, &held[--nheld], false);
	pthread_barrier_wait(w->barrier);	/* every send is done */
	while (ring_get(w->in, &o))
		obj_free(w, &o, true);
	return NULL;
}

SELFTEST_HOST(slub_host_threads_as_cpus)
{
	static struct ring rings[SMP_THREADS];
	struct worker workers[SMP_THREADS];
	pthread_t threads[SMP_THREADS];
	pthread_barrier_t barrier;
	unsigned long pages, allocs = 0, frees = 0, remote = 0, bad = 0, failed = 0;
	unsigned long page_frees, frozen_frees;

	slab_drain_all();
	pages = slab_test_settle();
	smp_cache = kmem_cache_create("smp-own", SMP_OBJ_SIZE, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(smp_cache, "create failed");
	memset(rings, 0, sizeof(rings));
	pthread_barrier_init(&barrier, NULL, SMP_THREADS);
	for (unsigned int i = 0; i < SMP_THREADS; i++) {
		workers[i] = (struct worker){ .cpu = i + 1, .out = &rings[(i + 1) % SMP_THREADS],
					      .in = &rings[i], .barrier = &barrier };
		ST_EXPECT(pthread_create(&threads[i], NULL, smp_worker, &workers[i]) == 0,
			  "pthread_create failed");
	}
	for (unsigned int i = 0; i < SMP_THREADS; i++) {
		pthread_join(threads[i], NULL);
		allocs += workers[i].allocs;
		frees += workers[i].frees;
		remote += workers[i].remote_frees;
		bad += workers[i].bad;
		failed += workers[i].failed;
	}
	pthread_barrier_destroy(&barrier);
	printk("slub threads: %d CPUs, %lu objects allocated, %lu freed by another CPU\n",
	       SMP_THREADS, allocs, remote);
	ST_EXPECT(bad == 0, "%lu objects found overwritten", bad);
	ST_EXPECT(failed == 0, "%lu allocations failed", failed);
	ST_EXPECT(allocs == frees && remote > 0, "%lu allocated, %lu freed (%lu remotely)", allocs,
		  frees, remote);
	page_frees = smp_cache->stats.free_slow;
	frozen_frees = smp_cache->stats.free_frozen + smp_cache->stats.cpu_partial_free;
	ST_EXPECT(page_frees > 0 && frozen_frees > 0,
		  "page freelist paths not taken: %lu page frees, %lu into frozen slabs",
		  page_frees, frozen_frees);
	if (smp_cache->sheaf_capacity && !CONFIG_SLAB_DEBUG) {	/* kmalloc caches with sheaves */
		unsigned long puts = smp_cache->stats.barn_put, gets = smp_cache->stats.barn_get;

		for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
			if (kmalloc_caches[i]) {
				puts += kmalloc_caches[i]->stats.barn_put;
				gets += kmalloc_caches[i]->stats.barn_get;
			}
		printk("slub threads: %lu full sheaves given to barns, %lu taken\n", puts, gets);
		ST_EXPECT(puts > 0 && gets > 0, "no barn exchange: %lu puts, %lu gets", puts, gets);
	}
	ST_EXPECT(kmem_cache_check(smp_cache) == 0, "smp-own inconsistent");
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
		if (kmalloc_caches[i])
			ST_EXPECT(kmem_cache_check(kmalloc_caches[i]) == 0, "%s inconsistent",
				  kmalloc_caches[i]->name);
	ST_EXPECT(slub_test_held(smp_cache) == 0, "%lu objects held", slub_test_held(smp_cache));
	ST_EXPECT(kmem_cache_destroy(smp_cache) == 0, "destroy refused");
	slab_drain_all();
	ST_EXPECT(slab_test_settle() == pages, "pages not back: %lu free, %lu before",
		  nr_free_pages(), pages);
	return 0;
}
