/*
 * bench_numa.c - what a remote NUMA node costs the object allocators, on a
 * machine of two nodes or more (nothing runs, nothing prints, on one):
 *   a. CPU 0 allocates BENCH_OBJECTS objects of a private cache with
 *      kmem_cache_alloc_node on its own node, then frees them; then the
 *      same on another node (numa_alloc_local, numa_alloc_remote). Each
 *      figure is per call; placed_pct is the share of the objects whose
 *      page is on the node asked for (an allocator that ignores the node
 *      serves CPU 0's node, so its remote share is what the page allocator
 *      happened to give);
 *   b. CPU 0 allocates them on its node and a CPU frees them: CPU 0 itself,
 *      then a CPU of another node (numa_free_local, numa_free_remote); then
 *      that CPU calls kmem_cache_shrink, the flush of what its frees left
 *      cached (SLAB's alien arrays, SLUB's remote frees), per object freed;
 *   c. the seeds' test 3 over the nodes: every CPU allocates BENCH_OBJECTS
 *      on its own node (numa_concurrent_local) or on the next node
 *      (numa_concurrent_remote) at once, through a barrier, then frees
 *      them; under -icount with several CPUs in turns (bench_turn) and with
 *      the whole machine's span per operation per CPU, as test 3 does.
 * Before each timed run a sweep over more memory than the modelled last-level
 * cache evicts the run before's objects from it and from the sweeping CPU's
 * own levels (evict_caches), so local and remote runs start alike.
 * Single-CPU loops run with interrupts off, as bench_kmalloc.c's do. Each
 * timed loop is a cache-model region (marker.h) on the CPU that runs it, so
 * the model (nodes=) gives its local and remote memory accesses.
 */
#include "lab/bench.h"
#include "tools/cachemodel/geometry.h"
#include "tools/cachemodel/marker.h"
#include "kernel/numa.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "mm/buddy.h"
#include "mm/page.h"
#include "mm/slab.h"
#include <asm/irqflags.h>
#include <asm/processor.h>

static const size_t numa_sizes[] = { 32, 256 };

/* The order of a block holding BENCH_OBJECTS pointers. */
static unsigned int numa_ptr_order(void)
{
	unsigned int order = 0;

	while ((PAGE_SIZE << order) < BENCH_OBJECTS * sizeof(void *))
		order++;
	return order;
}

/* The first online node after node (wrapping), or node when it is alone. */
static unsigned int next_node(unsigned int node)
{
	for (unsigned int i = 1; i < MAX_NUMNODES; i++) {
		unsigned int n = (node + i) % MAX_NUMNODES;

		if (numa_node_online(n))
			return n;
	}
	return node;
}

/* The first online CPU of node, or NR_CPUS when it has none. */
static unsigned int first_cpu_of(unsigned int node)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		if (cpu_to_node(cpu) == node)
			return cpu;
	return NR_CPUS;
}

/* Allocate n objects of c on node into objs, touching a byte of each; how many it got. */
static unsigned long node_alloc_loop(struct kmem_cache *c, unsigned int node, void **objs,
				     unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		void *p = kmem_cache_alloc_node(c, node);

		if (unlikely(!p))
			return i;
		*(volatile char *)p = 1;
		objs[i] = p;
	}
	return n;
}

static void node_free_loop(struct kmem_cache *c, void **objs, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		kmem_cache_free(c, objs[i]);
}

/* Percent of the n objects whose page is on node. */
static unsigned long placed_pct(void **objs, unsigned long n, unsigned int node)
{
	unsigned long on = 0;

	for (unsigned long i = 0; i < n; i++)
		on += page_to_nid(virt_to_page(objs[i])) == node;
	return n ? on * 100 / n : 0;
}

/* What the counter counts, for the console lines (the BENCH lines say it too). */
static const char *numa_unit(void)
{
	return bench_icount ? "instructions" : "cycles";
}

/* Blocks of MAX_ORDER touched by evict_caches: more than the cache model's LLC. */
#define EVICT_BLOCKS	12

