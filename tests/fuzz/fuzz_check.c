/*
 * fuzz_check.c - the fuzzer's bookkeeping (tests/fuzz/fuzz.h): the random
 * streams, the overlap shadow map over the arena, the fill patterns and
 * the findings report.
 */
#include "tests/fuzz/fuzz_int.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fz_state fz;
const char *fz_argv0;
char fz_repro_extra[48];

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* fz_src_seed: see fuzz_int.h. */
void fz_src_seed(struct fz_src *s, uint64_t seed, unsigned int stream)
{
	memset(s, 0, sizeof(*s));
	s->x = splitmix64(seed * 0x100000001b3ULL + stream) | 1;
}

/* fz_below: see fuzz_int.h. */
uint64_t fz_below(struct fz_src *s, uint64_t n)
{
	uint64_t v = 0;

	if (n <= 1)
		return 0;
	if (s->data) {
		/* as few input bytes as the range needs, so mutations stay local */
		unsigned int bytes = n <= 0x100 ? 1 : n <= 0x10000 ? 2 : 4;

		for (unsigned int i = 0; i < bytes; i++) {
			if (s->pos >= s->size) {
				s->done = true;
				break;
			}
			v = v << 8 | s->data[s->pos++];
		}
		return v % n;
	}
	/* xorshift64* */
	s->x ^= s->x >> 12;
	s->x ^= s->x << 25;
	s->x ^= s->x >> 27;
	v = s->x * 0x2545f4914f6cdd1dULL;
	return (v >> 11) % n;
}

/* fz_shadow_init: see fuzz_int.h. */
void fz_shadow_init(uintptr_t lo, uintptr_t hi)
{
	size_t words = ((hi - lo) / FZ_GRANULE + 63) / 64;

	fz.arena_lo = lo;
	fz.arena_hi = hi;
	fz.shadow = calloc(words, sizeof(uint64_t));
	if (!fz.shadow) {
		perror("fuzz: shadow map");
		exit(2);
	}
}

/*
 * Set (set == true) or clear the shadow bits of [p, p + len): returns
 * false when a bit was already in the state asked for (set: an overlap;
 * clear: a bit someone else cleared).
 */
static bool shadow_update(uintptr_t p, size_t len, bool set)
{
	uintptr_t g = (p - fz.arena_lo) / FZ_GRANULE;
	uintptr_t end = (p + (len ? len : 1) - fz.arena_lo + FZ_GRANULE - 1) / FZ_GRANULE;
	bool ok = true;

	while (g < end) {
		unsigned int bit = (unsigned int)(g % 64);
		uintptr_t n = end - g < 64 - bit ? end - g : 64 - bit;
		uint64_t mask = (n == 64 ? ~0ULL : ((1ULL << n) - 1)) << bit;
		uint64_t old;

		if (set) {
			old = __atomic_fetch_or(&fz.shadow[g / 64], mask, __ATOMIC_RELAXED);
			ok &= (old & mask) == 0;
		} else {
			old = __atomic_fetch_and(&fz.shadow[g / 64], ~mask, __ATOMIC_RELAXED);
			ok &= (old & mask) == mask;
		}
		g += n;
	}
	return ok;
}

/* fz_shadow_mark: see fuzz_int.h. */
bool fz_shadow_mark(const void *p, size_t len)
{
	return shadow_update((uintptr_t)p, len, true);
}

/* fz_shadow_clear: see fuzz_int.h. */
bool fz_shadow_clear(const void *p, size_t len)
{
	return shadow_update((uintptr_t)p, len, false);
}

/* fz_in_arena: see fuzz_int.h. */
bool fz_in_arena(const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p;

	return a >= fz.arena_lo && a <= fz.arena_hi && len <= fz.arena_hi - a;
}

#define GOLDEN	0x9e3779b97f4a7c15ULL

/* The pattern over [from, to) (from a multiple of 8): word i is base + i * GOLDEN. */
static void fill_range(uint8_t *b, size_t from, size_t to, uint64_t base)
{
	uint64_t w = base + (from / 8) * GOLDEN;
	size_t i;

	for (i = from; i + 8 <= to; i += 8, w += GOLDEN)
		memcpy(b + i, &w, 8);
	for (; i < to; i++)
		b[i] = (uint8_t)(w >> (8 * (i % 8)));
}

static size_t check_range(const uint8_t *b, size_t from, size_t to, uint64_t base)
{
	uint64_t w = base + (from / 8) * GOLDEN, v;
	size_t i;

	for (i = from; i + 8 <= to; i += 8, w += GOLDEN) {
		memcpy(&v, b + i, 8);
		if (v != w) {
			for (unsigned int k = 0; k < 8; k++)
				if (b[i + k] != (uint8_t)(w >> (8 * k)))
					return i + k;
		}
	}
	for (; i < to; i++)
		if (b[i] != (uint8_t)(w >> (8 * (i % 8))))
			return i;
	return FZ_INTACT;
}

