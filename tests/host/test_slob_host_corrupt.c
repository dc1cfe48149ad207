/*
 * test_slob_host_corrupt.c - SLOB after heap damage, both
 * forms, on the host only: a damaged page is quarantined and leaked on
 * purpose (mm/slob/slob_quarantine.c), which the per-test page accounting of
 * the shared self-tests would count as a leak.
 *
 * Each case damages the heap as a buggy caller would, then checks that the
 * damage is reported once (the console line names the cache, call,
 * address, what was broken and the quarantined page; slab_corruptions and
 * slob_heap.quarantined go up by one), that the heap passes
 * kmem_cache_check after it, that the page's surviving objects can still
 * be freed (and ksize'd) and its memory is never handed out again, that
 * thousands of random allocations and frees work after it (every object
 * with its whole size, none overlapping another, none in a quarantined
 * page), and that the cache is destroyed cleanly. The cases:
 *  - a one-byte overrun into the next block's header, found by that
 *    block's free, and into a free block's header, found by the overrun
 *    block's own free (slob: it looped forever in page_alloc after);
 *  - random one-byte overruns of kmalloc objects (the loop and the ksize-0
 *    objects were seen this way);
 *  - an overwritten header, found by kmem_cache_free, and by kfree when its
 *    id survived (both SLOBs handed out objects of ksize 0 after it);
 *  - a write after free into a free block's links (slob-seg: crashed in
 *    cls_del, also with SLAB_RED_ZONE | SLAB_POISON; slob: the link in the
 *    free header), found by the next allocation or free that follows them
 *    (debug builds: the full list checks, which rebuilt the lists before);
 *  - kmem_cache_check on a broken class-list link (slob-seg: crashed
 *    following it).
 * In SLAB_DEBUG builds the caches below that are not SLAB_NO_DEBUG are
 * debug caches: the same damage is found (and more of it, earlier).
 */
#include "tests/common/test_slob.h"
#include "host_stress.h"

#define AFTER_OPS	2500
#define AFTER_SLOTS	256
#define FILL_MAX	(PAGE_SIZE / 16)

static void *fill[FILL_MAX];
static unsigned int nfill;
static unsigned char *objs[AFTER_SLOTS];
static size_t osize[AFTER_SLOTS];
static bool ofromc[AFTER_SLOTS];
static uint64_t rng;

static uint64_t rnd(void)
{
	return host_xorshift64(&rng);
}

static bool in_quarantine(const void *p)
{
	return slob_page_quarantined(virt_to_page(p));
}

static void free_fill(struct kmem_cache *c)
{
	while (nfill)
		kmem_cache_free(c, fill[--nfill]);
}

/* A mark before the damage: the counters that must go up by one. */
struct qmark {
	unsigned long corrupt, pages, bad;
};

static void qmark_take(struct qmark *m)
{
	m->corrupt = slab_corruptions;
	m->pages = slob_heap.quarantined;
	m->bad = slab_bad_frees;
	slab_test_console_clear();
}

/*
 * The damage was reported once and its page quarantined: one corruption,
 * one page, no bad free; the console names it ('what', the cache, the
 * call) and the page.
 */
#define EXPECT_QUARANTINED(m, what, who)                                                  \
	do {                                                                              \
		ST_EXPECT(slab_corruptions == (m)->corrupt + 1 &&                         \
				  slob_heap.quarantined == (m)->pages + 1 &&              \
				  slab_bad_frees == (m)->bad,                             \
			  "%s: corruptions +%lu, quarantined pages +%lu, bad frees +%lu", \
			  what, slab_corruptions - (m)->corrupt,                          \
			  slob_heap.quarantined - (m)->pages, slab_bad_frees - (m)->bad); \
		ST_EXPECT(slab_test_console_has(what) && slab_test_console_has(who) &&    \
				  slab_test_console_has("quarantined: out of the heap for good"), \
			  "no quarantine report naming \"%s\" and \"%s\"", what, who);    \
	} while (0)

/*
 * The heap passes kmem_cache_check (c's too, if given). 'found_here': the
 * damage may still be unfound; then a check may fail once, quarantining the
 * page it fails on, and must pass the next time.
 */
static bool heap_ok(struct kmem_cache *c, bool found_here)
{
	for (int i = 0; i < (found_here ? 3 : 1); i++)
		if (slob_test_check() == 0 && (!c || kmem_cache_check(c) == 0))
			return true;
	return false;
}

