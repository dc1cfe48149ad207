/*
 * test_dtb_host.c - boot/dtb.c on device trees built in memory by a small FDT
 * writer: a tree shaped like QEMU virt's (what bi and dt_platform must hold),
 * one-cell root addresses with two-cell CPU ids, defaults, and malformed
 * blobs, each of which must give -1 with its "dtb: ..." line; and NUMA
 * trees (numa-node-id, /distance-map) whose topology must come out as built,
 * or, when broken, be said and fall back to one node without failing the boot. Every blob is
 * its own malloc() of exactly totalsize bytes, so ASan catches any read past
 * it; the blob's "physical" address is VIRT_TO_PHYS of that buffer.
 */
#include "host_shim.h"
#include "boot/dtb.h"
#include "kernel/bootinfo.h"
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include <asm/memlayout.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An FDT under construction: structure and strings blocks, reservation entries. */
struct fdtw {
	uint8_t st[16384];
	uint32_t st_len;
	char str[1024];
	uint32_t str_len;
	uint64_t rsv[80][2];
	unsigned int n_rsv;
	uint32_t last_len;	/* structure offset of the last property's length word */
	bool rsv_unterminated;	/* reservation map last in the blob, without its end entry */
	bool no_end;		/* no FDT_END token */
};

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void tok(struct fdtw *w, uint32_t v)
{
	put32(w->st + w->st_len, v);
	w->st_len += 4;
}

/* Raw bytes into the structure block, zero-padded to 4. */
static void bytes(struct fdtw *w, const void *d, uint32_t n)
{
	memcpy(w->st + w->st_len, d, n);
	w->st_len += n;
	while (w->st_len % 4)
		w->st[w->st_len++] = 0;
}

static void begin_node(struct fdtw *w, const char *name)
{
	tok(w, 1);
	bytes(w, name, (uint32_t)strlen(name) + 1);
}

static void end_node(struct fdtw *w)
{
	tok(w, 2);
}

static void prop(struct fdtw *w, const char *name, const void *val, uint32_t len)
{
	uint32_t off = 0;

	while (off < w->str_len && strcmp(w->str + off, name))	/* each name once */
		off += (uint32_t)strlen(w->str + off) + 1;
	if (off == w->str_len) {
		memcpy(w->str + off, name, strlen(name) + 1);
		w->str_len += (uint32_t)strlen(name) + 1;
	}
	tok(w, 3);
	w->last_len = w->st_len;
	tok(w, len);
	tok(w, off);
	bytes(w, val, len);
}

static void prop_str(struct fdtw *w, const char *name, const char *s)
{
	prop(w, name, s, (uint32_t)strlen(s) + 1);
}

/* A string list: a literal with embedded NULs, its final NUL included. */
#define prop_list(w, name, lit) prop(w, name, lit, sizeof(lit))

/* prop_cells(w, name, n, cell...) - n big-endian 32-bit cells. */
static void prop_cells(struct fdtw *w, const char *name, unsigned int n, ...)
{
	uint8_t v[64];
	va_list ap;

	va_start(ap, n);
	for (unsigned int i = 0; i < n; i++)
		put32(v + 4 * i, va_arg(ap, uint32_t));
	va_end(ap);
	prop(w, name, v, 4 * n);
}

static void prop_u32(struct fdtw *w, const char *name, uint32_t v)
{
	prop_cells(w, name, 1, v);
}

/*
 * finish - the blob, malloc'd at exactly its totalsize: header, reservation
 * map, structure block, strings block (the map last if rsv_unterminated).
 */
static uint8_t *finish(struct fdtw *w, uint32_t *size)
{
	uint32_t rsv_len = (w->n_rsv + !w->rsv_unterminated) * 16, off_rsv, off_st, off_str;
	uint8_t *b;

	if (!w->no_end)
		tok(w, 9);
	off_rsv = 40;
	off_st = off_rsv + (w->rsv_unterminated ? 0 : rsv_len);
	off_str = off_st + w->st_len;
	*size = off_str + w->str_len;
	if (w->rsv_unterminated) {
		off_rsv = (*size + 7) & ~7u;
		*size = off_rsv + rsv_len;
	}
	b = calloc(1, *size);
	if (!b)
		abort();
	put32(b, DTB_MAGIC);
	put32(b + 4, *size);
	put32(b + 8, off_st);
	put32(b + 12, off_str);
	put32(b + 16, off_rsv);
	put32(b + 20, 17);
	put32(b + 24, 16);
	put32(b + 32, w->str_len);
	put32(b + 36, w->st_len);
	for (unsigned int i = 0; i < w->n_rsv; i++) {
		put32(b + off_rsv + 16 * i, (uint32_t)(w->rsv[i][0] >> 32));
		put32(b + off_rsv + 16 * i + 4, (uint32_t)w->rsv[i][0]);
		put32(b + off_rsv + 16 * i + 8, (uint32_t)(w->rsv[i][1] >> 32));
		put32(b + off_rsv + 16 * i + 12, (uint32_t)w->rsv[i][1]);
	}
	memcpy(b + off_st, w->st, w->st_len);
	memcpy(b + off_str, w->str, w->str_len);
	return b;
}

static struct fdtw *new_writer(void)
{
	struct fdtw *w = calloc(1, sizeof(*w));

	if (!w)
		abort();
	return w;
}

