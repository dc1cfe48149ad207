/*
 * test_slab_host_smp.c - host threads as CPUs (host_cpu_id 1..SMP_THREADS)
 * sharing one cache and the kmalloc caches. Each thread allocates, frees
 * its own objects, and passes some to the others through a mailbox, so
 * objects are freed into a different CPU's array than the one they came
 * from and node lists are fought over. Every object carries its owner's
 * tag, checked when freed. At the end each thread drains its own arrays
 * (a CPU only touches its own array), then the main thread checks the
 * invariants and that every page came back.
 */
#include "tests/common/test_slab.h"
#include <pthread.h>

#define SMP_THREADS	4
#define SMP_OPS		40000
#define SMP_HELD	200
#define MAILBOX		512

struct mail {
	unsigned char *p;
	size_t size;		/* 0: from the shared cache */
	unsigned char tag;
};

static pthread_mutex_t mailbox_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mail mailbox[MAILBOX];
static unsigned int mail_count;
static struct kmem_cache *smp_cache;
static unsigned long smp_errors;

#define SMP_OBJ_SIZE	72

static bool mail_ok(const struct mail *m)
{
	size_t n = m->size ? m->size : SMP_OBJ_SIZE;

	return m->p[0] == m->tag && m->p[n - 1] == m->tag;
}

static void mail_free(const struct mail *m)
{
	if (!mail_ok(m))
		__atomic_fetch_add(&smp_errors, 1, __ATOMIC_RELAXED);
	if (m->size)
		kfree(m->p);
	else
		kmem_cache_free(smp_cache, m->p);
}

static void *smp_worker(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (id + 1);
	struct mail held[SMP_HELD];
	unsigned int nheld = 0;

	host_cpu_id = id;
	for (unsigned int op = 0; op < SMP_OPS; op++) {
		unsigned int r;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r = (unsigned int)(x % 100);
		if (r < 50 && nheld < SMP_HELD) {
			struct mail *m = &held[nheld];

			m->size = (x >> 8) % 2 ? 0 : 1 + (size_t)((x >> 16) % 600);
			m->p = m->size ? kmalloc(m->size) : kmem_cache_alloc(smp_cache);
			if (!m->p) {
				__atomic_fetch_add(&smp_errors, 1, __ATOMIC_RELAXED);
				continue;
			}
			m->tag = (unsigned char)(x >> 32);
			m->p[0] = m->tag;
			m->p[(m->size ? m->size : SMP_OBJ_SIZE) - 1] = m->tag;
			nheld++;
		} else if (r < 75 && nheld) {
			mail_free(&held[--nheld]);
		} else if (r < 88 && nheld) {
			pthread_mutex_lock(&mailbox_lock);
			if (mail_count < MAILBOX)
				mailbox[mail_count++] = held[--nheld];
			pthread_mutex_unlock(&mailbox_lock);
		} else {
			struct mail m = { 0 };

			pthread_mutex_lock(&mailbox_lock);
			if (mail_count)
				m = mailbox[--mail_count];
			pthread_mutex_unlock(&mailbox_lock);
			if (m.p)
				mail_free(&m);
		}
	}
	while (nheld)
		mail_free(&held[--nheld]);
	/* A CPU drains only its own arrays. */
	slab_drain_local_all();
	return NULL;
}

SELFTEST_HOST(slab_host_threads_as_cpus)
{
	pthread_t threads[SMP_THREADS];
	unsigned long pages;

	pages = slab_test_settle();
	smp_errors = 0;
	mail_count = 0;
	smp_cache = kmem_cache_create("test-smp", SMP_OBJ_SIZE, 0, 0, NULL);
	ST_EXPECT(smp_cache, "create failed");
	for (uintptr_t i = 0; i < SMP_THREADS; i++)
		ST_EXPECT(pthread_create(&threads[i], NULL, smp_worker, (void *)(i + 1)) == 0,
			  "pthread_create failed");
	for (unsigned int i = 0; i < SMP_THREADS; i++)
		pthread_join(threads[i], NULL);
	ST_EXPECT(smp_errors == 0, "%lu objects failed or came back overwritten", smp_errors);
	while (mail_count)
		mail_free(&mailbox[--mail_count]);
	ST_EXPECT(smp_errors == 0, "mailbox objects overwritten");
	ST_EXPECT(kmem_cache_check(smp_cache) == 0, "test-smp inconsistent");
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++)
		if (kmalloc_caches[i])
			ST_EXPECT(kmem_cache_check(kmalloc_caches[i]) == 0, "%s inconsistent",
				  kmalloc_caches[i]->name);
	ST_EXPECT(kmem_cache_destroy(smp_cache) == 0, "destroy refused");
	ST_EXPECT(slab_test_settle() == pages, "pages not back: %lu free, %lu before",
		  nr_free_pages(), pages);
	return 0;
}
