/*
 * test_cache_slabinfo.c - the slabinfo checks SLAB's and SLUB's own
 * self-tests share (see test_cache_slabinfo.h), in the kernel and on the
 * host. Built with every allocator (tests/common/test_cache*.c) but empty
 * except for SLAB and SLUB, whose tests alone call it.
 */
#include "test_cache_slabinfo.h"

#if defined(CONFIG_ALLOC_SLAB) || defined(CONFIG_ALLOC_SLUB)

/* slab_test_kmalloc32_row: see test_cache_slabinfo.h. */
int slab_test_kmalloc32_row(char *line, size_t size)
{
	void **held = kmalloc_array(1000, sizeof(void *));

	ST_EXPECT(held, "no table");
	for (int i = 0; i < 1000; i++)
		held[i] = kmalloc(32);
	slabinfo_line(kmalloc_slab(32), line, size);
	printk("kmalloc-32 at %s pages, 1000 objects held: %s\n", PAGE_SIZE_NAME, line);
	for (int i = 0; i < 1000; i++)
		kfree(held[i]);
	kfree(held);
	return 0;
}

/* slab_test_slabinfo_shown: see test_cache_slabinfo.h. */
int slab_test_slabinfo_shown(void)
{
	slab_test_console_clear();
	slabinfo_show();
	ST_EXPECT(slab_test_console_has(
			  "slabinfo - version: 2.1\n# name            <active_objs> <num_objs>"
			  " <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount>"
			  " <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>\n"),
		  "slabinfo header wrong");
	ST_EXPECT(slab_test_console_has("\nkmalloc-32  "), "no kmalloc-32 line");
	return 0;
}

#endif
