/*
 * numa.c - checking the firmware's NUMA topology and keeping the result.
 *
 * numa_build() turns a struct numa_firmware (unchecked, from the SRAT/SLIT
 * or the device tree) into a struct numa_topology, or, at the first rule
 * the record breaks, says which and where and builds one node instead.
 * Nothing here reads the machine: the caller passes RAM and CPU IDs.
 */
#include "kernel/numa.h"
#include "kernel/atomic.h"
#include "kernel/printk.h"
#include "kernel/string.h"

/* Before numa_init: one node, everything on it. */
static struct numa_topology numa_topo = {
	.source = "not set up yet",
	.nr_nodes = 1,
	.online = 1,
	.distance = { { NUMA_LOCAL_DISTANCE } },
};

/* Say "numa: <what>: using one node" and return false. */
static bool __printf(1, 2) refuse(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk_line("numa: ", ": using one node", fmt, ap);
	va_end(ap);
	return false;
}

/* A CPU's hardware ID as messages show it: "APIC 3", "MPIDR 0x101". */
struct hwid_buf {
	char s[40];
};

static struct hwid_buf hwid_str(const struct numa_firmware *fw, uint64_t hwid)
{
	struct hwid_buf b;
	bool apic = fw->hwid_name && !strcmp(fw->hwid_name, "APIC");

	snprintf(b.s, sizeof(b.s), apic ? "%s %llu" : "%s 0x%llx",
		 fw->hwid_name ? fw->hwid_name : "ID", (unsigned long long)hwid);
	return b;
}

/* Sort t's ranges by start address (few: insertion sort). */
static void sort_ranges(struct numa_topology *t)
{
	for (unsigned int i = 1; i < t->n_ranges; i++) {
		struct numa_range r = t->ranges[i];
		unsigned int j = i;

		for (; j && t->ranges[j - 1].start > r.start; j--)
			t->ranges[j] = t->ranges[j - 1];
		t->ranges[j] = r;
	}
}

/* One node 0 with every RAM range and every CPU, default distances. */
static void single_node(struct numa_topology *t, const struct mem_range *ram,
			unsigned int n_ram, unsigned int n_cpus, const char *source)
{
	memset(t, 0, sizeof(*t));
	t->source = source;
	t->nr_nodes = 1;
	t->online = 1;
	t->distance[0][0] = NUMA_LOCAL_DISTANCE;
	for (unsigned int i = 0; i < n_ram && t->n_ranges < NUMA_MAX_RANGES; i++)
		if (ram[i].end > ram[i].start)
			t->ranges[t->n_ranges++] =
				(struct numa_range){ ram[i].start, ram[i].end, 0 };
	t->n_cpus = n_cpus < NUMA_MAX_CPUS ? n_cpus : NUMA_MAX_CPUS;
	sort_ranges(t);
}

/* Do [a, b) and [c, d) share a byte? */
static bool overlaps(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	return a < d && c < b;
}

static bool check_ranges(const struct numa_firmware *fw, const struct mem_range *ram,
			 unsigned int n_ram)
{
	for (unsigned int i = 0; i < fw->n_mem; i++) {
		const struct numa_fw_mem *m = &fw->mem[i];
		bool in_ram = false;

		if (m->node == NUMA_NO_NODE)
			return refuse("memory [0x%llx-0x%llx) is on no node",
				      (unsigned long long)m->start, (unsigned long long)m->end);
		if (m->node >= MAX_NUMNODES)
			return refuse("memory [0x%llx-0x%llx) is on node %u, above the highest node %d",
				      (unsigned long long)m->start, (unsigned long long)m->end,
				      m->node, MAX_NUMNODES - 1);
		if (m->end <= m->start)
			return refuse("node %u range [0x%llx-0x%llx) is empty", m->node,
				      (unsigned long long)m->start, (unsigned long long)m->end);
		for (unsigned int j = 0; j < i; j++) {
			const struct numa_fw_mem *o = &fw->mem[j];

			if (overlaps(m->start, m->end, o->start, o->end))
				return refuse("node %u range [0x%llx-0x%llx) overlaps node %u's [0x%llx-0x%llx)",
					      m->node, (unsigned long long)m->start,
					      (unsigned long long)m->end, o->node,
					      (unsigned long long)o->start,
					      (unsigned long long)o->end);
		}
		for (unsigned int r = 0; r < n_ram && !in_ram; r++)
			in_ram = overlaps(m->start, m->end, ram[r].start, ram[r].end);
		if (!in_ram)
			return refuse("node %u range [0x%llx-0x%llx) is outside RAM", m->node,
				      (unsigned long long)m->start, (unsigned long long)m->end);
	}
	return true;
}

