/*
 * bench_msg.c - a messaging workload in the spirit of hackbench (seed 004):
 * MSG_GROUPS groups, each of MSG_SENDERS senders and MSG_RECEIVERS
 * receivers. Every sender sends `loops` kmalloc'd messages of mixed sizes to
 * every receiver of its group, through a single-producer single-consumer
 * ring per (sender, receiver) pair; the receiver checks each message's
 * pattern (sender, receiver, sequence) and kfrees it, so most frees happen
 * on another CPU than the allocation. Endpoints are dealt round-robin to the
 * online CPUs, each CPU polling its own endpoints until all are done.
 *
 * Under -icount (single CPU) the counter is also read around every kmalloc
 * and kfree, and their sum is printed as the allocator's share of a message
 * (alloc_share_cost): the rest (filling and checking every byte, the rings)
 * is the same work whatever the allocator, and it is most of a message, so
 * the whole-message figure alone hides how far apart two allocators are
 * (seed 004 measured hackbench, where the allocator was most of the time).
 * Real-time runs do not read it: the reads would add to what they measure.
 */
#include "lab/bench.h"
#include "tools/cachemodel/marker.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/bug.h"
#include "kernel/string.h"
#include "mm/buddy.h"
#include "mm/slab.h"
#include <asm/processor.h>

#define MSG_GROUPS	4
#define MSG_SENDERS	4
#define MSG_RECEIVERS	4
#define MSG_RING	64	/* slots per ring, a power of two */
#define MSG_ENDPOINTS	(MSG_GROUPS * (MSG_SENDERS + MSG_RECEIVERS))

struct msg {
	uint32_t from, to, seq, size;
};

/* One ring per (sender, receiver) pair; head written by the sender, tail by the receiver. */
struct msg_ring {
	struct msg *slot[MSG_RING];
	unsigned int head;	/* next slot the sender fills */
	unsigned int tail;	/* next slot the receiver takes */
};

struct msg_run {
	struct msg_ring ring[MSG_GROUPS][MSG_SENDERS][MSG_RECEIVERS];
	unsigned int loops;
	unsigned int sent[MSG_GROUPS][MSG_SENDERS][MSG_RECEIVERS];	/* sender's own */
	unsigned int got[MSG_GROUPS][MSG_SENDERS][MSG_RECEIVERS];	/* receiver's own */
	unsigned long errors;
	struct smp_barrier barrier;
	bool share;			/* measure the allocator's share (icount) */
	uint64_t cycles[NR_CPUS];
	uint64_t alloc_cycles[NR_CPUS];	/* in kmalloc and kfree, when share */
};

static const uint32_t msg_sizes[] = { 32, 64, 100, 128, 200, 256, 512, 1000 };

/* kmalloc, and with run->share its cost added to this CPU's alloc_cycles. */
static void *msg_kmalloc(struct msg_run *run, size_t size)
{
	uint64_t t0;
	void *p;

	if (!run->share)
		return kmalloc(size);
	t0 = arch_cycles();
	p = kmalloc(size);
	run->alloc_cycles[smp_processor_id()] += arch_cycles() - t0;
	return p;
}

static void msg_kfree(struct msg_run *run, void *p)
{
	uint64_t t0;

	if (!run->share) {
		kfree(p);
		return;
	}
	t0 = arch_cycles();
	kfree(p);
	run->alloc_cycles[smp_processor_id()] += arch_cycles() - t0;
}

static struct msg *msg_make(struct msg_run *run, uint32_t from, uint32_t to, uint32_t seq)
{
	uint32_t size = msg_sizes[(from + to + seq) % ARRAY_SIZE(msg_sizes)];
	struct msg *m = msg_kmalloc(run, size);

	if (!m)
		return NULL;
	*m = (struct msg){ from, to, seq, size };
	memset(m + 1, (int)(seq & 0xff), size - sizeof(*m));
	return m;
}

static bool msg_ok(const struct msg *m, uint32_t from, uint32_t to, uint32_t seq)
{
	const unsigned char *b = (const unsigned char *)(m + 1);

	if (m->from != from || m->to != to || m->seq != seq)
		return false;
	for (uint32_t i = 0; i < m->size - sizeof(*m); i++)
		if (b[i] != (seq & 0xff))
			return false;
	return true;
}

/* One step of a sender: push what fits. Returns true when it has sent everything. */
static bool sender_step(struct msg_run *run, unsigned int g, unsigned int s)
{
	bool done = true;

	for (unsigned int r = 0; r < MSG_RECEIVERS; r++) {
		struct msg_ring *q = &run->ring[g][s][r];
		unsigned int *sent = &run->sent[g][s][r];

		while (*sent < run->loops &&
		       q->head - __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE) < MSG_RING) {
			struct msg *m = msg_make(run, g * MSG_SENDERS + s, g * MSG_RECEIVERS + r, *sent);
			if (!m)
				break;	/* out of memory: try again on the next step */
			q->slot[q->head % MSG_RING] = m;
			/* release: the message's contents before the slot is seen */
			__atomic_store_n(&q->head, q->head + 1, __ATOMIC_RELEASE);
			(*sent)++;
		}
		done &= *sent == run->loops;
	}
	return done;
}