/* platform_discover on blob as the arm64 entry calls it, console captured from here. */
static int discover(const uint8_t *blob, struct boot_info *bi)
{
	memset(bi, 0, sizeof(*bi));
	host_console_clear();
	return platform_discover(get32(blob), VIRT_TO_PHYS(blob), bi);
}

/* A tree shaped like `qemu-system-aarch64 -M virt,gic-version=3 -smp 4`'s dump. */
static void build_virt(struct fdtw *w)
{
	static const char *const cpus[] = { "cpu@0", "cpu@1", "cpu@2", "cpu@3" };

	w->rsv[w->n_rsv][0] = 0x48000000;
	w->rsv[w->n_rsv++][1] = 0x100000;
	begin_node(w, "");
	prop_u32(w, "interrupt-parent", 0x8005);
	prop_str(w, "model", "linux,dummy-virt");
	prop_u32(w, "#size-cells", 2);
	prop_u32(w, "#address-cells", 2);
	prop_str(w, "compatible", "linux,dummy-virt");
	begin_node(w, "psci");
	prop_u32(w, "migrate", 0xc4000005);
	prop_u32(w, "cpu_on", 0xc4000003);
	prop_str(w, "method", "hvc");
	prop_list(w, "compatible", "arm,psci-1.0\0arm,psci-0.2\0arm,psci");
	end_node(w);
	begin_node(w, "memory@40000000");
	prop_cells(w, "reg", 4, 0, 0x40000000, 0, 0x08000000);	/* reg before device_type */
	prop_str(w, "device_type", "memory");
	end_node(w);
	tok(w, 4);	/* FDT_NOP */
	begin_node(w, "memory@50000000");
	prop_str(w, "device_type", "memory");
	prop_cells(w, "reg", 4, 0, 0x50000000, 0, 0x08000000);
	end_node(w);
	begin_node(w, "reserved-memory");
	prop_u32(w, "#address-cells", 2);
	prop_u32(w, "#size-cells", 2);
	prop(w, "ranges", "", 0);
	begin_node(w, "secmon@4e000000");
	prop_cells(w, "reg", 4, 0, 0x4e000000, 0, 0x200000);
	prop(w, "no-map", "", 0);
	end_node(w);
	begin_node(w, "pool");	/* dynamically placed: no reg, nothing to reserve */
	prop_cells(w, "size", 2, 0, 0x100000);
	end_node(w);
	end_node(w);
	begin_node(w, "pl011@9040000");	/* the secure UART: disabled for us */
	prop_str(w, "status", "disabled");
	prop_cells(w, "reg", 4, 0, 0x9040000, 0, 0x1000);
	prop_list(w, "compatible", "arm,pl011\0arm,primecell");
	end_node(w);
	begin_node(w, "pl011@9000000");
	prop_list(w, "clock-names", "uartclk\0apb_pclk");
	prop_cells(w, "interrupts", 3, 0, 1, 4);
	prop_cells(w, "reg", 4, 0, 0x9000000, 0, 0x1000);
	prop_list(w, "compatible", "arm,pl011\0arm,primecell");
	end_node(w);
	begin_node(w, "intc@8000000");
	prop_u32(w, "phandle", 0x8005);
	prop_cells(w, "reg", 8, 0, 0x8000000, 0, 0x10000, 0, 0x80a0000, 0, 0xf60000);
	prop_str(w, "compatible", "arm,gic-v3");
	prop_u32(w, "#size-cells", 2);
	prop_u32(w, "#address-cells", 2);
	prop(w, "interrupt-controller", "", 0);
	begin_node(w, "its@8080000");
	prop_cells(w, "reg", 4, 0, 0x8080000, 0, 0x20000);
	prop_str(w, "compatible", "arm,gic-v3-its");
	end_node(w);
	end_node(w);
	begin_node(w, "cpus");
	prop_u32(w, "#size-cells", 0);
	prop_u32(w, "#address-cells", 1);
	begin_node(w, "cpu-map");
	begin_node(w, "socket0");
	begin_node(w, "cluster0");
	begin_node(w, "core0");
	prop_u32(w, "cpu", 0x8004);
	end_node(w);
	end_node(w);
	end_node(w);
	end_node(w);
	for (unsigned int i = 0; i < ARRAY_SIZE(cpus); i++) {
		begin_node(w, cpus[i]);
		prop_u32(w, "reg", i);
		prop_str(w, "enable-method", "psci");
		prop_str(w, "compatible", "arm,cortex-a72");
		prop_str(w, "device_type", "cpu");
		end_node(w);
	}
	end_node(w);
	begin_node(w, "timer");
	prop_cells(w, "interrupts", 12, 1, 13, 4, 1, 14, 4, 1, 11, 4, 1, 10, 4);
	prop(w, "always-on", "", 0);
	prop_list(w, "compatible", "arm,armv8-timer\0arm,armv7-timer");
	end_node(w);
	begin_node(w, "chosen");
	prop_str(w, "stdout-path", "/pl011@9000000");
	prop_str(w, "bootargs", "selftest quick");
	prop_cells(w, "kaslr-seed", 2, 0xde5239d, 0xd29a64af);
	end_node(w);
	end_node(w);
}

static bool range_is(const struct mem_range *r, uint64_t start, uint64_t end)
{
	return r->start == start && r->end == end;
}