/* Every byte of RAM in some range of fw (the ranges do not overlap: checked first). */
static bool check_ram_covered(const struct numa_firmware *fw, const struct mem_range *ram,
			      unsigned int n_ram)
{
	for (unsigned int r = 0; r < n_ram; r++) {
		uint64_t p = ram[r].start;

		while (p < ram[r].end) {
			uint64_t next = ram[r].end;
			bool inside = false;

			for (unsigned int i = 0; i < fw->n_mem; i++) {
				const struct numa_fw_mem *m = &fw->mem[i];

				if (m->start <= p && p < m->end) {
					p = m->end;
					inside = true;
					break;
				}
				if (m->start > p && m->start < next)
					next = m->start;
			}
			if (!inside)
				return refuse("RAM [0x%llx-0x%llx) is on no node",
					      (unsigned long long)p, (unsigned long long)next);
		}
	}
	return true;
}

/* Each of Quarry's CPUs on a node below MAX_NUMNODES; fills t->cpu_node. */
static bool map_cpus(struct numa_topology *t, const struct numa_firmware *fw,
		     const uint64_t *cpu_hwid, unsigned int n_cpus)
{
	for (unsigned int c = 0; c < n_cpus; c++) {
		uint32_t node = NUMA_NO_NODE;

		for (unsigned int i = 0; i < fw->n_cpu; i++)
			if (fw->cpu[i].hwid == cpu_hwid[c]) {
				node = fw->cpu[i].node;
				break;
			}
		if (node == NUMA_NO_NODE)
			return refuse("CPU %u (%s) is on no node", c, hwid_str(fw, cpu_hwid[c]).s);
		if (node >= MAX_NUMNODES)
			return refuse("CPU %u (%s) is on node %u, above the highest node %d", c,
				      hwid_str(fw, cpu_hwid[c]).s, node, MAX_NUMNODES - 1);
		t->cpu_node[c] = (uint8_t)node;
		t->online |= (uint8_t)(1U << node);
	}
	t->n_cpus = n_cpus;
	return true;
}

/* The distances between online nodes, into t->distance (defaults without a table). */
static bool check_distances(struct numa_topology *t, const struct numa_firmware *fw)
{
	const char *src = fw->dist_source ? fw->dist_source : "distance table";

	if (!fw->has_distance) {
		for (unsigned int a = 0; a < MAX_NUMNODES; a++)
			for (unsigned int b = 0; b < MAX_NUMNODES; b++)
				t->distance[a][b] = a == b ? NUMA_LOCAL_DISTANCE : NUMA_REMOTE_DISTANCE;
		return true;
	}
	if (fw->bad_dist_node != NUMA_NO_NODE)
		return refuse("the %s names node %u, above the highest node %d", src,
			      fw->bad_dist_node, MAX_NUMNODES - 1);
	for (unsigned int a = 0; a < MAX_NUMNODES; a++) {
		for (unsigned int b = 0; b < MAX_NUMNODES; b++) {
			uint32_t d = a < fw->dist_nodes && b < fw->dist_nodes ? fw->distance[a][b] : 0;
			uint32_t back = a < fw->dist_nodes && b < fw->dist_nodes ? fw->distance[b][a] : 0;

			if (!(t->online & (1U << a)) || !(t->online & (1U << b))) {
				t->distance[a][b] = a == b ? NUMA_LOCAL_DISTANCE : NUMA_REMOTE_DISTANCE;
				continue;
			}
			if (!d)
				return refuse("the %s gives no distance from node %u to node %u", src,
					      a, b);
			if (a == b && d != NUMA_LOCAL_DISTANCE)
				return refuse("distance from node %u to itself is %u, not %d", a, d,
					      NUMA_LOCAL_DISTANCE);
			if (a != b && d <= NUMA_LOCAL_DISTANCE)
				return refuse("distance from node %u to node %u is %u: a remote distance must be above %d",
					      a, b, d, NUMA_LOCAL_DISTANCE);
			if (d > 255)
				return refuse("distance from node %u to node %u is %u, above 255", a,
					      b, d);
			if (back && back != d)
				return refuse("distance table not symmetric: node %u->%u is %u, %u->%u is %u",
					      a, b, d, b, a, back);
			t->distance[a][b] = (uint8_t)d;
		}
	}
	return true;
}

