/*
 * test_acpi_numa_host.c - boot/acpi.c's SRAT and SLIT reading on tables built
 * here (RSDP -> XSDT -> MADT, SRAT, SLIT, in one malloc'd buffer whose
 * "physical" address is VIRT_TO_PHYS of it), then kernel/numa.c on what was
 * read: a two-node set (APIC and x2APIC affinities, disabled and hot-plug
 * entries skipped) gives two nodes; broken tables are said by acpi.c and end
 * in one node, or in the topology check's own message.
 */
#include "host_shim.h"
#include "kernel/acpi.h"
#include "kernel/numa.h"
#include "kernel/selftest.h"
#include <asm/memlayout.h>
#include <stdlib.h>
#include <string.h>
#include "../common/acpi_tables.h"

#define MB		(1ULL << 20)
#define RSDP_OFF	0
#define XSDT_OFF	64
#define MADT_OFF	128
#define SRAT_OFF	256
#define SLIT_OFF	640
#define TABLES_SIZE	1024

static uint8_t *srat_cpu(uint8_t *e, uint8_t apic, uint32_t domain, bool enabled)
{
	put8(e, 0);
	put8(e + 1, 16);
	put8(e + 2, (uint8_t)domain);
	put8(e + 3, apic);
	put32(e + 4, enabled);
	put8(e + 9, (uint8_t)(domain >> 8));
	put8(e + 10, (uint8_t)(domain >> 16));
	put8(e + 11, (uint8_t)(domain >> 24));
	return e + 16;
}

static uint8_t *srat_x2apic(uint8_t *e, uint32_t id, uint32_t domain)
{
	put8(e, 2);
	put8(e + 1, 24);
	put32(e + 4, domain);
	put32(e + 8, id);
	put32(e + 12, 1);
	return e + 24;
}

static uint8_t *srat_mem(uint8_t *e, uint64_t base, uint64_t len, uint32_t domain,
			 uint32_t flags)
{
	put8(e, 1);
	put8(e + 1, 40);
	put32(e + 2, domain);
	put32(e + 8, (uint32_t)base);
	put32(e + 12, (uint32_t)(base >> 32));
	put32(e + 16, (uint32_t)len);
	put32(e + 20, (uint32_t)(len >> 32));
	put32(e + 28, flags);
	return e + 40;
}

/* A SLIT of n localities at b, distances row by row. */
static void slit(uint8_t *b, unsigned int n, const uint8_t *d)
{
	header(b, "SLIT", 44 + n * n);
	put64(b + 36, n);
	memcpy(b + 44, d, n * n);
	seal(b);
}

/*
 * The good set: MADT with APIC IDs 0 and 2; SRAT (revision 3: 32-bit
 * domains) with APIC 0 on domain 0, x2APIC 2 on domain 1, a disabled APIC 5
 * on domain 7, memory [0, 640K) and [1M, 128M) on 0, [128M, 256M) on 1, a
 * disabled range and a hot-pluggable one on domain 6; SLIT 10/20.
 */
static uint8_t *build(void)
{
	static const uint8_t d[] = { 10, 20, 20, 10 };
	uint8_t *b = calloc(1, TABLES_SIZE), *r, *x, *m, *s, *e;
	uint64_t phys;

	if (!b)
		abort();
	phys = VIRT_TO_PHYS(b);
	r = b + RSDP_OFF;
	memcpy(r, "RSD PTR ", 8);
	memcpy(r + 9, "QUARRY", 6);
	put8(r + 15, 2);
	put32(r + 20, 36);
	put64(r + 24, phys + XSDT_OFF);
	r[8] = (uint8_t)-sum(r, 20);
	r[32] = (uint8_t)-sum(r, 36);

	x = b + XSDT_OFF;
	header(x, "XSDT", 36 + 3 * 8);
	put64(x + 36, phys + MADT_OFF);
	put64(x + 44, phys + SRAT_OFF);
	put64(x + 52, phys + SLIT_OFF);
	seal(x);

	m = b + MADT_OFF;
	header(m, "APIC", 44 + 2 * 8);
	put32(m + 36, 0xfee00000);
	for (unsigned int i = 0; i < 2; i++) {
		e = m + 44 + 8 * i;
		put8(e, 0);
		put8(e + 1, 8);
		put8(e + 2, (uint8_t)i);
		put8(e + 3, (uint8_t)(2 * i));
		put32(e + 4, 1);
	}
	seal(m);

	s = b + SRAT_OFF;
	e = s + 48;
	e = srat_cpu(e, 0, 0, true);
	e = srat_x2apic(e, 2, 1);
	e = srat_cpu(e, 5, 7, false);
	e = srat_mem(e, 0, 0xa0000, 0, 1);
	e = srat_mem(e, 0x100000, 127 * MB, 0, 1);
	e = srat_mem(e, 128 * MB, 128 * MB, 1, 1);
	e = srat_mem(e, 512 * MB, 64 * MB, 6, 0);	/* not enabled */
	e = srat_mem(e, 1024 * MB, 64 * MB, 6, 3);	/* hot-pluggable */
	header(s, "SRAT", (uint32_t)(e - s));
	put8(s + 8, 3);
	put32(s + 36, 1);
	seal(s);

	slit(b + SLIT_OFF, 2, d);
	return b;
}

