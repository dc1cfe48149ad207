/*
 * printk.h - formatted output to the console.
 *
 * Formats: %d %i %u %x %X %o %p %s %c %% with the l, ll, z and h length
 * modifiers, a field width, '-' (left align) and '0' (zero pad).
 */
#ifndef QUARRY_PRINTK_H
#define QUARRY_PRINTK_H

#include <stdarg.h>
#include "kernel/compiler.h"

/*
 * printk - format and write to the console. Each call's text goes out whole:
 * under SMP it is not interleaved with another CPU's line. Safe with
 * interrupts off. Returns the number of characters written.
 */
int printk(const char *fmt, ...) __printf(1, 2);
int vprintk(const char *fmt, va_list ap);

/*
 * vprintk_line - one console line: prefix, then fmt formatted from ap, then
 * suffix and a newline, written as one piece (for "who: what" reports
 * whose callers take a format). Returns what vprintk returns.
 */
int vprintk_line(const char *prefix, const char *suffix, const char *fmt, va_list ap);

/*
 * snprintf/vsnprintf - format into buf (size bytes, always NUL-terminated when
 * size > 0). Returns the length the full text would have had.
 */
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

/*
 * The kernel log: the last PRINTK_LOG_SIZE bytes printk wrote, for a
 * debugger (scripts/gdb's quarry-dmesg) to read from a stopped kernel. Byte
 * n of the output (counting from boot) is buf[n % PRINTK_LOG_SIZE]; head is
 * how many bytes were ever written, so buf holds bytes
 * [max(0, head - PRINTK_LOG_SIZE), head). Written under the console lock;
 * 16 KiB of .bss, about the boot reports of an 8-CPU boot (bench tables
 * overwrite the oldest lines).
 */
#define PRINTK_LOG_SIZE	(16 * 1024)
struct printk_log {
	unsigned long head;
	char buf[PRINTK_LOG_SIZE];
};
extern struct printk_log printk_log;

#endif
