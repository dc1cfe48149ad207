/*
 * fuzz.h - Quarry's allocator fuzzer: an interpreter of random operation
 * sequences over the public API of mm/ (mm/slab.h, mm/buddy.h), built for
 * the host with ASan and UBSan (tests/fuzz/fuzz.mk).
 *
 * Every operation is a valid use of the API: kmalloc, kzalloc,
 * kmalloc_array, kcalloc (overflowing products too), krealloc (grow,
 * shrink, NULL, 0), ksize, kfree, caches of every flag combination with
 * and without a constructor (kmem_cache_create/alloc/free/shrink/destroy,
 * destroy with live objects, which the API answers with -EBUSY), sizes
 * (kmalloc's and caches') within a header below a page and below the
 * largest object (KMEM_CACHE_MAX_SIZE; at most FZ_HUGE_LIVE such huge
 * allocations live at once, so that the arena is not used up), pages at
 * every order (alloc_pages/free_pages, get_free_pages/free_pages_addr), and
 * the draining and reaping calls (kmem_cache_drain_local,
 * slab_drain_local_all, slab_reap, buddy_drain_local, slab_drain_all,
 * drain_all_pages). Misuse (bad frees, double frees, freeing pages of a
 * slab) is tested elsewhere and never done here: anything the allocators
 * report is a finding.
 *
 * What is checked (each failure is a "finding", printed with the seed and
 * the operation number that reproduce it):
 *  - an overlap shadow map: one bit per 8 bytes of the arena, set while a
 *    live allocation covers them; a new allocation that meets a set bit
 *    overlaps a live one;
 *  - every allocation is filled with a pattern naming it, checked before
 *    it is freed (and krealloc's copy checked; above 64 KiB the pattern
 *    covers the first and last 4 KiB and 64 bytes of every 4 KiB); constructed caches' objects
 *    must come out in their constructor's state; kzalloc/kcalloc memory
 *    must be zero; sizes (ksize, kmem_cache_size) and alignments as the API
 *    promises;
 *  - at checkpoints (the end of every round, while no CPU runs):
 *    kmem_cache_check on every cache, buddy_check, and no bad free or
 *    corruption counted by the allocators;
 *  - at the end: everything freed, every fuzz cache destroyed, every cache
 *    drained and shrunk: nr_free_pages() exactly as at the start;
 *  - kmem_cache_create refusing its (always valid) arguments, and a NULL
 *    from a slab-sized allocation (kmalloc up to the largest kmalloc
 *    cache, kmem_cache_alloc of objects no larger) with more than half
 *    of the pages free and a block free that holds one object, or from a
 *    small one with an eighth free (tests/fuzz/fuzz_null.c); neither when
 *    fault injection made it.
 *
 * CPUs: a run uses 'cpus' CPUs (host_cpu_id 0..cpus-1). Sequential mode
 * (threads == 0) runs them all on one host thread, picking the CPU of each
 * operation from the random stream: the whole run is a function of the
 * seed. Threaded mode runs each CPU on its own host thread with its own
 * stream (the seed and the CPU number): the operations are the same each
 * run, their interleaving is not. In both, a quarter of the frees go to the
 * next CPU through a ring and are freed there (cross-CPU frees). A run is a
 * series of rounds of ops_per_round operations per CPU, each ending with a
 * checkpoint, where one CPU also creates and destroys caches and drains
 * everything now and then.
 *
 * Fault injection (mm/fault_inject.h) may be on: then a NULL that it made
 * is expected and counted (fuzz_null.c tells them apart), and everything
 * must still add up.
 */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

struct fuzz_config {
	uint64_t seed;
	unsigned int cpus;		/* 1..8 */
	bool threads;			/* one host thread per CPU */
	unsigned long max_ops;		/* stop after this many operations (0: no limit) */
	double seconds;			/* stop after this long (0: no limit) */
	unsigned long ops_per_round;	/* per CPU, between checkpoints */
	const uint8_t *data;		/* libFuzzer: take decisions from these bytes */
	size_t size;			/*   instead of the seed's stream (sequential only) */
	unsigned int plant;		/* 1-3: break the books once on purpose (fuzz.c) */
};

struct fuzz_result {
	unsigned long ops;		/* operations done */
	unsigned long findings;		/* 0, or 1: a run stops at its first finding */
	unsigned long alloc_nulls;	/* allocations that returned NULL (fault injection) */
	unsigned long remote_frees;	/* frees made by another CPU than the allocating one */
	unsigned long checkpoints;
	unsigned long caches_made;
};

/*
 * fuzz_init - bring mm/ up on a fresh arena of arena_mb MiB and the object
 * allocator on it, once per process. fuzz_run may then be called any number
 * of times; each run ends with every page back (or a finding).
 */
void fuzz_init(unsigned long arena_mb);

/*
 * fuzz_run - run one operation sequence as cfg says and fill res. Returns 0,
 * or 1 when a finding was printed (the run stopped there and mm/ may be
 * inconsistent: the caller should exit).
 */
int fuzz_run(const struct fuzz_config *cfg, struct fuzz_result *res);

/*
 * fuzz_died - for atexit: if a run is under way (an allocator's panic or
 * BUG ended the process), print a finding line with the operation it had
 * reached and the last cache call begun (cache, size, alignment, flags,
 * constructor), and the command that reproduces it (sequential runs).
 */
void fuzz_died(void);

#endif
