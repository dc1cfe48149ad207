/*
 * test_smp.c - in-kernel self-tests of SMP bring-up and what rests on it:
 * every CPU online with its own identity and per-CPU data, work running on
 * all CPUs at once, barriers, spinlocks and atomics under contention, the
 * timer ticking everywhere, and allocation from the timer interrupt racing
 * allocation in normal code on the same CPU. Kernel only (tests/kernel/):
 * the host has no CPUs to bring up.
 *
 * Each test is bounded: loops stop after a fixed count, and waits for other
 * CPUs give up after WAIT_SECONDS and fail naming the CPUs that never came.
 *
 * Sizes: contended loops do a fixed total of work split over the online
 * CPUs, not a fixed amount per CPU. Under QEMU TCG with more virtual CPUs
 * than host cores, a contended lock waits whenever the host deschedules
 * its holder (milliseconds), so
 * per-CPU counts would make -smp 8 on a 2-core host take minutes.
 */
#include "kernel/arch.h"
#include "kernel/atomic.h"
#include "kernel/percpu.h"
#include "kernel/restart.h"
#include "kernel/printk.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/timer.h"
#include "mm/buddy.h"
#ifndef CONFIG_ALLOC_NONE
#include "mm/slab.h"
#endif
#include <asm/irqflags.h>
#include <asm/processor.h>

#define WAIT_SECONDS	20

/* A cycle-counter deadline; never expires when the counter's rate is unknown. */
static uint64_t deadline(unsigned int seconds)
{
	uint64_t khz = arch_cycles_khz();

	return khz ? arch_cycles() + khz * 1000 * seconds : UINT64_MAX;
}

static bool past(uint64_t when)
{
	return arch_cycles() > when;
}

/* The CPU count the firmware announced, as far as NR_CPUS lets us start them. */
static unsigned int expected_cpus(void)
{
	return num_possible_cpus();
}

SELFTEST(smp_all_cpus_online)
{
	unsigned int n = num_online_cpus();

	ST_EXPECT(n == expected_cpus(), "%u CPUs online, the firmware lists %u", n, expected_cpus());
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		ST_EXPECT(cpu_online(cpu) == (cpu < n), "CPU %u is %sonline with %u CPUs up", cpu,
			  cpu_online(cpu) ? "" : "not ", n);
	ST_EXPECT(smp_processor_id() == 0, "the self-tests run on CPU %u, not 0",
		  smp_processor_id());
	return 0;
}

/* What each CPU saw of itself in identity_fn. */
struct identity {
	unsigned int runs;
	unsigned int id;
	uint32_t hw_id;
	void *own_copy;		/* this_cpu_ptr() of the per-CPU variable */
	unsigned int stored;	/* per-CPU variable read back through GS */
};
static struct identity identities[NR_CPUS];
static DEFINE_PER_CPU(unsigned int, pcpu_word);

static void identity_fn(void *arg)
{
	unsigned int id = smp_processor_id();
	struct identity *me = &identities[id];

	__atomic_fetch_add(&me->runs, 1, __ATOMIC_RELAXED);
	me->id = id;
	me->hw_id = arch_this_cpu_hw_id();
	me->own_copy = this_cpu_ptr(pcpu_word);
	this_cpu_write(pcpu_word, 1000 + id);
	me->stored = this_cpu_read(pcpu_word);
}

SELFTEST(smp_each_cpu_knows_itself)
{
	unsigned int cpu;

	memset(identities, 0, sizeof(identities));
	on_each_cpu_wait(identity_fn, NULL);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct identity *c = &identities[cpu];

		if (!cpu_online(cpu)) {
			ST_EXPECT(!c->runs, "offline CPU %u ran the call", cpu);
			continue;
		}
		ST_EXPECT(c->runs == 1, "CPU %u ran the call %u times", cpu, c->runs);
		ST_EXPECT(c->hw_id == arch_cpu_hw_id(cpu),
			  "CPU %u runs on hardware ID %u but was started as %u", cpu, c->hw_id,
			  arch_cpu_hw_id(cpu));
		ST_EXPECT(c->own_copy == per_cpu_ptr(pcpu_word, cpu),
			  "CPU %u's this_cpu_ptr %p is not per_cpu_ptr %p", cpu, c->own_copy,
			  (void *)per_cpu_ptr(pcpu_word, cpu));
		ST_EXPECT(c->stored == 1000 + cpu && per_cpu(pcpu_word, cpu) == 1000 + cpu,
			  "CPU %u's per-CPU word reads %u through GS and %u directly", cpu,
			  c->stored, per_cpu(pcpu_word, cpu));
		for (unsigned int other = 0; other < cpu; other++)
			ST_EXPECT(!cpu_online(other) || identities[other].hw_id != c->hw_id,
				  "CPUs %u and %u share hardware ID %u", other, cpu, c->hw_id);
	}
	return 0;
}

