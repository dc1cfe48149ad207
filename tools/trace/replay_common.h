/*
 * replay_common.h - what the host replay (tools/trace/replay.c) and the
 * kernel's (lab/replay.c) decide the same way once a trace is checked
 * (qtr_check.h): the Quarry order of a traced page block, which events a
 * run leaves out, and the page allocator's pages in use, the measure of
 * both replays' memory. Inline: the kernel's replay calls them in its
 * timed spans.
 */
#ifndef TOOLS_TRACE_REPLAY_COMMON_H
#define TOOLS_TRACE_REPLAY_COMMON_H

#include "qtrace.h"
#include "mm/buddy.h"
#include "mm/page.h"

/* The Quarry order of a block of 2^order pages of the traced kernel's page_size bytes. */
static inline unsigned int qtr_quarry_order(uint32_t page_size, uint32_t order)
{
	size_t bytes = (size_t)page_size << order;

	return bytes <= PAGE_SIZE ? 0 : get_order(bytes);
}

/*
 * qtr_left_out - whether a run leaves event e out: page events unless
 * 'pages' (and never one the trace marks not replayed; a user page's with
 * 'no_user'), the traced allocator's own kmallocs unless 'internal'.
 */
static inline bool qtr_left_out(const struct qtr_event *e, bool pages, bool no_user,
				bool internal)
{
	if (e->type == QTR_PAGE_ALLOC || e->type == QTR_PAGE_FREE)
		return !pages || (e->flags & QTR_F_NOT_REPLAYED) || (no_user && (e->flags & QTR_F_USER));
	return (e->flags & QTR_F_INTERNAL) && !internal;
}

/* qtr_pages_used - pages the page allocator manages that are not free now. */
static inline unsigned long qtr_pages_used(void)
{
	struct buddy_stats st;

	buddy_read_stats(&st);
	return st.managed_pages - st.free_pages;
}

#endif