static bool receiver_step(struct msg_run *run, unsigned int g, unsigned int r)
{
	bool done = true;

	for (unsigned int s = 0; s < MSG_SENDERS; s++) {
		struct msg_ring *q = &run->ring[g][s][r];
		unsigned int *got = &run->got[g][s][r];

		/* acquire: see the message's contents the sender wrote before head */
		while (q->tail != __atomic_load_n(&q->head, __ATOMIC_ACQUIRE)) {
			struct msg *m = q->slot[q->tail % MSG_RING];
			if (!msg_ok(m, g * MSG_SENDERS + s, g * MSG_RECEIVERS + r, *got))
				__atomic_fetch_add(&run->errors, 1, __ATOMIC_RELAXED);
			msg_kfree(run, m);
			__atomic_store_n(&q->tail, q->tail + 1, __ATOMIC_RELEASE);
			(*got)++;
		}
		done &= *got == run->loops;
	}
	return done;
}

static void msg_cpu(void *arg)
{
	struct msg_run *run = arg;
	unsigned int cpu = smp_processor_id(), ncpus = num_online_cpus();
	unsigned int idx = 0;
	/*
	 * Under -icount with several CPUs, QEMU 7.2 lets a busy vCPU run to the
	 * next timer deadline and then resumes the first CPU again: a CPU
	 * polling its rings without ever yielding can starve the CPU whose
	 * messages it waits for (the watchdog then reports that CPU stuck). So
	 * there each pass ends with a yield, as test 3's turns do (bench.h).
	 */
	bool yield = bench_icount && ncpus > 1;
	bool done;
	uint64_t t0;

	/* This CPU's rank among online CPUs picks its endpoints. */
	for (unsigned int c = 0; c < cpu; c++)
		idx += cpu_online(c);
	smp_barrier_wait(&run->barrier);
	t0 = arch_cycles();
	MODEL_BEGIN(MODEL_R_MESSAGING);
	do {
		done = true;
		for (unsigned int e = idx; e < MSG_ENDPOINTS; e += ncpus) {
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
	run->cycles[cpu] = arch_cycles() - t0;
	smp_barrier_wait(&run->barrier);
}

/* bench_messaging: see bench.h. */
void bench_messaging(void)
{
	unsigned int order = 0;
	struct msg_run *run;
	unsigned long slab_before, slab_after, messages;
	uint64_t total = 0, share = 0;
	unsigned int cpu;

	while ((PAGE_SIZE << order) < sizeof(*run))
		order++;
	run = get_free_pages(order);
	if (!run) {
		printk("bench: no memory for the messaging workload; skipped\n");
		return;
	}
	memset(run, 0, sizeof(*run));
	run->loops = bench_quick ? 100 : 1000;
	run->share = bench_icount && num_online_cpus() == 1;
	messages = (unsigned long)MSG_GROUPS * MSG_SENDERS * MSG_RECEIVERS * run->loops;
	smp_barrier_init(&run->barrier, num_online_cpus());

	printk("\n5. Messaging: %d groups of %d senders and %d receivers, %u loops, %lu messages, "
	       "%u CPU(s)\n", MSG_GROUPS, MSG_SENDERS, MSG_RECEIVERS, run->loops, messages,
	       num_online_cpus());
	slab_before = slab_total_pages() * (PAGE_SIZE / 1024);
	printk("before messaging:\nSlab:          %8lu kB\n", slab_before);
	on_each_cpu_wait(msg_cpu, run);
	for_each_online_cpu(cpu) {
		total = MAX(total, run->cycles[cpu]);
		share += run->alloc_cycles[cpu];
	}
	slab_after = slab_total_pages() * (PAGE_SIZE / 1024);
	printk("after messaging:\nSlab:          %8lu kB\n", slab_after);
	printk("Time: %lu cycles, %lu cycles per message, %lu bad messages\n",
	       (unsigned long)total, bench_per_op(total, messages), run->errors);
	if (run->share) {
		printk("In kmalloc and kfree: %lu cycles per message\n", bench_per_op(share, messages));
		bench_line("messaging", 0, 6, "total_cost", (unsigned long)total, "per_message_cost",
			   bench_per_op(total, messages), "alloc_share_cost",
			   bench_per_op(share, messages), "slab_before_kb", slab_before,
			   "slab_after_kb", slab_after, "bad_messages", run->errors);
	} else {
		bench_line("messaging", 0, 5, "total_cost", (unsigned long)total, "per_message_cost",
			   bench_per_op(total, messages), "slab_before_kb", slab_before,
			   "slab_after_kb", slab_after, "bad_messages", run->errors);
	}
	free_pages_addr(run, order);
}
