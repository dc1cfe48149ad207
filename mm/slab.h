/*
 * slab.h - the object allocator's public interface: object caches
 * (kmem_cache_*) and general-purpose allocation (kmalloc and friends).
 *
 * A cache hands out objects of one size from slabs (blocks of 2^order pages
 * from the buddy allocator). Quarry builds one of four allocators behind
 * this interface, chosen with ALLOC= (each folder's files.mk); all give
 * every function here the same semantics, reports and slabinfo format:
 *  - SLAB (ALLOC=slab, the default): per-CPU arrays of recently freed
 *    objects in front of the slabs, a node per CPU (mm/slab/slab_def.h);
 *  - SLUB (ALLOC=slub), as seed 002 proposed it: free objects chained
 *    through themselves, every chain ending in its slab's tagged address;
 *    each CPU allocates from and frees to its current slab with one
 *    double-word compare-and-exchange on (freelist, transaction id),
 *    without disabling interrupts, and per-CPU sheaves in front by default
 *    (mm/slub/slub_def.h). It needs that instruction: on x86_64
 *    cmpxchg16b (CPUID CX16), which QEMU's default qemu64 has;
 *    kmem_cache_init refuses to run without it, naming it;
 *  - SLOB (ALLOC=slob: one heap, sequential fit; ALLOC=slob-seg: the heap
 *    in segregated size-class lists), seed 004's allocator for small
 *    machines: one heap lock, no per-CPU caching (mm/slob/slob_def.h).
 * This header is all a user needs; "per-CPU caching" below means SLAB's
 * arrays or SLUB's CPU slab and CPU partial slabs.
 *
 * Context: every function here may be called with interrupts on or off and,
 * apart from kmem_cache_create/destroy/shrink, slab_drain_all and the
 * reports, from interrupt handlers. Allocation never sleeps; it returns NULL
 * when memory is out.
 *
 * Build options (both allocators unless said):
 *   CONFIG_SLAB_DEBUG=1 (make SLAB_DEBUG=1): every cache gets red zones and
 *	poisoning (SLAB_DEBUG below). Costs 16 bytes more per object (SLUB: 24,
 *	its free pointer moving out of the object), a poison write of the whole
 *	object on every free and a check of it on every allocation, and
 *	changes slab layouts. SLAB's debug caches have no per-CPU array, SLUB's
 *	no CPU slab: every operation takes the cache's node lock, and SLUB
 *	also checks every free pointer it follows. Without it the same checks
 *	are available per cache with the flags.
 *   CONFIG_SLAB_STATS=1: count events per cache (the counters every
 *	allocator shares in mm/slab_stats.h, each allocator's own in its
 *	struct kmem_cache_stats, mm/<alloc>/<alloc>_def.h). Costs one atomic add per counted
 *	event, fast paths included; on by default in debug and host builds only.
 *   CONFIG_SLAB_IDX_BYTES=4 (SLAB_IDX=4), CONFIG_SLAB_GROW_LOCKED=1: SLAB
 *	only, the benchmark variants of seeds 000 and 001 (mm/slab/slab_def.h,
 *	mm/slab/slab_cpu.c).
 */
#ifndef MM_SLAB_H
#define MM_SLAB_H

#include "kernel/compiler.h"
#include "mm/page.h"
#include "kernel/numa.h"

/* The build options every allocator reads (mm/files.mk sets them): 0 unless set. */
#ifndef CONFIG_SLAB_DEBUG
#define CONFIG_SLAB_DEBUG 0
#endif

struct kmem_cache;

/* Flags for kmem_cache_create. */
#define SLAB_HWCACHE_ALIGN	0x0001U	/* align on a cache line (64 B), less for small objects */
#define SLAB_RED_ZONE		0x0002U	/* guard words before and after each object */
#define SLAB_POISON		0x0004U	/* fill free objects with 0x6b, check on allocation */
#define SLAB_DEBUG		(SLAB_RED_ZONE | SLAB_POISON)
#define SLAB_NO_DEBUG		0x0008U	/* CONFIG_SLAB_DEBUG adds nothing to the flags given */
#define SLAB_NO_MERGE		0x0010U	/* never shares another cache's slabs (see slab_merge_set) */

#define SLAB_CACHE_LINE		64
#define SLAB_NAME_LEN		32	/* a cache's name is copied, cut to 31 characters */