/*
 * After the damage: the heap is consistent, then AFTER_OPS random
 * allocations (of c, if given, and kmalloc of 1..600 bytes) and frees,
 * each object filled whole and checked before its free, none in a
 * quarantined page, ksize at least its size; the heap checked as it goes
 * and at the end, everything freed. c NULL: the damage may be found on
 * the way (heap_ok).
 */
static int random_after(struct kmem_cache *c, uint64_t seed)
{
	rng = seed;
	ST_EXPECT(heap_ok(c, !c), "the heap is inconsistent after the quarantine");
	for (unsigned int op = 0; op < AFTER_OPS; op++) {
		unsigned int i = (unsigned int)(rnd() % AFTER_SLOTS);
		unsigned char tag = (unsigned char)(i * 7 + 1);

		if (objs[i]) {
			for (size_t k = 0; k < osize[i]; k++)
				ST_EXPECT(objs[i][k] == tag, "object %p (%zu bytes) overwritten at %zu",
					  (void *)objs[i], osize[i], k);
			if (ofromc[i])
				kmem_cache_free(c, objs[i]);
			else
				kfree(objs[i]);
			objs[i] = NULL;
			continue;
		}
		ofromc[i] = c && (rnd() & 1);
		osize[i] = ofromc[i] ? c->object_size : 1 + rnd() % 600;
		objs[i] = ofromc[i] ? kmem_cache_alloc(c) : kmalloc(osize[i]);
		ST_EXPECT(objs[i] && ksize(objs[i]) >= osize[i] && !in_quarantine(objs[i]),
			  "op %u: %p of %zu bytes: ksize %zu%s", op, (void *)objs[i], osize[i],
			  objs[i] ? ksize(objs[i]) : 0,
			  objs[i] && in_quarantine(objs[i]) ? ", in a quarantined page" : "");
		memset(objs[i], tag, osize[i]);
		if (op % 500 == 0)
			ST_EXPECT(heap_ok(c, !c), "the heap is inconsistent after op %u", op);
	}
	for (unsigned int i = 0; i < AFTER_SLOTS; i++) {
		if (objs[i] && ofromc[i])
			kmem_cache_free(c, objs[i]);
		else if (objs[i])
			kfree(objs[i]);
		objs[i] = NULL;
	}
	ST_EXPECT(heap_ok(c, !c) && (!c || c->inuse == 0),
		  "the heap is inconsistent after the random operations");
	return 0;
}

/* Two objects of c side by side, *lo's block right before *hi's, on a page of their own. */
static int neighbours(struct kmem_cache *c, unsigned char **lo, unsigned char **hi)
{
	unsigned char *p = slob_test_fresh(c, fill, FILL_MAX, &nfill), *q = kmem_cache_alloc(c);

	ST_EXPECT(p && q, "alloc failed");
	*lo = p < q ? p : q;
	*hi = p < q ? q : p;
	ST_EXPECT(slob_next(slob_test_hdr(*lo)) == slob_test_hdr(*hi) &&
			  *lo + c->size == (unsigned char *)slob_test_hdr(*hi),
		  "blocks %p and %p are not side by side", (void *)*lo, (void *)*hi);
	return 0;
}

/*
 * A one-byte overrun of an object with no red zone, into the next block's
 * size: found by that block's free (the size disagrees with the block after
 * it: "heap corrupt"), which still frees it; the overrun object, quarantined
 * with its page, is freed after. slob looped forever in page_alloc on a later
 * allocation.
 */
