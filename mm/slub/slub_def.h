/*
 * slub_def.h - SLUB: free objects chained through themselves, per-CPU
 * lock-free fast paths, and per-CPU sheaves in front of them.
 *
 * SLUB's internal data structures and its inline fast paths, shared by
 * mm/slub*.c and mm/kmalloc.c (and read by the tests). Users include
 * mm/slab.h only. SLUB is built instead of SLAB with ALLOC=slub.
 * Documentation/slub.md tells the why and the history.
 *
 * Concepts. A slab is a block of 2^order pages, aligned to its size, holding 'num'
 * objects 'size' bytes apart (a min-order slab, below: its twin's order
 * and num). Every page of it has PG_slab, slab_cache and
 * private = the head page, whose slub_freelist and counters (inuse,
 * objects, frozen) describe it. Free objects are chained through a pointer
 * in each, 'offset' bytes from the caller's pointer (0, or past the object
 * when a ctor or poisoning needs it intact). Seed 002: a chain ends not in
 * NULL but in its slab's tagged end, slab base | 1, so any freelist value
 * names its slab (value & ~slab_mask); SLUB_NO_SLAB (~0) is no slab.
 *
 * Per CPU and cache only a 16-byte pair in the per-CPU area (struct
 * kmem_cache_cpu): 'freelist', the CPU slab's free chain (its tagged end
 * once used up), and 'tid', bumped by every allocation and every slow-path
 * change. The allocation fast path reads tid, then freelist, and commits
 * with one double-word cmpxchg (slub_cmpxchg_double_goto): nothing is disabled; an
 * interrupt that took an object or changed the CPU slab in between changed
 * tid, so the cmpxchg fails and the path retries (the tid is what makes a
 * pop safe from ABA: the same top object with another next). The free
 * fast path is a push, which needs no tid: it commits with a one-word
 * cmpxchg (slub_cmpxchg_goto) on freelist alone. Every freelist value names
 * its slab, so finding the same value means the same CPU slab with the
 * same top, and the object pushed onto it links to the right next
 * whatever happened in between. A free goes there when the object is in
 * the CPU slab and not its top, 0 < (freelist ^ object) <= slab_mask; any
 * other onto its slab's page freelist with arch_cmpxchg_double on
 * (page->slub_freelist, page->counters).
 *
 * Sheaves (SLUB_SHEAVES=1, the default; mm/slub/slub_sheaf.c): in front of all
 * that, per CPU and cache, a main and a spare sheaf, arrays of free object
 * pointers, and per memory node a barn of full and empty sheaves; the fast
 * paths pop and push the main sheaf (slab_alloc_at, slub_free) in
 * restartable sequences (kernel/restart.h: an interrupt that lands inside
 * one sends it back to its first load, so an interrupt handler may pop,
 * push, swap or flush the same sheaf; nothing is disabled), or with
 * interrupts off where the arch has no sequences (the host build), and the
 * pair above is then the sheaves' source and sink (refills and flushes,
 * with interrupts off). Main's pointer sits in the
 * per-CPU area by slot (struct slub_sheaf_slots), reached like the pair;
 * slub_sheaf_none stands for none (a debug cache, the slub_sheaf cache,
 * early boot, a CPU that has not used the cache or was drained): its
 * capacity 0 sends both fast paths to the sheaves' slow paths, which fall
 * back on the classic paths. SLUB_SHEAVES=0 builds the classic paths alone.
 *
 * Free words and double frees. Invariants of free words: the word at 'offset' of a free
 * object is stored XORed with the cache's key (fp_secret, whose top two
 * bits are 01; SLAB_FREELIST_HARDENED mixes in the word's address too)
 * and holds its free pointer on a freelist, the mark a free leaves (the
 * object itself, encoded) in a sheaf, or, in a sheaf that a refill put it
 * in, its last free pointer (or whatever a new slab had there); every
 * object handed out has that word set to 0 (slub_fw_clear). Decoded, the
 * word of a free object is the slab's tagged end or an object of the slab;
 * 0, any pointer and any small or negative number decode far from any
 * slab. So both free fast paths test the word before they push
 * (slub_fw_free: a load, an XOR and a compare against slab_mask) and send
 * an object whose word says free to slub_free_is_double (mm/slub/slub_dfree.c),
 * which looks for it where free objects are: this CPU's sheaves, the barn,
 * other CPUs' sheaves, this CPU's freelist, its slab's page freelist where
 * this CPU or the node lock keeps that still. Found (or in a slab frozen
 * by another CPU, whose freelists only that CPU may walk), the free is a
 * double free: reported ("slub: <cache>: <call>(<object>): double free
 * (...)"), counted in slab_bad_frees and refused; not found, the word was
 * the caller's data and the free goes on. So no object is pushed twice: no
 * freelist gets a cycle, no sheaf hands an object out twice, the slab
 * counters stay exact. Why at the free, and this test: a second copy in a
 * sheaf is handed out by the sheaf's next pops, and one pushed on the CPU
 * freelist makes a cycle there, before any check at the slab (its
 * counters count neither; a sheaf is flushed long after) could see it;
 * the word is in the object the caller just used, and one test covers
 * objects in sheaves and on freelists, where a mark alone (as SLAB's)
 * would be overwritten by the free pointer. It costs the free fast paths
 * a load of the word, two XORs, a compare and the store of the mark (with
 * sheaves, less the old test of the sheaf's top object), the allocation
 * fast paths a store. Behind it the slab's counters still refuse a free
 * into a slab with nothing in use, and page_push one on top of a page
 * freelist. Not seen: a double free whose word was overwritten after the
 * first free (debug caches' poison and red zones show those), and two
 * frees of one object racing on two CPUs.
 *
 * Nodes (mm/slub/slub_node.c). s->node[nid] is memory node nid's part of
 * the cache: its partial list, its min-order slabs, its counts and its
 * barn. A slab is the node's its pages were on when it was made
 * (page_to_nid; kept in its head page as slub_slab_nid, for the page
 * allocator gives early boot's pages their node only once the topology is
 * known): it is counted there and listed only there, whoever frees into it.
 * A CPU's memory node (slub_local_nid) is its node, or the nearest node with
 * memory for a CPU of a node without. A CPU's slow path takes its own
 * partial slabs (its node's, but what a free froze before the topology was
 * known), then its node's, then a new slab from alloc_pages (its node, or
 * where the page allocator falls back, nearest first); only when its node
 * looks out of free blocks (slub_node_low), or no slab can be made, does it
 * take a CPU slab from other nodes' partial lists, nearest first, and it
 * then takes none for its partial list. A free into another node's slab
 * (s->node_check: several memory nodes; the fast path sees obj_bound 0)
 * goes past the sheaves to the slab, and a full slab it makes partial goes
 * onto its own node's list under that node's lock, not onto the freeing
 * CPU's partial list; so a sheaf and a barn hold their node's objects, but
 * for what a refill took when the node had none. kmem_cache_alloc_node on
 * the CPU's node takes the fast paths (and gives back what is another
 * node's); on another node, slub_alloc_node_slow takes one object at a time
 * from that node's partial slabs under its lock, or makes a new slab there
 * and lists it, never a CPU slab.
 *
 * Slab states: frozen (a CPU's slab, or on that CPU's partial list in
 * s->cpu[cpu]; only that CPU takes objects from it, others push lock-free
 * onto its page freelist); unfrozen with a free object, on its node's
 * partial list (up to max(min_partial, cpu_partial) of them may be empty,
 * at its front; debug caches: min_partial); full, on no list.
 * A partial slab becomes a CPU slab once reuse_free of its objects are free
 * (or when no new slab can be made): mm/slub/slub_partial.c says why.
 *
 * Min-order slabs: when no block of the cache's order is free, a slab of
 * the smallest order that holds one object (with its guards) is made
 * instead, so that NULL means memory is out, not fragmented. Its pages
 * name the cache's min-order twin (s->min_cache: a struct kmem_cache that
 * only describes those slabs' geometry, min_of naming s, obj_bound 0) as
 * their slab_cache, so the fast paths' free tests, which find the slab by
 * address (slab_mask) and would be wrong for a block smaller than the
 * mask, fail for every pointer into one and send it to the slow path,
 * which checks it against the slab's own geometry (slub_geom): no cost on
 * the fast paths. A min-order slab is never a CPU slab: in a cache without
 * debugging it stays frozen on the node's min_slabs list, and objects are
 * taken from it under the node lock (mm/slub/slub_min.c); frees
 * push onto it lock-free as onto any frozen slab. In a debug cache, which
 * has no CPU slabs, it is a slab like the others. The fallback is
 * counted (stats.new_min).
 *
 * Lock order, outermost first, and what each lock protects:
 *  1. slab_caches_lock: the list of caches.
 *  2. node[nid].list_lock: node nid's partial list and nr_partial, its
 *     min-order slabs, and unfreezing a slab of nid. Only taken with
 *     interrupts off. One node's at a time (slub_node_lock switches), but
 *     for kmem_cache_check and the reap, which hold them all, taken in
 *     ascending node order (the reap by trylocks).
 *  3. node[nid].barn.lock: the barn's lists of full and empty sheaves. Only
 *     taken with interrupts off; held under a node lock only by
 *     kmem_cache_check, and nothing else is taken under it.
 *  4. the buddy allocator's zone locks (slabs made and freed).
 *  5. the console lock (reports).
 * A slab's page freelist and counters are changed by one double-word
 * compare-and-exchange, not under a lock.
 *
 * Who touches a CPU's state, with what disabled: a CPU's pair is written
 * by that CPU (classic fast paths with interrupts on; slow paths, sheaf
 * refills and flushes, reaps with them off) or, for an idle cache, by
 * kmem_cache_destroy; its partial list only by that CPU with interrupts
 * off; its sheaves only by that CPU, with interrupts off or (the fast
 * paths' pop and push) in a restartable sequence, or by destroy, for an
 * idle cache.
 *
 * Invariants of nodes: a listed slab is on its own node's list
 * (slub_slab_nid); node[nid]'s nr_slabs and nr_min count exactly the slabs
 * of nid; a free never puts another node's object into a sheaf
 * (node_check set); the rows of kmem_cache_slabinfo_node add up to the
 * cache's.
 *
 * Departures from Linux: no per-CPU page pointer; debug caches have no CPU
 * slab and take the node lock for every operation; the tick drives the
 * reap, which also gives back idle CPUs' sheaves and unused barns; sheaves
 * for every cache without debugging (not on a caller's request), no
 * kfree_rcu sheaf; the sheaf fast paths are restartable sequences, where
 * Linux takes a per-CPU trylock that an interrupt handler finding it held
 * falls back from (here the handler may use the sheaf, and the cut-in
 * sequence starts over). Nodes: one struct per possible node inside the cache (no
 * pointers to allocate per online node); a CPU takes other nodes' partial
 * slabs only when its node looks full (no remote_node_defrag_ratio); a
 * full slab that a remote free makes partial goes to its node's list, not
 * the freeing CPU's partial list; kmem_cache_alloc_node for another node
 * installs no CPU slab; slabs made before the topology was known stay node
 * 0's.
 */
