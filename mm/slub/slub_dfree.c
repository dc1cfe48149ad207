/*
 * slub_dfree.c - SLUB's double-free check, behind the free words' test.
 *
 * Every free tests its object's free word first (mm/slub/slub_def.h, "Free
 * words and double frees"): 0 or the caller's data pass; a word that
 * decodes to the slab's tagged end, an object of the slab or the object
 * itself says the object is free already (a free pointer: on a freelist;
 * the mark: in a sheaf; or a stale free pointer of an object that a
 * refill put in a sheaf and no one took since). Such a word is strong
 * evidence but not proof (the caller may have stored that value, or copied
 * it out of a free object), so slub_free_is_double looks for the object
 * where free objects of the cache are, cheapest first:
 *  - this CPU's main and spare sheaves, then the barn's full sheaves
 *    (under its lock), then every other CPU's main and spare sheaves,
 *    read as they are: a sheaf's size and slots are words, and sheaves
 *    are slab objects in RAM, so a racing change gives a stale view but
 *    no fault, and an object found at a slot below the size is free;
 *  - this CPU's freelist if the object is in this CPU's slab, and the
 *    page freelist of the object's slab where it stands still: frozen for
 *    this CPU (its slab or on its partial list; only this CPU takes a page
 *    freelist of those, and pushes leave the chain under the top as it
 *    is), or unfrozen, under the node lock (which any taking of its
 *    chain needs). A walk stops at anything that is not an object of the
 *    slab and after num steps.
 * Found: the free is a double free; the caller reports it and drops it.
 * Not found with everything walked: the object is not free, the word was
 * the caller's, and the free goes on. A slab frozen by another CPU keeps
 * its free objects on that CPU's freelist or on a page freelist that CPU
 * may take at any moment; neither can be walked from here, and the word
 * is taken at its word: a double free (the slab's owner would otherwise
 * hand the object out twice, or follow a mark as a free pointer).
 *
 * Locking: interrupts off throughout (the caller's), so that this CPU's
 * sheaves, freelist and partial list stay as read; the barn lock and the
 * node lock are taken in turn, never together. Debug caches are not
 * looked at here: their own path checks every free in full (mm/slub/slub_debug.c).
 * Departure from Linux: Linux checks only the top of the CPU freelist, and
 * only with SLAB_FREELIST_HARDENED.
 */
#include "mm/slub/slub_def.h"
#include "kernel/printk.h"

/* x's slot in sh below its size, or -1. sh may change meanwhile (another CPU's). */
static long sheaf_slot_of(const struct slub_sheaf *sh, const void *x)
{
	unsigned long n = MIN(READ_ONCE(sh->size), (unsigned long)SLUB_SHEAF_MAX);

	while (n--)
		if (READ_ONCE(sh->objects[n]) == x)
			return (long)n;
	return -1;
}

static struct slub_sheaf *main_of(const struct kmem_cache *s, unsigned int cpu)
{
	return READ_ONCE(per_cpu_ptr(slub_sheaf, cpu)->main[s->slot]);
}

/* x in a sheaf of s: true, with the place in 'what'. Interrupts off. */
static bool in_sheaves(struct kmem_cache *s, const void *x, char *what, size_t len)
{
	unsigned int self = smp_processor_id();
	struct slub_sheaf *sh = main_of(s, self), *spare = s->cpu[self].spare;
	bool found = false;
	long i;

	if (!s->sheaf_capacity)
		return false;
	if ((i = sheaf_slot_of(sh, x)) >= 0) {
		snprintf(what, len, "double free (already %s the CPU's sheaf)",
			 (unsigned long)i + 1 == sh->size ? "on top of" : "in");
		return true;
	}
	if (spare && sheaf_slot_of(spare, x) >= 0) {
		snprintf(what, len, "double free (already in the CPU's spare sheaf)");
		return true;
	}
	for (unsigned int nid = 0; nid < MAX_NUMNODES && !found; nid++) {
		struct slub_barn *b = &s->node[nid].barn;

		if (!READ_ONCE(b->nr_full))
			continue;
		spin_lock(&b->lock);
		for (sh = b->full; sh && !found; sh = sh->next)
			found = sheaf_slot_of(sh, x) >= 0;
		spin_unlock(&b->lock);
	}
	if (found) {
		snprintf(what, len, "double free (already in a full sheaf in the barn)");
		return true;
	}
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (cpu == self)
			continue;
		spare = READ_ONCE(s->cpu[cpu].spare);
		if (sheaf_slot_of(main_of(s, cpu), x) >= 0 || (spare && sheaf_slot_of(spare, x) >= 0)) {
			snprintf(what, len, "double free (already in CPU %u's sheaves)", cpu);
			return true;
		}
	}
	return false;
}