SELFTEST_HOST(slob_corrupt_overrun_into_an_allocated_header)
{
	unsigned char *lo, *hi;
	struct kmem_cache *c;
	struct qmark m;

	slab_drain_all();
	c = slob_test_cache("test-q-overrun", 40);
	ST_EXPECT(c && !c->debug, "create failed");
	if (neighbours(c, &lo, &hi))
		return -1;
	qmark_take(&m);
	lo[c->object_size] ^= 0x21;		/* the low byte of hi's size */
	kmem_cache_free(c, hi);
	EXPECT_QUARANTINED(&m, "heap corrupt: the block's size disagrees with its neighbours",
			   "test-q-overrun: kmem_cache_free(");
	ST_EXPECT(in_quarantine(lo) && c->quarantined == 1 && c->inuse == nfill + 1,
		  "quarantined %d, %lu of %lu objects in it", in_quarantine(lo), c->quarantined,
		  c->inuse);
	ST_EXPECT(ksize(lo) == 40, "ksize of a quarantined object %zu", ksize(lo));
	/* The heap's table and "Slab:" count the page. */
	slab_test_console_clear();
	slabinfo_show();
	ST_EXPECT(slab_test_console_has(" damaged pages quarantined (out of the heap, not reused)"),
		  "the heap table does not show the quarantine");
	ST_EXPECT(slab_total_pages() >= slob_heap.nr_pages + slob_heap.quarantined,
		  "Slab: leaves the quarantined pages out");
	kmem_cache_free(c, lo);
	ST_EXPECT(c->quarantined == 0 && c->inuse == nfill && slab_bad_frees == m.bad,
		  "the quarantined object's free: %lu in quarantine, %lu in use", c->quarantined,
		  c->inuse);
	/* Its second free is reported; the page stays out of use. */
	kmem_cache_free(c, lo);
	SLAB_EXPECT_REFUSED(c, m.bad, "double free (in a quarantined page)");
	free_fill(c);
	if (random_after(c, 0x1234567))
		return -1;
	ST_EXPECT(slob_heap.quarantined == m.pages + 1, "the page came back");
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	return 0;
}

/*
 * The same overrun into a free block's header: slob finds it at the
 * overrun object's own free (it would merge with the free block);
 * slob-seg's frees do not look at their neighbours, and its fast path
 * hands the block out by its list, so it is found when that block, handed
 * out, is freed. slob's second round leaves a stale header in the free
 * block's body first, as a merge or the page's earlier life leaves one (a
 * SLOB_DEAD header whose tag holds, its left neighbour inside the block):
 * the quarantine's walk must not take it for a block start and lose the
 * live object after it (it did, with pages laid out by 8 host nodes).
 * slob-seg cuts a page's blocks from its end down, so no live block
 * follows the free one there: one round.
 */
SELFTEST_HOST(slob_corrupt_overrun_into_a_free_header)
{
	for (int stale = 0; stale < (SLOB_SEG ? 1 : 2); stale++) {
		unsigned char *lo, *hi, *third;
		struct kmem_cache *c;
		struct qmark m;

		slab_drain_all();
		c = slob_test_cache("test-q-overfree", 40);
		ST_EXPECT(c, "create failed");
		if (neighbours(c, &lo, &hi))
			return -1;
		third = kmem_cache_alloc(c);	/* keeps the page in use */
		ST_EXPECT(third && virt_to_page(third) == virt_to_page(lo),
			  "no third object in the page");
		ST_EXPECT(SLOB_SEG || slob_next(slob_test_hdr(hi)) == slob_test_hdr(third),
			  "the third object %p is not right after %p", (void *)third, (void *)hi);
		kmem_cache_free(c, hi);
		if (stale)	/* its right neighbour: third */
			slob_set_hdr(slob_test_hdr(hi) + 3, 3, 1, SLOB_DEAD);
		qmark_take(&m);
		lo[c->object_size] ^= 0x21;
		kmem_cache_free(c, lo);
		if (SLOB_SEG) {
			unsigned char *x = kmem_cache_alloc(c), *y = kmem_cache_alloc(c);

			ST_EXPECT(x == lo && y == hi, "the freed blocks did not come back (%p %p)",
				  (void *)x, (void *)y);
			kmem_cache_free(c, x);
			kmem_cache_free(c, y);
		}
		EXPECT_QUARANTINED(&m, "heap corrupt: ", "test-q-overfree: kmem_cache_free(");
		ST_EXPECT(in_quarantine(third) && c->quarantined == 1,
			  "stale header %d: the page %s quarantined, %lu live objects of the "
			  "cache in quarantine (the third one's)", stale,
			  in_quarantine(third) ? "is" : "is not", c->quarantined);
		kfree(third);
		ST_EXPECT(c->quarantined == 0 && slab_bad_frees == m.bad,
			  "the third object's free: %lu in quarantine, %lu bad frees", c->quarantined,
			  slab_bad_frees - m.bad);
		free_fill(c);
		if (random_after(c, 0x2345678 + (uint64_t)stale))
			return -1;
		ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	}
	return 0;
}

