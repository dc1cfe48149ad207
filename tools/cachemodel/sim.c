/* sim.c - set-associative LRU structures for the cache model (sim.h). */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sim_init(struct sim *s, const char *name, uint64_t blocks, unsigned int ways,
	     unsigned int shift, char *err, unsigned int errlen)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	if (ways == 0 || blocks == 0 || blocks % ways) {
		snprintf(err, errlen, "%s: %llu blocks cannot make %u-way sets", name,
			 (unsigned long long)blocks, ways);
		return -1;
	}
	if (blocks / ways > (1u << 30)) {
		snprintf(err, errlen, "%s: %llu sets is more than the model handles", name,
			 (unsigned long long)(blocks / ways));
		return -1;
	}
	s->ways = ways;
	s->sets = (unsigned int)(blocks / ways);
	s->shift = shift;
	s->size = blocks;
	s->set_mask = (s->sets & (s->sets - 1)) ? 0 : s->sets - 1;
	s->tag = calloc(blocks, sizeof(*s->tag));
	if (!s->tag) {
		snprintf(err, errlen, "%s: no memory for %llu blocks", name,
			 (unsigned long long)blocks);
		sim_free(s);
		return -1;
	}
	return 0;
}

void sim_free(struct sim *s)
{
	free(s->tag);
	s->tag = NULL;
}
