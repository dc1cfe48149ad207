/*
 * multiboot2.c - platform discovery from a Multiboot2 boot information
 * structure (GRUB): command line, boot loader name, memory map, ACPI
 * RSDP, the boot modules (each reserved; the first one is bi->module_*).
 * The structure is read through the direct map; nothing is copied but what
 * struct boot_info keeps.
 */
#include "boot/multiboot.h"
#include "kernel/printk.h"
#include "kernel/bug.h"
#include <asm/memlayout.h>
#define MB2_TAG_END		0
#define MB2_TAG_CMDLINE		1
#define MB2_TAG_LOADER		2
#define MB2_TAG_MODULE		3
#define MB2_TAG_MMAP		6
#define MB2_TAG_ACPI_OLD	14
#define MB2_TAG_ACPI_NEW	15
#define MB2_MMAP_AVAILABLE	1

struct mb2_tag {
	uint32_t type;
	uint32_t size;
};

struct mb2_mmap_entry {
	uint64_t base;
	uint64_t len;
	uint32_t type;
	uint32_t reserved;
};

struct mb2_tag_mmap {
	uint32_t type;
	uint32_t size;
	uint32_t entry_size;
	uint32_t entry_version;
	/* entries follow */
};

struct mb2_tag_module {
	uint32_t type;
	uint32_t size;
	uint32_t mod_start;
	uint32_t mod_end;
	/* string follows */
};

static void add_mmap(struct boot_info *bi, const struct mb2_tag_mmap *m)
{
	const uint8_t *p = (const uint8_t *)(m + 1);
	const uint8_t *end = (const uint8_t *)m + m->size;

	for (; p + m->entry_size <= end; p += m->entry_size) {
		const struct mb2_mmap_entry *e = (const void *)p;

		if (!mb_add_range(bi, e->base, e->len, e->type == MB2_MMAP_AVAILABLE))
			return;
	}
}

/* multiboot2_discover: see boot/multiboot.h. */
int multiboot2_discover(unsigned long info, struct boot_info *bi)
{
	const uint8_t *base = PHYS_TO_VIRT(info);
	uint32_t total;

	total = *(const uint32_t *)base;
	boot_reserve(bi, info, info + total);
	boot_reserve(bi, 0, 1UL << 20);	/* BIOS data, EBDA, ROMs; later the SMP trampoline */

	for (const uint8_t *p = base + 8; p < base + total;
	     p += ALIGN_UP(((const struct mb2_tag *)p)->size, 8)) {
		const struct mb2_tag *tag = (const void *)p;

		switch (tag->type) {
		case MB2_TAG_END:
			p = base + total;
			continue;
		case MB2_TAG_CMDLINE:
			mb_copy_string(bi->cmdline, sizeof(bi->cmdline), (const char *)(tag + 1));
			break;
		case MB2_TAG_LOADER:
			mb_copy_string(bi->loader, sizeof(bi->loader), (const char *)(tag + 1));
			break;
		case MB2_TAG_MODULE: {
			const struct mb2_tag_module *mod = (const void *)tag;

			mb_add_module(bi, mod->mod_start, mod->mod_end);
			break;
		}
		case MB2_TAG_MMAP:
			add_mmap(bi, (const void *)tag);
			break;
		case MB2_TAG_ACPI_OLD:
		case MB2_TAG_ACPI_NEW:
			if (!bi->acpi_rsdp || tag->type == MB2_TAG_ACPI_NEW)
				bi->acpi_rsdp = info + (uint64_t)(p + 8 - base);
			break;
		}
	}
	if (!bi->n_avail) {
		printk("boot: Multiboot2 information has no usable memory map\n");
		return -1;
	}
	return 0;
}