SELFTEST_HOST(dtb_host_qemu_virt)
{
	static struct boot_info bi;
	struct fdtw *w = new_writer();
	const struct dt_platform *p = &dt_platform;
	uint32_t size;
	uint8_t *blob, *odd;
	uint64_t phys;
	int ret;

	build_virt(w);
	blob = finish(w, &size);
	phys = VIRT_TO_PHYS(blob);
	ret = discover(blob, &bi);
	free(w);
	ST_EXPECT(ret == 0, "platform_discover returned %d", ret);
	ST_EXPECT(!strcmp(bi.loader, "device tree: linux,dummy-virt"), "loader '%s'", bi.loader);
	ST_EXPECT(!strcmp(bi.cmdline, "selftest quick"), "cmdline '%s'", bi.cmdline);
	ST_EXPECT(bi.acpi_rsdp == 0, "acpi_rsdp set");
	ST_EXPECT(bi.module_start == 0 && bi.module_end == 0, "a module without an initrd");
	ST_EXPECT(bi.n_avail == 2 && range_is(&bi.avail[0], 0x40000000, 0x48000000) &&
			  range_is(&bi.avail[1], 0x50000000, 0x58000000),
		  "%u usable ranges, first [0x%llx, 0x%llx)", bi.n_avail,
		  (unsigned long long)bi.avail[0].start, (unsigned long long)bi.avail[0].end);
	ST_EXPECT(bi.n_reserved == 3 && range_is(&bi.reserved[0], phys, phys + size) &&
			  range_is(&bi.reserved[1], 0x48000000, 0x48100000) &&
			  range_is(&bi.reserved[2], 0x4e000000, 0x4e200000),
		  "%u reserved ranges, not blob + memreserve + secmon", bi.n_reserved);
	ST_EXPECT(host_console_contains("  mem [0000000040000000-0000000047ffffff] usable\n") &&
			  host_console_contains(
				  "  mem [0000000050000000-0000000057ffffff] usable\n"),
		  "usable ranges not printed");
	ST_EXPECT(p->dtb_phys == phys && p->dtb_size == size, "dtb 0x%llx+0x%llx",
		  (unsigned long long)p->dtb_phys, (unsigned long long)p->dtb_size);
	ST_EXPECT(p->uart_base == 0x9000000, "uart 0x%llx (the disabled one first?)",
		  (unsigned long long)p->uart_base);
	ST_EXPECT(p->gic_version == 3 && p->gicd_base == 0x8000000 && p->gicd_size == 0x10000 &&
			  p->gicr_base == 0x80a0000 && p->gicr_size == 0xf60000 &&
			  p->gicc_base == 0 && p->gicc_size == 0,
		  "GICv%u d 0x%llx r 0x%llx", p->gic_version, (unsigned long long)p->gicd_base,
		  (unsigned long long)p->gicr_base);
	ST_EXPECT(p->psci_method == DT_PSCI_HVC, "psci method %d", p->psci_method);
	ST_EXPECT(p->timer_phys_intid == 30 && p->timer_virt_intid == 27, "timer %u/%u",
		  p->timer_phys_intid, p->timer_virt_intid);
	ST_EXPECT(p->n_cpus == 4 && p->n_cpus_dropped == 0, "%u cpus, %u dropped", p->n_cpus,
		  p->n_cpus_dropped);
	for (unsigned int i = 0; i < 4; i++)
		ST_EXPECT(p->cpu_mpidr[i] == i, "cpu %u mpidr 0x%llx", i,
			  (unsigned long long)p->cpu_mpidr[i]);

	/* The same blob at an odd address: byte reads only (UBSan checks alignment). */
	odd = malloc(size + 3);
	ST_EXPECT(odd != NULL, "malloc");
	memcpy(odd + 3, blob, size);
	free(blob);
	ret = discover(odd + 3, &bi);
	free(odd);
	ST_EXPECT(ret == 0 && bi.n_avail == 2 && bi.n_reserved == 3 && p->n_cpus == 4 &&
			  p->gicr_base == 0x80a0000 && !strcmp(bi.cmdline, "selftest quick"),
		  "misaligned blob: %d", ret);
	return 0;
}

/* One-cell root addresses and sizes, two-cell CPU ids, GIC v2, smc, more CPUs than kept. */
static void build_cells1(struct fdtw *w, unsigned int ncpu)
{
	char name[32];

	begin_node(w, "");
	prop_u32(w, "#address-cells", 1);
	prop_u32(w, "#size-cells", 1);
	begin_node(w, "memory@80000000");
	prop_str(w, "device_type", "memory");
	prop_cells(w, "reg", 6, 0x80000000, 0x10000000, 0xa0000000, 0x1000, 0xc0000000, 0);
	end_node(w);
	begin_node(w, "interrupt-controller@2c001000");
	prop_list(w, "compatible", "arm,gic-400\0arm,cortex-a15-gic");
	prop_cells(w, "reg", 4, 0x2c001000, 0x1000, 0x2c002000, 0x2000);
	end_node(w);
	begin_node(w, "psci");
	prop_str(w, "compatible", "arm,psci-0.2");
	prop_str(w, "method", "smc");
	end_node(w);
	begin_node(w, "timer");
	prop_str(w, "compatible", "arm,armv7-timer");
	prop_cells(w, "interrupts", 12, 1, 13, 8, 1, 12, 8, 1, 9, 8, 1, 8, 8);
	end_node(w);
	begin_node(w, "cpus");
	prop_u32(w, "#address-cells", 2);
	prop_u32(w, "#size-cells", 0);
	for (unsigned int i = 0; i < ncpu; i++) {
		snprintf(name, sizeof(name), "cpu@%x", i);
		begin_node(w, name);
		prop_str(w, "device_type", "cpu");
		prop_cells(w, "reg", 2, i / 64, (i % 64 / 8) << 8 | i % 8);
		end_node(w);
	}
	end_node(w);
	end_node(w);
}