#ifndef MM_SLUB_DEF_H
#define MM_SLUB_DEF_H

#include "kernel/compiler.h"
#include "kernel/list.h"
#include "kernel/spinlock.h"
#include "kernel/percpu.h"
#include "kernel/atomic.h"
#include "kernel/restart.h"
#include "mm/page.h"
#include "mm/slab.h"
#include "mm/buddy.h"
#include "mm/slab_debug.h"
#include "kernel/numa.h"
#include <asm/cmpxchg.h>
#include <asm/processor.h>

#ifndef CONFIG_SLAB_FREELIST_HARDENED
#define CONFIG_SLAB_FREELIST_HARDENED 0	/* SLAB_FREELIST_HARDENED=1: see slub_get_fp */
#endif
#ifndef CONFIG_SLUB_SHEAVES
#define CONFIG_SLUB_SHEAVES 1	/* SLUB_SHEAVES=0: the classic fast paths only (seed 002) */
#endif
#include "mm/slab_stats.h"

/* The tag bit of a freelist end, and the CPU freelist of a CPU without a slab. */
#define SLUB_END_TAG		1UL
#define SLUB_NO_SLAB		((void *)~0UL)
#define SLUB_MIN_SIZE		8	/* an object holds at least its free pointer */
/* Most objects per slab (kmem_cache_check's bitmap): 8-byte objects in 128 KiB. */
#define SLUB_MAX_OBJS		16384
/* Slab orders for small caches; larger only when one object needs it (min-order slabs: above). */
#define SLUB_MAX_ORDER		(PAGE_SHIFT == 12 ? 3 : 1)
/* Slabs of the node's partial list a CPU looks at for ready ones, under its lock. */
#define SLUB_NODE_SCAN		16
/* Caches that may exist at once: each has a 16-byte pair in every per-CPU area. */
#define SLUB_CPU_SLOTS		128

/*
 * Sheaves (mm/slub/slub_sheaf.c): a sheaf is an array of up to SLUB_SHEAF_MAX
 * object pointers, SLUB_SHEAF_BYTES from the slub_sheaf cache; a barn keeps
 * up to max_full full ones (its base size: SLUB_BARN_MAX, fewer for large
 * objects: at most SLUB_BARN_BYTES of objects; more while the cache swings,
 * up to SLUB_BARN_GROW_MAX holding SLUB_BARN_GROW_BYTES of objects and
 * sheaves) and SLUB_BARN_MAX empty ones.
 */
#define SLUB_SHEAF_BYTES	512
#define SLUB_BARN_MAX		10
#define SLUB_BARN_BYTES		(512UL << 10)
#define SLUB_BARN_GROW_MAX	64
#define SLUB_BARN_GROW_BYTES	(2UL << 20)
_Static_assert(SLUB_BARN_GROW_MAX >= SLUB_BARN_MAX, "a barn grows from its base size");

/* page->counters: bits 0-31 inuse, 32-62 objects, 63 frozen. */
#define SLUB_FROZEN		(1UL << 63)
static inline unsigned int slub_inuse(unsigned long c)
{
	return (unsigned int)c;
}

