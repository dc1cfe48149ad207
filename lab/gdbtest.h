/*
 * gdbtest.h - the fixed sequence of cache operations that the GDB test
 * (tests/gdb/helpers.sh) and the README's walkthrough stop in: kernel
 * command line "gdbtest".
 */
#ifndef QUARRY_GDBTEST_H
#define QUARRY_GDBTEST_H

/*
 * gdbtest_run - make the cache "gdbtest-96", allocate and free 8 objects
 * (so this CPU's array or freelist holds them: a warm cache), kmalloc 4
 * pages (gdbtest_large, held until the end), print slabinfo, allocate one object (from the warm cache) and free it, calling
 * gdbtest_stop() after each step, then destroy the cache. Prints "gdbtest:
 * ok" or what failed; returns 0 or -1 (no memory). Interrupts on, after the
 * slab caches are up.
 */
int gdbtest_run(void);

/* The large kmalloc gdbtest_run holds over its stops; NULL outside it. */
extern void *gdbtest_large;

/*
 * gdbtest_stop - does nothing: a place for a debugger's breakpoint, told
 * which step was just done ("slabinfo printed", "allocated", "freed") and
 * the object it concerns (NULL for none).
 */
void gdbtest_stop(const char *step, void *obj);

#endif
