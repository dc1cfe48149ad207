/*
 * multiboot.h - x86_64 platform discovery from either Multiboot protocol:
 * Multiboot2 (GRUB, boot/multiboot2.c) or Multiboot version 1 (QEMU's own
 * loader, boot/multiboot1.c). boot/multiboot.c tells them apart by the
 * magic the entry code received and holds what both parsers share.
 */
#ifndef BOOT_MULTIBOOT_H
#define BOOT_MULTIBOOT_H

#include "kernel/bootinfo.h"

#define MB2_BOOT_MAGIC		0x36d76289
#define MB1_BOOT_MAGIC		0x2badb002

/*
 * multiboot2_discover, multiboot1_discover - fill bi from the boot
 * information at physical address info (its own memory and the first MiB
 * reserved). 0, or -1 after printing why it is unusable.
 */
int multiboot2_discover(unsigned long info, struct boot_info *bi);
int multiboot1_discover(unsigned long info, struct boot_info *bi);

/* mb_copy_string - a loader's NUL-terminated string into dst of n bytes, cut to fit. */
void mb_copy_string(char *dst, size_t n, const char *src);

/*
 * mb_add_range - print one memory map entry and, if usable and not empty,
 * add it to bi->avail. false when the table is full (said; the rest of the
 * map is to be ignored).
 */
bool mb_add_range(struct boot_info *bi, uint64_t base, uint64_t len, bool usable);

/* mb_add_module - print and reserve the module [start, end); the first is bi->module_*. */
void mb_add_module(struct boot_info *bi, uint64_t start, uint64_t end);

#endif
