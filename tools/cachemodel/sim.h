/*
 * sim.h - the cache model's building block: one set-associative structure
 * with true LRU replacement, used for every cache level (keyed by line) and
 * every TLB (keyed by page). Not thread-safe: the caller serialises access
 * to a shared one (the last-level cache).
 */
#ifndef TOOLS_CACHEMODEL_SIM_H
#define TOOLS_CACHEMODEL_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct sim {
	char name[8];		/* "L1D", "STLB", ... for messages */
	uint64_t size;		/* bytes (caches) or entries (TLBs) */
	unsigned int ways, sets, shift;	/* shift: log2 of the line or page */
	uint64_t set_mask;	/* sets - 1 when sets is a power of two, else 0 */
	uint64_t *tag;		/* sets x ways: block number + 1, 0 = empty; each set
				 * from most to least recently used */
	uint64_t last;		/* tag of the most recent access (a hit shortcut) */
};

/*
 * sim_init - make s an empty structure of `blocks` blocks of 2^shift bytes
 * in `ways`-way sets. blocks must be a non-zero multiple of ways. Returns 0,
 * or -1 with a message naming `name` and the numbers in err (errlen bytes)
 * when the geometry is impossible or memory runs out. Free with sim_free.
 */
int sim_init(struct sim *s, const char *name, uint64_t blocks, unsigned int ways,
	     unsigned int shift, char *err, unsigned int errlen);

/* sim_free - release what sim_init allocated; s may be zeroed or initialised. */
void sim_free(struct sim *s);

/*
 * sim_access - look addr up; on a miss the least recently used way of its
 * set gives way to it. Returns true on a hit. s must have been initialised.
 * Each set is kept in recency order, so a hit moves its tag to the front and
 * a miss drops the last one.
 */
static inline bool sim_access(struct sim *s, uint64_t addr)
{
	uint64_t blk = addr >> s->shift, tag = blk + 1;
	uint64_t set = s->set_mask ? (blk & s->set_mask) : s->sets == 1 ? 0 : blk % s->sets;
	uint64_t *t = s->tag + set * s->ways;
	unsigned int i;

	if (tag == s->last)
		return true;	/* already the most recently used of its set */
	s->last = tag;
	if (t[0] == tag)
		return true;
	for (i = 1; i < s->ways && t[i] != tag; i++)
		;
	if (i == s->ways)
		i = s->ways - 1;	/* a miss: the least recently used goes */
	bool hit = t[i] == tag;
	memmove(t + 1, t, i * sizeof(*t));
	t[0] = tag;
	return hit;
}

#endif