/* fw's checks, then t filled; false after refusing. */
static bool build(struct numa_topology *t, const struct numa_firmware *fw,
		  const struct mem_range *ram, unsigned int n_ram, const uint64_t *cpu_hwid,
		  unsigned int n_cpus)
{
	const char *src = fw->source ? fw->source : "firmware";

	memset(t, 0, sizeof(*t));
	t->source = src;
	if (fw->bad)
		return refuse("the %s is malformed (see above)", src);
	if (!fw->n_mem && !fw->n_cpu)
		return refuse("the %s puts no memory and no CPU on any node", src);
	if (fw->n_mem_dropped)
		return refuse("the %s has more than %d memory ranges", src, NUMA_MAX_RANGES);
	if (n_cpus > NUMA_MAX_CPUS)
		return refuse("%u CPUs, more than the %d a topology keeps", n_cpus, NUMA_MAX_CPUS);
	if (!check_ranges(fw, ram, n_ram) || !check_ram_covered(fw, ram, n_ram))
		return false;
	for (unsigned int i = 0; i < fw->n_mem; i++) {
		t->ranges[t->n_ranges++] =
			(struct numa_range){ fw->mem[i].start, fw->mem[i].end, fw->mem[i].node };
		t->online |= (uint8_t)(1U << fw->mem[i].node);
	}
	if (!map_cpus(t, fw, cpu_hwid, n_cpus) || !check_distances(t, fw))
		return false;
	t->dist_source = fw->has_distance ? fw->dist_source : NULL;
	for (unsigned int n = 0; n < MAX_NUMNODES; n++)
		t->nr_nodes += !!(t->online & (1U << n));
	sort_ranges(t);
	return true;
}

/* numa_build: see kernel/numa.h. */
int numa_build(struct numa_topology *t, const struct numa_firmware *fw,
	       const struct mem_range *ram, unsigned int n_ram, const uint64_t *cpu_hwid,
	       unsigned int n_cpus)
{
	if (!fw || !fw->present) {
		single_node(t, ram, n_ram, n_cpus, "no topology from the firmware");
		return 0;
	}
	if (build(t, fw, ram, n_ram, cpu_hwid, n_cpus))
		return 0;
	single_node(t, ram, n_ram, n_cpus, "the firmware's topology refused");
	t->fallback = true;
	return -1;
}

/* "0-1,4" for the CPUs of node into buf; "none" when it has none. */
static void cpu_list(const struct numa_topology *t, unsigned int node, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int c = 0; c < t->n_cpus && len < size; c++) {
		unsigned int last = c;

		if (t->cpu_node[c] != node)
			continue;
		while (last + 1 < t->n_cpus && t->cpu_node[last + 1] == node)
			last++;
		len += (size_t)snprintf(buf + len, size - len, last > c ? "%s%u-%u" : "%s%u",
					len ? "," : "", c, last);
		c = last;
	}
	if (!len)
		snprintf(buf, size, "none");
}

