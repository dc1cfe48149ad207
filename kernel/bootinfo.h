/*
 * bootinfo.h - what platform discovery (boot/) tells the kernel, in a form
 * that does not depend on the boot protocol (Multiboot2 now, a DTB later).
 */
#ifndef QUARRY_BOOTINFO_H
#define QUARRY_BOOTINFO_H

#include "kernel/compiler.h"
#include "mm/mm.h"

struct numa_firmware;

#define BOOT_MAX_RANGES	64

struct boot_info {
	char cmdline[256];			/* kernel command line, "" if none */
	char loader[64];			/* boot loader's name */
	struct mem_range avail[BOOT_MAX_RANGES];	/* usable RAM */
	unsigned int n_avail;
	struct mem_range reserved[BOOT_MAX_RANGES];	/* taken ranges inside RAM */
	unsigned int n_reserved;
	uint64_t acpi_rsdp;			/* physical address of the RSDP copy, or 0 */
	/* The first boot module (GRUB's module2, QEMU's -initrd): [start, end), both
	 * 0 if none; in bi->reserved, so the page allocator never hands it out. */
	uint64_t module_start, module_end;
	/* The device tree's NUMA topology (boot/dtb.c), or NULL; ACPI
	 * platforms have theirs from acpi_numa() instead. */
	const struct numa_firmware *numa;
};

/*
 * platform_discover - fill bi from the boot protocol's data. magic and info
 * are what the entry code received (Multiboot2: EAX and EBX). The boot
 * data's own memory and the first MiB are added to bi->reserved. Returns 0, or
 * -1 after printing why the data is unusable (wrong magic, no memory map).
 */
int platform_discover(unsigned long magic, unsigned long info, struct boot_info *bi);

/* boot_reserve - add [start, end) to bi->reserved; panics if the table is full. */
void boot_reserve(struct boot_info *bi, uint64_t start, uint64_t end);

/* cmdline_has - true when word appears as a whole word on the command line. */
bool cmdline_has(const struct boot_info *bi, const char *word);

/*
 * cmdline_value - the value of the first word "key=value" on the command
 * line (key given without the '='), copied into buf (size bytes, cut and
 * NUL-terminated); NULL when no word starts with "key=".
 */
const char *cmdline_value(const struct boot_info *bi, const char *key, char *buf, size_t size);

#endif