static inline unsigned int slub_objects(unsigned long c)
{
	return (unsigned int)(c >> 32) & 0x7fffffffU;
}

static inline bool slub_frozen(unsigned long c)
{
	return c & SLUB_FROZEN;
}

static inline unsigned long slub_counters(unsigned int inuse, unsigned int objects, bool frozen)
{
	return inuse | ((unsigned long)objects << 32) | (frozen ? SLUB_FROZEN : 0);
}

/* One CPU's pair for one cache, in the per-CPU area; 16-byte aligned for the cmpxchg. */
struct kmem_cache_cpu {
	void *freelist;		/* CPU slab's first free object, its tagged end, or SLUB_NO_SLAB */
	unsigned long tid;	/* transaction id: changes with every update of the pair */
} __aligned(16);

struct slub_cpu_slots {
	struct kmem_cache_cpu slot[SLUB_CPU_SLOTS];
};
DECLARE_PER_CPU(struct slub_cpu_slots, slub_cpu);
/* Slow-path operations per CPU (slab_cpu_events). */
DECLARE_PER_CPU(unsigned long, slub_events);

/*
 * A sheaf: objects[0..size) are free objects of its cache, the last one
 * freed on top. slub_sheaf_none (capacity 0) stands for "no sheaf".
 */
struct slub_sheaf {
	struct slub_sheaf *next;	/* on a barn list */
	unsigned long size;		/* objects held (a word: no zero-extension on the paths) */
	unsigned long capacity;		/* most it holds (its cache's sheaf_capacity) */
	void *objects[];
};
#define SLUB_SHEAF_MAX	((SLUB_SHEAF_BYTES - sizeof(struct slub_sheaf)) / sizeof(void *))
extern struct slub_sheaf slub_sheaf_none;
extern struct kmem_cache *slub_sheaf_cache;

/* Each cache's main sheaf on a CPU, by slot, in the per-CPU area (the fast paths' part). */
struct slub_sheaf_slots {
	struct slub_sheaf *main[SLUB_CPU_SLOTS];
};
DECLARE_PER_CPU(struct slub_sheaf_slots, slub_sheaf);

/* A CPU's slow-path state of one cache: touched by that CPU with interrupts off. */
struct kmem_cache_cpu_partial {
	struct list_head partial;	/* frozen slabs with free objects, by page->lru */
	unsigned int nr_partial;
	unsigned int reap_size;		/* the main sheaf's size at the last reap */
	bool sheaf_warm;		/* main was refilled since the sheaves were made */
	struct slub_sheaf *spare;	/* the spare sheaf, or NULL */
	struct slub_sheaf *reap_main;	/* the main sheaf at the last reap */
	unsigned long reap_tid;		/* the pair at the last reap: both equal means idle */
	void *reap_freelist;		/* (frees move only the freelist) */
} __aligned(64);
_Static_assert(_Alignof(struct kmem_cache_cpu_partial) >= SLAB_CACHE_LINE,
	       "each CPU's slow-path state (kmem_cache.cpu[]) on cache lines of its own");

/* The barn: the node's spare sheaves, full and empty, under its own lock. */
struct slub_barn {
	struct spinlock lock;		/* protects everything here */
	struct slub_sheaf *full;	/* full sheaves, linked by next */
	struct slub_sheaf *empty;	/* empty sheaves */
	unsigned int nr_full;		/* at most max_full */
	unsigned int max_full;		/* its base size (2..SLUB_BARN_MAX, see
					   SLUB_BARN_BYTES) up to SLUB_BARN_GROW_MAX */
	unsigned int nr_empty;		/* at most SLUB_BARN_MAX */
	unsigned int touched;		/* a sheaf came or went since the last reap */
	unsigned int reap_visits;	/* reap passes since the barn was last reaped */
	unsigned int swing;		/* BARN_*: what its CPUs did since it grew or was
					   emptied (read and set without the lock) */
};

/* slub_barn.swing: a flush, then a refill from the slabs: the cache swings. */
#define BARN_CALM	0	/* no flush since the barn grew or was emptied */
#define BARN_FLUSHED	1	/* a full sheaf of scattered objects was flushed to the slabs */
#define BARN_SWINGS	2	/* ... and a sheaf was refilled from the slabs after it */

/*
 * A memory node's part of a cache (s->node[nid]): the slabs whose head page
 * says nid (slub_slab_nid), and the barn of the CPUs whose memory node nid is.
 */
struct kmem_cache_node {
	struct spinlock list_lock;	/* protects partial, nr_partial and unfreezing */
	struct list_head partial;	/* unfrozen slabs with a free object */
	unsigned long nr_partial;
	struct atomic_long nr_slabs;	/* every slab of the cache on this node */
	struct atomic_long nr_min;	/* of those, min-order slabs */
	struct list_head min_slabs;	/* a cache without debugging: every min-order slab,
					 * frozen (by page->lru) */
	unsigned int alloc_touched;	/* a slab was taken from the list since the last reap */
	unsigned int reap_visits;	/* reap passes since the node was last reaped */
	unsigned int ready_front;	/* the first ready_front slabs of partial are ready
					 * (slab_ready; a lower bound: slub_node_spare) */
	struct slub_barn barn;		/* spare sheaves of the node's CPUs */
} __aligned(64);

/* Event counters of one cache (mm/slab_stats.h); all zero unless CONFIG_SLAB_STATS. */
struct kmem_cache_stats {
	struct slab_stats shared;	/* slabs_made: slabs made with pages from the buddy */
	unsigned long alloc_fast;	/* allocations from the CPU freelist */
	unsigned long alloc_slow;	/* allocations through slab_alloc_slow */
	/*
	 * The two retry counts are 32 bits (an interrupt between a fast path's
	 * load and its cmpxchg is rare), so that the shared allocs and frees
	 * fit without making struct kmem_cache a cache line longer.
	 */
	unsigned int alloc_retries;	/* fast-path allocation cmpxchgs that failed (tid moved) */
	unsigned int free_retries;	/* fast-path free cmpxchgs that failed */
	unsigned long free_fast;	/* frees onto the CPU freelist */
	unsigned long free_slow;	/* frees onto a page freelist (or debug frees) */
	unsigned long page_retries;	/* page (freelist, counters) cmpxchgs that failed */
	unsigned long free_frozen;	/* slow frees into a frozen slab */
	unsigned long refill_remote;	/* CPU slab refilled from its own page freelist */
	unsigned long cpu_partial_alloc;	/* CPU slab taken from the CPU's partial list */
	unsigned long cpu_partial_free;	/* full slab frozen onto the freeing CPU's list */
	unsigned long node_alloc;	/* CPU slab taken from the node's partial list */
	unsigned long new_failed;	/* slabs we could not make (at the cache's order) */
	unsigned long new_min;		/* of slabs_made, min-order slabs: the order was not free */
	unsigned long flushes;		/* CPU slabs given back (deactivated) */
	unsigned long unfrozen;		/* CPU partial slabs moved to the node */
	unsigned long discarded;	/* empty slabs given back to the buddy allocator */
	unsigned long alloc_sheaf;	/* allocations from the CPU's main sheaf */
	unsigned long free_sheaf;	/* frees onto the CPU's main sheaf */
	unsigned long sheaf_swaps;	/* main and spare sheaves swapped */
	unsigned long sheaf_refills;	/* main sheaves refilled from the slabs */
	unsigned long barn_get;		/* full sheaves taken from the barn (an empty given) */
	unsigned long barn_put;		/* full sheaves given to the barn (an empty taken) */
	unsigned long sheaf_flushes;	/* sheaves freed back to the slabs, whole */
	unsigned long barn_grown;	/* a barn's max_full raised (the cache swings) */
	unsigned long barn_trimmed;	/* grown barns given back for a slab's pages */
	unsigned long sheaf_made;	/* sheaves allocated from slub_sheaf */
	unsigned long page_cmpxchgs;	/* page (freelist, counters) cmpxchg_doubles tried: the
					   locked, all-CPU kind (slub_page_cmpxchg) */
	unsigned long node_locks;	/* node list_lock acquisitions by the slow paths */
	unsigned long barn_locks;	/* barn lock acquisitions by the sheaves' slow paths */
	unsigned long free_remote;	/* frees of another node's object, past the sheaves */
	unsigned long alloc_node;	/* kmem_cache_alloc_node objects by the node path */
	unsigned long alloc_fallback;	/* of those, not on the node asked (it was full) */
};


