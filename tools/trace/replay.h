/*
 * replay.h - the host replay of a Quarry trace (tools/trace/replay.c): the
 * loaded trace, checked whole before any event runs (replay_load.c, through
 * the check the kernel's replay shares, qtr_check.c).
 */
#ifndef TOOLS_TRACE_REPLAY_H
#define TOOLS_TRACE_REPLAY_H

#include "qtr_check.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The loaded trace: the shared check's view of it (qtr_check.h). */
#define replay_trace qtr_view

/*
 * replay_load - read the trace at path and check it whole (header, offsets,
 * strings, caches, every event and its pairing). On any fault it prints
 * "replay: PATH: ..." naming the event and field and exits with status 1;
 * it returns only a trace every event of which can be replayed as written.
 * The memory stays allocated for the program's life.
 */
void replay_load(const char *path, struct replay_trace *t);

/*
 * replay_dump - the loaded trace as text on f: header, caches, and one line
 * per event ("7: cpu 1 kfree object 3 cache 0 of event 2 implicit").
 */
void replay_dump(const struct replay_trace *t, FILE *f);

/* replay_type_name - "kmalloc", "kfree", ... for a QTR_* type; "?" otherwise. */
const char *replay_type_name(unsigned int type);

#endif
