/*
 * gdbtest.c - a fixed, short sequence of cache operations with a named stop
 * after each step, for the GDB test (tests/gdb/helpers.sh) and the README's
 * "Stepping through the allocator": with the command line "gdbtest" the
 * debugger knows what happened before each stop, so it can check its
 * helpers' output (quarry-slabinfo against the table just printed,
 * quarry-page on the object just allocated or freed) against the kernel's.
 * The same with every allocator (mm/slab.h's API only).
 */
#include "lab/gdbtest.h"
#include "kernel/printk.h"
#include "mm/slab.h"
#include "mm/page.h"

#define GDBTEST_WARM	8	/* objects allocated and freed first */

/*
 * A large kmalloc (4 pages: above every allocator's largest class, so a
 * block straight from the buddy allocator) held over the stops, for
 * quarry-page's large-block decoding; NULL outside gdbtest_run.
 */
void *gdbtest_large;

/* gdbtest_stop: see gdbtest.h. Kept out of line and not folded away. */
__noinline void gdbtest_stop(const char *step, void *obj)
{
	__asm__ __volatile__("" : : "r"(step), "r"(obj) : "memory");
}

/* gdbtest_run: see gdbtest.h. */
int gdbtest_run(void)
{
	struct kmem_cache *c = kmem_cache_create("gdbtest-96", 96, 0, 0, NULL);
	void *objs[GDBTEST_WARM], *p;
	unsigned int i;
	bool ok;

	if (!c) {
		printk("gdbtest: FAILED: kmem_cache_create(gdbtest-96) returned NULL\n");
		return -1;
	}
	for (i = 0; i < GDBTEST_WARM; i++) {
		objs[i] = kmem_cache_alloc(c);
		if (!objs[i]) {
			printk("gdbtest: FAILED: kmem_cache_alloc(gdbtest-96) returned NULL\n");
			while (i--)
				kmem_cache_free(c, objs[i]);
			kmem_cache_destroy(c);
			return -1;
		}
	}
	for (i = 0; i < GDBTEST_WARM; i++)
		kmem_cache_free(c, objs[i]);
	gdbtest_large = kmalloc(4 * PAGE_SIZE);
	printk("gdbtest: %u objects of gdbtest-96 allocated and freed\n", GDBTEST_WARM);
	slabinfo_show();
	slab_meminfo_show();
	gdbtest_stop("slabinfo printed", NULL);

	p = kmem_cache_alloc(c);	/* from the warm cache: where the test stops */
	printk("gdbtest: allocated %p\n", p);
	gdbtest_stop("allocated", p);
	kmem_cache_free(c, p);
	printk("gdbtest: freed %p\n", p);
	gdbtest_stop("freed", p);

	kmem_cache_destroy(c);
	kfree(gdbtest_large);
	ok = p && gdbtest_large;
	if (ok)
		printk("gdbtest: ok\n");
	else
		printk("gdbtest: FAILED: %s returned NULL\n",
		       !p ? "the warm allocation" : "kmalloc(4 pages)");
	gdbtest_large = NULL;
	return ok ? 0 : -1;
}
