/*
 * multiboot.c - the x86_64 platform_discover: which Multiboot protocol
 * booted us (boot/multiboot.h), and what both parsers share.
 */
#include "boot/multiboot.h"
#include "kernel/printk.h"

/* platform_discover: see kernel/bootinfo.h. */
int platform_discover(unsigned long magic, unsigned long info, struct boot_info *bi)
{
	if (magic == MB2_BOOT_MAGIC)
		return multiboot2_discover(info, bi);
	if (magic == MB1_BOOT_MAGIC)
		return multiboot1_discover(info, bi);
	printk("boot: bad Multiboot magic 0x%lx (want Multiboot2's 0x36d76289 or Multiboot's "
	       "0x2badb002)\n", magic);
	return -1;
}

/* mb_copy_string: see boot/multiboot.h. */
void mb_copy_string(char *dst, size_t n, const char *src)
{
	size_t i = 0;

	for (; i + 1 < n && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

/* mb_add_range: see boot/multiboot.h. */
bool mb_add_range(struct boot_info *bi, uint64_t base, uint64_t len, bool usable)
{
	printk("  mem [%016llx-%016llx] %s\n", (unsigned long long)base,
	       (unsigned long long)(base + len - 1), usable ? "usable" : "reserved");
	if (!usable || !len)
		return true;
	if (bi->n_avail == BOOT_MAX_RANGES) {
		printk("boot: memory map has more than %d usable ranges; rest ignored\n",
		       BOOT_MAX_RANGES);
		return false;
	}
	bi->avail[bi->n_avail++] = (struct mem_range){ base, base + len };
	return true;
}

/* mb_add_module: see boot/multiboot.h. */
void mb_add_module(struct boot_info *bi, uint64_t start, uint64_t end)
{
	if (end < start) {
		printk("boot: module [%08llx-%08llx) ends before it starts; ignored\n",
		       (unsigned long long)start, (unsigned long long)end);
		return;
	}
	printk("  module [%08llx-%08llx) %llu bytes\n", (unsigned long long)start,
	       (unsigned long long)end, (unsigned long long)(end - start));
	boot_reserve(bi, start, end);
	if (!bi->module_end) {
		bi->module_start = start;
		bi->module_end = end;
	}
}