static const struct mem_range ram[] = { { 0, 0x9fc00 }, { 0x100000, 256 * MB } };

/* acpi_parse_all on b, then numa_build with Quarry's CPUs at APIC IDs 0 and 2. */
static int parse(uint8_t *b, struct acpi_madt_info *m, struct numa_firmware *nf,
		 struct numa_topology *t)
{
	static const uint64_t hwid[] = { 0, 2 };
	int ret;

	host_console_clear();
	ret = acpi_parse_all(VIRT_TO_PHYS(b), m, nf);
	return numa_build(t, nf, ram, 2, hwid, 2) || ret;
}

SELFTEST_HOST(acpi_numa_host_srat_slit)
{
	static struct acpi_madt_info m;
	static struct numa_firmware nf;
	static struct numa_topology t;
	uint8_t *b = build();
	int ret = parse(b, &m, &nf, &t);

	free(b);
	ST_EXPECT(ret == 0 && m.valid && m.n_cpus == 2, "parse returned %d", ret);
	ST_EXPECT(nf.present && !nf.bad && !strcmp(nf.source, "SRAT"), "SRAT not read");
	ST_EXPECT(nf.n_cpu == 2 && nf.cpu[0].hwid == 0 && nf.cpu[0].node == 0 &&
			  nf.cpu[1].hwid == 2 && nf.cpu[1].node == 1,
		  "%u processor affinities", nf.n_cpu);
	ST_EXPECT(nf.n_mem == 3 && nf.mem[1].start == 0x100000 && nf.mem[1].end == 128 * MB &&
			  nf.mem[2].node == 1 && nf.mem[2].end == 256 * MB,
		  "%u memory ranges", nf.n_mem);
	ST_EXPECT(nf.has_distance && nf.dist_nodes == 2 && nf.distance[0][1] == 20 &&
			  nf.distance[1][1] == 10,
		  "SLIT not read");
	ST_EXPECT(host_console_contains("acpi: SRAT: 3 memory ranges, 2 processors; SLIT present\n"),
		  "no SRAT summary");
	ST_EXPECT(t.nr_nodes == 2 && t.cpu_node[1] == 1 && t.distance[1][0] == 20,
		  "topology: %u nodes", t.nr_nodes);
	ST_EXPECT(!host_console_contains("numa:"), "a good SRAT was complained about");

	/* acpi_parse, the MADT alone, is unchanged by the other tables. */
	b = build();
	ret = acpi_parse(VIRT_TO_PHYS(b), &m);
	free(b);
	ST_EXPECT(ret == 0 && m.n_cpus == 2 && m.cpus[1].apic_id == 2, "acpi_parse: %d", ret);
	return 0;
}

static void edit_srat_checksum(uint8_t *b)
{
	b[SRAT_OFF + 60] ^= 1;
}

static void edit_srat_entry_length(uint8_t *b)
{
	b[SRAT_OFF + 48 + 16 + 1] = 0;	/* the x2APIC entry */
	seal(b + SRAT_OFF);
}

static void edit_srat_entry_short(uint8_t *b)
{
	uint8_t *e = b + SRAT_OFF + 48;

	memset(e, 0, 16);		/* the first processor entry becomes a 16-byte memory entry */
	put8(e, 1);
	put8(e + 1, 16);
	seal(b + SRAT_OFF);
}

static void edit_srat_no_cpu1(uint8_t *b)
{
	put32(b + SRAT_OFF + 48 + 16 + 12, 0);	/* x2APIC 2 disabled */
	seal(b + SRAT_OFF);
}

static void edit_srat_overlap(uint8_t *b)
{
	put32(b + SRAT_OFF + 48 + 56 + 80 + 8, 120 * MB);	/* node 1 from 120M */
	seal(b + SRAT_OFF);
}

static void edit_srat_domain_too_big(uint8_t *b)
{
	put32(b + SRAT_OFF + 48 + 16 + 4, 0x100);	/* x2APIC 2 on domain 256 */
	seal(b + SRAT_OFF);
}

