/*
 * slab_debug.h - the misuse checks and reports every object allocator
 * shares (mm/slab_debug.c): the report line and its counters, the checks
 * of a freed pointer's page, poisoning, red zones, and the object checks
 * of the guard-word layout SLAB and SLUB use. Included by each allocator's
 * def header; the code is written once against the names every def header
 * gives (mm/slab_impl.h): a cache's name, flags, object_size and ctor, and
 * stat(cache, bad_frees / corruptions, n).
 *
 * Marks. A red zone is RED_INACTIVE_BYTE (0xbb) repeated while its object
 * is free, RED_ACTIVE_BYTE (0xcc) while a caller holds it (SLOB's zone is
 * only ever active: its block header says whether the block is free). A
 * poisoned free object is POISON_FREE (0x6b); SLAB's and SLUB's end with
 * POISON_END (0xa5), SLOB's do not (a free block's end moves as it
 * merges). An allocated debug object starts as POISON_INUSE (0x5a).
 *
 * Geometry. The guard-word layout (slab_debug_init_obj and the three after
 * it) is
 *	[red zone: SLAB_RED_BYTES][object_size bytes][red zone: SLAB_RED_BYTES]
 * around the caller's pointer, poisoned over object_size bytes. An
 * allocator with another layout (SLOB: its header guards before the
 * object, the block's whole body is poisoned) calls the pieces instead:
 * slab_poison, slab_poison_broken, slab_red_broken and the report helpers,
 * so that every report has the same words.
 *
 * Reports: one line per fault, "<allocator>: <cache>: <call>(<address>):
 * <fault>", the cache left out when none is known; offsets are counted
 * from the caller's pointer (negative: before the object). A refused free
 * counts in slab_bad_frees, damage found in slab_corruptions (and in the
 * cache's own counters with CONFIG_SLAB_STATS). The allocator carries on.
 *
 * Locking: none is taken here but printk's, a leaf lock; the object checks
 * run while the caller or the allocator owns the object.
 */
#ifndef MM_SLAB_DEBUG_H
#define MM_SLAB_DEBUG_H

#include "kernel/compiler.h"

struct kmem_cache;
struct page;

#define RED_INACTIVE_BYTE	0xbb
#define RED_ACTIVE_BYTE		0xcc
/* A red-zone word of one byte repeated. */
#define SLAB_RED_WORD(b)	((uint64_t)(b) * 0x0101010101010101ULL)
#define RED_INACTIVE		SLAB_RED_WORD(RED_INACTIVE_BYTE)
#define RED_ACTIVE		SLAB_RED_WORD(RED_ACTIVE_BYTE)
#define SLAB_RED_BYTES		8	/* a red zone of the guard-word layout */
#define POISON_FREE		0x6b
#define POISON_END		0xa5
#define POISON_INUSE		0x5a

/*
 * slab_print_error - print one report line naming the cache (c; NULL: left
 * out), the call fn, the address p and the fault 'what'. Counts nothing.
 * Any context but NMI (printk).
 */
void slab_print_error(const struct kmem_cache *c, const char *fn, const void *p,
		      const char *what);

/*
 * slab_bad_free - report a free (or ksize) of p through fn that the caller
 * refuses, and count it in slab_bad_frees, in c's bad_frees when c is
 * known, and as the allocator's event (SLAB_BAD_FREE_EVENT). The caller
 * then leaves the allocator's state alone.
 */
void slab_bad_free(struct kmem_cache *c, const char *fn, const void *p, const char *what);

/*
 * slab_corrupt - report damage a check found at p (during fn) and count it
 * in slab_corruptions and, when c is known, in c's corruptions. The caller
 * repairs or gives up what is damaged; nothing is refused here.
 */
void slab_corrupt(struct kmem_cache *c, const char *fn, const void *p, const char *what);

/*
 * slab_check_page - the first checks of a pointer p given to a free (or
 * ksize) call fn: in RAM, on a PG_slab page. Returns p's page, or NULL
 * after reporting it as a bad free (slab_bad_free on c, which may be NULL:
 * outside RAM, a reserved, free or large-allocation page). Reads only the
 * page's flags.
 */
struct page *slab_check_page(struct kmem_cache *c, const void *p, const char *fn);

/*
 * slab_wrong_cache - report p, an object of cache 'owner', freed through fn
 * to cache c (c, owner not NULL) as a bad free ("object of cache <owner>").
 */
void slab_wrong_cache(struct kmem_cache *c, const char *fn, const void *p,
		      const struct kmem_cache *owner);

/*
 * slab_boundary_what - write to buf (len bytes, at least 1) the fault of a
 * pointer p that is not on an object boundary: inside the object_size-byte
 * object at obj, or (obj NULL) outside the slab's objects. Returns buf.
 */
const char *slab_boundary_what(char *buf, size_t len, const void *p, const void *obj,
			       unsigned int object_size);

/*
 * slab_poison - fill len bytes at p with POISON_FREE.
 * slab_poison_broken - the offset from p of the first of len bytes that is
 * not POISON_FREE, or -1 when all are.
 */
void slab_poison(void *p, size_t len);
long slab_poison_broken(const void *p, size_t len);

/*
 * slab_red_broken - is the red zone of len bytes at zone not all 'want'?
 * If so returns true with *at the offset of its first broken byte from the
 * caller's pointer, the zone starting at zone_off from it (negative:
 * before the object); else returns false and leaves *at alone.
 */
bool slab_red_broken(const void *zone, unsigned int len, unsigned char want, long zone_off,
		     long *at);

/*
 * slab_report_red - report (slab_corrupt) a red zone before (before true)
 * or after the object at p overwritten at offset 'at' from p, found during
 * fn: a buffer underrun or overrun.
 * slab_report_poison - report (slab_corrupt) an allocation of p finding
 * its poison broken at offset 'at': a write after free.
 */
void slab_report_red(struct kmem_cache *c, const char *fn, const void *p, bool before, long at);
void slab_report_poison(struct kmem_cache *c, const void *p, long at);

/*
 * The object checks of the guard-word layout (see above), for a cache c
 * with SLAB_RED_ZONE and/or SLAB_POISON in c->flags (nothing is done for a
 * flag not set). p is the caller's pointer to an object of c, owned by the
 * caller of these functions while they run.
 *
 * slab_debug_init_obj - an object of a new slab: red zones free, poisoned.
 * slab_debug_free - p comes back through fn. Returns false for a double
 *   free (both red zones free, or without red zones the poison still
 *   whole), reported and counted: the caller must refuse the free. Else
 *   reports and repairs broken red zones, marks them free, poisons p and
 *   returns true.
 * slab_debug_alloc - p leaves the cache: red zones must be free (both
 *   active: the freelist handed out an allocated object) and the poison
 *   whole, else it is reported and repaired; then the zones are marked
 *   active and, with poisoning, p is filled with POISON_INUSE and c->ctor
 *   (if any) is run again, as the poison undid it.
 * slab_debug_verify_free - for kmem_cache_check: a free object's zones are
 *   free and its poison whole. Returns 0, or -1 after printing which is not.
 */
void slab_debug_init_obj(struct kmem_cache *c, void *p);
bool slab_debug_free(struct kmem_cache *c, void *p, const char *fn);
void slab_debug_alloc(struct kmem_cache *c, void *p);
int slab_debug_verify_free(struct kmem_cache *c, void *p);

#endif