SELFTEST_HOST(dtb_host_one_cell_root_two_cell_cpus)
{
	static struct boot_info bi;
	struct fdtw *w = new_writer();
	const struct dt_platform *p = &dt_platform;
	uint32_t size;
	uint8_t *blob;
	int ret;

	build_cells1(w, DT_MAX_CPUS + 2);
	blob = finish(w, &size);
	free(w);
	for (unsigned int version = 17; version >= 16; version--) {
		put32(blob + 20, version);	/* 16: no size_dt_struct, runs to the end */
		put32(blob + 36, version == 16 ? 0xdeadbeef : get32(blob + 36));
		ret = discover(blob, &bi);
		ST_EXPECT(ret == 0, "version %u: platform_discover returned %d", version, ret);
		ST_EXPECT(!strcmp(bi.loader, "device tree") && !strcmp(bi.cmdline, ""),
			  "loader '%s' cmdline '%s'", bi.loader, bi.cmdline);
		ST_EXPECT(bi.n_avail == 2 && range_is(&bi.avail[0], 0x80000000, 0x90000000) &&
				  range_is(&bi.avail[1], 0xa0000000, 0xa0001000),
			  "%u usable ranges", bi.n_avail);
		ST_EXPECT(bi.n_reserved == 1, "%u reserved ranges", bi.n_reserved);
		ST_EXPECT(p->gic_version == 2 && p->gicd_base == 0x2c001000 &&
				  p->gicd_size == 0x1000 && p->gicc_base == 0x2c002000 &&
				  p->gicc_size == 0x2000 && p->gicr_base == 0,
			  "GICv%u", p->gic_version);
		ST_EXPECT(p->psci_method == DT_PSCI_SMC && p->uart_base == 0, "psci %d uart 0x%llx",
			  p->psci_method, (unsigned long long)p->uart_base);
		ST_EXPECT(p->timer_phys_intid == 28 && p->timer_virt_intid == 25, "timer %u/%u",
			  p->timer_phys_intid, p->timer_virt_intid);
		ST_EXPECT(p->n_cpus == DT_MAX_CPUS && p->n_cpus_dropped == 2,
			  "%u cpus, %u dropped", p->n_cpus, p->n_cpus_dropped);
		ST_EXPECT(p->cpu_mpidr[0] == 0 && p->cpu_mpidr[9] == 0x101 &&
				  p->cpu_mpidr[127] == 0x100000707ULL,
			  "mpidr 0x%llx 0x%llx", (unsigned long long)p->cpu_mpidr[9],
			  (unsigned long long)p->cpu_mpidr[127]);
	}
	free(blob);
	return 0;
}

SELFTEST_HOST(dtb_host_defaults)
{
	static struct boot_info bi;
	struct fdtw *w = new_writer();
	const struct dt_platform *p = &dt_platform;
	uint32_t size;
	uint8_t *blob;
	int ret;

	begin_node(w, "");	/* no #address-cells/#size-cells: 2 and 1 */
	begin_node(w, "memory");
	prop_str(w, "device_type", "memory");
	prop_cells(w, "reg", 3, 0, 0x40000000, 0x1000000);
	end_node(w);
	begin_node(w, "chosen");
	prop_str(w, "bootargs", "");
	end_node(w);
	end_node(w);
	blob = finish(w, &size);
	free(w);
	ret = discover(blob, &bi);
	free(blob);
	ST_EXPECT(ret == 0, "platform_discover returned %d", ret);
	ST_EXPECT(bi.n_avail == 1 && range_is(&bi.avail[0], 0x40000000, 0x41000000),
		  "usable range wrong");
	ST_EXPECT(!strcmp(bi.cmdline, ""), "cmdline '%s'", bi.cmdline);
	ST_EXPECT(p->n_cpus == 0 && p->gic_version == 0 && p->psci_method == DT_PSCI_NONE &&
			  p->uart_base == 0 && p->timer_phys_intid == 30 &&
			  p->timer_virt_intid == 27,
		  "defaults wrong");
	return 0;
}

/* A virt tree with one change made by edit (on the writer, before finish). */
static int expect_bad(const char *what, void (*edit)(struct fdtw *w), const char *msg)
{
	static struct boot_info bi;
	struct fdtw *w = new_writer();
	uint32_t size;
	uint8_t *blob;
	int ret;

	edit(w);
	blob = finish(w, &size);
	free(w);
	ret = discover(blob, &bi);
	free(blob);
	ST_EXPECT(ret == -1, "%s: platform_discover returned %d", what, ret);
	ST_EXPECT(host_console_contains(msg), "%s: no message '%s'", what, msg);
	return 0;
}

static void edit_prop_past_end(struct fdtw *w)
{
	begin_node(w, "");
	begin_node(w, "memory@40000000");
	prop_cells(w, "reg", 3, 0, 0x40000000, 0x1000000);
	put32(w->st + w->last_len, 0x10000);
	end_node(w);
	end_node(w);
}

