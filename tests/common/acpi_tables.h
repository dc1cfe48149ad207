/*
 * acpi_tables.h - building ACPI tables in memory for the parser's tests
 * (tests/kernel/test_acpi.c in the kernel, tests/host/test_acpi_numa_host.c
 * on the host): little-endian stores, the byte sum, a system description
 * table header and its checksum. The includer provides memcpy and memset
 * (kernel/string.h or <string.h>) and the fixed-width types.
 */
#ifndef TESTS_ACPI_TABLES_H
#define TESTS_ACPI_TABLES_H

static inline void put8(uint8_t *p, uint8_t v)
{
	p[0] = v;
}

static inline void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* The byte sum of p[0..n), which a valid table's checksum makes 0. */
static inline uint8_t sum(const uint8_t *p, size_t n)
{
	uint8_t s = 0;

	while (n--)
		s += *p++;
	return s;
}

/* A system description table header (signature, length, revision 1, OEM); seal() fixes its checksum. */
static inline void header(uint8_t *t, const char *sig, uint32_t len)
{
	memset(t, 0, 36);
	memcpy(t, sig, 4);
	put32(t + 4, len);
	put8(t + 8, 1);
	memcpy(t + 10, "QUARRY", 6);
}

/* Fix table t's checksum over the length its header says. */
static inline void seal(uint8_t *t)
{
	uint32_t len;

	memcpy(&len, t + 4, 4);
	t[9] = 0;
	t[9] = (uint8_t)-sum(t, len);
}

#endif
