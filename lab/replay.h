/*
 * replay.h - the kernel's replay of a Linux kernel's recorded allocations
 * (kernel command line "replay"): the trace (tools/trace/qtrace.h) comes as
 * the boot module (GRUB's module2 on x86_64, QEMU's -initrd on arm64), is
 * checked whole by the check the host replay shares (tools/trace/qtr_check.c),
 * then replayed through this kernel's allocator on the online CPUs, each
 * traced CPU's events on CPU (traced CPU mod online CPUs), in file order; a
 * free of an object another CPU allocated waits for that allocation, so a
 * remote free stays remote.
 *
 * Command line words:
 *   replay                 run it (with "icount": QEMU counts instructions)
 *   replay_pages           replay the page events too (the host's --pages)
 *   replay_nouser          with replay_pages, leave user memory out (--no-user)
 *   replay_internal        replay the traced allocator's own kmallocs (--internal)
 *   replay_fail=stop|continue   what an allocation failure does (default stop)
 *   replay_samples=N       memory samples over the trace (default 200, at most
 *                          50000), kept and printed after the replay
 *
 * Output, besides the human lines: "REPLAY key=value" lines with the host
 * replay's summary keys (peak_slab, end_object, ops_1, ...) plus the
 * counter's per type (cost_T, cost_per_op_x10_T), and "REPLAY-SAMPLE
 * event,slab_bytes,used_bytes,object_bytes,live_req,live_linux,
 * page_block_bytes" lines, the host's CSV columns; tools/trace/kreplay.sh
 * turns them into the host's files.
 */
#ifndef QUARRY_LAB_REPLAY_H
#define QUARRY_LAB_REPLAY_H

#include "kernel/bootinfo.h"

/*
 * replay_run - replay the boot module's trace as the command line asks.
 * Boot CPU, after smp_init, interrupts on. icount: the counter counts guest
 * instructions. Returns 0 when the trace was replayed with exact accounting
 * (every event ran or was left out as asked, every free freed its object,
 * nothing reported bad, every page back at the end, the module unchanged),
 * 1 otherwise: no module,
 * a trace refused ("replay: trace module refused: event 7 (kfree):
 * object 3 is not live (freed already)"), a bad
 * option, an allocation failure, or accounting that is not exact (each
 * said on the console). Everything the replay took is given back either way.
 */
int replay_run(const struct boot_info *bi, bool icount);

#endif
