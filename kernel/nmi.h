/*
 * nmi.h - stopping other CPUs and asking one where it is, even when they
 * run with interrupts off (kernel/nmi.c; the arch sends the interrupt that
 * gets through: x86_64 NMI, arm64 FIQ).
 */
#ifndef QUARRY_NMI_H
#define QUARRY_NMI_H

#include "kernel/compiler.h"

/*
 * stop_other_cpus - halt every other online CPU, wherever it is, and wait
 * (at most a second) until they have stopped. For panic and exit; works
 * from any CPU. If two CPUs call it at once, one of them stops the other.
 */
void stop_other_cpus(void);

/*
 * cpu_report - make cpu print where it is (its interrupted registers),
 * then carry on; waits at most a second for the report. For hang reports.
 */
void cpu_report(unsigned int cpu);

/*
 * nmi_handle - the arch's NMI handler calls this with the interrupted frame:
 * halts for good if the CPUs are being stopped; prints "CPU n was
 * interrupted here (kind):" and the frame (print_frame) if a report was
 * asked for, returning true; returns false for an NMI nobody sent.
 */
bool nmi_handle(const char *kind, void (*print_frame)(const void *frame), const void *frame);

#endif