#define SLAB_ALLOC_NAME	"slub"	/* the reports' prefix (mm/slab_impl.h) */
#define SLAB_ALLOC_MERGES	1	/* mm/slab_impl.h */
/* SLAB_NODE_PLACED - kmem_cache_alloc_node gives objects of the node asked (mm/slab_impl.h). */
#define SLAB_NODE_PLACED	1
#define SLAB_BAD_FREE_EVENT()	((void)0)	/* a bad free is no per-CPU event here */

struct kmem_cache {
	/* What the fast paths read, together at the front. */
	unsigned long cpu_key;		/* per_cpu_key of this cache's pair (slub_this_cpu_fast) */
	unsigned long sheaf_key;	/* per_cpu_key of its main sheaf pointer (slub_this_main) */
	uintptr_t slab_mask;		/* slab bytes - 1 */
	uint64_t obj_magic;		/* floor((2^64 - 1) / size) + 2: divides by size */
	uint64_t obj_bound;		/* fast paths' bound: slab_bound, 0 under node_check */
	uintptr_t fp_secret;		/* the key free words are stored XORed with (top
					 * bits 01; hardened: and their slot's address) */
	unsigned int offset;		/* free pointer, in bytes from the caller's pointer */
	unsigned int size;		/* bytes from one object to the next, guards included */
	unsigned int object_size;	/* bytes the caller may use (ksize) */
	unsigned int obj_offset;	/* from an object's start to the caller's pointer */
	unsigned int num;		/* objects per slab */
	unsigned int order;		/* a slab is 2^order pages */
	unsigned int flags;		/* SLAB_* in effect */
	unsigned int align;		/* object alignment */
	unsigned int waste;		/* bytes per slab holding no object */
	unsigned int min_partial;	/* partial slabs the node keeps before freeing empty ones
					 * (ready ones, and at least cpu_partial: slub_node_spare) */
	unsigned int cpu_partial;	/* most slabs on a CPU's partial list */
	unsigned int reuse_free;	/* free objects a partial slab needs to become a CPU slab */
	unsigned int slot;		/* index of the pair in struct slub_cpu_slots */
	unsigned int sheaf_capacity;	/* objects per sheaf; 0: no sheaves (debug caches,
					 * slub_sheaf itself, SLUB_SHEAVES=0) */
	bool node_check;		/* several memory nodes: frees test x's node (slub_node.h) */
	uint64_t slab_bound;		/* num * (size * obj_magic mod 2^64); 0 in a twin */
	unsigned long cpu_off;		/* offset of this cache's pair in struct slub_cpu_slots */
	bool dead;			/* destroyed with live objects: kept for their frees */
	unsigned int refcount;		/* creates not yet destroyed (merging: mm/slab_merge.c); */
					/* 0 for the allocator's own caches, never merged */
	void (*ctor)(void *);
	struct kmem_cache *min_cache;	/* the min-order twin (see above), or NULL when no
					 * smaller slab holds an object */
	struct kmem_cache *min_of;	/* in a twin: the cache it serves; else NULL */
	struct list_head list;		/* on slab_caches, under slab_caches_lock */
	char name[SLAB_NAME_LEN];
	struct kmem_cache_node node[MAX_NUMNODES];
	struct kmem_cache_cpu_partial cpu[NR_CPUS];
	struct kmem_cache_stats stats;
};

/* Boot steps, slab_caches, kmalloc_caches[], kmem_cache_boot, making a cache. */
#include "mm/slab_common.h"

/*
 * SLUB keeps a power-of-two kmalloc object aligned to its size in debug
 * caches too (its red zone then takes a whole alignment unit), as
 * mm/slab.h promises; kmalloc_caches_init asks for it.
 */
#define KMALLOC_ALIGN(size) \
	(((size) & ((size) - 1)) == 0 ? MIN((size_t)(size), (size_t)PAGE_SIZE) : 0)

/*
 * SLUB_CTOR_AT_ALLOC - a cache flag SLUB sets itself (callers cannot): a
 * ctor cache whose objects leave no room past them for the free pointer
 * in a MAX_ORDER slab keeps the pointer in the object and runs the ctor
 * again at each allocation. Such a cache takes the locked debug paths,
 * as a poisoned one does, so that the fast paths never see it.
 * SLUB_DEBUG_FLAGS - the flags that send a cache down those paths.
 */
#define SLUB_CTOR_AT_ALLOC	0x0100U
#define SLUB_DEBUG_FLAGS	(SLAB_DEBUG | SLUB_CTOR_AT_ALLOC)
_Static_assert(!(SLUB_CTOR_AT_ALLOC & (SLAB_HWCACHE_ALIGN | SLAB_DEBUG | SLAB_NO_DEBUG)),
	       "SLUB_CTOR_AT_ALLOC must not be a kmem_cache_create flag");

static inline bool slub_debug_on(const struct kmem_cache *s)
{
	return s->flags & SLUB_DEBUG_FLAGS;
}

/* The cache a page's slab_cache stands for: c itself, or the cache whose twin c is. */
static inline struct kmem_cache *slub_owner(struct kmem_cache *c)
{
	return unlikely(c->min_of) ? c->min_of : c;
}

/*
 * The geometry of the slab headed by page (num, order, slab_mask, and
 * the object layout, which a twin copies): its cache's, or its cache's
 * twin's for a min-order slab.
 */
static inline const struct kmem_cache *slub_geom(const struct page *head)
{
	return head->slab_cache;
}

static inline bool slub_is_min(const struct page *head)
{
	return head->slab_cache->min_of != NULL;
}

/*
 * Objects and pages in every slab of s: nr_slabs of num objects in
 * 2^order pages, less what its min-order slabs have fewer. A snapshot.
 */
