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
 * snprintf/vsnprintf - format into buf (size bytes, always NUL-terminated when
 * size > 0). Returns the length the full text would have had.
 */
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

#endif