/*
 * kmalloc(0) returns ZERO_SIZE_PTR: not NULL (the call succeeded), but any use
 * faults because the kernel leaves low memory unmapped. kfree and ksize accept it.
 */
#define ZERO_SIZE_PTR		((void *)16)
#define ZERO_OR_NULL_PTR(p)	((uintptr_t)(p) <= (uintptr_t)ZERO_SIZE_PTR)

/*
 * kmalloc size classes: powers of two from KMALLOC_MIN_SIZE (16) to
 * KMALLOC_MAX_CACHE_SIZE, plus 96 and 192. KMALLOC_MAX_CACHE_SIZE is 8 KiB at
 * 4K pages and half a page (32 KiB) at 64K pages; larger requests go to the
 * buddy allocator as whole pages.
 */
#define KMALLOC_SHIFT_LOW	4
#define KMALLOC_MIN_SIZE	(1UL << KMALLOC_SHIFT_LOW)
#define KMALLOC_SHIFT_HIGH	(PAGE_SHIFT == 12 ? 13 : PAGE_SHIFT - 1)
#define KMALLOC_MAX_CACHE_SIZE	(1UL << KMALLOC_SHIFT_HIGH)

/*
 * kmem_cache_init - build the "kmem_cache" cache and the kmalloc caches
 * (SLAB: then per-CPU arrays come with each CPU's first use) and print the
 * layout report. Call once after mm_init(), before any other function
 * here, on one CPU. SLUB panics, naming the instruction, on a CPU without
 * a double-word compare-and-exchange.
 */
void kmem_cache_init(void);

/*
 * kmem_cache_create - make a cache of objects of 'size' bytes aligned to
 * 'align' (0: 8 bytes; a power of two up to PAGE_SIZE). 'flags' are SLAB_*.
 * 'ctor', if given, runs on every object when its slab is made (and, for
 * SLAB_POISON caches, again before each allocation): objects go back to the
 * cache in their constructed state. The name is copied. Objects may be up
 * to 4 MiB (KMEM_CACHE_MAX_SIZE, a MAX_ORDER block) in every build, with
 * every flag and alignment and with a ctor: guards that do not fit, asked
 * for or added by a debug build, are left out, and the console says so;
 * a ctor cache whose objects leave no room past them for the allocator's
 * free word (SLAB's free mark, SLUB's free pointer) runs the ctor again
 * before each allocation, and says so. Returns NULL on a bad argument
 * (reported, naming the argument and why) or when memory is out. Not from
 * interrupt handlers.
 */
struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
				     unsigned int flags, void (*ctor)(void *));

/*
 * kmem_cache_alloc - one object from the cache, or NULL when memory is out.
 * cachep must be a live cache (made by kmem_cache_create, not destroyed).
 * Without CONFIG_SLAB_DEBUG that is not checked: a destroyed cache's
 * memory is read as a cache, which may crash, hand out memory that
 * belongs to no cache, or return NULL; with it (make SLAB_DEBUG=1), a
 * NULL or destroyed cache is reported ("not a live cache ... refused")
 * and NULL returned.
 */
void *kmem_cache_alloc(struct kmem_cache *cachep);

/*
 * kmem_cache_alloc_node - kmem_cache_alloc from memory of node 'node'
 * (kernel/numa.h), or of the nearest node that has a free object or page
 * when that node has none. NUMA_NO_NODE means the calling CPU's node, as
 * kmem_cache_alloc. A node that is out of range or not online is reported
 * ("kmem_cache_alloc_node(cache, node N): ...") and served as NUMA_NO_NODE.
 * The object is freed with kmem_cache_free, from any CPU; it goes back to
 * its own node. SLOB ignores the node (as Linux's SLOB did): its heap is
 * one for all nodes. NULL when memory is out; same context as
 * kmem_cache_alloc.
 */
void *kmem_cache_alloc_node(struct kmem_cache *cachep, unsigned int node);

/*
 * kmem_cache_free - give back an object of this cache. objp NULL is ignored.
 * A pointer that is not an allocated object of this cache is reported on
 * the console (naming cache, address and fault), counted in slab_bad_frees
 * and refused; so is a cachep of NULL (the report names the object's
 * cache; the object stays allocated). cachep must be live, as for
 * kmem_cache_alloc: CONFIG_SLAB_DEBUG builds report a destroyed one as a
 * bad free ("cache ... is not a live cache ...; not freed", counted) and
 * free nothing; other builds do not check.
 */