/*
 * One-byte overruns of kmalloc objects (the first byte past ksize, not at
 * a page's end), then random kmallocs and frees: the damage is found
 * (debug builds: the red zone; others: when the damaged block is freed or
 * cut, or by the check at the end) and nothing hangs, overlaps or comes
 * back with ksize 0.
 */
SELFTEST_HOST(slob_corrupt_random_kmalloc_overruns)
{
	for (uint64_t seed = 1; seed <= 24; seed++) {
		unsigned long corrupt = slab_corruptions;
		unsigned char *victim = NULL;

		rng = seed * 0x9e3779b97f4a7c15ULL;
		for (unsigned int i = 0; i < AFTER_SLOTS; i++) {
			osize[i] = 8 + rnd() % 300;
			objs[i] = kmalloc(osize[i]);
			ofromc[i] = false;
			ST_EXPECT(objs[i], "kmalloc failed");
			memset(objs[i], (unsigned char)(i * 7 + 1), osize[i]);
		}
		/* the byte after it: its red zone, or the next block's header (not the next page) */
		for (unsigned int k = (unsigned int)(rnd() % AFTER_SLOTS); !victim; k = (k + 1) %
		     AFTER_SLOTS) {
			unsigned char *end = objs[k] + ksize(objs[k]);

			if (((uintptr_t)end & (PAGE_SIZE - 1)) &&
			    ((slob_test_owner(objs[k])->flags & SLAB_RED_ZONE) ||
			     end == (unsigned char *)slob_next(slob_test_hdr(objs[k]))))
				victim = end;
		}
		*victim ^= 0x5;
		if (random_after(NULL, seed))
			return -1;
		ST_EXPECT(slab_corruptions > corrupt, "seed %lu: the overrun at %p was never found",
			  (unsigned long)seed, (void *)victim);
		ST_EXPECT(slob_test_check() == 0, "seed %lu: the heap is inconsistent",
			  (unsigned long)seed);
	}
	return 0;
}

/*
 * An overwritten header: its whole 8 bytes (kmem_cache_free names the
 * cache: the object is freed), then only its size and tag (kfree: its id
 * names the cache). The report says "header overwritten"; afterwards no
 * object comes back with ksize 0 (both SLOBs handed out such objects).
 */
SELFTEST_HOST(slob_corrupt_header_overwritten)
{
	unsigned char *lo, *hi;
	struct kmem_cache *c;
	struct qmark m;

	for (int round = 0; round < 2; round++) {
		slab_drain_all();
		c = kmem_cache_create("test-q-header", 40, 0, 0, NULL);	/* debug in debug builds */
		ST_EXPECT(c, "create failed");
		if (neighbours(c, &lo, &hi))
			return -1;
		qmark_take(&m);
		if (round == 0) {
			memset(hi - SLOB_UNIT, 0x41, SLOB_UNIT);
			kmem_cache_free(c, hi);
		} else {
			slob_test_hdr(hi)->units = 0;
			slob_test_hdr(hi)->tag ^= 0x5a5a;
			kfree(hi);
		}
		EXPECT_QUARANTINED(&m, "header overwritten (buffer underrun, or a wild write)",
				   round ? "test-q-header: kfree(" : "test-q-header: kmem_cache_free(");
		ST_EXPECT(c->inuse == nfill + 1 && c->quarantined == 1 && in_quarantine(lo),
			  "round %d: %lu in use, %lu quarantined", round, c->inuse, c->quarantined);
		ST_EXPECT(ksize(lo) == c->object_size, "ksize of the survivor %zu", ksize(lo));
		for (int i = 0; i < 64; i++) {
			void *x = kmem_cache_alloc(c);

			ST_EXPECT(x && ksize(x) == c->object_size && !in_quarantine(x),
				  "round %d: alloc %d: %p, ksize %zu", round, i, x, x ? ksize(x) : 0);
			fill[nfill++] = x;
		}
		kfree(lo);
		free_fill(c);
		if (random_after(c, 0x3456789 + (uint64_t)round))
			return -1;
		ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	}
	return 0;
}

/*
 * A write after free into a free block's links, found before they are
 * followed. slob-seg: the list_head at the start of the body; its next
 * link found when the block is taken, its prev link when the block before
 * it on the list is (a plain cache takes them on its fast path, a
 * SLAB_RED_ZONE | SLAB_POISON one on the slow path, which crashed in
 * cls_del). slob: the offset in the free header, made to lead back; found
 * by the next allocation, or by a free that walks the page's list to its
 * place. The allocation still succeeds, from another page; the free frees.
 */
