// SPDX-License-Identifier: GPL-2.0
/*
 * qb_common.c - the benchmark module's shared parts (qb.h): parameters, the
 * BENCH line, the arm64 counter's start, the barrier, a kthread per CPU.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/smp.h>
#include <linux/sched.h>
#include <linux/stdarg.h>
#include <linux/mm.h>
#include <linux/vmstat.h>
#include "qb.h"
#include "qb_pmu.h"

bool qb_icount = true;
module_param_named(icount, qb_icount, bool, 0444);
MODULE_PARM_DESC(icount, "the counter counts guest instructions (QEMU -icount shift=0)");
unsigned int qb_turn = 16;
module_param_named(turn, qb_turn, uint, 0444);
MODULE_PARM_DESC(turn, "-icount, 2+ CPUs: timed phases yield the vCPU (cpu_relax) every turn operations");


bool qb_quiet(void)
{
	return qb_icount && num_online_cpus() > 1;
}

static const char *page_name(void)
{
	return PAGE_SIZE == 4096 ? "4K" : PAGE_SIZE == 16384 ? "16K" : "64K";
}

void bench_line(const char *test, unsigned long size, unsigned int nkv, ...)
{
	char buf[384];
	int n;
	va_list ap;

	n = scnprintf(buf, sizeof(buf), "BENCH arch=%s page=%s alloc=%s cpus=%u mode=%s test=%s size=%lu",
		      QB_ARCH, page_name(), qb_alloc_name, num_online_cpus(),
		      qb_icount ? "icount" : "realtime", test, size);
	va_start(ap, nkv);
	while (nkv--) {
		const char *key = va_arg(ap, const char *);
		unsigned long val = va_arg(ap, unsigned long);

		n += scnprintf(buf + n, sizeof(buf) - n, " %s=%lu", key, val);
	}
	va_end(ap);
	pr_info("%s unit=%s\n", buf, qb_icount ? "instructions" : "cycles");
}

unsigned long qb_slab_kb(void)
{
	return (global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B) +
		global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B)) * (PAGE_SIZE / 1024);
}

void qb_pmu_enable_all(void)
{
#ifdef CONFIG_ARM64
	on_each_cpu(qb_pmu_enable_cpu, NULL, 1);
#endif
}

void qb_barrier_init(struct qb_barrier *b, unsigned int n)
{
	b->n = n;
	atomic_set(&b->arrived, 0);
	atomic_set(&b->gen, 0);
}

void qb_barrier_wait(struct qb_barrier *b)
{
	int gen = atomic_read(&b->gen);

	if (atomic_inc_return(&b->arrived) == b->n) {
		atomic_set(&b->arrived, 0);
		atomic_inc(&b->gen);
		return;
	}
	while (atomic_read(&b->gen) == gen)
		cpu_relax();
}

struct qb_cpus {
	int (*fn)(void *);
	void *arg;
	atomic_t left;
	struct completion done;
};

static int qb_cpu_thread(void *p)
{
	struct qb_cpus *c = p;

	c->fn(c->arg);
	if (atomic_dec_and_test(&c->left))
		complete(&c->done);
	return 0;
}

int qb_run_on_cpus(int (*fn)(void *), void *arg)
{
	static struct task_struct *threads[NR_CPUS];
	struct qb_cpus c = { .fn = fn, .arg = arg };
	unsigned int cpu;

	atomic_set(&c.left, num_online_cpus());
	init_completion(&c.done);
	for_each_online_cpu(cpu) {
		threads[cpu] = kthread_create_on_cpu(qb_cpu_thread, &c, cpu, "qbench/%u");
		if (IS_ERR(threads[cpu])) {
			pr_err("quarry_bench: no thread for CPU %u\n", cpu);
			while (cpu-- > 0)
				if (cpu_online(cpu))
					kthread_stop(threads[cpu]);
			return -ENOMEM;
		}
	}
	for_each_online_cpu(cpu)
		wake_up_process(threads[cpu]);
	wait_for_completion(&c.done);
	return 0;
}