/* Each CPU arrives, then waits until all are there: only works if all run at once. */
struct together {
	unsigned int arrived;
	unsigned int late;
	uint64_t until;
};

static void together_fn(void *arg)
{
	struct together *t = arg;
	unsigned int n = num_online_cpus();

	__atomic_fetch_add(&t->arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&t->arrived, __ATOMIC_ACQUIRE) < n) {
		if (past(t->until)) {
			__atomic_fetch_add(&t->late, 1, __ATOMIC_RELAXED);
			return;
		}
		cpu_relax();
	}
}

static void count_fn(void *arg)
{
	__atomic_fetch_add((unsigned int *)arg, 1, __ATOMIC_RELAXED);
}

SELFTEST(smp_on_each_cpu_runs_everywhere_at_once)
{
	struct together t = { 0, 0, deadline(WAIT_SECONDS) };
	unsigned int calls = 0, rounds = 200;

	on_each_cpu_wait(together_fn, &t);
	ST_EXPECT(!t.late && t.arrived == num_online_cpus(),
		  "only %u of %u CPUs were running the call at the same time", t.arrived,
		  num_online_cpus());
	for (unsigned int r = 0; r < rounds; r++)
		on_each_cpu_wait(count_fn, &calls);
	ST_EXPECT(calls == rounds * num_online_cpus(), "%u calls ran, want %u", calls,
		  rounds * num_online_cpus());
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		unsigned int one = 0;

		if (!cpu_online(cpu))
			continue;
		ST_EXPECT(smp_call_on_cpu(cpu, count_fn, &one) == 0 && one == 1,
			  "smp_call_on_cpu(%u) ran the call %u times", cpu, one);
	}
	ST_EXPECT(smp_call_on_cpu(NR_CPUS, count_fn, &calls) == -1,
		  "smp_call_on_cpu accepted CPU %d", NR_CPUS);
	return 0;
}

/* Rounds of: write my slot, barrier, check every slot, barrier. */
#define BARRIER_ROUNDS 200
struct barrier_test {
	struct smp_barrier b;
	unsigned int slot[NR_CPUS];
	unsigned int errors;
};

static void barrier_fn(void *arg)
{
	struct barrier_test *t = arg;
	unsigned int me = smp_processor_id(), cpu;

	for (unsigned int r = 1; r <= BARRIER_ROUNDS; r++) {
		WRITE_ONCE(t->slot[me], r);
		smp_barrier_wait(&t->b);
		for_each_online_cpu(cpu) {
			if (READ_ONCE(t->slot[cpu]) != r)
				__atomic_fetch_add(&t->errors, 1, __ATOMIC_RELAXED);
		}
		smp_barrier_wait(&t->b);
	}
}

SELFTEST(smp_barrier_lines_up_every_round)
{
	static struct barrier_test t;

	memset(&t, 0, sizeof(t));
	smp_barrier_init(&t.b, num_online_cpus());
	on_each_cpu_wait(barrier_fn, &t);
	ST_EXPECT(!t.errors, "%u stale slots seen after a barrier in %d rounds", t.errors,
		  BARRIER_ROUNDS);
	return 0;
}

/*
 * Every CPU increments a plain counter under one lock; a lost update or two
 * holders at once shows as a wrong total or a holder that is not us.
 */
#define LOCK_TOTAL 2000
struct lock_test {
	struct spinlock lock;
	unsigned long counter;		/* only under lock */
	unsigned int inside;		/* CPUs in the critical section */
	unsigned int overlaps;
	unsigned int wrong_holder;
	struct atomic atomic_counter;
};

static void lock_fn(void *arg)
{
	struct lock_test *t = arg;
	unsigned int me = smp_processor_id();
	unsigned int rounds = LOCK_TOTAL / num_online_cpus();

	for (unsigned int i = 0; i < rounds; i++) {
		spin_lock(&t->lock);
		if (__atomic_add_fetch(&t->inside, 1, __ATOMIC_RELAXED) != 1)
			t->overlaps++;
		if (t->lock.cpu != (int)me)
			t->wrong_holder++;
		t->counter = READ_ONCE(t->counter) + 1;
		__atomic_sub_fetch(&t->inside, 1, __ATOMIC_RELAXED);
		spin_unlock(&t->lock);
		atomic_inc(&t->atomic_counter);
	}
}