/* numa_print: see kernel/numa.h. */
void numa_print(const struct numa_topology *t)
{
	char line[8 + 5 * MAX_NUMNODES];
	char cpus[128];

	printk("NUMA: %u node%s (%s%s%s)\n", t->nr_nodes, t->nr_nodes == 1 ? "" : "s", t->source,
	       t->dist_source ? ", " : "", t->dist_source ? t->dist_source : "");
	for (unsigned int n = 0; n < MAX_NUMNODES; n++) {
		bool any = false;

		if (!(t->online & (1U << n)))
			continue;
		for (unsigned int i = 0; i < t->n_ranges; i++) {
			if (t->ranges[i].node != n)
				continue;
			printk("NUMA: node %u: [mem 0x%08llx-0x%08llx]\n", n,
			       (unsigned long long)t->ranges[i].start,
			       (unsigned long long)t->ranges[i].end - 1);
			any = true;
		}
		if (!any)
			printk("NUMA: node %u: no memory\n", n);
		cpu_list(t, n, cpus, sizeof(cpus));
		printk("NUMA: node %u CPUs: %s\n", n, cpus);
	}
	printk("node distances:\n");
	{
		size_t len = (size_t)snprintf(line, sizeof(line), "node ");

		for (unsigned int n = 0; n < MAX_NUMNODES; n++)
			if (t->online & (1U << n))
				len += (size_t)snprintf(line + len, sizeof(line) - len, "%4u", n);
		printk("%s\n", line);
	}
	for (unsigned int a = 0; a < MAX_NUMNODES; a++) {
		size_t len;

		if (!(t->online & (1U << a)))
			continue;
		len = (size_t)snprintf(line, sizeof(line), "%4u:", a);
		for (unsigned int b = 0; b < MAX_NUMNODES; b++)
			if (t->online & (1U << b))
				len += (size_t)snprintf(line + len, sizeof(line) - len, "%4u",
							t->distance[a][b]);
		printk("%s\n", line);
	}
}

/* numa_generation: see kernel/numa.h. */
unsigned int numa_generation;

/* numa_init: see kernel/numa.h. */
void numa_init(const struct numa_firmware *fw, const struct mem_range *ram,
	       unsigned int n_ram, const uint64_t *cpu_hwid, unsigned int n_cpus)
{
	static struct numa_topology t;

	numa_build(&t, fw, ram, n_ram, cpu_hwid, n_cpus);
	numa_topo = t;
	smp_store_release(&numa_generation, numa_generation + 1);
	numa_print(&numa_topo);
}

/* numa_topology: see kernel/numa.h. */
const struct numa_topology *numa_topology(void)
{
	return &numa_topo;
}

/* numa_num_nodes: see kernel/numa.h. */
unsigned int numa_num_nodes(void)
{
	return numa_topo.nr_nodes;
}

/* numa_node_online: see kernel/numa.h. */
bool numa_node_online(unsigned int node)
{
	return node < MAX_NUMNODES && (numa_topo.online & (1U << node));
}

/* cpu_to_node: see kernel/numa.h. */
unsigned int cpu_to_node(unsigned int cpu)
{
	return cpu < numa_topo.n_cpus ? numa_topo.cpu_node[cpu] : 0;
}

/* node_distance: see kernel/numa.h. */
unsigned int node_distance(unsigned int a, unsigned int b)
{
	if (a == b)
		return NUMA_LOCAL_DISTANCE;
	if (!numa_node_online(a) || !numa_node_online(b))
		return NUMA_REMOTE_DISTANCE;
	return numa_topo.distance[a][b];
}

/* numa_node_range: see kernel/numa.h. */
bool numa_node_range(unsigned int node, unsigned int i, struct mem_range *r)
{
	for (unsigned int k = 0; k < numa_topo.n_ranges; k++) {
		if (numa_topo.ranges[k].node != node)
			continue;
		if (!i--) {
			*r = (struct mem_range){ numa_topo.ranges[k].start, numa_topo.ranges[k].end };
			return true;
		}
	}
	return false;
}
