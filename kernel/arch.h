/*
 * arch.h - what kernel/ asks of the architecture (arch/<arch>/ implements it).
 * mm/ needs only the asm/ headers; kernel/ needs these functions as well.
 */
#ifndef QUARRY_ARCH_H
#define QUARRY_ARCH_H

#include "kernel/compiler.h"

struct boot_info;

/* arch_early_init - console, descriptor tables, exception handlers. First thing in kmain. */
void arch_early_init(void);

/*
 * arch_memory_init - after platform discovery: map all RAM in bi->avail into
 * the direct map, drop boot-only mappings, and trim from bi->avail any RAM
 * that could not be mapped.
 */
void arch_memory_init(struct boot_info *bi);

/* arch_console_write - write n bytes to the console; '\n' goes out as "\r\n". */
void arch_console_write(const char *s, size_t n);

/*
 * arch_exit - leave the machine with a status: 0 success, non-zero failure.
 * Under QEMU this ends QEMU with that status. Never returns.
 */
void arch_exit(int status) __noreturn;

/* arch_stop_other_cpus - halt every CPU but this one (for panic and shutdown). */
void arch_stop_other_cpus(void);


/* arch_name - "x86_64" or "arm64". */
extern const char arch_name[];

#endif