static inline unsigned long slub_node_objects(struct kmem_cache *s, unsigned int nid)
{
	unsigned long min = (unsigned long)atomic_long_read(&s->node[nid].nr_min);
	unsigned long slabs = (unsigned long)atomic_long_read(&s->node[nid].nr_slabs);

	min = MIN(min, slabs);
	return (slabs - min) * s->num + (min ? min * s->min_cache->num : 0);
}

static inline unsigned long slub_node_pages(struct kmem_cache *s, unsigned int nid)
{
	unsigned long min = (unsigned long)atomic_long_read(&s->node[nid].nr_min);
	unsigned long slabs = (unsigned long)atomic_long_read(&s->node[nid].nr_slabs);

	min = MIN(min, slabs);
	return ((slabs - min) << s->order) + (min ? min << s->min_cache->order : 0);
}

static inline unsigned long slub_total_objects(struct kmem_cache *s)
{
	unsigned long n = 0;

	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++)
		n += slub_node_objects(s, nid);
	return n;
}

static inline unsigned long slub_total_pages(struct kmem_cache *s)
{
	unsigned long n = 0;

	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++)
		n += slub_node_pages(s, nid);
	return n;
}

/* Slabs (min: min-order slabs) of s on every node: a snapshot. */
static inline long slub_nr_slabs(struct kmem_cache *s, bool min)
{
	long n = 0;

	for (unsigned int nid = 0; nid < MAX_NUMNODES; nid++)
		n += atomic_long_read(min ? &s->node[nid].nr_min : &s->node[nid].nr_slabs);
	return n;
}

/*
 * slub_slab_nid - the node of the slab headed by head: its pages' node
 * when it was made (page_to_nid, kept in head->active, which only SLAB
 * uses otherwise). Its lists and counts are that node's for its life.
 * slub_node_of - that node's part of s.
 */
static inline unsigned int slub_slab_nid(const struct page *head)
{
	return head->active;
}

static inline struct kmem_cache_node *slub_node_of(struct kmem_cache *s, const struct page *head)
{
	return &s->node[head->active];
}

static inline bool slub_is_end(const void *v)
{
	return (uintptr_t)v & SLUB_END_TAG;
}

/* The first byte of the slab a freelist value (object or tagged end) points into. */
static inline uintptr_t slub_base(const struct kmem_cache *s, const void *v)
{
	return (uintptr_t)v & ~s->slab_mask;
}

/* The tagged end of the slab v points into. */
/*
 * slub_page_cmpxchg - replace a slab's (freelist, counters) pair (o1, o2)
 * with (n1, n2) if it still holds them: arch_cmpxchg_double, atomic against
 * every CPU and a full barrier; counted in stats.page_cmpxchgs. True if done.
 */
static __always_inline bool slub_page_cmpxchg(struct kmem_cache *s, struct page *page,
					      unsigned long o1, unsigned long o2,
					      unsigned long n1, unsigned long n2)
{
	stat(s, page_cmpxchgs, 1);
	return arch_cmpxchg_double(&page->slub_freelist, o1, o2, n1, n2);
}

static inline void *slub_end(const struct kmem_cache *s, const void *v)
{
	return (void *)(slub_base(s, v) | SLUB_END_TAG);
}

/* The head page of the slab a freelist value points into. */
static inline struct page *slub_page(const struct kmem_cache *s, const void *v)
{
	return virt_to_page((const void *)slub_base(s, v));
}

/*
 * The caller's pointer of object idx of the slab headed by page (a twin
 * has its cache's layout: either may be given for a min-order slab).
 */
static inline void *slub_obj(const struct kmem_cache *s, const struct page *page,
			     unsigned int idx)
{
	return (char *)page_address(page) + s->obj_offset + (size_t)idx * s->size;
}

/*
 * Free words (see above). slub_fp_key - what the free word at 'slot' is
 * stored XORed with: the cache's key, and with SLAB_FREELIST_HARDENED the
 * word's own address too, so that a leaked or overwritten word says
 * nothing and yields nothing usable without the key (Linux XORs a
 * byte-swapped address; the plain one is enough for what the test checks,
 * that no free pointer appears in memory as itself). slub_fp_key_of: the
 * same from fp_secret in a local, for loops that store free pointers
 * (which the compiler must assume may change s).
 */
static __always_inline uintptr_t slub_fp_key_of(uintptr_t secret, const void *slot)
{
	if (CONFIG_SLAB_FREELIST_HARDENED)
		return secret ^ (uintptr_t)slot;
	return secret;
}

static __always_inline uintptr_t slub_fp_key(const struct kmem_cache *s, const void *slot)
{
	return slub_fp_key_of(s->fp_secret, slot);
}

/* The free word of object x (its slot, 'offset' bytes from x). */
static __always_inline uintptr_t *slub_fw_slot(const struct kmem_cache *s, const void *x)
{
	return (uintptr_t *)((char *)x + s->offset);
}

/* The free pointer stored in object x (offset: s->offset, or 0 when the caller knows it). */
static __always_inline void *slub_get_fp_at(const struct kmem_cache *s, const void *x,
					    unsigned int offset)
{
	const uintptr_t *slot = (const uintptr_t *)((const char *)x + offset);

	return (void *)(*slot ^ slub_fp_key(s, slot));
}

static __always_inline void *slub_get_fp(const struct kmem_cache *s, const void *x)
{
	return slub_get_fp_at(s, x, s->offset);
}

static __always_inline void slub_set_fp(const struct kmem_cache *s, void *x, void *fp)
{
	uintptr_t *slot = slub_fw_slot(s, x);

	*slot = (uintptr_t)fp ^ slub_fp_key(s, slot);
}

/*
 * slub_fw_mark - the word that says "x, free in a sheaf" (x encoded as its
 * own free pointer, which no freelist holds), for x's free word at slot.
 * slub_fw_free - whether a free word w of x says x is free, given x's mark:
 * decoded, w is the slab's tagged end or one of its objects (x itself for
 * the mark), i.e. w ^ mark, which is the decoded w ^ x, is at most
 * slab_mask. One XOR and one compare on the fast paths.
 */
static __always_inline uintptr_t slub_fw_mark(const struct kmem_cache *s, const void *x,
					      const uintptr_t *slot)
{
	return (uintptr_t)x ^ slub_fp_key(s, slot);
}

static __always_inline bool slub_fw_free(const struct kmem_cache *s, uintptr_t w, uintptr_t mark)
{
	return (w ^ mark) <= s->slab_mask;
}

/*
 * slub_fw_clear - x is being handed out: its free word becomes 0, which
 * never says free (the key's top bits make 0 decode far from any slab).
 * fp_at_0: the caller knows the word is at offset 0 (a kmalloc cache).
 */
static __always_inline void slub_fw_clear(const struct kmem_cache *s, void *x, bool fp_at_0)
{
	*(uintptr_t *)((char *)x + (fp_at_0 ? 0 : s->offset)) = 0;
}

