/*
 * test_acpi.c - the ACPI parser on tables the test builds itself in a page
 * of RAM: a good set (XSDT and RSDT forms), then one fault at a time (RSDP
 * checksum, extended checksum, a table's checksum, a bad length, a broken
 * MADT entry), each of which must be refused or contained. Kernel only: the
 * tables are found by physical address through the direct map.
 */
#include "kernel/acpi.h"
#include "kernel/selftest.h"
#include "kernel/string.h"
#include "mm/buddy.h"
#include <asm/memlayout.h>
#include "../common/acpi_tables.h"

#define RSDP_OFF	0
#define ROOT_OFF	64
#define OTHER_OFF	256
#define MADT_OFF	512
#define LAPIC_BASE	0xfee00000U

struct tables {
	uint8_t *base;		/* one page */
	uint64_t phys;
	uint32_t madt_len;
};

static void seal_rsdp(uint8_t *r)
{
	r[8] = 0;
	r[8] = (uint8_t)-sum(r, 20);
	if (r[15] >= 2) {
		r[32] = 0;
		r[32] = (uint8_t)-sum(r, 36);
	}
}

/*
 * The good set: RSDP (revision 2 with an XSDT, or 0 with an RSDT) ->
 * root -> a dummy "FACP" and the MADT: CPUs with APIC IDs 0 and 2
 * (enabled), 5 (disabled), x2APIC 7 (enabled), an I/O APIC, PC-AT flag.
 */
static void build(struct tables *t, bool xsdt)
{
	uint8_t *r = t->base + RSDP_OFF, *root = t->base + ROOT_OFF;
	uint8_t *m = t->base + MADT_OFF, *e;

	memset(t->base, 0, 1024);
	memcpy(r, "RSD PTR ", 8);
	memcpy(r + 9, "QUARRY", 6);
	put8(r + 15, xsdt ? 2 : 0);
	put32(r + 16, xsdt ? 0 : (uint32_t)(t->phys + ROOT_OFF));
	if (xsdt) {
		put32(r + 20, 36);
		put64(r + 24, t->phys + ROOT_OFF);
	}
	seal_rsdp(r);

	header(root, xsdt ? "XSDT" : "RSDT", 36 + 2 * (xsdt ? 8 : 4));
	if (xsdt) {
		put64(root + 36, t->phys + OTHER_OFF);
		put64(root + 44, t->phys + MADT_OFF);
	} else {
		put32(root + 36, (uint32_t)(t->phys + OTHER_OFF));
		put32(root + 40, (uint32_t)(t->phys + MADT_OFF));
	}
	seal(root);

	header(t->base + OTHER_OFF, "FACP", 36);
	seal(t->base + OTHER_OFF);

	e = m + 44;
	for (unsigned int i = 0; i < 3; i++, e += 8) {	/* local APICs */
		static const uint8_t ids[3] = { 0, 2, 5 };

		put8(e, 0);
		put8(e + 1, 8);
		put8(e + 2, (uint8_t)i);
		put8(e + 3, ids[i]);
		put32(e + 4, ids[i] == 5 ? 0 : 1);
	}
	put8(e, 1);				/* I/O APIC */
	put8(e + 1, 12);
	put8(e + 2, 9);
	put32(e + 4, 0xfec00000);
	e += 12;
	put8(e, 9);				/* x2APIC */
	put8(e + 1, 16);
	put32(e + 4, 7);
	put32(e + 8, 1);
	put32(e + 12, 3);
	e += 16;
	t->madt_len = (uint32_t)(e - m);
	header(m, "APIC", t->madt_len);
	put32(m + 36, LAPIC_BASE);
	put32(m + 40, 1);			/* PCAT_COMPAT */
	seal(m);
}