static void edit_bootargs_unterminated(struct fdtw *w)
{
	begin_node(w, "");
	begin_node(w, "memory@40000000");
	prop_str(w, "device_type", "memory");
	prop_cells(w, "reg", 3, 0, 0x40000000, 0x1000000);
	end_node(w);
	begin_node(w, "chosen");
	prop(w, "bootargs", "console", 7);
	end_node(w);
	end_node(w);
}

static void edit_name_unterminated(struct fdtw *w)
{
	begin_node(w, "");
	tok(w, 1);
	memcpy(w->st + w->st_len, "abcd", 4);	/* and then the block ends */
	w->st_len += 4;
	w->no_end = true;
}

static void edit_no_memory(struct fdtw *w)
{
	begin_node(w, "");
	begin_node(w, "memory@40000000");
	prop_str(w, "device_type", "memory");
	end_node(w);
	end_node(w);
}

static void edit_no_end(struct fdtw *w)
{
	build_virt(w);
	w->st_len -= 4;	/* the root's FDT_END_NODE */
	w->no_end = true;
}

static void edit_prop_after_subnode(struct fdtw *w)
{
	begin_node(w, "");
	begin_node(w, "chosen");
	end_node(w);
	prop_u32(w, "#address-cells", 1);
	end_node(w);
}

static void edit_rsv_unterminated(struct fdtw *w)
{
	build_virt(w);
	w->rsv_unterminated = true;
}

static void edit_too_many_reserved(struct fdtw *w)
{
	build_virt(w);
	for (unsigned int i = 0; i < 70; i++) {
		w->rsv[w->n_rsv][0] = 0x50000000 + i * 0x1000;
		w->rsv[w->n_rsv++][1] = 0x1000;
	}
}

static void edit_reg_odd(struct fdtw *w)
{
	begin_node(w, "");
	begin_node(w, "memory@40000000");
	prop_str(w, "device_type", "memory");
	prop_cells(w, "reg", 4, 0, 0x40000000, 0, 0x1000000);
	end_node(w);
	end_node(w);
}

static void edit_timer_short(struct fdtw *w)
{
	build_virt(w);
	w->st_len -= 4;
	begin_node(w, "timer2");
	prop_str(w, "compatible", "arm,armv8-timer");
	prop_cells(w, "interrupts", 6, 1, 13, 4, 1, 14, 4);
	end_node(w);
	end_node(w);
}

static void edit_gic_one_reg(struct fdtw *w)
{
	begin_node(w, "");
	prop_u32(w, "#size-cells", 2);
	begin_node(w, "intc@8000000");
	prop_str(w, "compatible", "arm,gic-v3");
	prop_cells(w, "reg", 4, 0, 0x8000000, 0, 0x10000);
	end_node(w);
	end_node(w);
}

static void edit_bad_token(struct fdtw *w)
{
	begin_node(w, "");
	tok(w, 7);
	end_node(w);
}

static void edit_too_deep(struct fdtw *w)
{
	for (unsigned int i = 0; i < 20; i++)
		begin_node(w, i ? "n" : "");
	for (unsigned int i = 0; i < 20; i++)
		end_node(w);
}

static void edit_strings_cut(struct fdtw *w)
{
	edit_no_memory(w);
	w->str_len--;	/* "device_type" loses its NUL at the end of the block */
}

/*
 * RAM and a /chosen with QEMU's initrd properties (-initrd: the boot module,
 * a trace for "replay"); start_cells/end_cells 0 leave the property out, 3
 * makes it 12 bytes.
 */
static void prop_cell(struct fdtw *w, const char *name, unsigned int cells, uint64_t val)
{
	uint8_t v[12] = { 0 };

	put32(v + 4 * (cells - 1), (uint32_t)val);
	if (cells >= 2)
		put32(v + 4 * (cells - 2), (uint32_t)(val >> 32));
	prop(w, name, v, 4 * cells);
}

static void build_initrd(struct fdtw *w, unsigned int start_cells, uint64_t start,
			 unsigned int end_cells, uint64_t end)
{
	begin_node(w, "");
	begin_node(w, "memory@40000000");
	prop_str(w, "device_type", "memory");
	prop_cells(w, "reg", 3, 0, 0x40000000, 0x10000000);
	end_node(w);
	begin_node(w, "chosen");
	if (start_cells)
		prop_cell(w, "linux,initrd-start", start_cells, start);
	if (end_cells)
		prop_cell(w, "linux,initrd-end", end_cells, end);
	end_node(w);
	end_node(w);
}

static void edit_initrd_no_end(struct fdtw *w)
{
	build_initrd(w, 1, 0x48000000, 0, 0);
}

static void edit_initrd_backwards(struct fdtw *w)
{
	build_initrd(w, 2, 0x48001000, 2, 0x48000000);
}

static void edit_initrd_three_cells(struct fdtw *w)
{
	build_initrd(w, 3, 0x48000000, 1, 0x48001000);
}

