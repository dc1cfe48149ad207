/*
 * dtb.c - platform discovery from a flattened device tree (FDT, "DTB"), the
 * arm64 boot protocol: RAM, reserved ranges, command line, the initrd (the
 * boot module: a trace for "replay"), and what the arch
 * code needs (struct dt_platform, boot/dtb.h), with the NUMA topology of the
 * numa-node-id properties and /distance-map (dt_platform.numa). The blob is read in place
 * through the direct map, byte by byte as big-endian (any alignment), and
 * every read is checked against the header's sizes first: malformed input
 * gets one "dtb: ..." line naming what and where, and -1, never a read
 * outside the blob.
 *
 * dt_walk() is the only code that follows the structure block: it checks
 * every token and calls back once per node, in DTB order, when the node's
 * properties are all known (at its first subnode or its end). The callback
 * looks properties up by name; the lookups re-read tokens already checked.
 * A bad NUMA property is said too but only marks the NUMA record bad: the
 * kernel then runs on one node rather than not at all.
 */
#include "boot/dtb.h"
#include "kernel/bootinfo.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include <asm/memlayout.h>

#define FDT_BEGIN_NODE	1
#define FDT_END_NODE	2
#define FDT_PROP	3
#define FDT_NOP		4
#define FDT_END		9
#define FDT_HEADER_SIZE	40	/* version 17 */
#define DT_MAX_DEPTH	16
#define DT_PPI(num)	(16 + (num))

struct dt_platform dt_platform;

/* The blob. Block offsets are from its start; token offsets from the structure block's. */
struct fdt {
	const uint8_t *blob;
	uint32_t size;			/* header totalsize */
	uint32_t off_struct, size_struct;
	uint32_t off_strings, size_strings;
	uint32_t off_rsvmap;
	bool bad;			/* malformed data was found (and said) */
};

/* A node the walk is inside. */
struct dt_node {
	const char *name;		/* "memory@40000000"; "" for the root */
	const char *path;		/* "/memory@40000000"; valid during the callback only */
	unsigned int depth;		/* 0 for the root */
	const struct dt_node *parent;	/* NULL for the root */
	uint32_t addr_cells, size_cells;	/* for its children's reg (2 and 1 if absent) */
	uint32_t props;			/* offset of the token after its name */
	bool seen;			/* the callback has run */
};

struct dt_token {
	uint32_t type;
	uint32_t next;			/* offset of the following token */
	const char *name;		/* FDT_BEGIN_NODE, FDT_PROP */
	const uint8_t *val;		/* FDT_PROP */
	uint32_t len;
};

/* Say "dtb: <message>", mark the blob bad, return false. */
static bool __printf(2, 3) fdt_error(struct fdt *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk_line("dtb: ", "", fmt, ap);
	va_end(ap);
	f->bad = true;
	return false;
}

/*
 * Big-endian reads, one byte load each: volatile stops the compiler merging
 * them into one word load, which faults when unaligned with the MMU off.
 */
