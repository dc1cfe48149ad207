/*
 * acpi.h - what Quarry reads from the ACPI tables: the processors and
 * interrupt controllers listed in the MADT, and the NUMA affinities and
 * distances of the SRAT and SLIT (a struct numa_firmware, kernel/numa.h). boot/acpi.c parses the tables
 * (arch-neutral C); arch code decides what to do with the entries.
 */
#ifndef QUARRY_ACPI_H
#define QUARRY_ACPI_H

#include "kernel/compiler.h"

struct numa_firmware;

#define ACPI_MAX_CPUS	64
#define ACPI_MAX_IOAPICS 8

/* One enabled processor from the MADT (Processor Local APIC / x2APIC entry). */
struct acpi_cpu {
	uint32_t apic_id;	/* its local APIC ID: the target of IPIs */
	uint32_t acpi_id;	/* ACPI processor UID */
};

struct acpi_ioapic {
	uint32_t id;
	uint64_t base;		/* physical address of its registers */
	uint32_t gsi_base;	/* first global system interrupt it handles */
};

struct acpi_madt_info {
	bool valid;			/* a MADT was found and passed its checks */
	uint64_t lapic_base;		/* physical address of the local APIC registers */
	bool pcat_compat;		/* legacy 8259 PICs present (mask them) */
	unsigned int n_cpus;		/* enabled processors, in MADT order */
	struct acpi_cpu cpus[ACPI_MAX_CPUS];
	unsigned int n_disabled;	/* processors listed as not usable */
	unsigned int n_dropped;		/* enabled ones beyond ACPI_MAX_CPUS */
	unsigned int n_ioapics;
	struct acpi_ioapic ioapics[ACPI_MAX_IOAPICS];
};

/*
 * acpi_init - read the ACPI tables from the RSDP at physical address rsdp
 * (0: none): check the RSDP's checksums, then the RSDT or XSDT and each
 * table it lists, find the MADT and record its processors and I/O APICs.
 * Prints one line per problem (bad signature, checksum, length, an
 * unmapped table) and a summary of the MADT. Returns 0 when a MADT was
 * found, -1 otherwise; on -1 acpi_madt()->valid is false and callers fall
 * back to the boot CPU alone. An SRAT and SLIT, when listed, are read
 * into the record acpi_numa() returns. Call once, after the direct map
 * covers RAM.
 */
int acpi_init(uint64_t rsdp);

/*
 * acpi_parse - what acpi_init does, into *out rather than the record
 * acpi_madt() returns: for tests that feed it tables of their own.
 */
int acpi_parse(uint64_t rsdp, struct acpi_madt_info *out);

/*
 * acpi_parse_all - acpi_parse, and the SRAT and SLIT into *numa (NULL: not
 * read). *numa is cleared first; without an SRAT numa->present stays
 * false. A malformed SRAT or SLIT is said ("acpi: SRAT ...") and sets
 * numa->bad; it does not change the return value, which is the MADT's.
 */
int acpi_parse_all(uint64_t rsdp, struct acpi_madt_info *out, struct numa_firmware *numa);

/* acpi_numa - the SRAT and SLIT acpi_init found (present == false: none). */
const struct numa_firmware *acpi_numa(void);

/* acpi_madt - what acpi_init found (valid == false when it found nothing). */
const struct acpi_madt_info *acpi_madt(void);

#endif
