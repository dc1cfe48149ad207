/*
 * main.c - the host test binary: set up a default arena as "physical memory",
 * bring mm/ up on it as kmain does, run every self-test (host-only ones
 * included) and exit with status 0 only if all passed.
 */
#include "host_shim.h"
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include "mm/page.h"
#ifndef CONFIG_ALLOC_NONE
#include "mm/slab.h"
#endif

int main(void)
{
	int failed;

	host_mm_setup(HOST_DEFAULT_ARENA);
	printk("host: PAGE_SIZE %lu, MAX_ORDER %d, arena %lu MiB at phys 0x%lx, max_pfn 0x%lx\n",
	       PAGE_SIZE, MAX_ORDER, HOST_DEFAULT_ARENA >> 20, HOST_PHYS_BASE, max_pfn);
	mm_report();
#ifndef CONFIG_ALLOC_NONE
	kmem_cache_init();
#endif
	failed = selftest_run_all(1);
	return failed != 0;
}