SELFTEST(smp_spinlock_contention_counts_exactly)
{
	static struct lock_test t;
	unsigned long want = (unsigned long)(LOCK_TOTAL / num_online_cpus()) * num_online_cpus();
	uint64_t start;

	memset(&t, 0, sizeof(t));
	spin_lock_init(&t.lock);
	start = arch_cycles();
	on_each_cpu_wait(lock_fn, &t);
	if (arch_cycles_khz())
		printk("  %u CPUs x %u lock/unlock: %llu ms\n", num_online_cpus(),
		       LOCK_TOTAL / num_online_cpus(),
		       (unsigned long long)((arch_cycles() - start) / arch_cycles_khz()));
	ST_EXPECT(t.counter == want, "counter under the lock is %lu, want %lu", t.counter, want);
	ST_EXPECT(!t.overlaps, "%u times two CPUs were inside the lock", t.overlaps);
	ST_EXPECT(!t.wrong_holder, "%u times the lock named another CPU as holder",
		  t.wrong_holder);
	ST_EXPECT((unsigned long)atomic_read(&t.atomic_counter) == want,
		  "atomic counter is %d, want %lu", atomic_read(&t.atomic_counter), want);
	ST_EXPECT(!spin_is_locked(&t.lock), "the lock is still held at the end");
	return 0;
}

/* Per-CPU counters updated in one instruction by normal code and by the tick hook. */
static DEFINE_PER_CPU(unsigned long, pcpu_events);
static DEFINE_PER_CPU(unsigned long, pcpu_hook_events);

#define PCPU_ROUNDS 20000

static void pcpu_hook(unsigned int cpu)
{
	this_cpu_add(pcpu_events, 1000000);
	this_cpu_inc(pcpu_hook_events);
}

static void pcpu_fn(void *arg)
{
	uint64_t until = deadline(WAIT_SECONDS);
	unsigned long start = this_cpu_read(pcpu_hook_events);

	for (unsigned int i = 0; i < PCPU_ROUNDS; i++)
		this_cpu_inc(pcpu_events);
	/* Make sure the hook ran here at least twice while we were counting. */
	while (this_cpu_read(pcpu_hook_events) - start < 2 && !past(until)) {
		this_cpu_inc(pcpu_events);
		this_cpu_dec(pcpu_events);
	}
}

SELFTEST(smp_this_cpu_ops_survive_interrupts)
{
	unsigned int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		per_cpu(pcpu_events, cpu) = per_cpu(pcpu_hook_events, cpu) = 0;
	timer_set_hook(pcpu_hook);
	on_each_cpu_wait(pcpu_fn, NULL);
	timer_set_hook(NULL);
	ST_EXPECT(timer_wait_all_cpus(2) == 0, "some CPU stopped ticking");
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		unsigned long ev = per_cpu(pcpu_events, cpu);
		unsigned long hooks = per_cpu(pcpu_hook_events, cpu);

		if (!cpu_online(cpu)) {
			ST_EXPECT(!ev && !hooks, "offline CPU %u counted %lu events", cpu, ev);
			continue;
		}
		ST_EXPECT(hooks >= 2, "the tick hook ran %lu times on CPU %u", hooks, cpu);
		ST_EXPECT(ev == PCPU_ROUNDS + hooks * 1000000,
			  "CPU %u counted %lu events, want %d + %lu * 1000000", cpu, ev,
			  PCPU_ROUNDS, hooks);
	}
	return 0;
}

SELFTEST(smp_timer_ticks_on_every_cpu)
{
	unsigned long before[NR_CPUS];
	uint64_t t0 = arch_cycles();
	unsigned int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		before[cpu] = timer_ticks(cpu);
	ST_EXPECT(!arch_irqs_disabled(), "the self-tests run with interrupts off");
	ST_EXPECT(timer_wait_all_cpus(HZ / 10) == 0,
		  "not every CPU took %d ticks within %u s", HZ / 10, watchdog_seconds);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		unsigned long got = timer_ticks(cpu) - before[cpu];

		if (cpu_online(cpu))
			ST_EXPECT(got >= HZ / 10, "CPU %u took %lu ticks", cpu, got);
		else
			ST_EXPECT(!timer_ticks(cpu), "offline CPU %u has ticks", cpu);
	}
	if (arch_cycles_khz())
		printk("  %d ticks on each of %u CPUs in %llu ms (HZ %d)\n", HZ / 10,
		       num_online_cpus(),
		       (unsigned long long)((arch_cycles() - t0) / arch_cycles_khz()), HZ);
	return 0;
}

