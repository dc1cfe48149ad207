// SPDX-License-Identifier: GPL-2.0
/*
 * qb_msg.c - benchmark 5 of Quarry's bench (lab/bench_msg.c) in Linux: the
 * hackbench-like messaging workload. MSG_GROUPS groups of MSG_SENDERS senders
 * and MSG_RECEIVERS receivers; every sender sends MSG_LOOPS kmalloc'd
 * messages of mixed sizes to every receiver of its group through a
 * single-producer single-consumer ring per pair, and the receiver checks each
 * message's pattern and kfrees it. Endpoints are dealt round-robin to the
 * online CPUs (a kthread bound to each), each polling its own endpoints until
 * all are done. Same groups, sizes, loops, rings and checks as Quarry's.
 *
 * Under -icount on one CPU the counter is also read around every kmalloc and
 * kfree: alloc_share_cost, the allocator's share of a message, the figure to
 * set beside Quarry's (the rest, filling and checking bytes with each
 * kernel's own memset and loops, is not the allocator's). On 2+ CPUs under
 * -icount each pass ends with a yield (cpu_relax), as Quarry's does.
 * Slab kB (qb_slab_kb), before and after.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/smp.h>
#include <linux/cpumask.h>
#include <linux/string.h>
#include "marker.h"
#include "qb.h"

#define MSG_GROUPS	4
#define MSG_SENDERS	4
#define MSG_RECEIVERS	4
#define MSG_RING	64	/* slots per ring, a power of two */
#define MSG_LOOPS	1000
#define MSG_ENDPOINTS	(MSG_GROUPS * (MSG_SENDERS + MSG_RECEIVERS))

struct msg {
	u32 from, to, seq, size;
};

/* One ring per (sender, receiver) pair; head written by the sender, tail by the receiver. */
struct msg_ring {
	struct msg *slot[MSG_RING];
	unsigned int head;
	unsigned int tail;
};

struct msg_run {
	struct msg_ring ring[MSG_GROUPS][MSG_SENDERS][MSG_RECEIVERS];
	unsigned int sent[MSG_GROUPS][MSG_SENDERS][MSG_RECEIVERS];
	unsigned int got[MSG_GROUPS][MSG_SENDERS][MSG_RECEIVERS];
	atomic_long_t errors;
	struct qb_barrier barrier;
	bool share;
	u64 cycles[QB_MAX_CPUS];
	u64 alloc_cycles[QB_MAX_CPUS];
};

static const u32 msg_sizes[] = { 32, 64, 100, 128, 200, 256, 512, 1000 };

static void *msg_kmalloc(struct msg_run *run, size_t size)
{
	u64 t0;
	void *p;

	if (!run->share)
		return kmalloc(size, GFP_KERNEL);
	t0 = qb_cycles();
	p = kmalloc(size, GFP_KERNEL);
	run->alloc_cycles[smp_processor_id()] += qb_cycles() - t0;
	return p;
}

static void msg_kfree(struct msg_run *run, void *p)
{
	u64 t0;

	if (!run->share) {
		kfree(p);
		return;
	}
	t0 = qb_cycles();
	kfree(p);
	run->alloc_cycles[smp_processor_id()] += qb_cycles() - t0;
}

static struct msg *msg_make(struct msg_run *run, u32 from, u32 to, u32 seq)
{
	u32 size = msg_sizes[(from + to + seq) % ARRAY_SIZE(msg_sizes)];
	struct msg *m = msg_kmalloc(run, size);

	if (!m)
		return NULL;
	*m = (struct msg){ from, to, seq, size };
	memset(m + 1, (int)(seq & 0xff), size - sizeof(*m));
	return m;
}

static bool msg_ok(const struct msg *m, u32 from, u32 to, u32 seq)
{
	const unsigned char *b = (const unsigned char *)(m + 1);
	u32 i;

	if (m->from != from || m->to != to || m->seq != seq)
		return false;
	for (i = 0; i < m->size - sizeof(*m); i++)
		if (b[i] != (seq & 0xff))
			return false;
	return true;
}

/* One step of a sender: push what fits. True when it has sent everything. */
static bool sender_step(struct msg_run *run, unsigned int g, unsigned int s)
{
	bool done = true;
	unsigned int r;

	for (r = 0; r < MSG_RECEIVERS; r++) {
		struct msg_ring *q = &run->ring[g][s][r];
		unsigned int *sent = &run->sent[g][s][r];

		while (*sent < MSG_LOOPS && q->head - smp_load_acquire(&q->tail) < MSG_RING) {
			struct msg *m = msg_make(run, g * MSG_SENDERS + s, g * MSG_RECEIVERS + r, *sent);

			if (!m)
				break;	/* out of memory: try again on the next step */
			q->slot[q->head % MSG_RING] = m;
			/* release: the message's contents before the slot is seen */
			smp_store_release(&q->head, q->head + 1);
			(*sent)++;
		}
		done &= *sent == MSG_LOOPS;
	}
	return done;
}

