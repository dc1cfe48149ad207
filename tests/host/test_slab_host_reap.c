/*
 * test_slab_host_reap.c - host-only tests of what happens between CPUs and
 * over time, one thread acting as several CPUs in turn (host_cpu_id):
 *  - the shared array: objects one CPU frees and another allocates pass
 *    through it without touching a slab; when it is full, flushes go to
 *    the slabs; slabinfo shows sharedfactor and sharedavail; shrink frees it;
 *    a CPU's own overflow goes through its own node's shared array too;
 *  - slab_reap(): a touched array only loses its flag, an untouched one a
 *    fifth of its limit (at most half of it), other CPUs' arrays are never
 *    touched, idle nodes give back their shared objects and free slabs, a
 *    busy list of caches makes the pass a no-op;
 *  - slab_drain_all(): every CPU's arrays and the shared ones are freed,
 *    and the free page count is what it was before any CPU used the caches.
 */
#include "tests/common/test_slab.h"
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHARED_OBJS	700

/* as - run the following as CPU cpu (the caller puts CPU 0 back). */
static void as(unsigned int cpu)
{
	host_set_cpu(cpu);
}

static bool in_set(void *const *set, unsigned int n, const void *p)
{
	for (unsigned int i = 0; i < n; i++)
		if (set[i] == p)
			return true;
	return false;
}

static int shared_body(struct kmem_cache *c, void **objs)
{
	struct kmem_cache_node *n;
	unsigned long active, shared_limit = c->shared * c->batchcount;
	char line[160], want[32];
	void *again[180], *mine[120];
	unsigned int nmine = 0;

	/* CPU 1 takes them all; CPU 2 frees them: its array, then node 1's shared one. */
	as(1);
	for (unsigned int i = 0; i < 300; i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)) != NULL, "alloc %u failed", i);
	n = c->node[slab_node_of_cpu(1)];	/* CPU 1's, made with its array: its objects' */
	ST_EXPECT(n && !n->shared && atomic_read(&c->nr_arrays) == 1,
		  "no node for CPU 1, or a shared array with one CPU");
	active = slab_test_active(c);
	as(2);
	for (unsigned int i = 0; i < 300; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(n->shared && atomic_read(&c->nr_arrays) == 2 && n->shared->limit == shared_limit &&
			  (slab_node_of_cpu(2) == slab_node_of_cpu(1) ||
			   (c->node[slab_node_of_cpu(2)] && !c->node[slab_node_of_cpu(2)]->shared)),
		  "no shared array of %lu on CPU 1's node (only)", shared_limit);
	ST_EXPECT(n->shared->avail == 180 && c->cpu_array[2]->avail == 120,
		  "shared %lu, CPU 2 %lu: expected 180 and 120", n->shared->avail,
		  c->cpu_array[2]->avail);
	ST_EXPECT(slab_test_active(c) == active, "objects went back to slabs");
	ST_EXPECT(c->stats.shared_flushed == 180, "shared_flushed %lu", c->stats.shared_flushed);
	ST_EXPECT(kmem_cache_check(c) == 0, "inconsistent with a full shared array");
	slabinfo_line(c, line, sizeof(line));
	snprintf(want, sizeof(want), "%4u : slabdata", SLAB_SHARED_FACTOR);
	ST_EXPECT(strstr(line, want) && strstr(line, "    180") == line + strlen(line) - 7,
		  "slabinfo sharedfactor/sharedavail: '%s'", line);

	/* CPU 1 allocates again: once its own array is empty, from the shared one. */
	as(1);
	while (c->cpu_array[1]->avail)
		mine[nmine++] = kmem_cache_alloc(c);
	for (unsigned int i = 0; i < ARRAY_SIZE(again); i++) {
		again[i] = kmem_cache_alloc(c);
		ST_EXPECT(in_set(objs, 300, again[i]), "object %u not one CPU 2 freed", i);
	}
	ST_EXPECT(c->stats.shared_refilled == ARRAY_SIZE(again) && n->shared->avail == 0,
		  "shared_refilled %lu, %lu left shared", c->stats.shared_refilled,
		  n->shared->avail);
	for (unsigned int i = 0; i < ARRAY_SIZE(again); i++)
		kmem_cache_free(c, again[i]);
	while (nmine)
		kmem_cache_free(c, mine[--nmine]);
	ST_EXPECT(kmem_cache_check(c) == 0, "inconsistent after refills from shared");

	/* More than the shared array holds: the rest goes to the slabs. */
	for (unsigned int i = 0; i < SHARED_OBJS; i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)) != NULL, "alloc %u failed", i);
	as(2);
	for (unsigned int i = 0; i < SHARED_OBJS; i++)
		kmem_cache_free(c, objs[i]);
	ST_EXPECT(n->shared->avail == shared_limit, "shared %lu, not full", n->shared->avail);
	ST_EXPECT(kmem_cache_check(c) == 0, "inconsistent with the shared array full");
	as(0);
	ST_EXPECT(kmem_cache_shrink(c) == 1 && n->shared == NULL,
		  "shrink left node 1's shared array (%lu objects)",
		  n->shared ? n->shared->avail : 0);
	return kmem_cache_check(c) ? selftest_fail("inconsistent after shrink") : 0;
}

