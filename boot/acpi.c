/*
 * acpi.c - finding the processors and the NUMA topology in the ACPI tables.
 *
 * RSDP -> RSDT (32-bit table pointers) or, from ACPI 2.0, XSDT (64-bit)
 * -> every system description table -> the one signed "APIC": the MADT,
 * which lists the local APIC of every processor and the I/O APICs; and,
 * when present, the SRAT (which node each processor and memory range is
 * on) and the SLIT (the distances between nodes), into a struct
 * numa_firmware that kernel/numa.c checks.
 * Everything is read in place through the direct map; nothing is trusted
 * before its signature, length and checksum have been checked. Pure C,
 * no architecture: ARM64 reads its GIC entries from the same MADT.
 */
#include "kernel/acpi.h"
#include "kernel/numa.h"
#include "kernel/arch.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include <asm/memlayout.h>

struct __packed acpi_rsdp {
	char signature[8];		/* "RSD PTR " */
	uint8_t checksum;		/* the first 20 bytes sum to 0 */
	char oem_id[6];
	uint8_t revision;		/* 0: ACPI 1.0; 2: 2.0 and later */
	uint32_t rsdt_address;
	/* ACPI 2.0 and later: */
	uint32_t length;
	uint64_t xsdt_address;
	uint8_t extended_checksum;	/* all 'length' bytes sum to 0 */
	uint8_t reserved[3];
};

struct __packed acpi_header {
	char signature[4];
	uint32_t length;		/* whole table, header included */
	uint8_t revision;
	uint8_t checksum;		/* all 'length' bytes sum to 0 */
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
};

struct __packed acpi_madt {
	struct acpi_header header;
	uint32_t lapic_address;
	uint32_t flags;
	/* entries follow */
};

#define MADT_PCAT_COMPAT	0x1

struct __packed madt_entry {
	uint8_t type;
	uint8_t length;
};

#define MADT_LAPIC		0
#define MADT_IOAPIC		1
#define MADT_LAPIC_OVERRIDE	5
#define MADT_X2APIC		9

struct __packed madt_lapic {
	struct madt_entry h;
	uint8_t acpi_id;
	uint8_t apic_id;
	uint32_t flags;
};

struct __packed madt_ioapic {
	struct madt_entry h;
	uint8_t id;
	uint8_t reserved;
	uint32_t address;
	uint32_t gsi_base;
};

struct __packed madt_lapic_override {
	struct madt_entry h;
	uint16_t reserved;
	uint64_t address;
};

struct __packed madt_x2apic {
	struct madt_entry h;
	uint16_t reserved;
	uint32_t x2apic_id;
	uint32_t flags;
	uint32_t acpi_id;
};

#define MADT_CPU_ENABLED	0x1

/* SRAT: a header, 12 reserved bytes, then entries like the MADT's. */
struct __packed acpi_srat {
	struct acpi_header header;
	uint32_t table_revision;
	uint64_t reserved;
};

#define SRAT_CPU_APIC		0
#define SRAT_MEMORY		1
#define SRAT_CPU_X2APIC		2

struct __packed srat_cpu_apic {
	struct madt_entry h;
	uint8_t domain_lo;
	uint8_t apic_id;
	uint32_t flags;			/* bit 0: enabled */
	uint8_t sapic_eid;
	uint8_t domain_hi[3];		/* ACPI 3.0 on: bits 8-31 of the domain */
	uint32_t clock_domain;
};

struct __packed srat_memory {
	struct madt_entry h;
	uint32_t domain;
	uint16_t reserved1;
	uint32_t base_lo, base_hi;
	uint32_t length_lo, length_hi;
	uint32_t reserved2;
	uint32_t flags;			/* bit 0: enabled; bit 1: hot-pluggable */
	uint64_t reserved3;
};

struct __packed srat_cpu_x2apic {
	struct madt_entry h;
	uint16_t reserved1;
	uint32_t domain;
	uint32_t x2apic_id;
	uint32_t flags;			/* bit 0: enabled */
	uint32_t clock_domain;
	uint32_t reserved2;
};