SELFTEST_HOST(slob_corrupt_write_after_free_into_links)
{
	static const unsigned int flags[] = { SLAB_NO_DEBUG, SLAB_RED_ZONE | SLAB_POISON };

	for (unsigned int f = 0; f < ARRAY_SIZE(flags); f++) {
		for (unsigned int later = 0; later < 2; later++) {
			unsigned char *lo, *hi, *third, *x = NULL;
			struct kmem_cache *c;
			struct qmark m;

			slab_drain_all();
			c = kmem_cache_create("test-q-link", 40, 0, flags[f], NULL);
			ST_EXPECT(c, "create failed");
			if (neighbours(c, &lo, &hi))
				return -1;
			third = kmem_cache_alloc(c);
			ST_EXPECT(third && virt_to_page(third) == virt_to_page(lo), "third object");
			kmem_cache_free(c, hi);
			if (SLOB_SEG && later)	/* third heads the list, hi after it */
				kmem_cache_free(c, third);
			qmark_take(&m);
			if (SLOB_SEG)
				*(uintptr_t *)(hi + (later ? sizeof(void *) : 0)) =
					(uintptr_t)0x4141414141414140ULL;
			else		/* the link to the next free block: back into the page */
				slob_test_hdr(hi)->info = (uint16_t)((slob_test_hdr(hi)->info &
								      ~SLOB_LINK_MASK) | 1);
			if (!SLOB_SEG && later) {
				kmem_cache_free(c, third);	/* walks the list past hi */
			} else {
				x = kmem_cache_alloc(c);
				ST_EXPECT(x && x != hi && x != third && !in_quarantine(x) &&
						  ksize(x) == c->object_size,
					  "flags 0x%x: alloc %p (the damaged block %p)", flags[f],
					  (void *)x, (void *)hi);
			}
			EXPECT_QUARANTINED(&m, SLOB_SEG ? (later ? "freelist corrupt at offset 8: "
						"its prev link" : "freelist corrupt at offset 0: its "
						"next link") : "freelist corrupt: the free block's "
						"link at offset -4", x ? "test-q-link: alloc(" :
						"test-q-link: kmem_cache_free(");
			ST_EXPECT(in_quarantine(lo) && c->quarantined == (later ? 1U : 2U),
				  "flags 0x%x: %lu objects quarantined", flags[f], c->quarantined);
			kmem_cache_free(c, lo);
			if (!later)
				kmem_cache_free(c, third);
			if (x)
				kmem_cache_free(c, x);
			free_fill(c);
			if (random_after(c, 0x456789a + later))
				return -1;
			ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
		}
	}
	return 0;
}

/*
 * kmem_cache_check meets the broken link first (slob-seg crashed following
 * it, at 64K with SLAB_DEBUG): it reports the block and the link, fails
 * once, and quarantines the page; the next check passes.
 */
SELFTEST_HOST(slob_corrupt_check_validates_links)
{
	unsigned char *lo, *hi;
	struct kmem_cache *c;
	struct qmark m;

	if (!SLOB_SEG)
		return 0;	/* sequential fit's links are offsets inside the page */
	slab_drain_all();
	c = slob_test_cache("test-q-check", 40);
	ST_EXPECT(c, "create failed");
	if (neighbours(c, &lo, &hi))
		return -1;
	kmem_cache_free(c, hi);
	qmark_take(&m);
	*(uintptr_t *)hi = (uintptr_t)0x4141414141414140ULL;
	ST_EXPECT(kmem_cache_check(c) == -1, "check passed a broken link");
	EXPECT_QUARANTINED(&m, "kmem_cache_check(", "freelist corrupt at offset 0: its next link");
	ST_EXPECT(slab_test_console_has("check failed: class ") &&
			  slab_test_console_has("its next link does not lead to a free block of its "
						"class that links back"),
		  "the check did not name the link");
	ST_EXPECT(kmem_cache_check(c) == 0, "the check failed again after the quarantine");
	kmem_cache_free(c, lo);
	free_fill(c);
	if (random_after(c, 0x56789ab))
		return -1;
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	return 0;
}
