/*
 * multiboot1.c - platform discovery from a Multiboot (version 1) boot
 * information structure, as QEMU's own loader (-kernel) gives it: command
 * line (less its first word, the image's file name), loader name, memory map, modules (each reserved; the first one is
 * bi->module_*). Multiboot has no ACPI field: the RSDP is found where the
 * ACPI specification puts it on a PC (the EBDA's first KiB, then the BIOS
 * area 0xe0000-0xfffff, on 16-byte boundaries) and checked by acpi_parse.
 * Everything is read through the direct map.
 */
#include "boot/multiboot.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include <asm/memlayout.h>

#define MB1_INFO_MEMORY		(1U << 0)
#define MB1_INFO_CMDLINE	(1U << 2)
#define MB1_INFO_MODS		(1U << 3)
#define MB1_INFO_MMAP		(1U << 6)
#define MB1_INFO_LOADER		(1U << 9)
#define MB1_MMAP_AVAILABLE	1

struct mb1_info {
	uint32_t flags;
	uint32_t mem_lower, mem_upper;		/* KiB below 1 MiB, above it */
	uint32_t boot_device;
	uint32_t cmdline;
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
	uint32_t drives_length, drives_addr;
	uint32_t config_table;
	uint32_t boot_loader_name;
};

struct mb1_module {
	uint32_t mod_start, mod_end;
	uint32_t string;
	uint32_t reserved;
};

/* 'size' counts the bytes after itself. */
struct __packed mb1_mmap_entry {
	uint32_t size;
	uint64_t base;
	uint64_t len;
	uint32_t type;
};

/* An "RSD PTR " signature on a 16-byte boundary of [start, end), or 0. */
static uint64_t rsdp_scan(uint64_t start, uint64_t end)
{
	for (uint64_t p = ALIGN_UP(start, 16); p + 20 <= end; p += 16)
		if (!memcmp(PHYS_TO_VIRT(p), "RSD PTR ", 8))
			return p;
	return 0;
}

/* multiboot1_discover: see boot/multiboot.h. */
int multiboot1_discover(unsigned long info, struct boot_info *bi)
{
	const struct mb1_info *mbi = PHYS_TO_VIRT(info);
	uint64_t ebda;

	boot_reserve(bi, info, info + sizeof(*mbi));
	boot_reserve(bi, 0, 1UL << 20);	/* BIOS data, EBDA, ROMs; later the SMP trampoline */
	if (mbi->flags & MB1_INFO_CMDLINE) {
		/* the image's own name first (QEMU puts it there, as GRUB Legacy did) */
		const char *c = PHYS_TO_VIRT(mbi->cmdline);

		while (*c && *c != ' ')
			c++;
		while (*c == ' ')
			c++;
		mb_copy_string(bi->cmdline, sizeof(bi->cmdline), c);
	}
	if (mbi->flags & MB1_INFO_LOADER)
		mb_copy_string(bi->loader, sizeof(bi->loader),
			       PHYS_TO_VIRT(mbi->boot_loader_name));
	else
		mb_copy_string(bi->loader, sizeof(bi->loader), "(a Multiboot loader)");
	if (mbi->flags & MB1_INFO_MMAP) {
		uint64_t p = mbi->mmap_addr, end = p + mbi->mmap_length;

		while (p + sizeof(struct mb1_mmap_entry) <= end) {
			const struct mb1_mmap_entry *e = PHYS_TO_VIRT(p);

			if (!mb_add_range(bi, e->base, e->len, e->type == MB1_MMAP_AVAILABLE))
				break;
			p += e->size + sizeof(e->size);
		}
	} else if (mbi->flags & MB1_INFO_MEMORY) {
		mb_add_range(bi, 1UL << 20, (uint64_t)mbi->mem_upper << 10, true);
	}
	if (mbi->flags & MB1_INFO_MODS) {
		const struct mb1_module *m = PHYS_TO_VIRT(mbi->mods_addr);

		for (uint32_t i = 0; i < mbi->mods_count; i++)
			mb_add_module(bi, m[i].mod_start, m[i].mod_end);
	}
	ebda = (uint64_t)*(const uint16_t *)PHYS_TO_VIRT(0x40e) << 4;
	bi->acpi_rsdp = ebda ? rsdp_scan(ebda, ebda + 1024) : 0;
	if (!bi->acpi_rsdp)
		bi->acpi_rsdp = rsdp_scan(0xe0000, 0x100000);
	if (!bi->n_avail) {
		printk("boot: Multiboot information has no usable memory map\n");
		return -1;
	}
	return 0;
}