/*
 * slub_cmpxchg_double_goto, slub_cmpxchg_goto - the fast paths' commits:
 * arch_this_cpu_try_cmpxchg_double / arch_this_cpu_try_cmpxchg on this
 * CPU's pair, as statements that jump to the label 'fail' when the pair or
 * word was not o1, o2 (o): the arch's asm goto forms where it has them
 * (asm/cmpxchg.h, ARCH_HAVE_THIS_CPU_CMPXCHG_GOTO), else the try forms
 * (o1, o2, o are then lvalues that a failure overwrites).
 */
#ifdef ARCH_HAVE_THIS_CPU_CMPXCHG_GOTO
#define slub_cmpxchg_double_goto(c, o1, o2, n1, n2, fail) \
	arch_this_cpu_cmpxchg_double_goto(c, o1, o2, n1, n2, fail)
#define slub_cmpxchg_goto(p, o, n, fail)	arch_this_cpu_cmpxchg_goto(p, o, n, fail)
#else
#define slub_cmpxchg_double_goto(c, o1, o2, n1, n2, fail)                                \
	do {                                                                             \
		if (unlikely(!arch_this_cpu_try_cmpxchg_double(c, &(o1), &(o2), n1, n2)))  \
			goto fail;                                                       \
	} while (0)
#define slub_cmpxchg_goto(p, o, n, fail)                                                 \
	do {                                                                             \
		if (unlikely(!arch_this_cpu_try_cmpxchg(p, &(o), n)))                    \
			goto fail;                                                       \
	} while (0)
#endif

/* This CPU's pair for cache s (Quarry never migrates: the pointer stays right). */
static __always_inline struct kmem_cache_cpu *slub_this_cpu(const struct kmem_cache *s)
{
	return (struct kmem_cache_cpu *)((char *)this_cpu_ptr(slub_cpu) + s->cpu_off);
}

/*
 * The same pair for the fast paths: a PERCPU_SEG pointer (kernel/percpu.h),
 * which on x86_64 reaches it %gs-relative, one load of cpu_key and nothing
 * else. Good only on the running CPU, through READ_ONCE and the
 * arch_this_cpu_try_cmpxchg forms.
 */
static __always_inline struct kmem_cache_cpu PERCPU_SEG *slub_this_cpu_fast(const struct kmem_cache *s)
{
	return this_cpu_key_ptr(struct kmem_cache_cpu, slub_cpu, s->cpu_key);
}

static inline struct kmem_cache_cpu *slub_cpu_of(const struct kmem_cache *s, unsigned int cpu)
{
	return (struct kmem_cache_cpu *)((char *)per_cpu_ptr(slub_cpu, cpu) + s->cpu_off);
}

/*
 * slab_obj_head - for kfree: a page of the slab objp lies in (every page of
 * a slab names its cache), or NULL when objp is not in RAM (NULL and
 * ZERO_SIZE_PTR are not) or not on a slab page. A slab page is tested as
 * its cache, which kfree loads anyway: slab_cache is set on exactly the
 * PG_slab pages (slub_new_slab, slub_discard_slab; mem_map starts zeroed).
 * The page index is computed as SLAB's (mm/slab/slab_def.h): where the direct
 * map's first page number fits an add immediate (arm64), it is subtracted
 * after the shift. The object boundary is checked by slab_free.
 */
static __always_inline struct page *slab_obj_head(const void *objp)
{
	const uintptr_t base = (uintptr_t)PHYS_TO_VIRT(ARCH_PHYS_OFFSET);
	unsigned long idx = (base >> PAGE_SHIFT) < (1UL << 24) ?
				    ((uintptr_t)objp >> PAGE_SHIFT) - (base >> PAGE_SHIFT) :
				    ((uintptr_t)objp - base) >> PAGE_SHIFT;
	struct page *page;

	if (unlikely(idx >= mem_map_entries()))
		return NULL;
	page = &mem_map[idx];
	if (unlikely(!page->slab_cache))
		return NULL;
	return page;
}

/*
 * mm/slub/slub_partial.c and mm/slub/slub.c: what the fast paths fall back on. The
 * free side takes the object first: kfree has it in the first argument
 * register already, and its tail calls (kfree_slow too) then move nothing
 * on the fast path.
 */
void *slab_alloc_slow(struct kmem_cache *s);
void *slab_alloc_retry(struct kmem_cache *s);
void slab_free_retry(void *x, struct kmem_cache *s, const char *fn, bool on_slab);
void slab_free_remote(void *x, struct kmem_cache *s, const char *fn, const void *head);
void slab_kfree_remote(void *x, struct kmem_cache *s, const char *fn, const void *head);
void slab_free_slow(void *x, struct kmem_cache *s, const char *fn);
void slab_free_suspect(void *x, struct kmem_cache *s, const char *fn, bool on_slab);

/*
 * slub_alloc_classic_at - the classic allocation fast path (no sheaves): take the first object of this
 * CPU's freelist with one cmpxchg on (freelist, tid). A tagged value (the
 * CPU slab used up, no CPU slab, a debug cache) goes to slab_alloc_slow, a
 * failed cmpxchg to slab_alloc_retry (mm/slub/slub.c), which starts again.
 * The object's free word is cleared once it is taken (slub_fw_clear).
 * fp_at_0: the caller knows the cache's free pointer is at offset 0 (a
 * kmalloc cache: no ctor, and a debug cache, whose pointer is past the
 * object, never gets here), which saves loading s->offset.
 */
static __always_inline void *slub_alloc_classic_at(struct kmem_cache *s, bool fp_at_0)
{
	struct kmem_cache_cpu PERCPU_SEG *c = slub_this_cpu_fast(s);
	unsigned long tid, obj, next;

	tid = READ_ONCE(c->tid);
	barrier();
	obj = (unsigned long)READ_ONCE(c->freelist);
	if (unlikely(slub_is_end((void *)obj)))
		return slab_alloc_slow(s);
	next = (unsigned long)(fp_at_0 ? slub_get_fp_at(s, (void *)obj, 0) :
					  slub_get_fp(s, (void *)obj));
	slub_cmpxchg_double_goto(c, obj, tid, next, tid + 1, retry);
	slub_fw_clear(s, (void *)obj, fp_at_0);
	stat(s, alloc_fast, 1);
	stat(s, shared.allocs, 1);
	return (void *)obj;
retry:
	return slab_alloc_retry(s);
}

/*
 * slub_this_main - this CPU's main sheaf of s (slub_sheaf_none if it has
 * none): one load through the per-CPU key, like slub_this_cpu_fast.
 * Interrupts off, so that it stays this CPU's.
 */
static __always_inline struct slub_sheaf *slub_this_main(const struct kmem_cache *s)
{
	return READ_ONCE(*this_cpu_key_ptr(struct slub_sheaf *, slub_sheaf, s->sheaf_key));
}

#include "mm/slub/slub_node.h"

/* mm/slub/slub_sheaf.c: the sheaves' slow paths, entered with interrupts off (flags). */
void *slub_sheaf_alloc_slow(struct kmem_cache *s, unsigned long flags);
void slub_sheaf_free_slow(void *x, struct kmem_cache *s, const char *fn, bool on_slab,
			  unsigned long flags);