#define SRAT_ENABLED		0x1
#define SRAT_MEM_HOTPLUG	0x2

/* SLIT: a header, the locality count N, then N x N one-byte distances. */
struct __packed acpi_slit {
	struct acpi_header header;
	uint64_t localities;
};

/* Tables longer than this are taken as garbage rather than read. */
#define ACPI_MAX_TABLE_LEN	(1U << 20)

static struct acpi_madt_info madt_info;
static struct numa_firmware numa_fw;

/* sig - a table signature as a C string, for messages. */
struct sig_buf {
	char s[8];
};

static struct sig_buf sig(const char *p, size_t n)
{
	struct sig_buf b;
	size_t i;

	for (i = 0; i < n && i < sizeof(b.s) - 1; i++)
		b.s[i] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
	while (i && b.s[i - 1] == ' ')
		i--;	/* OEM IDs are padded with spaces */
	b.s[i] = '\0';
	return b;
}

static uint8_t checksum(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (n--)
		sum += *b++;
	return sum;
}

/* The table at phys, or NULL after saying why it cannot be used. */
static const struct acpi_header *map_table(uint64_t phys, const char *what)
{
	const struct acpi_header *h;

	if (!phys || !arch_phys_mapped(phys, sizeof(*h))) {
		printk("acpi: %s at 0x%llx is not in mapped memory\n", what,
		       (unsigned long long)phys);
		return NULL;
	}
	h = PHYS_TO_VIRT(phys);
	if (h->length < sizeof(*h) || h->length > ACPI_MAX_TABLE_LEN) {
		printk("acpi: %s at 0x%llx (%s) has a bad length %u\n", what,
		       (unsigned long long)phys, sig(h->signature, 4).s, h->length);
		return NULL;
	}
	if (!arch_phys_mapped(phys, h->length)) {
		printk("acpi: %s at 0x%llx runs past mapped memory\n", what,
		       (unsigned long long)phys);
		return NULL;
	}
	if (checksum(h, h->length)) {
		printk("acpi: %s %s at 0x%llx: bad checksum (bytes sum to 0x%x, not 0)\n", what,
		       sig(h->signature, 4).s, (unsigned long long)phys, checksum(h, h->length));
		return NULL;
	}
	return h;
}

static void add_cpu(struct acpi_madt_info *m, uint32_t apic_id, uint32_t acpi_id,
		    uint32_t flags)
{

	if (!(flags & MADT_CPU_ENABLED)) {
		m->n_disabled++;
		return;
	}
	if (m->n_cpus == ACPI_MAX_CPUS) {
		m->n_dropped++;
		return;
	}
	m->cpus[m->n_cpus++] = (struct acpi_cpu){ apic_id, acpi_id };
}

static int parse_madt(const struct acpi_madt *madt, struct acpi_madt_info *m)
{
	const uint8_t *p = (const uint8_t *)(madt + 1);
	const uint8_t *end = (const uint8_t *)madt + madt->header.length;

	if (madt->header.length < sizeof(*madt)) {
		printk("acpi: MADT too short (%u bytes)\n", madt->header.length);
		return -1;
	}
	m->lapic_base = madt->lapic_address;
	m->pcat_compat = madt->flags & MADT_PCAT_COMPAT;
	while (p + sizeof(struct madt_entry) <= end) {
		const struct madt_entry *e = (const void *)p;

		if (e->length < sizeof(*e) || p + e->length > end) {
			printk("acpi: MADT entry type %u at offset %u has a bad length %u; "
			       "rest of the MADT ignored\n", e->type,
			       (unsigned int)(p - (const uint8_t *)madt), e->length);
			break;
		}
		switch (e->type) {
		case MADT_LAPIC:
			if (e->length >= sizeof(struct madt_lapic)) {
				const struct madt_lapic *l = (const void *)e;

				add_cpu(m, l->apic_id, l->acpi_id, l->flags);
			}
			break;
		case MADT_X2APIC:
			if (e->length >= sizeof(struct madt_x2apic)) {
				const struct madt_x2apic *x = (const void *)e;

				add_cpu(m, x->x2apic_id, x->acpi_id, x->flags);
			}
			break;
		case MADT_IOAPIC:
			if (e->length >= sizeof(struct madt_ioapic) &&
			    m->n_ioapics < ACPI_MAX_IOAPICS) {
				const struct madt_ioapic *io = (const void *)e;

				m->ioapics[m->n_ioapics++] =
					(struct acpi_ioapic){ io->id, io->address, io->gsi_base };
			}
			break;
		case MADT_LAPIC_OVERRIDE:
			if (e->length >= sizeof(struct madt_lapic_override)) {
				const struct madt_lapic_override *o = (const void *)e;

				m->lapic_base = o->address;
			}
			break;
		}
		p += e->length;
	}
	if (!m->n_cpus) {
		printk("acpi: MADT lists no enabled processor\n");
		return -1;
	}
	m->valid = true;
	return 0;
}

