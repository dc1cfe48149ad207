/*
 * compiler.h - small compiler helpers shared by kernel/, mm/ and the host build.
 * Nothing here knows the machine.
 */
#ifndef QUARRY_COMPILER_H
#define QUARRY_COMPILER_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define __always_inline	inline __attribute__((always_inline))
#define __noinline	__attribute__((noinline))
#define __noreturn	__attribute__((noreturn))
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define __aligned(x)	__attribute__((aligned(x)))
#define __packed	__attribute__((packed))
#define __unused	__attribute__((unused))
#define __section(s)	__attribute__((section(s)))

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a)	(((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))

#define MIN(a, b)	((a) < (b) ? (a) : (b))
#define MAX(a, b)	((a) > (b) ? (a) : (b))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* Compiler-only barrier: stops the compiler moving memory accesses across it. */
#define barrier()	__asm__ __volatile__("" ::: "memory")

/* One access, not torn or merged by the compiler (used for data read without a lock). */
#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

#endif