/*
 * slab_alloc_at - the allocation fast path. With sheaves: pop the top of
 * this CPU's main sheaf, in a restartable sequence where the arch has them
 * (kernel/restart.h: an interrupt handler on this CPU may allocate from
 * the same cache, or swap or flush the sheaf; the pop then starts again),
 * else with interrupts off; an empty one (or none: a debug cache, a cache
 * without sheaves, or none made yet on this CPU) goes to
 * slub_sheaf_alloc_slow with interrupts off, which restores them itself. The object's
 * free word is cleared (slub_fw_clear; fp_at_0 as for
 * slub_alloc_classic_at). Without sheaves: slub_alloc_classic_at.
 */
static __always_inline void *slab_alloc_at(struct kmem_cache *s, bool fp_at_0)
{
#if CONFIG_SLUB_SHEAVES && ARCH_HAS_RESTARTABLE
	void *x = restartable_pop(s->sheaf_key, offsetof(struct slub_sheaf, size),
				  offsetof(struct slub_sheaf, objects));

	if (unlikely(!x))
		return slub_sheaf_alloc_slow(s, arch_irq_save());
	stat(s, alloc_sheaf, 1);
	stat(s, shared.allocs, 1);
	slub_fw_clear(s, x, fp_at_0);
	return x;
#elif CONFIG_SLUB_SHEAVES
	unsigned long flags = arch_irq_save();
	struct slub_sheaf *sh = slub_this_main(s);
	unsigned long n = sh->size;
	void *x;

	if (unlikely(n == 0))
		return slub_sheaf_alloc_slow(s, flags);
	/* Loaded before size is stored, into the return register (as SLAB's pop). */
	x = sh->objects[n - 1];
	__asm__("" : "+r"(x));
	sh->size = n - 1;
	stat(s, alloc_sheaf, 1);
	stat(s, shared.allocs, 1);
	arch_irq_restore(flags);
	slub_fw_clear(s, x, fp_at_0);
	return x;
#else
	return slub_alloc_classic_at(s, fp_at_0);
#endif
}

/* slab_alloc - the allocation fast path of any cache (see slab_alloc_at). */
static __always_inline void *slab_alloc(struct kmem_cache *s)
{
	return slab_alloc_at(s, false);
}

/*
 * slab_kmalloc_alloc - kmalloc's, from a cache of its table (failslab is
 * tested by the table itself: mm/slab_impl.h): its free pointer is at 0, as
 * kmem_cache_init checks for every kmalloc cache but debug ones (whose CPU
 * freelist is always tagged, so they never reach the load).
 */
static __always_inline void *slab_kmalloc_alloc(struct kmem_cache *s)
{
	return slab_alloc_at(s, true);
}

/*
 * slub_free_classic - the classic free fast path (no sheaves): an object on an object boundary of this
 * CPU's slab, and not on top of its freelist, is pushed with one cmpxchg
 * on the freelist word. One test covers both: (head ^ x) - 1 < slab_mask
 * holds exactly when 0 < head ^ x <= slab_mask. Anything else that is on
 * an object boundary of some slab goes to slab_free_remote (another slab's
 * page freelist, or the report of a double free on top of the CPU
 * freelist); anything else to slab_free_slow, which checks the pointer in
 * full. The boundary test (magic division, as SLAB's) assumes x lies in a
 * slab of s: the remote path confirms that before it trusts it, unless
 * the caller (kfree) found x on a slab page of s ('on_slab'). Before the
 * push, x's free word (in the CPU slab, so readable) is tested when
 * 'check': one that says free goes to slab_free_suspect (see above). A
 * failed cmpxchg goes to slab_free_retry (mm/slub/slub.c), which starts again
 * without the test (x's word is already written): no loop in the fast
 * path (arm64 would align its head with a nop on the path). 'fn' names
 * the caller for reports; without 'check', slab_bound (obj_bound may be 0).
 */
static __always_inline void slub_free_classic(struct kmem_cache *s, void *x, const char *fn,
					      bool on_slab, bool check)
{
	struct kmem_cache_cpu PERCPU_SEG *c = slub_this_cpu_fast(s);
	uintptr_t *slot, key;
	unsigned long head;

	if (unlikely(((uintptr_t)x & s->slab_mask) * s->obj_magic >=
		     (check ? s->obj_bound : s->slab_bound))) {
		slab_free_slow(x, s, fn);
		return;
	}
	head = (unsigned long)READ_ONCE(c->freelist);
	if (unlikely((head ^ (uintptr_t)x) - 1 >= s->slab_mask)) {
		if (on_slab)
			slab_kfree_remote(x, s, fn, (void *)head);
		else
			slab_free_remote(x, s, fn, (void *)head);
		return;
	}
	slot = slub_fw_slot(s, x);
	key = slub_fp_key(s, slot);
	if (check && unlikely(slub_fw_free(s, *slot, (uintptr_t)x ^ key))) {
		slab_free_suspect(x, s, fn, on_slab);
		return;
	}
	*slot = head ^ key;
	slub_cmpxchg_goto((unsigned long PERCPU_SEG *)&c->freelist, head, (unsigned long)x, retry);
	stat(s, free_fast, 1);
	stat(s, shared.frees, 1);
	return;
retry:
	slab_free_retry(x, s, fn, on_slab);
}

#if CONFIG_SLUB_SHEAVES
/*
 * slub_free_try - the sheaf push of the free fast path (slub_free), for
 * an object on an object boundary below 'bound' of a slab page of s
 * (kfree found its page: 'on_slab'; else checked here, slab_obj_head) and,
 * when 'local', of the running CPU's memory node. In a restartable
 * sequence (kernel/restart.h) where the arch has them, else with
 * interrupts off, it pushes x on this CPU's main sheaf and leaves its mark
 * in its free word,
 * unless the sheaf is full (or none) or the word says x is free already
 * (slub_fw_free, the double-free test: see above); those go to
 * slub_sheaf_free_slow, which restores interrupts itself. Returns false,
 * having done nothing, for anything else: the caller's slow path takes it.
 * Interrupts on or off.
 */
static __always_inline bool slub_free_try(struct kmem_cache *s, void *x, const char *fn,
					  bool on_slab, unsigned long bound, bool local)
{
	uintptr_t *slot, mark;

	if (unlikely(((uintptr_t)x & s->slab_mask) * s->obj_magic >= bound))
		return false;
	if (!on_slab) {
		struct page *page = slab_obj_head(x);

		if (unlikely(!page || page->slab_cache != s))
			return false;
		if (local && slub_slab_nid(page) != slub_local_nid())
			return false;
	}
	slot = slub_fw_slot(s, x);
	mark = slub_fw_mark(s, x, slot);
#if ARCH_HAS_RESTARTABLE
	/* The mark goes in inside the sequence: once x is on the sheaf, a flush may link it. */
	if (unlikely(slub_fw_free(s, *slot, mark)) ||
	    unlikely(!restartable_push(s->sheaf_key, offsetof(struct slub_sheaf, size),
				       offsetof(struct slub_sheaf, capacity),
				       offsetof(struct slub_sheaf, objects), x, slot, mark))) {
		slub_sheaf_free_slow(x, s, fn, on_slab, arch_irq_save());
		return true;
	}
	stat(s, free_sheaf, 1);
	stat(s, shared.frees, 1);
	return true;
#else
	unsigned long flags = arch_irq_save();
	struct slub_sheaf *sh = slub_this_main(s);
	unsigned long n = sh->size;

	if (unlikely(n >= sh->capacity || slub_fw_free(s, *slot, mark))) {
		slub_sheaf_free_slow(x, s, fn, on_slab, flags);
		return true;
	}
	*slot = mark;
	/* objects[n], formed as the arch wants it (asm/processor.h). */
	ARCH_WORD_AT(sh, objects, n, 0) = x;
	sh->size = n + 1;
	stat(s, free_sheaf, 1);
	stat(s, shared.frees, 1);
	arch_irq_restore(flags);
	return true;
#endif
}
#endif