static void print_madt(const struct acpi_madt_info *m)
{
	char ids[3 * 16 + 8];
	size_t len = 0;

	ids[0] = '\0';
	for (unsigned int i = 0; i < m->n_cpus && i < 16; i++)
		len += (size_t)snprintf(ids + len, sizeof(ids) - len, " %u", m->cpus[i].apic_id);
	if (m->n_cpus > 16)
		snprintf(ids + len, sizeof(ids) - len, " ...");
	printk("acpi: MADT: local APIC at 0x%llx, %u CPUs (APIC IDs%s), %u disabled, "
	       "%u I/O APICs%s\n", (unsigned long long)m->lapic_base, m->n_cpus, ids,
	       m->n_disabled, m->n_ioapics, m->pcat_compat ? ", 8259 PICs present" : "");
	if (m->n_dropped)
		printk("acpi: %u more enabled CPUs beyond %d ignored\n", m->n_dropped,
		       ACPI_MAX_CPUS);
}

static const struct acpi_rsdp *check_rsdp(uint64_t phys)
{
	const struct acpi_rsdp *r;

	if (!arch_phys_mapped(phys, sizeof(*r))) {
		printk("acpi: RSDP at 0x%llx is not in mapped memory\n", (unsigned long long)phys);
		return NULL;
	}
	r = PHYS_TO_VIRT(phys);
	if (memcmp(r->signature, "RSD PTR ", 8)) {
		printk("acpi: no \"RSD PTR \" signature at 0x%llx\n", (unsigned long long)phys);
		return NULL;
	}
	if (checksum(r, 20)) {
		printk("acpi: RSDP checksum bad (first 20 bytes sum to 0x%x, not 0)\n",
		       checksum(r, 20));
		return NULL;
	}
	if (r->revision >= 2) {
		if (r->length < sizeof(*r) || r->length > 4096) {
			printk("acpi: RSDP revision %u has a bad length %u\n", r->revision,
			       r->length);
			return NULL;
		}
		if (checksum(r, r->length)) {
			printk("acpi: RSDP extended checksum bad (sum 0x%x, not 0)\n",
			       checksum(r, r->length));
			return NULL;
		}
	}
	return r;
}

/* Say "acpi: <table> ...", mark the record unusable. */
static void __printf(2, 3) numa_fw_error(struct numa_firmware *nf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk_line("acpi: ", "", fmt, ap);
	va_end(ap);
	nf->bad = true;
}

static void srat_add_cpu(struct numa_firmware *nf, uint64_t hwid, uint32_t domain)
{
	if (nf->n_cpu == NUMA_MAX_CPUS) {
		nf->n_cpu_dropped++;
		return;
	}
	nf->cpu[nf->n_cpu++] = (struct numa_fw_cpu){ hwid, domain };
}

