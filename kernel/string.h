/*
 * string.h - memory and string functions: the C library's in the host build,
 * kernel/string.c's in the kernel. Same contracts as ISO C.
 */
#ifndef QUARRY_STRING_H
#define QUARRY_STRING_H

#ifdef QUARRY_HOST
#include <string.h>
#else
#include <stddef.h>
void *memset(void *dst, int c, size_t n);
void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
#endif

#endif