/* QEMU -initrd: the module's range from /chosen (one- and two-cell forms), reserved. */
SELFTEST_HOST(dtb_host_initrd)
{
	static struct boot_info bi;
	struct fdtw *w = new_writer();
	uint32_t size;
	uint8_t *blob;
	int ret;

	build_initrd(w, 1, 0x48000000, 2, 0x48000300);
	blob = finish(w, &size);
	free(w);
	ret = discover(blob, &bi);
	free(blob);
	ST_EXPECT(ret == 0, "platform_discover returned %d", ret);
	ST_EXPECT(bi.module_start == 0x48000000 && bi.module_end == 0x48000300,
		  "module [0x%llx, 0x%llx)", (unsigned long long)bi.module_start,
		  (unsigned long long)bi.module_end);
	ST_EXPECT(bi.n_reserved == 2 && range_is(&bi.reserved[1], 0x48000000, 0x48000300),
		  "%u reserved ranges: the initrd is not the second", bi.n_reserved);
	ST_EXPECT(host_console_contains("  mem [0000000048000000-00000000480002ff] reserved (initrd)\n"),
		  "the initrd's reservation not printed");
	return 0;
}

SELFTEST_HOST(dtb_host_malformed_trees)
{
	static const struct {
		const char *what;
		void (*edit)(struct fdtw *w);
		const char *msg;
	} cases[] = {
		{ "property past the block", edit_prop_past_end,
		  "dtb: property 'reg' of /memory@40000000 runs past the structure block at offset 0x" },
		{ "unterminated bootargs", edit_bootargs_unterminated,
		  "dtb: property 'bootargs' of /chosen is not a NUL-terminated string" },
		{ "unterminated node name", edit_name_unterminated,
		  "dtb: name of the node at offset 0x" },
		{ "unterminated property name", edit_strings_cut,
		  "is not a string inside the strings block" },
		{ "no memory", edit_no_memory, "dtb: no node with device_type \"memory\"" },
		{ "no FDT_END", edit_no_end, "dtb: structure block ends at offset 0x" },
		{ "property after subnode", edit_prop_after_subnode,
		  "dtb: property '#address-cells' at offset 0x" },
		{ "memreserve unterminated", edit_rsv_unterminated,
		  "dtb: memory reservation map has no end entry" },
		{ "too many reserved", edit_too_many_reserved, "dtb: more than 64 reserved ranges" },
		{ "reg length", edit_reg_odd,
		  "dtb: property 'reg' of /memory@40000000 (16 bytes) does not fit" },
		{ "short timer interrupts", edit_timer_short,
		  "dtb: property 'interrupts' of /timer2 is 24 bytes" },
		{ "GICv3 with one reg", edit_gic_one_reg,
		  "dtb: /intc@8000000 (GICv3) has fewer than 2 reg entries" },
		{ "unknown token", edit_bad_token, "dtb: unknown token 0x7 at offset 0x" },
		{ "too deep", edit_too_deep, "is nested too deep" },
		{ "initrd start without end", edit_initrd_no_end,
		  "dtb: /chosen has linux,initrd-start without linux,initrd-end" },
		{ "initrd ending before it starts", edit_initrd_backwards,
		  "dtb: /chosen: linux,initrd-end 0x48000000 is below linux,initrd-start 0x48001000" },
		{ "initrd start of three cells", edit_initrd_three_cells,
		  "dtb: property 'linux,initrd-start' of /chosen is 12 bytes, not one 32- or 64-bit cell" },
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++)
		if (expect_bad(cases[i].what, cases[i].edit, cases[i].msg))
			return -1;
	return 0;
}