static void srat_add_memory(struct numa_firmware *nf, const struct srat_memory *m)
{
	uint64_t base = (uint64_t)m->base_hi << 32 | m->base_lo;
	uint64_t len = (uint64_t)m->length_hi << 32 | m->length_lo;

	if (!(m->flags & SRAT_ENABLED) || !len)
		return;
	if (m->flags & SRAT_MEM_HOTPLUG)	/* no memory hot-plug: not RAM now */
		return;
	if (len > UINT64_MAX - base) {
		numa_fw_error(nf, "SRAT memory [0x%llx, +0x%llx) wraps past the top of the address space",
			      (unsigned long long)base, (unsigned long long)len);
		return;
	}
	if (nf->n_mem == NUMA_MAX_RANGES) {
		nf->n_mem_dropped++;
		return;
	}
	nf->mem[nf->n_mem++] = (struct numa_fw_mem){ base, base + len, m->domain };
}

/* The SRAT's processor and memory affinities into nf. */
static void parse_srat(const struct acpi_srat *srat, struct numa_firmware *nf)
{
	const uint8_t *p = (const uint8_t *)(srat + 1);
	const uint8_t *end = (const uint8_t *)srat + srat->header.length;
	bool wide = srat->header.revision >= 2;	/* 32-bit domains in processor entries */

	nf->present = true;
	nf->source = "SRAT";
	nf->hwid_name = "APIC";
	if (srat->header.length < sizeof(*srat)) {
		numa_fw_error(nf, "SRAT too short (%u bytes)", srat->header.length);
		return;
	}
	while (p + sizeof(struct madt_entry) <= end) {
		const struct madt_entry *e = (const void *)p;
		unsigned int off = (unsigned int)(p - (const uint8_t *)srat);

		if (e->length < sizeof(*e) || p + e->length > end) {
			numa_fw_error(nf, "SRAT entry type %u at offset %u has a bad length %u",
				      e->type, off, e->length);
			return;
		}
		if (e->type == SRAT_CPU_APIC && e->length >= sizeof(struct srat_cpu_apic)) {
			const struct srat_cpu_apic *c = (const void *)e;
			uint32_t domain = c->domain_lo;

			if (wide)
				domain |= (uint32_t)c->domain_hi[0] << 8 |
					  (uint32_t)c->domain_hi[1] << 16 |
					  (uint32_t)c->domain_hi[2] << 24;
			if (c->flags & SRAT_ENABLED)
				srat_add_cpu(nf, c->apic_id, domain);
		} else if (e->type == SRAT_CPU_X2APIC &&
			   e->length >= sizeof(struct srat_cpu_x2apic)) {
			const struct srat_cpu_x2apic *x = (const void *)e;

			if (x->flags & SRAT_ENABLED)
				srat_add_cpu(nf, x->x2apic_id, x->domain);
		} else if (e->type == SRAT_MEMORY && e->length >= sizeof(struct srat_memory)) {
			srat_add_memory(nf, (const struct srat_memory *)e);
		} else if (e->type <= SRAT_CPU_X2APIC) {
			numa_fw_error(nf, "SRAT entry type %u at offset %u is %u bytes, too short",
				      e->type, off, e->length);
			return;
		}
		p += e->length;
	}
}

/* The SLIT's distances into nf. */
static void parse_slit(const struct acpi_slit *slit, struct numa_firmware *nf)
{
	const uint8_t *d = (const uint8_t *)(slit + 1);
	uint64_t n;

	nf->dist_source = "SLIT";
	if (slit->header.length < sizeof(*slit)) {
		numa_fw_error(nf, "SLIT too short (%u bytes)", slit->header.length);
		return;
	}
	n = slit->localities;
	if (n > 255 || n * n > slit->header.length - sizeof(*slit)) {
		numa_fw_error(nf, "SLIT lists %llu localities: %llu distances do not fit in its %u bytes",
			      (unsigned long long)n, (unsigned long long)(n > 255 ? n : n * n),
			      slit->header.length);
		return;
	}
	nf->has_distance = true;
	nf->dist_nodes = (unsigned int)n;
	if (n > MAX_NUMNODES) {
		nf->bad_dist_node = (uint32_t)n - 1;
		return;
	}
	for (unsigned int a = 0; a < n; a++)
		for (unsigned int b = 0; b < n; b++)
			nf->distance[a][b] = d[a * n + b];
}