void kmem_cache_free(struct kmem_cache *cachep, void *objp);

/*
 * kmem_cache_shrink - give back this CPU's caching of the cache (SLAB: its
 * array, and every node's shared array, drained and freed; SLUB: its CPU slab and CPU partial
 * slabs) and return every empty slab to the buddy allocator. What other
 * CPUs cache stays there (only their CPU may drain it: see slab_drain_all).
 * Returns 0 if the cache now holds no slabs, 1 if slabs with objects in use
 * (or cached by other CPUs) remain, -EINVAL (reported, nothing done) for a
 * NULL cachep, and in CONFIG_SLAB_DEBUG builds for one that is not live.
 * Not from interrupts.
 */
int kmem_cache_shrink(struct kmem_cache *cachep);

/*
 * kmem_cache_destroy - drain every CPU's caching of the cache, and free the
 * cache with all its slabs. The caller guarantees that no CPU uses the cache any more. If
 * objects are still allocated it says so loudly (cache name and count),
 * frees only the empty slabs and keeps the cache, so later frees of those
 * objects stay safe; it then returns -EBUSY (else 0). NULL is ignored. A
 * pointer that is not a live cache (destroyed already) is reported and
 * refused with -EINVAL without being read; one at whose address a newer
 * cache was made destroys that newer cache (not detectable cheaply).
 */
int kmem_cache_destroy(struct kmem_cache *cachep);

/*
 * slab_merge_set - merge caches (on) or not (off, the default) from the
 * next kmem_cache_create on, as Linux's slab_merge: a new cache without a
 * ctor, debug flags or SLAB_NO_MERGE gets an existing one (a kmalloc cache
 * or another made cache) whose objects hold it with less than a pointer's
 * size to spare, at its alignment, and shares its slabs, per-CPU caching
 * and counters; the name given is not kept. kmem_cache_destroy of a shared
 * cache only counts its user out, until the last. SLOB never merges. The
 * kernel sets it from the command line word "slab_merge"; the trace replay
 * turns it on to match Linux's default. Not while caches are being made.
 */
void slab_merge_set(bool on);

/*
 * kmem_cache_check - verify the cache's invariants, printing the first
 * violation and returning -1, else 0. SLAB: every slab on the right list and
 * flagged, freelist indexes in range and unique, node counters equal to the
 * slabs, per-CPU and shared arrays within limits and holding only this
 * cache's free-to-hand-out objects, each once. SLUB: every free chain (CPU
 * and page freelists) inside its slab on object boundaries, without cycles,
 * ending in its slab's tagged end; counts equal to the chains; CPU slabs
 * and CPU and node partial lists holding the slabs their state says, every
 * slab of the cache (found in mem_map) accounted for. Both: debug guards of
 * free objects intact. The caller guarantees no other CPU allocates from
 * or frees to the cache meanwhile (their timer's slab_reap may run: the
 * check holds the locks that keep it out). O(objects) (SLUB: O(pages)
 * too): for tests.
 */
int kmem_cache_check(struct kmem_cache *cachep);

/* kmem_cache_size - the usable bytes of each object of the cache. */
size_t kmem_cache_size(struct kmem_cache *cachep);

/* kmem_cache_name - the cache's name. */
const char *kmem_cache_name(struct kmem_cache *cachep);

/*
 * kmalloc - 'size' bytes aligned to at least 8 (power-of-two sizes up to a
 * page are aligned to their size, in every build, debug ones included).
 * Returns NULL when memory is out and ZERO_SIZE_PTR for size 0. Free with
 * kfree.
 */
void *kmalloc(size_t size);

/*
 * kmalloc_node - kmalloc from node 'node', as kmem_cache_alloc_node takes
 * it (NUMA_NO_NODE: the calling CPU's node; a bad node reported and served
 * as NUMA_NO_NODE); sizes above the largest kmalloc cache take their pages
 * from alloc_pages_node. Returns as kmalloc; free with kfree.
 */
void *kmalloc_node(size_t size, unsigned int node);

/* kzalloc - kmalloc and clear. */
void *kzalloc(size_t size);

/* kmalloc_array - n * size bytes; NULL if the product overflows. */
void *kmalloc_array(size_t n, size_t size);

/* kcalloc - kmalloc_array and clear. */
void *kcalloc(size_t n, size_t size);

