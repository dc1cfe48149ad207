/*
 * convert_live.c - the converter's table of live objects and page blocks:
 * open addressing on a power-of-two table, linear probing, deletion by
 * backward shift (no tombstones), grown at half full.
 */
#include "convert.h"

#include <assert.h>
#include <stdlib.h>


static struct live *tab;
static size_t tab_cap, tab_used;

static size_t slot_of(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (tab_cap - 1);
}

/* live_find: see convert.h. */
struct live *live_find(uint64_t key)
{
	if (!tab_cap)
		return NULL;
	for (size_t i = slot_of(key);; i = (i + 1) & (tab_cap - 1)) {
		if (tab[i].key == key)
			return &tab[i];
		if (!tab[i].key)
			return NULL;
	}
}

static void live_grow(void);

/* live_insert: see convert.h. */
struct live *live_insert(uint64_t key)
{
	size_t i;

	assert(key && !live_find(key));
	if ((tab_used + 1) * 2 > tab_cap)
		live_grow();
	for (i = slot_of(key); tab[i].key; i = (i + 1) & (tab_cap - 1))
		;
	tab[i].key = key;
	tab_used++;
	return &tab[i];
}

static void live_grow(void)
{
	struct live *old = tab;
	size_t old_cap = tab_cap;

	tab_cap = old_cap ? old_cap * 2 : 1 << 16;
	tab = calloc(tab_cap, sizeof(*tab));
	if (!tab)
		convert_oom();
	tab_used = 0;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].key)
			*live_insert(old[i].key) = old[i];
	free(old);
}

/* live_remove: see convert.h. */
void live_remove(struct live *e)
{
	size_t i = (size_t)(e - tab), j = i;

	assert(e >= tab && i < tab_cap && e->key);
	tab[i].key = 0;
	tab_used--;
	for (;;) {
		size_t home;

		j = (j + 1) & (tab_cap - 1);
		if (!tab[j].key)
			return;
		home = slot_of(tab[j].key);
		/* Move j back into the hole at i unless its home lies in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			tab[i] = tab[j];
			tab[j].key = 0;
			i = j;
		}
	}
}