/* acpi_parse_all: see kernel/acpi.h. */
int acpi_parse_all(uint64_t rsdp_phys, struct acpi_madt_info *m, struct numa_firmware *nf)
{
	const struct acpi_rsdp *rsdp;
	const struct acpi_header *root, *madt = NULL, *srat = NULL, *slit = NULL;
	const uint8_t *entries;
	bool xsdt;
	unsigned int n;

	*m = (struct acpi_madt_info){ .valid = false };
	if (nf)
		*nf = (struct numa_firmware){ .bad_dist_node = NUMA_NO_NODE };
	if (!rsdp_phys) {
		printk("acpi: the boot loader passed no RSDP; no ACPI tables\n");
		return -1;
	}
	rsdp = check_rsdp(rsdp_phys);
	if (!rsdp)
		return -1;
	xsdt = rsdp->revision >= 2 && rsdp->xsdt_address;
	root = map_table(xsdt ? rsdp->xsdt_address : rsdp->rsdt_address, xsdt ? "XSDT" : "RSDT");
	if (!root)
		return -1;
	if (memcmp(root->signature, xsdt ? "XSDT" : "RSDT", 4)) {
		printk("acpi: root table signature is \"%s\", not %s\n", sig(root->signature, 4).s,
		       xsdt ? "XSDT" : "RSDT");
		return -1;
	}
	n = (root->length - sizeof(*root)) / (xsdt ? 8 : 4);
	printk("acpi: RSDP revision %u (OEM %s), %s with %u tables\n", rsdp->revision,
	       sig(rsdp->oem_id, 6).s, xsdt ? "XSDT" : "RSDT", n);

	entries = (const uint8_t *)(root + 1);
	for (unsigned int i = 0; i < n; i++) {
		uint64_t phys;
		const struct acpi_header *h;

		if (xsdt)
			memcpy(&phys, entries + 8 * i, 8);	/* entries are unaligned */
		else {
			uint32_t p32;

			memcpy(&p32, entries + 4 * i, 4);
			phys = p32;
		}
		h = map_table(phys, "table");
		if (!h)
			continue;
		if (!madt && !memcmp(h->signature, "APIC", 4))
			madt = h;
		else if (!srat && !memcmp(h->signature, "SRAT", 4))
			srat = h;
		else if (!slit && !memcmp(h->signature, "SLIT", 4))
			slit = h;
	}
	if (nf && srat)
		parse_srat((const struct acpi_srat *)srat, nf);
	if (nf && slit)
		parse_slit((const struct acpi_slit *)slit, nf);
	if (nf && nf->present)
		printk("acpi: SRAT: %u memory ranges, %u processors%s\n", nf->n_mem, nf->n_cpu,
		       nf->has_distance ? "; SLIT present" : "");
	if (!madt) {
		printk("acpi: no valid MADT (\"APIC\") table\n");
		return -1;
	}
	if (parse_madt((const struct acpi_madt *)madt, m)) {
		m->valid = false;
		return -1;
	}
	print_madt(m);
	return 0;
}

/* acpi_parse: see kernel/acpi.h. */
int acpi_parse(uint64_t rsdp_phys, struct acpi_madt_info *m)
{
	return acpi_parse_all(rsdp_phys, m, NULL);
}

/* acpi_init: see kernel/acpi.h. */
int acpi_init(uint64_t rsdp_phys)
{
	return acpi_parse_all(rsdp_phys, &madt_info, &numa_fw);
}

/* acpi_numa: see kernel/acpi.h. */
const struct numa_firmware *acpi_numa(void)
{
	return &numa_fw;
}

/* acpi_madt: see kernel/acpi.h. */
const struct acpi_madt_info *acpi_madt(void)
{
	return &madt_info;
}