/*
 * slub_free - the free fast path: slub_free_try below s->obj_bound.
 * Anything not on a boundary of a slab of s goes to slab_free_slow, which
 * reports it; so does every free under s->node_check (obj_bound 0:
 * slub_set_node_check; slab_free_slow tries the push again with the node
 * test), and every object of a min-order slab (kfree passes the twin,
 * whose obj_bound 0 fails the boundary test; kmem_cache_free finds the
 * page naming the twin, not s). Without sheaves: slub_free_classic.
 */
static __always_inline void slub_free(struct kmem_cache *s, void *x, const char *fn,
				      bool on_slab)
{
#if CONFIG_SLUB_SHEAVES
	if (unlikely(!slub_free_try(s, x, fn, on_slab, s->obj_bound, false)))
		slab_free_slow(x, s, fn);
#else
	slub_free_classic(s, x, fn, on_slab, true);
#endif
}

/* slab_free - kmem_cache_free's fast path (see slub_free). */
static __always_inline void slab_free(struct kmem_cache *s, void *x, const char *fn)
{
	slub_free(s, x, fn, false);
}

/*
 * slab_kfree - kfree's, once slab_obj_head found p on 'page', a slab page
 * of its cache: the remote path need not check the page again.
 */
#define slab_kfree(page, p) slub_free((page)->slab_cache, (void *)(p), "kfree", true)

/* mm/slub/slub.c: slabs, the page pair, the free slow path. */
void *slab_alloc_classic(struct kmem_cache *s);
void slub_free_to_slabs(struct kmem_cache *s, void *x, const char *fn);
unsigned int slub_free_bulk(struct kmem_cache *s, void **objs, unsigned int n, const char *fn);
struct page *slub_new_slab(struct kmem_cache *s, unsigned int taken);
struct page *slub_new_min_slab(struct kmem_cache *s, unsigned int nid);
void slub_discard_slab(struct kmem_cache *s, struct page *page);
void slub_discard_list(struct kmem_cache *s, struct list_head *list);
void slub_cpu_set(struct kmem_cache_cpu *c, void *freelist, bool remote);
void *slub_freeze_take(struct kmem_cache *s, struct page *page);

/* mm/slub/slub_partial.c: CPU slabs and partial lists. */
unsigned int slub_refill_sheaf(struct kmem_cache *s, struct slub_sheaf *sh, unsigned int want);
void slub_put_cpu_partial(struct kmem_cache *s, struct page *page);
bool slub_node_spare(struct kmem_cache *s, struct kmem_cache_node *n, const struct page *self);
void slub_node_unlist(struct kmem_cache_node *n, struct page *page);
void slub_flush_cpu(struct kmem_cache *s, unsigned int cpu);
/*
 * mm/slub/slub_node.c: slub_take_empty - move up to max empty slabs off
 * node n's partial and min-order lists onto 'out'; n's lock held.
 */
unsigned long slub_take_empty(struct kmem_cache_node *n, struct list_head *out,
			      unsigned long max);
unsigned long slub_node_release_empty(struct kmem_cache *s);
unsigned long slub_count_free(struct kmem_cache *s, unsigned int nid, unsigned long *empty);

/*
 * mm/slub/slub_min.c: slub_min_alloc - objects from the node's min-order slabs
 * (a new one when none has a free object): the first returned and, filling
 * sheaf sh (NULL: none) up to 'want', more into it. NULL when not even a
 * min-order slab can be made: memory is out. Interrupts off, s no debug
 * cache.
 */
void *slub_min_alloc(struct kmem_cache *s, struct slub_sheaf *sh, unsigned int want);

/* mm/slub/slub_sheaf.c: sheaves and the barn (see there). */
void slub_sheaf_setup(struct kmem_cache *s);
void slub_sheaves_init(void);
void slub_sheaves_release_cpu(struct kmem_cache *s, unsigned int cpu);
void slub_barn_flush(struct kmem_cache *s);
bool slub_barns_trim(struct kmem_cache *except);
bool slub_sheaves_reap(struct kmem_cache *s);
unsigned long slub_sheaved(struct kmem_cache *s, unsigned int nid, unsigned long *in_barn);

/* mm/slub/slub_dfree.c: the double-free check behind the free words' test (see above). */
bool slub_free_is_double(struct kmem_cache *s, void *x, char *what, size_t len);

/*
 * mm/slub/slub_debug.c: the pointer checks of SLUB's geometry and the
 * locked debug paths. The guards, poison and reports every allocator
 * shares are in mm/slab_debug.h (SLUB's debug objects use its guard-word
 * layout, the free pointer past the second red zone).
 */
struct page *slab_find_head(struct kmem_cache *s, const void *objp, const char *fn);
void *slub_debug_alloc(struct kmem_cache *s, unsigned int nid);
void slub_debug_free(struct kmem_cache *s, struct page *page, void *x, const char *fn);
bool slub_fp_valid(const struct kmem_cache *s, const struct page *page, const void *fp);

/*
 * slab_obj_cache - for kmalloc.c's reports: the cache of an object that
 * slab_find_head found (a min-order slab's pages name the twin).
 */
static inline struct kmem_cache *slab_obj_cache(const struct page *page, const void *p)
{
	(void)p;
	return slub_owner(page->slab_cache);
}

/*
 * The hooks of mm/slab_impl.h. SLUB's own: slab_kmalloc_alloc (the free
 * pointer at offset 0), slab_kfree, slab_obj_cache (a min-order slab's
 * pages name the twin), KMALLOC_ALIGN; failslab empties kmalloc's table;
 * the rest generic.
 */
#define slab_kmalloc_alloc_fi(cachep)	slab_generic_kmalloc_alloc_fi(cachep)
#define KMALLOC_TABLE_FAILSLAB		1
#define SLAB_FAILSLAB_SWITCH(on)	kmalloc_failslab_switch(on)
#define KMALLOC_MAX_SLAB		KMALLOC_MAX_CACHE_SIZE
#define KMALLOC_SLAB_SHIFT_HIGH		KMALLOC_SHIFT_HIGH
#define slab_kfree_fast(p)		slab_generic_kfree_fast(p)
#define slab_obj_size(page, p)		slab_generic_obj_size(page, p)

#endif