/*
 * One CPU alone, more live objects than its array holds, freed together
 * and allocated again (host prodcons at one thread): the overflow goes to
 * the CPU's own node's shared array and comes back from it, and no object
 * returns to its slab meanwhile.
 */
SELFTEST_HOST(slab_host_shared_array_own_overflow)
{
	static void *objs[300];
	struct slab_test_mark pages;
	struct kmem_cache *c;
	struct kmem_cache_node *n;
	unsigned long active, cached;

	slab_drain_all();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-own-shared", 64, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c && c->limit == 120 && c->shared == SLAB_SHARED_FACTOR, "tunables");
	as(1);
	for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)) != NULL, "alloc %u failed", i);
	n = c->node[slab_node_of_cpu(1)];
	ST_EXPECT(n && !n->shared, "CPU 1 has no node, or a shared array before it overflowed");
	active = slab_test_active(c);
	cached = c->cpu_array[1]->avail;	/* the last refill's rest */
	for (unsigned int round = 0; round < 3; round++) {
		for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
			kmem_cache_free(c, objs[i]);
		ST_EXPECT(n->shared && n->shared->avail + c->cpu_array[1]->avail == 300 + cached &&
				  slab_test_active(c) == active,
			  "round %u: %lu shared, %lu in the array, %lu active (was %lu)", round,
			  n->shared ? n->shared->avail : 0, c->cpu_array[1]->avail,
			  slab_test_active(c), active);
		ST_EXPECT(kmem_cache_check(c) == 0, "inconsistent with the overflow shared");
		for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
			ST_EXPECT((objs[i] = kmem_cache_alloc(c)) != NULL, "alloc %u failed", i);
		ST_EXPECT(slab_test_active(c) == active && c->cpu_array[1]->avail <= cached + 120,
			  "round %u: allocations went to the slabs (%lu active, was %lu)", round,
			  slab_test_active(c), active);
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
		kmem_cache_free(c, objs[i]);
	as(0);
	slab_drain_all();
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST_HOST(slab_host_shared_array)
{
	static void *objs[SHARED_OBJS];
	struct slab_test_mark pages;
	struct kmem_cache *c;
	int ret;

	slab_drain_all();	/* no CPU has arrays: the page count does not depend on who had */
	slab_test_begin(&pages);
	c = kmem_cache_create("test-shared", 64, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c && c->limit == 120 && c->shared == SLAB_SHARED_FACTOR, "tunables");
	ret = shared_body(c, objs);
	as(0);
	slab_drain_all();
	if (ret)
		return ret;	/* the reason is the body's */
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/* Reap as cpu until the node has had a pass (2 * reaping CPUs visits at most). */
static void reap_node_pass(unsigned int cpu)
{
	as(cpu);
	for (unsigned int i = 0; i < 2 * NR_CPUS; i++)
		slab_reap();
}

static int reap_body(struct kmem_cache *c, void **objs, unsigned int nobjs)
{
	struct kmem_cache_node *n;
	struct array_cache *ac3, *ac4;
	unsigned long avail, events, flags;

	/* CPUs 3 and 4 fill their arrays; CPU 4 never reaps. */
	as(4);
	for (unsigned int i = 0; i < 50; i++)
		objs[i] = kmem_cache_alloc(c);
	for (unsigned int i = 0; i < 50; i++)
		kmem_cache_free(c, objs[i]);
	ac4 = c->cpu_array[4];
	avail = ac4->avail;
	as(3);
	for (unsigned int i = 0; i < nobjs; i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)) != NULL, "alloc %u failed", i);
	for (unsigned int i = 0; i < nobjs; i++)
		kmem_cache_free(c, objs[i]);
	ac3 = c->cpu_array[3];
	n = c->node[slab_node_of_cpu(3)];	/* CPU 3's: it made the slabs */
	ST_EXPECT(n, "CPU 3 has no node");
	avail = ac3->avail;
	ST_EXPECT(avail >= 2 * ((ac3->limit + 4) / 5) && ac3->touched,
		  "CPU 3 array %lu of %lu, touched %u", avail, ac3->limit, ac3->touched);

	/* A touched array loses only its flag; an untouched one a fifth of its limit. */
	events = slab_reap_events();
	slab_reap();
	ST_EXPECT(ac3->avail == avail && !ac3->touched, "touched array drained");
	slab_reap();
	ST_EXPECT(ac3->avail == avail - (ac3->limit + 4) / 5, "untouched array: %lu left of %lu",
		  ac3->avail, avail);
	ST_EXPECT(slab_reap_events() > events, "reap work not counted");
	ST_EXPECT(kmem_cache_check(c) == 0, "inconsistent after a reap");

	/* A busy list of caches: the pass does nothing (and does not wait). */
	avail = ac3->avail;
	flags = spin_lock_irqsave(&slab_caches_lock);
	slab_reap();
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	ST_EXPECT(ac3->avail == avail, "reaped with slab_caches_lock held");

	/* Enough passes: CPU 3's array and the node's free slabs go; CPU 4's stays. */
	avail = ac4->avail;
	for (unsigned int pass = 0; pass < 40 && (ac3->avail || n->free_slabs); pass++)
		reap_node_pass(3);
	ST_EXPECT(ac3->avail == 0 && n->free_slabs == 0, "idle cache kept %lu objects, %lu slabs",
		  ac3->avail, n->free_slabs);
	ST_EXPECT(ac4->avail == avail && avail > 0, "CPU 3's reap touched CPU 4's array");
	ST_EXPECT(c->stats.reaped > 0, "no slab reaped");
	as(0);
	return kmem_cache_check(c) ? selftest_fail("inconsistent after reaping") : 0;
}