static uint32_t be32(const uint8_t *p)
{
	const volatile uint8_t *v = p;

	return (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8 | v[3];
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* Length of s, looking at max bytes at most; max when there is no NUL. */
static uint32_t bounded_strlen(const char *s, uint32_t max)
{
	uint32_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

/* Decode the token at structure offset off, inside path (for messages). */
static bool dt_next(struct fdt *f, uint32_t off, const char *path, struct dt_token *t)
{
	const uint8_t *s = f->blob + f->off_struct;
	const char *strings = (const char *)f->blob + f->off_strings;
	uint32_t at = f->off_struct + off, room, nameoff;

	if (off > f->size_struct || f->size_struct - off < 4)
		return fdt_error(f, "structure block ends at offset 0x%x inside %s, before FDT_END",
				 at, path);
	t->type = be32(s + off);
	off += 4;
	room = f->size_struct - off;
	if (t->type == FDT_BEGIN_NODE) {
		t->name = (const char *)s + off;
		t->len = bounded_strlen(t->name, room);
		if (t->len == room)
			return fdt_error(f, "name of the node at offset 0x%x in %s runs past the structure block",
					 at, path);
		off += ALIGN_UP(t->len + 1, 4);
	} else if (t->type == FDT_PROP) {
		if (room < 8)
			return fdt_error(f, "property at offset 0x%x of %s runs past the structure block",
					 at, path);
		t->len = be32(s + off);
		nameoff = be32(s + off + 4);
		if (nameoff >= f->size_strings ||
		    bounded_strlen(strings + nameoff, f->size_strings - nameoff) ==
			    f->size_strings - nameoff)
			return fdt_error(f, "name of the property at offset 0x%x of %s (strings offset 0x%x) is not a string inside the strings block",
					 at, path, nameoff);
		t->name = strings + nameoff;
		if (t->len > room - 8)
			return fdt_error(f, "property '%s' of %s runs past the structure block at offset 0x%x",
					 t->name, path, at);
		t->val = s + off + 8;
		off += 8 + ALIGN_UP(t->len, 4);
	} else if (t->type != FDT_END_NODE && t->type != FDT_NOP && t->type != FDT_END) {
		return fdt_error(f, "unknown token 0x%x at offset 0x%x in %s", t->type, at, path);
	}
	t->next = off;
	return true;
}

/* Property name of n (its tokens already checked by dt_walk), or NULL; *len its size. */
static const uint8_t *dt_prop(struct fdt *f, const struct dt_node *n, const char *name,
			      uint32_t *len)
{
	struct dt_token t;

	for (uint32_t off = n->props; dt_next(f, off, n->path, &t); off = t.next) {
		if (t.type == FDT_PROP && !strcmp(t.name, name)) {
			*len = t.len;
			return t.val;
		}
		if (t.type != FDT_PROP && t.type != FDT_NOP)
			break;
	}
	return NULL;
}

/* String (or string list) property; NULL if absent or unterminated (said). */
static const char *dt_string(struct fdt *f, const struct dt_node *n, const char *name,
			     uint32_t *len)
{
	uint32_t l = 0;
	const char *s = (const char *)dt_prop(f, n, name, &l);

	if (s && (!l || s[l - 1])) {
		fdt_error(f, "property '%s' of %s is not a NUL-terminated string", name, n->path);
		s = NULL;
	}
	if (len)
		*len = s ? l : 0;
	return s;
}

/* True when an entry of the string list equals want (starts with it, if prefix). */
static bool in_list(const char *list, uint32_t len, const char *want, bool prefix)
{
	for (uint32_t i = 0; i < len; i += (uint32_t)strlen(list + i) + 1)
		if (prefix ? !strncmp(list + i, want, strlen(want)) : !strcmp(list + i, want))
			return true;
	return false;
}

/*
 * Entry i of n's "reg", in its parent's #address-cells/#size-cells. false if
 * there is no such entry, or the property is malformed (said).
 */
static bool dt_reg(struct fdt *f, const struct dt_node *n, uint32_t i, uint64_t *base,
		   uint64_t *size)
{
	uint32_t ac = n->parent ? n->parent->addr_cells : 2;
	uint32_t sc = n->parent ? n->parent->size_cells : 1, len;
	const uint8_t *p = dt_prop(f, n, "reg", &len);

	if (!p)
		return false;
	if (ac < 1 || ac > 2 || sc > 2 || len % ((ac + sc) * 4))
		return fdt_error(f, "property 'reg' of %s (%u bytes) does not fit #address-cells %u, #size-cells %u",
				 n->path, len, ac, sc);
	if (i >= len / ((ac + sc) * 4))
		return false;
	p += i * (ac + sc) * 4;
	*base = ac == 2 ? be64(p) : be32(p);
	*size = sc == 2 ? be64(p + ac * 4) : sc == 1 ? be32(p + ac * 4) : 0;
	if (*size > UINT64_MAX - *base)
		return fdt_error(f, "reg entry %u of %s wraps past the top of the address space", i,
				 n->path);
	return true;
}

/* Run the callback for n once, when its properties are known. */
static bool dt_visit(struct fdt *f, struct dt_node *n,
		     bool (*fn)(struct fdt *f, const struct dt_node *n, void *arg), void *arg)
{
	if (!n || n->seen)
		return true;
	n->seen = true;
	return fn(f, n, arg);
}

/*
 * dt_walk - check the structure block token by token and call fn once per node
 * in DTB order, when its properties are known. Stops at the first malformed
 * token (said) or fn returning false; returns whether it got to FDT_END.
 */
static bool dt_walk(struct fdt *f, bool (*fn)(struct fdt *f, const struct dt_node *n, void *arg),
		    void *arg)
{
	struct dt_node stack[DT_MAX_DEPTH], *n = NULL;	/* n: innermost open node, stack[d] */
	size_t plen[DT_MAX_DEPTH];	/* path length before each node's name */
	char path[256] = "";
	bool root_done = false;
	struct dt_token t;
	int d = -1;

	for (uint32_t off = 0;; off = t.next) {
		uint32_t at = f->off_struct + off;

		if (!dt_next(f, off, n ? path : "the top level", &t))
			return false;
		switch (t.type) {
		case FDT_BEGIN_NODE:
			if (root_done || d + 1 == DT_MAX_DEPTH)
				return fdt_error(f, "node at offset 0x%x is %s", at,
						 root_done ? "a second root" : "nested too deep");
			if (!dt_visit(f, n, fn, arg))
				return false;
			d++;
			stack[d] = (struct dt_node){ .name = t.name, .path = path,
						     .depth = (unsigned int)d,
						     .parent = d ? &stack[d - 1] : NULL,
						     .addr_cells = 2, .size_cells = 1,
						     .props = t.next };
			n = &stack[d];
			plen[d] = strlen(path);
			snprintf(path + plen[d], sizeof(path) - plen[d], "%s%s", d > 1 ? "/" : "",
				 d ? t.name : "/");
			break;
		case FDT_PROP:
			if (!n || n->seen)
				return fdt_error(f, "property '%s' at offset 0x%x is %s%s", t.name, at,
						 n ? "after the subnodes of " : "outside every node",
						 n ? path : "");
			if (strcmp(t.name, "#address-cells") && strcmp(t.name, "#size-cells"))
				break;
			if (t.len != 4)
				return fdt_error(f, "property '%s' of %s is %u bytes, not one cell",
						 t.name, path, t.len);
			if (!strcmp(t.name, "#address-cells"))
				n->addr_cells = be32(t.val);
			else
				n->size_cells = be32(t.val);
			break;
		case FDT_END_NODE:
			if (!n)
				return fdt_error(f, "FDT_END_NODE at offset 0x%x outside every node", at);
			if (!dt_visit(f, n, fn, arg))
				return false;
			path[plen[d]] = '\0';
			root_done = d == 0;
			n = --d >= 0 ? &stack[d] : NULL;
			break;
		case FDT_END:
			if (n || !root_done)
				return fdt_error(f, "FDT_END at offset 0x%x %s%s", at,
						 n ? "inside " : "before any node", n ? path : "");
			return true;
		}
	}
}

/* Add [base, base + size) to bi->reserved; a full table is malformed input here. */
static void reserve(struct fdt *f, struct boot_info *bi, uint64_t base, uint64_t size,
		    const char *what)
{
	if (!size)
		return;
	if (bi->n_reserved == BOOT_MAX_RANGES) {
		fdt_error(f, "more than %d reserved ranges (at %s)", BOOT_MAX_RANGES, what);
		return;
	}
	printk("  mem [%016llx-%016llx] reserved (%s)\n", (unsigned long long)base,
	       (unsigned long long)(base + size - 1), what);
	boot_reserve(bi, base, base + size);
}

/* A 32- or 64-bit cell property of n: false if absent; malformed is said. */
static bool dt_cell(struct fdt *f, const struct dt_node *n, const char *name, uint64_t *v)
{
	uint32_t len;
	const uint8_t *p = dt_prop(f, n, name, &len);

	if (!p)
		return false;
	if (len != 4 && len != 8)
		return fdt_error(f, "property '%s' of %s is %u bytes, not one 32- or 64-bit cell",
				 name, n->path, len);
	*v = len == 8 ? be64(p) : be32(p);
	return true;
}

/* /chosen's linux,initrd-start and -end (QEMU's -initrd): the boot module, reserved. */
static void scan_initrd(struct fdt *f, const struct dt_node *n, struct boot_info *bi)
{
	uint64_t start, end;
	bool has_start = dt_cell(f, n, "linux,initrd-start", &start);
	bool has_end = !f->bad && dt_cell(f, n, "linux,initrd-end", &end);

	if (f->bad || (!has_start && !has_end))
		return;
	if (has_start != has_end) {
		fdt_error(f, "%s has linux,initrd-%s without linux,initrd-%s", n->path,
			  has_start ? "start" : "end", has_start ? "end" : "start");
		return;
	}
	if (end < start) {
		fdt_error(f, "%s: linux,initrd-end 0x%llx is below linux,initrd-start 0x%llx",
			  n->path, (unsigned long long)end, (unsigned long long)start);
		return;
	}
	reserve(f, bi, start, end - start, "initrd");
	bi->module_start = start;
	bi->module_end = end;
}

static void scan_gic(struct fdt *f, const struct dt_node *n, unsigned int v)
{
	struct dt_platform *p = &dt_platform;

	if (!dt_reg(f, n, 0, &p->gicd_base, &p->gicd_size) ||
	    !dt_reg(f, n, 1, v == 3 ? &p->gicr_base : &p->gicc_base,
		    v == 3 ? &p->gicr_size : &p->gicc_size)) {
		if (!f->bad)
			fdt_error(f, "%s (GICv%u) has fewer than 2 reg entries", n->path, v);
		return;
	}
	p->gic_version = v;
}

static void scan_timer(struct fdt *f, const struct dt_node *n)
{
	uint32_t len;
	const uint8_t *irq = dt_prop(f, n, "interrupts", &len);

	if (!irq)
		return;
	if (len % 12 || len < 3 * 12) {
		fdt_error(f, "property 'interrupts' of %s is %u bytes, not 4 <type number flags> triples",
			  n->path, len);
		return;
	}
	for (unsigned int i = 1; i <= 2; i++)	/* non-secure physical, virtual */
		if (be32(irq + i * 12) != 1 || be32(irq + i * 12 + 4) >= 16)
			fdt_error(f, "timer interrupt %u of %s is <%u %u>, not a PPI", i, n->path,
				  be32(irq + i * 12), be32(irq + i * 12 + 4));
	dt_platform.timer_phys_intid = DT_PPI(be32(irq + 12 + 4));
	dt_platform.timer_virt_intid = DT_PPI(be32(irq + 24 + 4));
}

/* Say "dtb: <message>" about a NUMA property: the topology is unusable, the tree is not. */
static void __printf(1, 2) numa_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk_line("dtb: ", "", fmt, ap);
	va_end(ap);
	dt_platform.numa.bad = true;
}

/* n's numa-node-id: NUMA_NO_NODE when absent or malformed (said). */
static uint32_t dt_numa_node(struct fdt *f, const struct dt_node *n)
{
	uint32_t len;
	const uint8_t *p = dt_prop(f, n, "numa-node-id", &len);

	if (!p)
		return NUMA_NO_NODE;
	dt_platform.numa.present = true;
	if (len != 4) {
		numa_error("property 'numa-node-id' of %s is %u bytes, not one cell", n->path, len);
		return NUMA_NO_NODE;
	}
	return be32(p);
}

/* /distance-map's distance-matrix: <from to distance> triples. */
static void scan_distance_map(struct fdt *f, const struct dt_node *n)
{
	struct numa_firmware *nf = &dt_platform.numa;
	uint32_t len;
	const uint8_t *p = dt_prop(f, n, "distance-matrix", &len);

	nf->present = true;
	if (!p || !len || len % 12) {
		numa_error("%s: property 'distance-matrix' is %s%u bytes, not <from to distance> triples",
			   n->path, p ? "" : "missing, ", p ? len : 0);
		return;
	}
	nf->has_distance = true;
	for (uint32_t i = 0; i < len; i += 12) {
		uint32_t from = be32(p + i), to = be32(p + i + 4), d = be32(p + i + 8);

		if (from >= MAX_NUMNODES || to >= MAX_NUMNODES) {
			if (nf->bad_dist_node == NUMA_NO_NODE)
				nf->bad_dist_node = from >= MAX_NUMNODES ? from : to;
			continue;
		}
		nf->distance[from][to] = d;
		if (from + 1 > nf->dist_nodes)
			nf->dist_nodes = from + 1;
		if (to + 1 > nf->dist_nodes)
			nf->dist_nodes = to + 1;
	}
}

/* A distance given one way only holds both ways (the binding allows that). */
static void numa_fill_reverse(struct numa_firmware *nf)
{
	for (unsigned int a = 0; a < MAX_NUMNODES; a++)
		for (unsigned int b = 0; b < MAX_NUMNODES; b++)
			if (nf->distance[a][b] && !nf->distance[b][a])
				nf->distance[b][a] = nf->distance[a][b];
}

/* The dt_walk callback: what each node gives boot_info and dt_platform. */
static bool scan_node(struct fdt *f, const struct dt_node *n, void *arg)
{
	struct dt_platform *p = &dt_platform;
	struct boot_info *bi = arg;
	const char *parent = n->parent ? n->parent->name : "";
	const char *type = dt_string(f, n, "device_type", NULL);
	const char *status = dt_string(f, n, "status", NULL), *s;
	uint32_t clen;
	const char *compat = dt_string(f, n, "compatible", &clen);
	uint64_t base, size;

	if (n->depth == 0 && (s = dt_string(f, n, "model", NULL)))
		snprintf(bi->loader, sizeof(bi->loader), "device tree: %s", s);
	if (n->depth == 1 && !strcmp(n->name, "chosen") &&
	    (s = dt_string(f, n, "bootargs", NULL)) &&
	    (size_t)snprintf(bi->cmdline, sizeof(bi->cmdline), "%s", s) >= sizeof(bi->cmdline))
		printk("dtb: bootargs cut to %zu characters\n", sizeof(bi->cmdline) - 1);
	if (n->depth == 1 && !strcmp(n->name, "chosen"))
		scan_initrd(f, n, bi);
	if (n->depth == 2 && !strcmp(parent, "cpus") && type && !strcmp(type, "cpu")) {
		if (!dt_reg(f, n, 0, &base, &size)) {
			if (!f->bad)
				fdt_error(f, "%s has no reg (its MPIDR affinity)", n->path);
		} else {
			uint32_t node = dt_numa_node(f, n);

			if (p->n_cpus < DT_MAX_CPUS)
				p->cpu_mpidr[p->n_cpus++] = base;
			else
				p->n_cpus_dropped++;
			if (node != NUMA_NO_NODE && p->numa.n_cpu < NUMA_MAX_CPUS)
				p->numa.cpu[p->numa.n_cpu++] = (struct numa_fw_cpu){ base, node };
			else if (node != NUMA_NO_NODE)
				p->numa.n_cpu_dropped++;
		}
	}
	if (f->bad || (status && strcmp(status, "okay") && strcmp(status, "ok")))
		return !f->bad;	/* CPUs above are kept whatever their status */

	if (n->depth == 1 && !strcmp(n->name, "distance-map") &&
	    in_list(compat, clen, "numa-distance-map-v1", false))
		scan_distance_map(f, n);
	if (type && !strcmp(type, "memory")) {
		uint32_t node = dt_numa_node(f, n);

		for (uint32_t i = 0; dt_reg(f, n, i, &base, &size); i++) {
			if (!size)
				continue;
			printk("  mem [%016llx-%016llx] usable\n", (unsigned long long)base,
			       (unsigned long long)(base + size - 1));
			if (bi->n_avail == BOOT_MAX_RANGES) {
				printk("dtb: more than %d memory ranges; rest ignored\n",
				       BOOT_MAX_RANGES);
				break;
			}
			bi->avail[bi->n_avail++] = (struct mem_range){ base, base + size };
			if (p->numa.n_mem < NUMA_MAX_RANGES)
				p->numa.mem[p->numa.n_mem++] =
					(struct numa_fw_mem){ base, base + size, node };
			else
				p->numa.n_mem_dropped++;
		}
	}
	if (n->depth == 2 && !strcmp(parent, "reserved-memory"))
		for (uint32_t i = 0; dt_reg(f, n, i, &base, &size); i++)
			reserve(f, bi, base, size, n->path);
	if (!p->uart_base && in_list(compat, clen, "arm,pl011", false) &&
	    dt_reg(f, n, 0, &base, &size))
		p->uart_base = base;
	if (!p->gic_version && in_list(compat, clen, "arm,gic-v3", false))
		scan_gic(f, n, 3);
	if (!p->gic_version && (in_list(compat, clen, "arm,cortex-a15-gic", false) ||
				in_list(compat, clen, "arm,gic-400", false)))
		scan_gic(f, n, 2);
	if (in_list(compat, clen, "arm,psci", true)) {
		s = dt_string(f, n, "method", NULL);
		if (s && !strcmp(s, "hvc"))
			p->psci_method = DT_PSCI_HVC;
		else if (s && !strcmp(s, "smc"))
			p->psci_method = DT_PSCI_SMC;
		else
			printk("dtb: %s has no PSCI method 'hvc' or 'smc'\n", n->path);
	}
	if (in_list(compat, clen, "arm,armv8-timer", false) ||
	    in_list(compat, clen, "arm,armv7-timer", false))
		scan_timer(f, n);
	return !f->bad;
}

/* Does [off, off + size) lie in the blob, after the header, aligned? Else say so. */
static bool block_ok(struct fdt *f, const char *what, uint32_t off, uint32_t size,
		     uint32_t align)
{
	if (off >= FDT_HEADER_SIZE && off % align == 0 && (uint64_t)off + size <= f->size)
		return true;
	return fdt_error(f, "%s at offset 0x%x, 0x%x bytes, is not %u-aligned inside the blob (totalsize 0x%x)",
			 what, off, size, align, f->size);
}

/* Check the header and fill f. */
static bool fdt_open(struct fdt *f, unsigned long magic, unsigned long info)
{
	const uint8_t *b = PHYS_TO_VIRT(info);
	uint32_t version, last_comp;

	if (magic != DTB_MAGIC || be32(b) != DTB_MAGIC)
		return fdt_error(f, "bad magic 0x%lx at phys 0x%lx (want 0x%x)", magic, info,
				 DTB_MAGIC);
	f->blob = b;
	f->size = be32(b + 4);
	if (f->size < FDT_HEADER_SIZE)
		return fdt_error(f, "header truncated: totalsize %u at phys 0x%lx is below the %u-byte header",
				 f->size, info, FDT_HEADER_SIZE);
	version = be32(b + 20);
	last_comp = be32(b + 24);
	if (version < 16 || last_comp > 17)
		return fdt_error(f, "version %u (last compatible %u) at phys 0x%lx: want >= 16, compatible with 17",
				 version, last_comp, info);
	f->off_struct = be32(b + 8);
	f->off_strings = be32(b + 12);
	f->off_rsvmap = be32(b + 16);
	f->size_strings = be32(b + 32);
	/* Version 16 has no size_dt_struct: the structure block may run to the end. */
	f->size_struct = version >= 17 ? be32(b + 36) :
			 f->off_struct < f->size ? f->size - f->off_struct : 0;
	return block_ok(f, "structure block", f->off_struct, f->size_struct, 4) &&
	       block_ok(f, "strings block", f->off_strings, f->size_strings, 1) &&
	       block_ok(f, "memory reservation map", f->off_rsvmap, 16, 8);
}

/* platform_discover: see kernel/bootinfo.h. DTB boots; also fills dt_platform. */
int platform_discover(unsigned long magic, unsigned long info, struct boot_info *bi)
{
	struct dt_platform *p = &dt_platform;
	struct fdt f = { 0 };

	memset(p, 0, sizeof(*p));
	p->numa.source = "device tree";
	p->numa.dist_source = "distance-map";
	p->numa.hwid_name = "MPIDR";
	p->numa.bad_dist_node = NUMA_NO_NODE;
	bi->numa = &p->numa;
	p->timer_phys_intid = DT_PPI(14);
	p->timer_virt_intid = DT_PPI(11);
	if (!fdt_open(&f, magic, info))
		return -1;
	p->dtb_phys = info;
	p->dtb_size = f.size;
	bi->cmdline[0] = '\0';
	snprintf(bi->loader, sizeof(bi->loader), "device tree");
	bi->acpi_rsdp = 0;
	bi->module_start = bi->module_end = 0;
	reserve(&f, bi, info, f.size, "device tree");

	for (uint32_t off = f.off_rsvmap; !f.bad; off += 16) {
		uint64_t base, size;

		if (f.size - off < 16) {
			fdt_error(&f, "memory reservation map has no end entry before the blob ends (0x%x)",
				  f.size);
			break;
		}
		base = be64(f.blob + off);
		size = be64(f.blob + off + 8);
		if (!base && !size)
			break;
		if (size > UINT64_MAX - base)
			fdt_error(&f, "/memreserve/ entry at offset 0x%x wraps past the top of the address space",
				  off);
		else
			reserve(&f, bi, base, size, "/memreserve/");
	}
	if (f.bad || !dt_walk(&f, scan_node, bi))
		return -1;
	numa_fill_reverse(&p->numa);
	if (!bi->n_avail) {
		printk("dtb: no node with device_type \"memory\" and a non-empty reg\n");
		return -1;
	}
	printk("dtb: %u CPUs (%u more not used), GICv%u, PSCI %s, timer INTIDs %u/%u, uart 0x%llx\n",
	       p->n_cpus, p->n_cpus_dropped, p->gic_version,
	       p->psci_method == DT_PSCI_HVC ? "hvc" : p->psci_method == DT_PSCI_SMC ? "smc" : "none",
	       p->timer_phys_intid, p->timer_virt_intid, (unsigned long long)p->uart_base);
	return 0;
}