/*
 * krealloc - resize p to new_size keeping its contents up to the smaller
 * size. p NULL acts as kmalloc; new_size 0 frees p and returns ZERO_SIZE_PTR.
 * Returns p itself when it is already big enough. On failure returns NULL
 * and p is untouched.
 */
void *krealloc(void *p, size_t new_size);

/* ksize - how many bytes p really has (its size class); 0 for NULL/ZERO_SIZE_PTR. */
size_t ksize(const void *p);

/* kmalloc_slab_max - the largest request kmalloc serves from a slab cache; larger ones take whole pages. */
size_t kmalloc_slab_max(void);

/*
 * kfree - give back memory from kmalloc (or any slab object). NULL and
 * ZERO_SIZE_PTR do nothing. A pointer that is not a live slab object or the
 * start of a large allocation is reported, counted in slab_bad_frees and
 * refused.
 */
void kfree(const void *p);

/*
 * kmalloc_slab - the cache kmalloc(size) takes its objects from, or NULL
 * for size 0, a size above the largest class (a whole-page allocation), or
 * a class not made yet (early boot). Nothing to free.
 */
struct kmem_cache *kmalloc_slab(size_t size);

/* Bad frees reported and refused since boot (all caches). Tests read it. */
extern unsigned long slab_bad_frees;
/* Corruption found by the debug checks (red zone, poison) since boot. */
extern unsigned long slab_corruptions;

/*
 * slabinfo_show - print every cache in the /proc/slabinfo version 2.1 format
 *	(SLUB: tunables 0 0 0 and sharedavail 0, as Linux SLUB prints them).
 * slabinfo_line - format one cache's slabinfo row (no newline) into buf;
 *	returns the length it needed.
 *	On a machine of several nodes it then prints each cache's objects and
 *	slabs per node ("N<n>=<active_objs>/<num_objs>:<active_slabs>/<num_slabs>",
 *	as Linux's per-node sysfs counts), or says the allocator keeps none.
 * slab_meminfo_show - print "Slab:" and the kB held by slabs, meminfo style;
 *	with several nodes also "Node <n> Slab:" per node, as Linux's per-node
 *	meminfo.
 * slab_layout_show - print per cache how a slab is laid out (objects, order,
 *	where the freelist lives or the free pointer sits, bytes wasted).
 * slab_stats_show - print each cache's event counters (CONFIG_SLAB_STATS).
 * slab_total_pages - pages now held by slabs of all caches.
 */
void slabinfo_show(void);
int slabinfo_line(struct kmem_cache *cachep, char *buf, size_t size);
void slab_meminfo_show(void);
void slab_layout_show(void);
void slab_stats_show(void);

/*
 * kmem_cache_stats_show - print one cache's event counters, in
 * slab_stats_show's format (nothing counted unless CONFIG_SLAB_STATS).
 * kmem_cache_stats_reset - zero them. Both for a benchmark that measures
 * one cache's events over a phase: the counters are added to without a
 * lock, so a reset while another CPU uses the cache may lose its events.
 */
void kmem_cache_stats_show(struct kmem_cache *cachep);
void kmem_cache_stats_reset(struct kmem_cache *cachep);

/*
 * kmem_cache_stats_line - format cachep's counters as kmem_cache_stats_show
 * prints them (name first, no newline) into buf, len bytes; returns the
 * length it needed. slab_stats_each - for every cache, under
 * slab_caches_lock: call fn (unless NULL) with its line, then zero its
 * counters if reset. For a run that counts every cache's events over a
 * phase (the trace replay's causes); the caches must be idle. fn must not
 * take slab_caches_lock or make or destroy a cache.
 */
int kmem_cache_stats_line(struct kmem_cache *cachep, char *buf, size_t len);
void slab_stats_each(void (*fn)(const char *line, void *arg), void *arg, bool reset);

/*
 * struct slab_totals - every cache's slabinfo row (kmem_cache_slabinfo, as
 * its allocator defines the counts) summed in bytes, for a breakdown of
 * slab memory by what holds it:
 *   active   active_objs x objsize: objects handed out, and those per-CPU
 *            caching holds (SLAB's arrays, SLUB's sheaves), which count as
 *            active;
 *   objects  num_objs x objsize: every object slot of every slab;
 *   empty    the object slots of slabs with no object in use.
 * SLOB's rows count objects in use only (its heap's free space is in no
 * row): active == objects, empty 0. slab_totals fills t under
 * slab_caches_lock; O(the caches' objects): for reports and tests, with
 * the caches idle.
 */