/*
 * A lock taken both by the tick hook (interrupt context) and by normal code
 * with spin_lock_irqsave on every CPU: without the irqsave the hook would
 * spin forever on a lock its own CPU holds. Counts must come out exact.
 */
static struct spinlock irq_lock = SPINLOCK_INIT;
static unsigned long irq_lock_count;		/* under irq_lock */
static unsigned int irq_lock_hook_runs;		/* atomic */
static DEFINE_PER_CPU(unsigned int, irq_lock_hook_mine);

/*
 * At most IRQ_LOCK_HOOK_MAX lock rounds per CPU from the tick: on an
 * overcommitted host (8 vCPUs on 2 cores) a holder the host deschedules
 * keeps the lock for a few milliseconds, so every CPU's tick
 * taking the lock at HZ would ask for more hand-overs a second than the lock
 * can serve, and the test would never end. A bounded number still makes
 * the tick contend with normal code on every CPU.
 */
#define IRQ_LOCK_HOOK_MAX	4

static void irq_lock_hook(unsigned int cpu)
{
	if (this_cpu_read(irq_lock_hook_mine) >= IRQ_LOCK_HOOK_MAX)
		return;
	this_cpu_inc(irq_lock_hook_mine);
	spin_lock(&irq_lock);			/* interrupts are off in the hook */
	irq_lock_count++;
	spin_unlock(&irq_lock);
	__atomic_fetch_add(&irq_lock_hook_runs, 1, __ATOMIC_RELAXED);
}

#define IRQ_LOCK_TOTAL 1000

static void irq_lock_fn(void *arg)
{
	unsigned long *mine = arg;
	unsigned long start = timer_ticks(smp_processor_id());
	uint64_t until = deadline(WAIT_SECONDS);
	unsigned long n = 0;

	/* At least its share of IRQ_LOCK_TOTAL, and on until this CPU has ticked twice. */
	while (n < IRQ_LOCK_TOTAL / num_online_cpus() ||
	       (timer_ticks(smp_processor_id()) - start < 2 && !past(until))) {
		unsigned long flags = spin_lock_irqsave(&irq_lock);

		irq_lock_count++;
		spin_unlock_irqrestore(&irq_lock, flags);
		n++;
	}
	__atomic_fetch_add(mine, n, __ATOMIC_RELAXED);
}

SELFTEST(smp_irqsave_lock_shared_with_the_timer)
{
	unsigned long normal = 0;
	unsigned int cpu;

	irq_lock_count = 0;
	irq_lock_hook_runs = 0;
	for_each_online_cpu(cpu)
		per_cpu(irq_lock_hook_mine, cpu) = 0;
	timer_set_hook(irq_lock_hook);
	on_each_cpu_wait(irq_lock_fn, &normal);
	timer_set_hook(NULL);
	ST_EXPECT(timer_wait_all_cpus(2) == 0, "some CPU stopped ticking");
	ST_EXPECT(irq_lock_hook_runs >= num_online_cpus(), "the hook ran only %u times",
		  irq_lock_hook_runs);
	ST_EXPECT(irq_lock_count == normal + irq_lock_hook_runs,
		  "count %lu, want %lu from normal code + %u from the hook", irq_lock_count,
		  normal, irq_lock_hook_runs);
	return 0;
}

/*
 * Allocation from the timer interrupt racing allocation in normal code on
 * the same CPU, on every CPU at once. Each object is stamped with who took
 * it (CPU, context, sequence number) over its whole length and checked
 * before it is freed, so two owners of one object, or a write into a free
 * one, shows up. At the end the test's own cache must be empty (every
 * object came back) and pass its checks, and the pages must be back.
 */
#define RING		16
#define IRQ_ALLOC_TOTAL	8000
#define OBJ_SIZE	96

struct stamped_ring {
	void *obj[RING];
	size_t size[RING];
	unsigned int head;
	unsigned long seq;
	unsigned long ops;
	unsigned long bad;		/* pattern mismatches */
	unsigned long failed;		/* NULL allocations */
	uint64_t rnd;
};