/* Header faults, on a good blob patched (or cut) after finish. */
SELFTEST_HOST(dtb_host_bad_headers)
{
	static struct boot_info bi;
	static const uint32_t fields[][2] = {	/* header offset, value */
		{ 20, 15 }, { 24, 18 }, { 8, 0x11 }, { 8, 0x20 }, { 36, 0x100000 },
		{ 12, 0x7fffffff }, { 32, 0xffffffff }, { 16, 0x44 }, { 16, 0 },
	};
	static const char *const msgs[] = {
		"dtb: version 15 (last compatible 16)", "dtb: version 17 (last compatible 18)",
		"dtb: structure block at offset 0x11", "dtb: structure block at offset 0x20",
		"dtb: structure block at offset", "dtb: strings block at offset 0x7fffffff",
		"dtb: strings block at offset", "dtb: memory reservation map at offset 0x44",
		"dtb: memory reservation map at offset 0x0,",
	};
	struct fdtw *w = new_writer();
	uint32_t size;
	uint8_t *blob, *cut;
	int ret;

	build_virt(w);
	blob = finish(w, &size);
	free(w);
	host_console_clear();
	ret = platform_discover(0xedfe0dd0, VIRT_TO_PHYS(blob), &bi);
	ST_EXPECT(ret == -1 && host_console_contains("dtb: bad magic 0xedfe0dd0 at phys 0x"),
		  "byte-swapped magic: %d", ret);
	for (unsigned int i = 0; i < ARRAY_SIZE(fields); i++) {
		uint32_t old = get32(blob + fields[i][0]);

		put32(blob + fields[i][0], fields[i][1]);
		ret = discover(blob, &bi);
		put32(blob + fields[i][0], old);
		ST_EXPECT(ret == -1 && host_console_contains(msgs[i]),
			  "header word %u = 0x%x: %d, no message '%s'", fields[i][0], fields[i][1],
			  ret, msgs[i]);
	}
	for (uint32_t n = 8; n < 40; n += 4) {	/* a header cut short */
		cut = malloc(n);
		ST_EXPECT(cut != NULL, "malloc");
		memcpy(cut, blob, n);
		put32(cut + 4, n);
		ret = discover(cut, &bi);
		free(cut);
		ST_EXPECT(ret == -1 && host_console_contains("dtb: header truncated: totalsize"),
			  "totalsize %u: %d", n, ret);
	}
	free(blob);
	return 0;
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Random damage to the virt blob (never to totalsize, which the reader must
 * trust): every result must be 0 or -1, and ASan sees no read outside the
 * blob. The console goes to /dev/null meanwhile: these runs print a lot.
 */
SELFTEST_HOST(dtb_host_fuzz)
{
	static struct boot_info bi;
	struct fdtw *w = new_writer();
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	unsigned int ok = 0, bad = 0, odd = 0;
	int saved = dup(1), null = open("/dev/null", O_WRONLY);
	uint32_t size;
	uint8_t *blob, *copy;

	build_virt(w);
	blob = finish(w, &size);
	free(w);
	copy = malloc(size);
	ST_EXPECT(copy && saved >= 0 && null >= 0, "setup failed");
	fflush(stdout);
	dup2(null, 1);
	for (unsigned int i = 0; i < 3000 * SELFTEST_SCALE / 10; i++) {
		unsigned int flips = 1 + (unsigned int)(rng(&seed) % 4);
		int ret;

		memcpy(copy, blob, size);
		while (flips--) {
			uint32_t at = (uint32_t)(rng(&seed) % size);
			uint64_t r = rng(&seed);

			if (at >= 4 && at < 8)
				continue;
			copy[at] = r & 1 ? (uint8_t)(r >> 8) : (uint8_t)(copy[at] ^ (1u << (r >> 8 & 7)));
		}
		ret = discover(copy, &bi);
		ok += ret == 0;
		bad += ret == -1;
		odd += ret != 0 && ret != -1;
	}
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(null);
	free(copy);
	free(blob);
	printk("dtb fuzz: %u accepted, %u rejected\n", ok, bad);
	ST_EXPECT(odd == 0 && ok > 0 && bad > 0, "%u odd results, %u ok, %u rejected", odd, ok,
		  bad);
	return 0;
}

/* What build_numa varies from a good two-node tree. */
struct numa_knobs {
	bool no_ids;		/* no numa-node-id and no /distance-map at all */
	bool mem1_two_cells;	/* memory@48000000's numa-node-id is 8 bytes */
	uint32_t mem1_node;	/* memory@48000000's node (default 1) */
	bool cpu3_no_id;	/* cpu@3 has no numa-node-id */
	uint32_t back;		/* distance 1 -> 0 given as this (0: left to the 0 -> 1 one) */
	bool far_node;		/* a triple <9 0 20> */
	bool short_matrix;	/* distance-matrix of 16 bytes */
};

static struct numa_knobs numa_knobs;

/*
 * A tree shaped like `qemu-system-aarch64 -M virt -smp 4` with two NUMA
 * nodes: 128 MiB and CPUs 0-1 on node 0, 128 MiB and CPUs 2-3 on node 1,
 * distance-map 10/20 with 1 -> 0 left out (the binding fills it in).
 */
static void build_numa(struct fdtw *w)
{
	const struct numa_knobs *k = &numa_knobs;
	char name[32];

	begin_node(w, "");
	prop_u32(w, "#size-cells", 2);
	prop_u32(w, "#address-cells", 2);
	prop_str(w, "compatible", "linux,dummy-virt");
	if (!k->no_ids) {
		begin_node(w, "distance-map");
		if (k->short_matrix)
			prop_cells(w, "distance-matrix", 4, 0, 0, 10, 0);
		else if (k->far_node)
			prop_cells(w, "distance-matrix", 12, 0, 0, 10, 0, 1, 20, 1, 1, 10, 9, 0, 20);
		else if (k->back)
			prop_cells(w, "distance-matrix", 12, 0, 0, 10, 0, 1, 20, 1, 0, k->back, 1, 1,
				   10);
		else
			prop_cells(w, "distance-matrix", 9, 0, 0, 10, 0, 1, 20, 1, 1, 10);
		prop_str(w, "compatible", "numa-distance-map-v1");
		end_node(w);
	}
	begin_node(w, "memory@40000000");
	if (!k->no_ids)
		prop_u32(w, "numa-node-id", 0);
	prop_cells(w, "reg", 4, 0, 0x40000000, 0, 0x08000000);
	prop_str(w, "device_type", "memory");
	end_node(w);
	begin_node(w, "memory@48000000");
	if (k->mem1_two_cells)
		prop_cells(w, "numa-node-id", 2, 0, 1);
	else if (!k->no_ids)
		prop_u32(w, "numa-node-id", k->mem1_node ? k->mem1_node : 1);
	prop_cells(w, "reg", 4, 0, 0x48000000, 0, 0x08000000);
	prop_str(w, "device_type", "memory");
	end_node(w);
	begin_node(w, "cpus");
	prop_u32(w, "#size-cells", 0);
	prop_u32(w, "#address-cells", 1);
	for (unsigned int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "cpu@%u", i);
		begin_node(w, name);
		if (!k->no_ids && !(i == 3 && k->cpu3_no_id))
			prop_u32(w, "numa-node-id", i / 2);
		prop_u32(w, "reg", i);
		prop_str(w, "device_type", "cpu");
		end_node(w);
	}
	end_node(w);
	end_node(w);
}

