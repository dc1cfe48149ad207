/*
 * test_cache_slabinfo.h - the slabinfo checks SLAB's and SLUB's own
 * self-tests share (tests/common/test_cache_slabinfo.c): kmalloc-32's row
 * with many of its objects held, printed for the log, and the table
 * slabinfo_show prints. Each allocator's slabinfo_format test checks its
 * own rows and tunables around these.
 */
#ifndef TESTS_COMMON_TEST_CACHE_SLABINFO_H
#define TESTS_COMMON_TEST_CACHE_SLABINFO_H

#include "test_alloc.h"

/*
 * slab_test_kmalloc32_row - hold 1000 kmalloc(32) objects, write
 * kmalloc-32's slabinfo row into line (size bytes) and print it
 * ("kmalloc-32 at 4K pages, 1000 objects held: <row>"), then free the
 * objects again. Returns 0, or -1 (selftest_fail) when the table of their
 * pointers could not be allocated (nothing held, line untouched).
 */
int slab_test_kmalloc32_row(char *line, size_t size);

/*
 * slab_test_slabinfo_shown - clear the console and print the slabinfo
 * table (slabinfo_show): on the host its version 2.1 header and a
 * kmalloc-32 row must be on the console (the kernel captures nothing: no
 * check there). The table stays on the console for the caller's own
 * checks. Returns 0, or -1 (selftest_fail).
 */
int slab_test_slabinfo_shown(void);

#endif