/*
 * evict_caches - touch one byte of every cache line of EVICT_BLOCKS free
 * blocks (as many as there are), then free them: the objects of the run
 * before leave the caches, so every timed run starts from the same state and
 * a remote run is not served from the lines its local run brought in.
 */
static void evict_caches(void)
{
	void *blk[EVICT_BLOCKS];
	unsigned int n = 0;

	while (n < EVICT_BLOCKS && (blk[n] = get_free_pages(MAX_ORDER)))
		n++;
	for (unsigned int i = 0; i < n; i++)
		for (size_t off = 0; off < (PAGE_SIZE << MAX_ORDER); off += CM_LINE)
			((volatile char *)blk[i])[off] = 0;
	while (n)
		free_pages_addr(blk[--n], MAX_ORDER);
}

static struct kmem_cache *numa_cache(size_t size)
{
	char name[24];

	snprintf(name, sizeof(name), "bench-numa-%zu", size);
	return kmem_cache_create(name, size, 0, SLAB_NO_DEBUG, NULL);
}

/* a: CPU 0 allocates on node, then frees; one BENCH line. */
static void alloc_on_node(struct kmem_cache *c, size_t size, void **objs, unsigned int node,
			  bool remote)
{
	unsigned int here = cpu_to_node(smp_processor_id());
	unsigned long flags, got, pct;
	uint64_t t0, t1, t2;

	kmem_cache_free(c, kmem_cache_alloc_node(c, node));	/* warm-up */
	evict_caches();
	flags = arch_irq_save();
	t0 = arch_cycles();
	MODEL_BEGIN(MODEL_R_NUMA_ALLOC);
	got = node_alloc_loop(c, node, objs, BENCH_OBJECTS);
	MODEL_END(MODEL_R_NUMA_ALLOC);
	t1 = arch_cycles();
	pct = placed_pct(objs, got, node);
	t2 = arch_cycles();
	MODEL_BEGIN(MODEL_R_NUMA_FREE);
	node_free_loop(c, objs, got);
	MODEL_END(MODEL_R_NUMA_FREE);
	t2 = arch_cycles() - t2;
	arch_irq_restore(flags);
	if (got < BENCH_OBJECTS) {
		printk("  %d times kmem_cache_alloc_node(%zu, node %u): out of memory after %lu\n",
		       BENCH_OBJECTS, size, node, got);
		return;
	}
	printk("  %d times kmem_cache_alloc_node(%zu B, node %u, distance %u) -> %lu %s,"
	       " kmem_cache_free -> %lu; %lu%% on node %u\n", BENCH_OBJECTS, size, node,
	       node_distance(here, node), bench_per_op(t1 - t0, got), numa_unit(),
	       bench_per_op(t2, got), pct, node);
	bench_line(remote ? "numa_alloc_remote" : "numa_alloc_local", size, 5, "node",
		   (unsigned long)node, "distance", (unsigned long)node_distance(here, node),
		   "alloc_cost", bench_per_op(t1 - t0, got), "free_cost", bench_per_op(t2, got),
		   "placed_pct", pct);
}

struct numa_free_run {
	struct kmem_cache *c;
	void **objs;
	unsigned long n;
	uint64_t free_cycles, flush_cycles;
};

static void numa_free_cpu(void *arg)
{
	struct numa_free_run *r = arg;
	unsigned long flags = arch_irq_save();
	uint64_t t0, t1, t2;

	t0 = arch_cycles();
	MODEL_BEGIN(MODEL_R_NUMA_RFREE);
	node_free_loop(r->c, r->objs, r->n);
	MODEL_END(MODEL_R_NUMA_RFREE);
	t1 = arch_cycles();
	MODEL_BEGIN(MODEL_R_NUMA_FLUSH);
	kmem_cache_shrink(r->c);
	MODEL_END(MODEL_R_NUMA_FLUSH);
	t2 = arch_cycles();
	arch_irq_restore(flags);
	r->free_cycles = t1 - t0;
	r->flush_cycles = t2 - t1;
}