/* Whether the chain from v in the slab headed by page holds x (see above for the bounds). */
static bool chain_has(struct kmem_cache *s, const struct page *page, void *v, const void *x)
{
	for (unsigned int k = 0; k <= s->num && !slub_is_end(v); k++) {
		if (v == x)
			return true;
		if (!slub_fp_valid(s, page, v))
			return false;
		v = slub_get_fp(s, v);
	}
	return false;
}

/* Whether page is on this CPU's partial list of s. Interrupts off. */
static bool on_cpu_partial(struct kmem_cache *s, const struct page *page)
{
	struct page *p;

	list_for_each_entry(p, &s->cpu[smp_processor_id()].partial, lru)
		if (p == page)
			return true;
	return false;
}

/* What the freelists say about x: not there, there (what filled), or unknown. */
enum chain_answer { CHAIN_NO, CHAIN_YES, CHAIN_UNKNOWN };

static enum chain_answer on_freelists(struct kmem_cache *s, void *x, char *what, size_t len)
{
	struct page *page = (struct page *)virt_to_page(x)->private;
	void *head = READ_ONCE(slub_this_cpu(s)->freelist);
	unsigned long flags;
	bool found;

	if (head != SLUB_NO_SLAB && slub_page(s, head) == page) {	/* this CPU's slab */
		if (chain_has(s, page, head, x)) {
			snprintf(what, len, "double free (already on the CPU's freelist)");
			return CHAIN_YES;
		}
	} else if (slub_frozen(READ_ONCE(page->counters))) {
		if (!on_cpu_partial(s, page)) {
			snprintf(what, len, "double free (marked free, in another CPU's slab)");
			return CHAIN_UNKNOWN;
		}
	} else {
		flags = spin_lock_irqsave(&slub_node_of(s, page)->list_lock);
		if (slub_frozen(READ_ONCE(page->counters))) {
			/* Frozen meanwhile: by a free on another CPU (this one is here). */
			spin_unlock_irqrestore(&slub_node_of(s, page)->list_lock, flags);
			snprintf(what, len, "double free (marked free, in another CPU's slab)");
			return CHAIN_UNKNOWN;
		}
		found = chain_has(s, page, READ_ONCE(page->slub_freelist), x);
		spin_unlock_irqrestore(&slub_node_of(s, page)->list_lock, flags);
		if (found)
			snprintf(what, len, "double free (already on its slab's freelist)");
		return found ? CHAIN_YES : CHAIN_NO;
	}
	if (chain_has(s, page, READ_ONCE(page->slub_freelist), x)) {
		snprintf(what, len, "double free (already on its slab's freelist)");
		return CHAIN_YES;
	}
	return CHAIN_NO;
}

/*
 * slub_free_is_double - the free of x found its free word saying free
 * (slub_fw_free): look for x among the free objects of s (see above).
 * True when x is free, or its slab is another CPU's (see above), with the
 * report's words in what[0..len) ("double free (...)"): the caller reports
 * it with slab_bad_free and drops the free. False when x is not free (or s
 * is a debug cache, whose free path checks in full): the caller frees x.
 * Interrupts off, on the running CPU; x an object of s on an object
 * boundary of a slab page of s, which the caller checked. Reports nothing.
 */
bool slub_free_is_double(struct kmem_cache *s, void *x, char *what, size_t len)
{
	assert_irqs_disabled();
	if (slub_debug_on(s))
		return false;
	this_cpu_inc(slub_events);
	if (in_sheaves(s, x, what, len))
		return true;
	return on_freelists(s, x, what, len) != CHAIN_NO;
}