struct slab_totals {
	unsigned long long active, objects, empty;
};
void slab_totals(struct slab_totals *t);
unsigned long slab_total_pages(void);

/*
 * kmem_cache_drain_local - give back this CPU's caching of the cache: SLAB
 * moves every object in its array back to its slab, SLUB gives its CPU slab
 * and CPU partial slabs back to the node. It touches only the running
 * CPU's state. slab_drain_local_all does it for every cache. A NULL
 * cachep (and in CONFIG_SLAB_DEBUG builds one that is not live) is
 * reported and nothing done. Any context but NMI.
 */
void kmem_cache_drain_local(struct kmem_cache *cachep);
void slab_drain_local_all(void);

/*
 * slab_reap - give back what this CPU's idle caching and idle caches hold.
 * SLAB (mm/slab/slab_reap.c): an array unused since the last call loses about a
 * fifth of its limit to the slabs; about every other call the CPU's own
 * node's shared array does the same and idle caches return surplus empty
 * slabs to the buddy allocator. SLUB (mm/slub/slub_partial.c): a cache this CPU
 * has not touched since the last call gets its CPU slab and CPU partial
 * slabs back on the node; about every other pass a node no CPU took a slab
 * from returns its empty slabs. Call it on every CPU about every 2 s, from
 * the timer tick: it runs on the calling CPU, which it may find with
 * interrupts on or off (it disables them itself), in an interrupt handler
 * or not. It never waits for a lock: a busy lock skips that work this pass.
 */
void slab_reap(void);

/*
 * slab_drain_all - every online CPU gives back its caching of every cache
 * (on_each_cpu_wait; SLAB frees the arrays themselves), then every shared
 * array, every empty slab and every CPU's page list go back to the buddy
 * allocator: afterwards nr_free_pages() counts every page that no live
 * object (or off-slab freelist) holds, the same whichever CPUs used which
 * caches before; the caching comes back as CPUs use the caches again.
 * Interrupts on; not from an interrupt handler or a function run by
 * on_each_cpu_wait.
 */
void slab_drain_all(void);

/*
 * slab_cpu_events - slow-path operations made on cpu so far (SLAB: refills,
 * flushes, drains, array-less allocations and frees: everything that moves
 * objects to or from slabs; SLUB: slow allocations, flushes, slabs moved
 * between lists or freed, bad frees). slab_reap_events - reap passes, on
 * any CPU, that gave something back. A test that sees them unchanged over
 * its run knows that no one else moved slabs or pages meanwhile.
 */
unsigned long slab_cpu_events(unsigned int cpu);
unsigned long slab_reap_events(void);

/* One cache in a snapshot of slab usage (lab/leakcheck.c). */
struct slab_usage {
	const struct kmem_cache *cache;	/* identity while the cache lives */
	char name[24];			/* its name, cut to fit */
	unsigned long objs;		/* objects allocated and not freed (slabinfo's active_objs) */
	unsigned long pages;		/* pages its slabs hold (SLOB: its big objects' only) */
	bool internal;			/* the allocator's own per-CPU bookkeeping (SLAB's
					 * kmem_cache_node: a node appears when a CPU first
					 * uses a cache and lives as long as the cache) */
};

/*
 * kmem_cache_usage - fill u's objs, pages and internal for cachep (the
 * allocator's part of slab_usage_snapshot). Objects that per-CPU caching
 * holds count as allocated (SLAB's arrays, SLUB's CPU freelists), so objs is
 * the number in use only after slab_drain_all. Any context but NMI.
 */
void kmem_cache_usage(struct kmem_cache *cachep, struct slab_usage *u);

/*
 * slab_random - 64 pseudo-random bits for the allocators' hardening
 * (SLAB_FREELIST_RANDOM's shuffles, SLAB_FREELIST_HARDENED's per-cache
 * secrets): a SplitMix64 sequence over one shared atomic counter, seeded
 * once from arch_random_seed(). Not for cryptography: it keeps a heap
 * layout or a stored pointer from being guessed from the code alone. Any
 * context but NMI; lock-free.
 */
uint64_t slab_random(void);

/*
 * slab_usage_snapshot - fill u[0..n) with every live cache's usage, in
 * slab_caches' order, under slab_caches_lock. Returns how many caches
 * there are: more than n means the rest were left out. Interrupts on or
 * off; not from NMI.
 */
unsigned int slab_usage_snapshot(struct slab_usage *u, unsigned int n);

#endif