static int expect_good(const struct acpi_madt_info *m, int rc, const char *form)
{
	ST_EXPECT(rc == 0 && m->valid, "%s: good tables refused", form);
	ST_EXPECT(m->n_cpus == 3, "%s: %u CPUs, want 3", form, m->n_cpus);
	ST_EXPECT(m->cpus[0].apic_id == 0 && m->cpus[1].apic_id == 2 && m->cpus[2].apic_id == 7,
		  "%s: APIC IDs %u %u %u, want 0 2 7", form, m->cpus[0].apic_id,
		  m->cpus[1].apic_id, m->cpus[2].apic_id);
	ST_EXPECT(m->cpus[2].acpi_id == 3, "%s: x2APIC UID %u", form, m->cpus[2].acpi_id);
	ST_EXPECT(m->n_disabled == 1, "%s: %u disabled CPUs, want 1", form, m->n_disabled);
	ST_EXPECT(m->n_ioapics == 1 && m->ioapics[0].base == 0xfec00000 && m->ioapics[0].id == 9,
		  "%s: I/O APICs wrong", form);
	ST_EXPECT(m->lapic_base == LAPIC_BASE && m->pcat_compat, "%s: LAPIC base 0x%llx",
		  form, (unsigned long long)m->lapic_base);
	return 0;
}

SELFTEST(acpi_parses_built_tables_and_refuses_bad_ones)
{
	static struct acpi_madt_info m;
	struct tables t;
	int rc;

	t.base = get_free_pages(0);
	ST_EXPECT(t.base, "no page for the tables");
	t.phys = VIRT_TO_PHYS(t.base);

	build(&t, true);
	rc = acpi_parse(t.phys, &m);
	if (expect_good(&m, rc, "XSDT"))
		goto fail;
	build(&t, false);
	rc = acpi_parse(t.phys, &m);
	if (expect_good(&m, rc, "RSDT"))
		goto fail;

	build(&t, true);				/* RSDP checksum */
	t.base[RSDP_OFF + 9] ^= 1;
	if (acpi_parse(t.phys, &m) != -1 || m.valid) {
		selftest_fail("a bad RSDP checksum was accepted");
		goto fail;
	}
	build(&t, true);				/* extended checksum */
	t.base[RSDP_OFF + 33] ^= 1;
	if (acpi_parse(t.phys, &m) != -1 || m.valid) {
		selftest_fail("a bad RSDP extended checksum was accepted");
		goto fail;
	}
	build(&t, true);				/* RSDP signature */
	t.base[RSDP_OFF] = 'X';
	if (acpi_parse(t.phys, &m) != -1) {
		selftest_fail("an RSDP without its signature was accepted");
		goto fail;
	}
	build(&t, true);				/* MADT checksum */
	t.base[MADT_OFF + 44 + 3] ^= 1;
	if (acpi_parse(t.phys, &m) != -1 || m.valid) {
		selftest_fail("a MADT with a bad checksum was used");
		goto fail;
	}
	build(&t, true);				/* root table length (checked first) */
	put32(t.base + ROOT_OFF + 4, 0x7fffffff);
	if (acpi_parse(t.phys, &m) != -1) {
		selftest_fail("an XSDT 2 GiB long was read");
		goto fail;
	}
	build(&t, true);				/* a zero-length MADT entry */
	put8(t.base + MADT_OFF + 44 + 8 + 1, 0);
	seal(t.base + MADT_OFF);
	rc = acpi_parse(t.phys, &m);
	if (rc != 0 || m.n_cpus != 1) {
		selftest_fail("a broken MADT entry: rc %d, %u CPUs (want 0, 1: the rest ignored)",
			      rc, m.n_cpus);
		goto fail;
	}
	if (acpi_parse(1ULL << 45, &m) != -1 || acpi_parse(0, &m) != -1) {
		selftest_fail("an RSDP outside mapped memory, or none, was accepted");
		goto fail;
	}
	free_pages_addr(t.base, 0);
	return 0;
fail:
	free_pages_addr(t.base, 0);
	return -1;
}