static void edit_slit_asymmetric(uint8_t *b)
{
	static const uint8_t d[] = { 10, 20, 30, 10 };

	slit(b + SLIT_OFF, 2, d);
}

static void edit_slit_self(uint8_t *b)
{
	static const uint8_t d[] = { 10, 20, 20, 11 };

	slit(b + SLIT_OFF, 2, d);
}

static void edit_slit_short(uint8_t *b)
{
	static const uint8_t d[] = { 10, 20, 20, 10 };

	slit(b + SLIT_OFF, 2, d);
	put64(b + SLIT_OFF + 36, 3);	/* 9 distances in 4 bytes */
	seal(b + SLIT_OFF);
}

static void edit_slit_nine(uint8_t *b)
{
	uint8_t d[81];

	for (unsigned int i = 0; i < 81; i++)
		d[i] = i % 10 ? 20 : 10;
	slit(b + SLIT_OFF, 9, d);
}

static void edit_slit_one(uint8_t *b)
{
	static const uint8_t d[] = { 10 };

	slit(b + SLIT_OFF, 1, d);
}

SELFTEST_HOST(acpi_numa_host_bad_tables)
{
	static const struct {
		const char *what;
		void (*edit)(uint8_t *b);
		const char *msg;	/* acpi.c's line, or numa.c's */
		bool present;		/* the SRAT was still read */
	} cases[] = {
		{ "SRAT checksum", edit_srat_checksum, "acpi: table SRAT at 0x", false },
		{ "SRAT entry length 0", edit_srat_entry_length,
		  "acpi: SRAT entry type 2 at offset 64 has a bad length 0\n", true },
		{ "SRAT memory entry too short", edit_srat_entry_short,
		  "acpi: SRAT entry type 1 at offset 48 is 16 bytes, too short\n", true },
		{ "SRAT without CPU 1", edit_srat_no_cpu1,
		  "numa: CPU 1 (APIC 2) is on no node: using one node\n", true },
		{ "SRAT ranges overlap", edit_srat_overlap,
		  "numa: node 1 range [0x7800000-0xf800000) overlaps node 0's [0x100000-0x8000000): using one node\n",
		  true },
		{ "SRAT domain 256", edit_srat_domain_too_big,
		  "numa: CPU 1 (APIC 2) is on node 256, above the highest node 7: using one node\n",
		  true },
		{ "SLIT asymmetric", edit_slit_asymmetric,
		  "numa: distance table not symmetric: node 0->1 is 20, 1->0 is 30: using one node\n",
		  true },
		{ "SLIT self distance", edit_slit_self,
		  "numa: distance from node 1 to itself is 11, not 10: using one node\n", true },
		{ "SLIT too short", edit_slit_short,
		  "acpi: SLIT lists 3 localities: 9 distances do not fit in its 48 bytes\n", true },
		{ "SLIT of 9 localities", edit_slit_nine,
		  "numa: the SLIT names node 8, above the highest node 7: using one node\n", true },
		{ "SLIT of 1 locality", edit_slit_one,
		  "numa: the SLIT gives no distance from node 0 to node 1: using one node\n", true },
	};
	static struct acpi_madt_info m;
	static struct numa_firmware nf;
	static struct numa_topology t;

	for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++) {
		uint8_t *b = build();
		int ret;

		ret = parse(b, &m, &nf, &t);
		ST_EXPECT(ret == 0 && t.nr_nodes == 2, "%s: the unedited tables are refused",
			  cases[i].what);
		cases[i].edit(b);
		memset(&t, 0x5a, sizeof(t));
		ret = parse(b, &m, &nf, &t);
		free(b);
		ST_EXPECT(m.valid && m.n_cpus == 2, "%s: the MADT was lost", cases[i].what);
		ST_EXPECT(nf.present == cases[i].present, "%s: SRAT present %d", cases[i].what,
			  nf.present);
		ST_EXPECT(host_console_contains(cases[i].msg), "%s: no message '%s'", cases[i].what,
			  cases[i].msg);
		ST_EXPECT(t.nr_nodes == 1 && t.online == 1 && t.n_cpus == 2 && t.cpu_node[1] == 0 &&
				  t.n_ranges == 2 && t.ranges[1].end == 256 * MB,
			  "%s: not one node with all RAM and CPUs", cases[i].what);
		ST_EXPECT(ret != 0 || !cases[i].present, "%s: numa_build returned 0", cases[i].what);
		ST_EXPECT(!cases[i].present || host_console_count("numa:") == 1,
			  "%s: %u numa: lines", cases[i].what, host_console_count("numa:"));
	}
	return 0;
}