#ifndef CONFIG_ALLOC_NONE
static struct kmem_cache *stamp_cache;
#endif
static DEFINE_PER_CPU(struct stamped_ring, irq_ring);

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void stamp(void *p, size_t size, unsigned int cpu, unsigned int ctx, unsigned long seq)
{
	uint64_t word = ((uint64_t)cpu << 56) | ((uint64_t)ctx << 48) | seq;
	uint64_t *w = p;

	for (size_t i = 0; i < size / 8; i++)
		w[i] = word ^ i;
}

static bool stamp_ok(const void *p, size_t size)
{
	const uint64_t *w = p;

	for (size_t i = 1; i < size / 8; i++)
		if (w[i] != (w[0] ^ i))
			return false;
	return true;
}

/* Check and free the ring's entry in slot, if any. */
static void ring_free(struct stamped_ring *r, unsigned int slot)
{
	void *p = r->obj[slot];

	if (!p)
		return;
	if (!stamp_ok(p, r->size[slot]))
		r->bad++;
	if (r->size[slot] == PAGE_SIZE)
		free_pages_addr(p, 0);
#ifndef CONFIG_ALLOC_NONE
	else if (r->size[slot] == OBJ_SIZE)
		kmem_cache_free(stamp_cache, p);
	else
		kfree(p);
#endif
	r->obj[slot] = NULL;
}

static void ring_free_all(struct stamped_ring *r)
{
	for (unsigned int slot = 0; slot < RING; slot++)
		ring_free(r, slot);
}

/* One step on a ring: free the oldest entry (after checking it), put a new one there. */
static void ring_step(struct stamped_ring *r, unsigned int cpu, unsigned int ctx)
{
	unsigned int slot = r->head++ % RING;
	unsigned int kind = (unsigned int)(next_rand(&r->rnd) % 8);
	size_t size;
	void *p;

	ring_free(r, slot);
#ifdef CONFIG_ALLOC_NONE
	kind = 0;
#endif
	if (kind == 0) {		/* 1 in 8: a page; then the cache; else kmalloc */
		size = PAGE_SIZE;
		p = get_free_pages(0);
#ifndef CONFIG_ALLOC_NONE
	} else if (kind == 1) {
		size = OBJ_SIZE;
		p = kmem_cache_alloc(stamp_cache);
	} else {
		size = 16U << (next_rand(&r->rnd) % 8);		/* 16 .. 2048 */
		p = kmalloc(size);
#endif
	}
	if (!p) {
		r->failed++;
		return;
	}
	stamp(p, size, cpu, ctx, ++r->seq);
	r->obj[slot] = p;
	r->size[slot] = size;
	r->ops++;
}

static void irq_alloc_hook(unsigned int cpu)
{
	struct stamped_ring *r = this_cpu_ptr(irq_ring);

	for (unsigned int i = 0; i < 4; i++)
		ring_step(r, cpu, 1);
}

struct irq_alloc_result {
	unsigned long ops, bad, failed, hook_ops, hook_bad, hook_failed;
};

static void irq_alloc_fn(void *arg)
{
	struct irq_alloc_result *res = arg;
	unsigned int cpu = smp_processor_id();
	struct stamped_ring mine = { .rnd = 0x9e3779b97f4a7c15ULL * (cpu + 1) };
	struct stamped_ring *hr = this_cpu_ptr(irq_ring);
	uint64_t until = deadline(WAIT_SECONDS);

	/* Run until the hook has done at least 5 ticks' work here, and our share of steps. */
	while ((mine.ops < IRQ_ALLOC_TOTAL / num_online_cpus() || READ_ONCE(hr->ops) < 5 * 4) &&
	       !past(until))
		ring_step(&mine, cpu, 0);
	ring_free_all(&mine);
	__atomic_fetch_add(&res->ops, mine.ops, __ATOMIC_RELAXED);
	__atomic_fetch_add(&res->bad, mine.bad, __ATOMIC_RELAXED);
	__atomic_fetch_add(&res->failed, mine.failed, __ATOMIC_RELAXED);
}

/* After the hook is gone: give back what the hook still holds on this CPU, and its caches. */
static void irq_alloc_cleanup(void *arg)
{
	struct irq_alloc_result *res = arg;
	struct stamped_ring *hr = this_cpu_ptr(irq_ring);

	ring_free_all(hr);
	__atomic_fetch_add(&res->hook_ops, hr->ops, __ATOMIC_RELAXED);
	__atomic_fetch_add(&res->hook_bad, hr->bad, __ATOMIC_RELAXED);
	__atomic_fetch_add(&res->hook_failed, hr->failed, __ATOMIC_RELAXED);
#ifndef CONFIG_ALLOC_NONE
	kmem_cache_drain_local(stamp_cache);
#endif
}