/* b: CPU 0 allocates on its node, cpu frees them and flushes; one BENCH line. */
static void free_from(struct kmem_cache *c, size_t size, void **objs, unsigned int cpu,
		      bool remote)
{
	struct numa_free_run r = { .c = c, .objs = objs };
	unsigned int node = cpu_to_node(cpu);

	r.n = node_alloc_loop(c, NUMA_NO_NODE, objs, BENCH_OBJECTS);
	evict_caches();
	if (smp_call_on_cpu(cpu, numa_free_cpu, &r) || r.n < BENCH_OBJECTS) {
		printk("  free on CPU %u: %lu objects allocated, not measured\n", cpu, r.n);
		return;
	}
	printk("  %d times kmem_cache_free(%zu B) on CPU %u (node %u, distance %u) -> %lu %s;"
	       " kmem_cache_shrink there -> %lu per object freed\n", BENCH_OBJECTS, size, cpu,
	       node, node_distance(cpu_to_node(0), node), bench_per_op(r.free_cycles, r.n),
	       numa_unit(), bench_per_op(r.flush_cycles, r.n));
	bench_line(remote ? "numa_free_remote" : "numa_free_local", size, 5, "cpu",
		   (unsigned long)cpu, "node", (unsigned long)node, "free_cost",
		   bench_per_op(r.free_cycles, r.n), "flush_cost", bench_per_op(r.flush_cycles, r.n),
		   "flush_total_cost", (unsigned long)r.flush_cycles);
}

struct numa_conc_run {
	struct kmem_cache *c;
	bool remote;
	struct smp_barrier barrier;
	unsigned long got[NR_CPUS];
	uint64_t alloc_cycles[NR_CPUS], free_cycles[NR_CPUS];
	uint64_t stamp[NR_CPUS][4];	/* bench_clock at each phase's start and end */
};

/* The operations per turn: see bench_turn (bench.h). */
static unsigned long numa_turn_step(void)
{
	return bench_icount && num_online_cpus() > 1 && bench_turn ? bench_turn : BENCH_OBJECTS;
}

static void numa_conc_cpu(void *arg)
{
	struct numa_conc_run *run = arg;
	unsigned int cpu = smp_processor_id(), order = numa_ptr_order();
	unsigned int node = run->remote ? next_node(cpu_to_node(cpu)) : cpu_to_node(cpu);
	unsigned long step = numa_turn_step(), got = 0, flags;
	void **objs = get_free_pages(order);
	uint64_t t0, t1, t2, t3, g[4];

	flags = arch_irq_save();
	smp_barrier_wait(&run->barrier);
	g[0] = bench_clock();
	t0 = arch_cycles();
	MODEL_BEGIN(MODEL_R_NUMA_CONC_ALLOC);
	for (unsigned long i = 0; objs && i < BENCH_OBJECTS; i += step) {
		unsigned long n = MIN(step, BENCH_OBJECTS - i);
		unsigned long k = node_alloc_loop(run->c, node, objs + i, n);

		got += k;
		if (k < n)
			break;
		if (step < BENCH_OBJECTS)
			cpu_relax();
	}
	MODEL_END(MODEL_R_NUMA_CONC_ALLOC);
	t1 = arch_cycles();
	g[1] = bench_clock();
	smp_barrier_wait(&run->barrier);
	g[2] = bench_clock();
	t2 = arch_cycles();
	MODEL_BEGIN(MODEL_R_NUMA_CONC_FREE);
	for (unsigned long i = 0; i < got; i += step) {
		node_free_loop(run->c, objs + i, MIN(step, got - i));
		if (step < BENCH_OBJECTS)
			cpu_relax();
	}
	MODEL_END(MODEL_R_NUMA_CONC_FREE);
	t3 = arch_cycles();
	g[3] = bench_clock();
	arch_irq_restore(flags);
	smp_barrier_wait(&run->barrier);
	run->got[cpu] = got;
	run->alloc_cycles[cpu] = t1 - t0;
	run->free_cycles[cpu] = t3 - t2;
	for (unsigned int i = 0; i < 4; i++)
		run->stamp[cpu][i] = g[i];
	if (objs)
		free_pages_addr(objs, order);
}

