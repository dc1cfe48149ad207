/*
 * restart.c - the table of restartable sequences and the interrupt entry's
 * fixup (kernel/restart.h). The table is the linker's collection of every
 * sequence's entry (section restart_table, in the image's read-only data);
 * its span (lowest start, highest commit) is computed on first use, so that
 * an interrupt outside every sequence pays two compares.
 */
#include "kernel/restart.h"
#include "kernel/percpu.h"
#include "kernel/compiler.h"

extern const struct restart_entry __start_restart_table[], __stop_restart_table[];

static uintptr_t span_lo = UINTPTR_MAX, span_hi;
static bool span_known;
static DEFINE_PER_CPU(unsigned long, restarts);

static void span_compute(void)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	for (const struct restart_entry *e = __start_restart_table; e < __stop_restart_table; e++) {
		if (e->start < lo)
			lo = e->start;
		if (e->commit > hi)
			hi = e->commit;
	}
	span_lo = lo;
	span_hi = hi;
	__atomic_store_n(&span_known, true, __ATOMIC_RELEASE);
}

/* restart_fixup_pc: see restart.h. */
uintptr_t restart_fixup_pc(uintptr_t pc)
{
	if (unlikely(!__atomic_load_n(&span_known, __ATOMIC_ACQUIRE)))
		span_compute();	/* every CPU computes the same: a race is harmless */
	if (pc < span_lo || pc > span_hi)
		return pc;
	for (const struct restart_entry *e = __start_restart_table; e < __stop_restart_table; e++) {
		if (pc > e->start && pc <= e->commit) {
			this_cpu_inc(restarts);
			return e->start;
		}
	}
	return pc;
}

/* restart_table_entries: see restart.h. */
const struct restart_entry *restart_table_entries(unsigned int *n)
{
	*n = (unsigned int)(__stop_restart_table - __start_restart_table);
	return __start_restart_table;
}

/* restart_count: see restart.h. */
unsigned long restart_count(unsigned int cpu)
{
	return READ_ONCE(per_cpu(restarts, cpu));
}