/*
 * The parts of an allocation of len bytes that carry its pattern: all of
 * it up to FZ_FULL_PATTERN bytes; above, the first and last 4 KiB and 64
 * bytes at every 4 KiB (overlaps of big blocks are the shadow map's job).
 * Calls fn on each part until it returns something other than FZ_INTACT.
 */
static size_t for_each_part(uint8_t *b, size_t len, size_t limit, uint64_t base, bool fill)
{
	size_t at, tail;

	if (len <= FZ_FULL_PATTERN) {
		if (fill)
			fill_range(b, 0, len, base);
		return fill ? FZ_INTACT : check_range(b, 0, MIN(len, limit), base);
	}
	tail = (len - 4096) & ~(size_t)7;
	for (size_t from = 0; from < tail && from < limit; from += 4096) {
		size_t to = MIN(from + (from == 0 ? 4096 : 64), limit);

		if (fill) {
			fill_range(b, from, to, base);
		} else if ((at = check_range(b, from, to, base)) != FZ_INTACT) {
			return at;
		}
	}
	if (fill) {
		fill_range(b, tail, len, base);
		return FZ_INTACT;
	}
	return tail < limit ? check_range(b, tail, MIN(len, limit), base) : FZ_INTACT;
}

/* fz_fill: see fuzz_int.h. */
void fz_fill(void *p, size_t len, uint32_t id)
{
	for_each_part(p, len, len, splitmix64(id), true);
}

/* fz_check: see fuzz_int.h. */
size_t fz_check(const void *p, size_t len, uint32_t id)
{
	return for_each_part((uint8_t *)p, len, len, splitmix64(id), false);
}

/* fz_check_upto: see fuzz_int.h. */
size_t fz_check_upto(const void *p, size_t len, size_t limit, uint32_t id)
{
	return for_each_part((uint8_t *)p, len, limit, splitmix64(id), false);
}

/* fz_zero_at: see fuzz_int.h. */
size_t fz_zero_at(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint64_t v;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&v, b + i, 8);
		if (v)
			break;
	}
	for (; i < len; i++)
		if (b[i])
			return i;
	return FZ_INTACT;
}

/* fz_finding: see fuzz_int.h. */
void fz_finding(struct fz_cpu *c, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(&fz.findings, 1, __ATOMIC_RELAXED) != 0)
		return;		/* the first one is reported; the run stops */
	__atomic_store_n(&fz.stop, 1, __ATOMIC_RELEASE);
	fflush(stdout);
	fprintf(stderr, "FINDING: seed %llu, %s, %u CPUs, operation %lu, CPU %d: ",
		(unsigned long long)fz.cfg.seed, fz.cfg.data ? "libFuzzer input" :
		fz.cfg.threads ? "threads" : "sequential", fz.cfg.cpus,
		__atomic_load_n(&fz.ops, __ATOMIC_RELAXED), c ? (int)c->cpu : -1);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	if (!fz.cfg.data)
		fprintf(stderr, "FINDING: reproduce with: %s --seed %llu --cpus %u%s%s --ops %lu\n",
			fz_argv0 ? fz_argv0 : "quarry-fuzz", (unsigned long long)fz.cfg.seed,
			fz.cfg.cpus, fz.cfg.threads ? " --threads" : "", fz_repro_extra,
			__atomic_load_n(&fz.ops, __ATOMIC_RELAXED) + 1);
}

/* fuzz_died: see fuzz.h. */
void fuzz_died(void)
{
	const struct fz_cache *fc = fz.last_cache;
	unsigned long ops = __atomic_load_n(&fz.ops, __ATOMIC_RELAXED);

	if (!fz.running)
		return;
	fflush(stdout);
	fprintf(stderr, "FINDING: seed %llu, %s, %u CPUs: the run ended in operation %lu",
		(unsigned long long)fz.cfg.seed, fz.cfg.threads ? "threads" : "sequential",
		fz.cfg.cpus, ops + 1);
	if (fc)
		fprintf(stderr, "; the last cache call begun: %s(%s: %zu bytes, align %zu, flags "
			"0x%x, %s)", fz.last_call, fc->name, fc->size, fc->align, fc->flags,
			fc->ctor ? "ctor" : "no ctor");
	fprintf(stderr, "\n");
	if (!fz.cfg.threads && !fz.cfg.data)
		fprintf(stderr, "FINDING: reproduce with: %s --seed %llu --cpus %u%s --ops %lu\n",
			fz_argv0 ? fz_argv0 : "quarry-fuzz", (unsigned long long)fz.cfg.seed,
			fz.cfg.cpus, fz_repro_extra, ops + 1);
}