SELFTEST(smp_alloc_in_timer_interrupt_and_normal_code)
{
	struct irq_alloc_result res = { 0 };
	unsigned long restarts_before[NR_CPUS], restarts;
	unsigned int cpu;

#ifndef CONFIG_ALLOC_NONE
	stamp_cache = kmem_cache_create("smp-irq-test", OBJ_SIZE, 8, 0, NULL);
	ST_EXPECT(stamp_cache, "kmem_cache_create failed");
#endif
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct stamped_ring *r = per_cpu_ptr(irq_ring, cpu);

		memset(r, 0, sizeof(*r));
		r->rnd = 0x2545f4914f6cdd1dULL * (cpu + 7);
	}
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		restarts_before[cpu] = restart_count(cpu);
	timer_set_hook(irq_alloc_hook);
	on_each_cpu_wait(irq_alloc_fn, &res);
	timer_set_hook(NULL);
	ST_EXPECT(timer_wait_all_cpus(2) == 0, "some CPU stopped ticking");
	on_each_cpu_wait(irq_alloc_cleanup, &res);
	for (cpu = 0, restarts = 0; cpu < NR_CPUS; cpu++)
		restarts += restart_count(cpu) - restarts_before[cpu];
	printk("  %lu allocations in normal code, %lu in the timer interrupt, %u CPUs, "
	       "%lu fast paths restarted (kernel/restart.h)\n", res.ops, res.hook_ops,
	       num_online_cpus(), restarts);
	ST_EXPECT(!res.bad && !res.hook_bad,
		  "%lu objects corrupted in normal code, %lu in the interrupt", res.bad,
		  res.hook_bad);
	ST_EXPECT(!res.failed && !res.hook_failed, "%lu + %lu allocations failed", res.failed,
		  res.hook_failed);
	ST_EXPECT(res.hook_ops >= 5 * 4 * num_online_cpus(),
		  "only %lu allocations in the interrupt", res.hook_ops);
#ifndef CONFIG_ALLOC_NONE
	ST_EXPECT(kmem_cache_check(stamp_cache) == 0, "kmem_cache_check failed");
	ST_EXPECT(kmem_cache_destroy(stamp_cache) == 0,
		  "the test cache still had objects allocated: some were lost");
#endif
	return 0;
}

/*
 * timer_reap_pause waits for a reap under way on another CPU: the target
 * CPU's timer_reaping flag stands for one, and the tick hook clears it on
 * that CPU after a few ticks, noting that it did. Reaps are paused first,
 * so that no real one sets or clears the flag meanwhile.
 */
static unsigned int pause_target;
static unsigned int pause_ticks;	/* the target's hook only */
static bool pause_released;

static void pause_hook(unsigned int cpu)
{
	if (cpu != READ_ONCE(pause_target) || !READ_ONCE(per_cpu(timer_reaping, cpu)))
		return;
	if (++pause_ticks < 3)
		return;
	WRITE_ONCE(pause_released, true);
	smp_store_release(&per_cpu(timer_reaping, cpu), false);
}

SELFTEST(smp_reap_pause_waits_for_a_reap_under_way)
{
	unsigned int me = smp_processor_id(), target = NR_CPUS;
	bool released;

	for (unsigned int cpu = 0; cpu < NR_CPUS && target == NR_CPUS; cpu++)
		if (cpu != me && cpu_online(cpu))
			target = cpu;
	if (target == NR_CPUS)
		return 0;	/* one CPU: no other reap to wait for */
	timer_reap_pause(true);
	pause_ticks = 0;
	WRITE_ONCE(pause_released, false);
	WRITE_ONCE(pause_target, target);
	smp_store_release(&per_cpu(timer_reaping, target), true);
	timer_set_hook(pause_hook);
	timer_reap_pause(true);
	released = READ_ONCE(pause_released);
	timer_set_hook(NULL);
	ST_EXPECT(timer_wait_all_cpus(1) == 0, "some CPU stopped ticking");
	WRITE_ONCE(per_cpu(timer_reaping, target), false);
	timer_reap_pause(false);
	ST_EXPECT(released, "the pause returned while CPU %u's reap was under way", target);
	return 0;
}