/* build_numa with numa_knobs, discovered, then its topology built on 4 CPUs (MPIDR 0-3). */
static int numa_discover(struct boot_info *bi, struct numa_topology *t, int *build_ret)
{
	static const uint64_t mpidr[] = { 0, 1, 2, 3 };
	struct fdtw *w = new_writer();
	uint32_t size;
	uint8_t *blob;
	int ret;

	build_numa(w);
	blob = finish(w, &size);
	free(w);
	ret = discover(blob, bi);
	free(blob);
	*build_ret = numa_build(t, bi->numa, bi->avail, bi->n_avail, mpidr, 4);
	return ret;
}

SELFTEST_HOST(dtb_host_numa_two_nodes)
{
	static struct boot_info bi;
	static struct numa_topology t;
	const struct numa_firmware *nf = &dt_platform.numa;
	int ret, built;

	memset(&numa_knobs, 0, sizeof(numa_knobs));
	ret = numa_discover(&bi, &t, &built);
	ST_EXPECT(ret == 0 && built == 0, "discover %d, numa_build %d", ret, built);
	ST_EXPECT(bi.numa == nf && nf->present && !nf->bad, "no NUMA record");
	ST_EXPECT(nf->n_mem == 2 && nf->mem[0].node == 0 && nf->mem[1].node == 1 &&
			  nf->mem[1].start == 0x48000000 && nf->mem[1].end == 0x50000000,
		  "%u memory ranges", nf->n_mem);
	ST_EXPECT(nf->n_cpu == 4 && nf->cpu[2].hwid == 2 && nf->cpu[2].node == 1 &&
			  nf->cpu[1].node == 0,
		  "%u CPU affinities", nf->n_cpu);
	ST_EXPECT(nf->has_distance && nf->dist_nodes == 2 && nf->distance[0][1] == 20 &&
			  nf->distance[1][0] == 20 && nf->distance[1][1] == 10,
		  "distances %u %u", nf->distance[0][1], nf->distance[1][0]);
	ST_EXPECT(t.nr_nodes == 2 && t.cpu_node[0] == 0 && t.cpu_node[1] == 0 &&
			  t.cpu_node[2] == 1 && t.cpu_node[3] == 1 && t.distance[1][0] == 20,
		  "topology: %u nodes", t.nr_nodes);
	ST_EXPECT(!host_console_contains("numa:") && !host_console_contains("dtb: property"),
		  "a good tree was complained about");
	host_console_clear();
	numa_print(&t);
	ST_EXPECT(host_console_contains("NUMA: 2 nodes (device tree, distance-map)\n") &&
			  host_console_contains("NUMA: node 1: [mem 0x48000000-0x4fffffff]\nNUMA: node 1 CPUs: 2-3\n"),
		  "boot log lines wrong");

	numa_knobs.no_ids = true;
	ret = numa_discover(&bi, &t, &built);
	ST_EXPECT(ret == 0 && built == 0 && !nf->present && t.nr_nodes == 1 && t.n_ranges == 2,
		  "a tree without NUMA: %d %d, %u nodes", ret, built, t.nr_nodes);
	ST_EXPECT(!host_console_contains("numa:"), "no NUMA is not a fault");
	return 0;
}

SELFTEST_HOST(dtb_host_numa_bad)
{
	static const struct {
		const char *what;
		struct numa_knobs k;
		const char *msg;
	} cases[] = {
		{ "numa-node-id of two cells", { .mem1_two_cells = true },
		  "dtb: property 'numa-node-id' of /memory@48000000 is 8 bytes, not one cell\n" },
		{ "CPU without a node", { .cpu3_no_id = true },
		  "numa: CPU 3 (MPIDR 0x3) is on no node: using one node\n" },
		{ "distance-map names node 9", { .far_node = true },
		  "numa: the distance-map names node 9, above the highest node 7: using one node\n" },
		{ "distance-matrix not triples", { .short_matrix = true },
		  "dtb: /distance-map: property 'distance-matrix' is 16 bytes, not <from to distance> triples\n" },
		{ "asymmetric distance-map", { .back = 30 },
		  "numa: distance table not symmetric: node 0->1 is 20, 1->0 is 30: using one node\n" },
		{ "memory on node 12", { .mem1_node = 12 },
		  "numa: memory [0x48000000-0x50000000) is on node 12, above the highest node 7: using one node\n" },
	};
	static struct boot_info bi;
	static struct numa_topology t;

	for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret, built;

		numa_knobs = cases[i].k;
		ret = numa_discover(&bi, &t, &built);
		ST_EXPECT(ret == 0 && bi.n_avail == 2, "%s: the tree itself was refused (%d)",
			  cases[i].what, ret);
		ST_EXPECT(built == -1 && t.fallback, "%s: numa_build returned %d", cases[i].what,
			  built);
		ST_EXPECT(host_console_contains(cases[i].msg), "%s: no message '%s'", cases[i].what,
			  cases[i].msg);
		ST_EXPECT(host_console_count("numa:") == 1, "%s: %u numa: lines", cases[i].what,
			  host_console_count("numa:"));
		ST_EXPECT(t.nr_nodes == 1 && t.n_cpus == 4 && t.cpu_node[3] == 0 && t.n_ranges == 2 &&
				  t.ranges[1].end == 0x50000000,
			  "%s: not one node with all RAM and CPUs", cases[i].what);
	}
	return 0;
}