static bool receiver_step(struct msg_run *run, unsigned int g, unsigned int r)
{
	bool done = true;
	unsigned int s;

	for (s = 0; s < MSG_SENDERS; s++) {
		struct msg_ring *q = &run->ring[g][s][r];
		unsigned int *got = &run->got[g][s][r];

		/* acquire: see what the sender wrote before head */
		while (q->tail != smp_load_acquire(&q->head)) {
			struct msg *m = q->slot[q->tail % MSG_RING];

			if (!msg_ok(m, g * MSG_SENDERS + s, g * MSG_RECEIVERS + r, *got))
				atomic_long_inc(&run->errors);
			msg_kfree(run, m);
			smp_store_release(&q->tail, q->tail + 1);
			(*got)++;
		}
		done &= *got == MSG_LOOPS;
	}
	return done;
}

static int msg_cpu(void *arg)
{
	struct msg_run *run = arg;
	unsigned int cpu = smp_processor_id(), ncpus = num_online_cpus();
	unsigned int idx = 0;
	unsigned int c, e;
	bool yield = qb_icount && ncpus > 1;
	bool done;
	u64 t0;

	/* This CPU's rank among online CPUs picks its endpoints. */
	for (c = 0; c < cpu; c++)
		idx += cpu_online(c);
	qb_barrier_wait(&run->barrier);
	t0 = qb_cycles();
	MODEL_BEGIN(MODEL_R_MESSAGING);
	do {
		done = true;
		for (e = idx; e < MSG_ENDPOINTS; e += ncpus) {
			unsigned int g = e / (MSG_SENDERS + MSG_RECEIVERS);
			unsigned int k = e % (MSG_SENDERS + MSG_RECEIVERS);

			if (k < MSG_SENDERS)
				done &= sender_step(run, g, k);
			else
				done &= receiver_step(run, g, k - MSG_SENDERS);
		}
		if (yield && !done)
			cpu_relax();
	} while (!done);
	MODEL_END(MODEL_R_MESSAGING);
	run->cycles[cpu] = qb_cycles() - t0;
	qb_barrier_wait(&run->barrier);
	return 0;
}

/* Benchmark 5 (qb.h). Process context; prints its row or why it could not run. */
void bench_messaging(void)
{
	unsigned int order = get_order(sizeof(struct msg_run)), ncpus = num_online_cpus(), cpu;
	unsigned long messages = (unsigned long)MSG_GROUPS * MSG_SENDERS * MSG_RECEIVERS * MSG_LOOPS;
	unsigned long before, after, errors;
	u64 total = 0, share = 0;
	struct msg_run *run;

	pr_info("\n5. Messaging: %d groups of %d senders and %d receivers, %d loops, %lu messages, %u CPU(s)\n",
		MSG_GROUPS, MSG_SENDERS, MSG_RECEIVERS, MSG_LOOPS, messages, ncpus);
	if (ncpus > QB_MAX_CPUS) {
		pr_info("  more than %d CPUs; skipped\n", QB_MAX_CPUS);
		return;
	}
	run = (struct msg_run *)__get_free_pages(GFP_KERNEL | __GFP_ZERO, order);
	if (!run) {
		pr_info("  no memory for the workload; skipped\n");
		return;
	}
	run->share = qb_icount && ncpus == 1;
	qb_barrier_init(&run->barrier, ncpus);
	before = qb_slab_kb();
	pr_info("before messaging:\nSlab:          %8lu kB\n", before);
	if (qb_run_on_cpus(msg_cpu, run))
		goto out;
	for_each_online_cpu(cpu) {
		total = max(total, run->cycles[cpu]);
		share += run->alloc_cycles[cpu];
	}
	after = qb_slab_kb();
	errors = atomic_long_read(&run->errors);
	pr_info("after messaging:\nSlab:          %8lu kB\n", after);
	pr_info("Time: %llu cycles, %lu cycles per message, %lu bad messages\n",
		total, per_op(total, messages), errors);
	if (run->share) {
		pr_info("In kmalloc and kfree: %lu cycles per message\n", per_op(share, messages));
		bench_line("messaging", 0, 6, "total_cost", (unsigned long)total, "per_message_cost",
			   per_op(total, messages), "alloc_share_cost", per_op(share, messages),
			   "slab_before_kb", before, "slab_after_kb", after, "bad_messages", errors);
	} else {
		bench_line("messaging", 0, 5, "total_cost", (unsigned long)total, "per_message_cost",
			   per_op(total, messages), "slab_before_kb", before, "slab_after_kb", after,
			   "bad_messages", errors);
	}
out:
	free_pages((unsigned long)run, order);
}