/* c: test 3 over the nodes, every CPU on its own node or the next; one BENCH line. */
static void concurrent_over_nodes(struct kmem_cache *c, size_t size, bool remote)
{
	static struct numa_conc_run run;
	uint64_t start[2] = { UINT64_MAX, UINT64_MAX }, end[2] = { 0, 0 }, a = 0, f = 0;
	unsigned long ops = 0;
	unsigned int cpu, ncpus = num_online_cpus();

	evict_caches();
	run.c = c;
	run.remote = remote;
	smp_barrier_init(&run.barrier, ncpus);
	on_each_cpu_wait(numa_conc_cpu, &run);
	for_each_online_cpu(cpu) {
		ops += run.got[cpu];
		a += run.got[cpu] ? bench_per_op(run.alloc_cycles[cpu], run.got[cpu]) : 0;
		f += run.got[cpu] ? bench_per_op(run.free_cycles[cpu], run.got[cpu]) : 0;
		for (unsigned int p = 0; p < 2; p++) {
			start[p] = MIN(start[p], run.stamp[cpu][2 * p]);
			end[p] = MAX(end[p], run.stamp[cpu][2 * p + 1]);
		}
	}
	if (ops < (unsigned long)ncpus * BENCH_OBJECTS) {
		printk("  test 3 over the nodes (%zu B): out of memory, not measured\n", size);
		return;
	}
	a = bench_per_op(a, ncpus);
	f = bench_per_op(f, ncpus);
	printk("  %u CPUs each %d times kmem_cache_alloc_node(%zu B, %s node) then free ->"
	       " %lu/%lu %s; whole machine %lu/%lu per op per CPU\n", ncpus, BENCH_OBJECTS,
	       size, remote ? "next" : "own", (unsigned long)a, (unsigned long)f, numa_unit(),
	       bench_per_op(end[0] - start[0], ops), bench_per_op(end[1] - start[1], ops));
	bench_line(remote ? "numa_concurrent_remote" : "numa_concurrent_local", size, 4,
		   "alloc_cost", (unsigned long)a, "free_cost", (unsigned long)f, "span_alloc_cost",
		   bench_per_op(end[0] - start[0], ops), "span_free_cost",
		   bench_per_op(end[1] - start[1], ops));
}

/* bench_numa: see bench.h. */
void bench_numa(void)
{
	unsigned int order = numa_ptr_order(), here = cpu_to_node(0);
	unsigned int there = next_node(here), far_cpu = first_cpu_of(there);
	void **objs;

	if (numa_num_nodes() < 2)
		return;
	printk("\nN. NUMA: local and remote, %u nodes; CPU 0 on node %u, remote node %u"
	       " (distance %u)\n", numa_num_nodes(), here, there, node_distance(here, there));
	bench_line("numa_header", 0, 4, "nodes", (unsigned long)numa_num_nodes(), "remote_node",
		   (unsigned long)there, "distance", (unsigned long)node_distance(here, there),
		   "only", (unsigned long)bench_numa_only);
	objs = get_free_pages(order);
	if (!objs) {
		printk("bench: no memory for the pointer array; NUMA tests skipped\n");
		return;
	}
	for (unsigned int s = 0; s < ARRAY_SIZE(numa_sizes); s++) {
		size_t size = numa_sizes[s];
		struct kmem_cache *c = numa_cache(size);

		if (!c) {
			printk("bench: no cache of %zu B; NUMA tests of that size skipped\n", size);
			continue;
		}
		alloc_on_node(c, size, objs, here, false);
		alloc_on_node(c, size, objs, there, true);
		free_from(c, size, objs, 0, false);
		if (far_cpu < NR_CPUS)
			free_from(c, size, objs, far_cpu, true);
		else
			printk("  node %u has no CPU: no remote free\n", there);
		concurrent_over_nodes(c, size, false);
		concurrent_over_nodes(c, size, true);
		kmem_cache_destroy(c);
	}
	free_pages_addr(objs, order);
}