SELFTEST_HOST(slab_host_reap)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	unsigned int nobjs;
	void **objs;
	int ret;

	slab_drain_all();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-reap", 64, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c, "create failed");
	nobjs = 3 * c->num;	/* several slabs: some empty once only CPU 4 holds objects */
	objs = kmalloc_array(nobjs, sizeof(*objs));
	ST_EXPECT(objs, "no table");
	ret = reap_body(c, objs, nobjs);
	as(0);
	kfree(objs);
	slab_drain_all();
	if (ret)
		return ret;	/* the reason is the body's */
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

/* Six CPUs allocate many sizes, others free them; then one size enough for a shared array. */
static void drain_all_workload(void *objs[6][64])
{
	for (unsigned int cpu = 1; cpu <= 6; cpu++) {
		as(cpu);
		for (unsigned int i = 0; i < 64; i++)
			objs[cpu - 1][i] = kmalloc(16 << (i % 9));
	}
	for (unsigned int cpu = 1; cpu <= 6; cpu++) {
		as(7 - cpu);	/* freed on another CPU than the one that took them */
		for (unsigned int i = 0; i < 64; i++)
			kfree(objs[cpu - 1][i]);
	}
	/* Enough of one size freed on another CPU to give CPU 1's node a shared array. */
	as(1);
	for (unsigned int i = 0; i < 200; i++)
		objs[i / 64][i % 64] = kmalloc(64);
	as(2);
	for (unsigned int i = 0; i < 200; i++)
		kfree(objs[i / 64][i % 64]);
	as(0);
}

/*
 * slab_drain_all: every CPU's arrays and the shared ones freed, every page
 * back but the nodes CPUs made for the caches, which stay with the cache:
 * a first round makes them, before the count.
 */
SELFTEST_HOST(slab_host_drain_all_frees_arrays)
{
	void *objs[6][64];
	unsigned long pages;

	drain_all_workload(objs);
	slab_drain_all();
	pages = nr_free_pages();
	drain_all_workload(objs);
	ST_EXPECT(slab_debug_on(kmalloc_slab(64)) ||
			  (kmalloc_slab(64)->node[slab_node_of_cpu(1)] &&
			   kmalloc_slab(64)->node[slab_node_of_cpu(1)]->shared &&
			   atomic_read(&kmalloc_slab(64)->nr_arrays) >= 6),
		  "no shared array for kmalloc-64 on CPU 1's node");
	slab_drain_all();
	for (unsigned int i = 1; i <= KMALLOC_SHIFT_HIGH; i++) {
		struct kmem_cache *c = kmalloc_caches[i];

		if (!c)
			continue;
		for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
			ST_EXPECT(c->cpu_array[cpu] == &slab_no_array, "%s: CPU %u kept its array",
				  c->name, cpu);
		ST_EXPECT(!atomic_read(&c->nr_arrays), "%s: arrays counted", c->name);
		for (unsigned int nid = 0; nid < SLAB_NODES; nid++)
			ST_EXPECT(!c->node[nid] || (!c->node[nid]->shared && !c->node[nid]->free_slabs),
				  "%s: node %u kept a shared array or free slabs", c->name, nid);
		ST_EXPECT(kmem_cache_check(c) == 0, "%s inconsistent", c->name);
	}
	ST_EXPECT(nr_free_pages() == pages, "%lu pages free, %lu before", nr_free_pages(), pages);
	return 0;
}

/*
 * Run fn(c) in a child process whose console goes to a pipe; the child's
 * exit status (-1: it did not exit) and up to len - 1 bytes of what it
 * printed go back. For a precondition that must stop the machine: the
 * BUG's exit ends the child, and this process carries on.
 */
static int run_dying(void (*fn)(struct kmem_cache *), struct kmem_cache *c, char *out, size_t len)
{
	int fds[2], status = 0;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], STDOUT_FILENO);
		fn(c);
		fflush(stdout);
		_exit(0);	/* no BUG: the precondition was not checked */
	}
	close(fds[1]);
	while (pid > 0 && got + 1 < len && (n = read(fds[0], out + got, len - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* CPU 0 drains CPU 1's array of a listed cache: neither its own array nor an idle cache. */
static void drain_other_cpus_array(struct kmem_cache *c)
{
	unsigned long flags = arch_irq_save();

	cache_drain_array(c, c->cpu_array[1], ~0U);
	arch_irq_restore(flags);
}

/* The same from CPU 1, its own array, with interrupts on. */
static void drain_own_array_irqs_on(struct kmem_cache *c)
{
	as(1);
	cache_drain_array(c, c->cpu_array[1], ~0U);
}

/*
 * cache_drain_array's precondition, asserted in the builds that check:
 * interrupts off, and the array the running CPU's (or slab_no_array), or
 * the cache off slab_caches. Draining another CPU's array of a live cache
 * stops the machine with a BUG naming the condition; so does draining
 * with interrupts on. kmem_cache_destroy, which drains every CPU's array
 * once the cache is off the list, still passes.
 */
SELFTEST_HOST(slab_host_drain_array_precondition)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;
	char out[4096];
	unsigned long avail;
	void *objs[8];
	int st;

	slab_drain_all();
	slab_test_begin(&pages);
	c = kmem_cache_create("test-drain-pre", 64, 0, SLAB_NO_DEBUG, NULL);
	ST_EXPECT(c, "create failed");
	as(1);
	for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
		ST_EXPECT((objs[i] = kmem_cache_alloc(c)) != NULL, "alloc %u failed", i);
	for (unsigned int i = 0; i < ARRAY_SIZE(objs); i++)
		kmem_cache_free(c, objs[i]);
	as(0);
	ST_EXPECT(c->cpu_array[1] != &slab_no_array && c->cpu_array[1]->avail >= ARRAY_SIZE(objs),
		  "CPU 1's array does not hold the %zu objects", ARRAY_SIZE(objs));
	avail = c->cpu_array[1]->avail;

	st = run_dying(drain_other_cpus_array, c, out, sizeof(out));
	ST_EXPECT(st == 1 && strstr(out, "PANIC on CPU 0: BUG at mm/slab/slab_cpu.c:") &&
			  strstr(out, "ac == cpu_array(cachep) || ac == &slab_no_array || "
				      "list_empty(&cachep->list)"),
		  "another CPU's array drained: exit %d, console \"%s\"", st, out);
	st = run_dying(drain_own_array_irqs_on, c, out, sizeof(out));
	ST_EXPECT(st == 1 && strstr(out, "PANIC on CPU 1: BUG at mm/slab/slab_cpu.c:") &&
			  strstr(out, "arch_irqs_disabled()"),
		  "drained with interrupts on: exit %d, console \"%s\"", st, out);

	/* Off the list, every CPU's array may go: the destroy drains CPU 1's from CPU 0. */
	ST_EXPECT(c->cpu_array[1]->avail == avail, "the parent's array changed");
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}
