#!/usr/bin/env bash
# boot.sh - boot one kernel that build.sh built, under QEMU -icount shift=0,
# capture the console to build/linux/<name>/console.log, and check it
# (check.py: the module loaded, every BENCH row expected of it is there).
#   boot.sh NAME [CPUS]     NAME e.g. linux61-slub-x86_64-4K; CPUS default 1
# QEMU runs under `timeout` (QUARRY_LINUX_TIMEOUT seconds, default 300) and
# is stopped as soon as the console shows "reboot: System halted" (6.12: "reboot:
# Power off not available: System halted instead"; arm64, whose PSCI power-off
# ends QEMU itself, and x86_64 with ACPI, as Debian's: "reboot: Power down").
# QEMU: lab/linux/qemu.sh, memory QUARRY_LINUX_MEM (default 1G, as Quarry's bench).
# QUARRY_LINUX_MODEL=REPORT: boot with the cache model's plugin (1 CPU; the
# console goes to console-model.log, the plugin's report to REPORT).
# QUARRY_LINUX_CONSOLE=file: boot nothing, check that console log instead
# (lab/linux/test.sh checks canned logs this way).
# Exit: 0 when the log checks out, 1 otherwise (the reason is printed).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: boot.sh NAME [CPUS]" >&2; exit 2; }
NAME=$1 CPUS=${2:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DIR=$ROOT/build/linux/$NAME
LOG=$DIR/console.log
[ "$CPUS" = 1 ] || LOG=$DIR/console-smp$CPUS.log
die() { echo "boot.sh: $NAME: $*" >&2; exit 1; }
PLUGIN=()
if [ -n "${QUARRY_LINUX_MODEL:-}" ]; then
	# The cache model's plugin (tools/cachemodel/) on this boot: its report
	# (entries=on, one line per pass of each marked span) goes to the file
	# QUARRY_LINUX_MODEL names, the console to console-model.log. One TLB
	# entry maps what Quarry's own model runs assume: 2M on x86_64, the page
	# on arm64. Per-function lines use the kernel's System.map.
	LOG=$DIR/console-model.log
	plugin=${MODEL_PLUGIN:-$ROOT/build/cachemodel/cachemodel.so}
	[ -f "$plugin" ] || die "no cache-model plugin at $plugin: build it with 'make cachemodel'"
	[ -f "$DIR/kbuild/System.map" ] || die "no System.map in $DIR/kbuild (rebuild with lab/linux/build.sh)"
	case "$NAME" in *-x86_64-*) tlb=2M ;; *) tlb=${NAME##*-} ;; esac
	PLUGIN=(-plugin "$plugin,tlbpage=$tlb,syms=$DIR/kbuild/System.map,entries=on,out=$QUARRY_LINUX_MODEL${MODEL_ARGS:+,$MODEL_ARGS}")
	rm -f "$QUARRY_LINUX_MODEL"
fi
if [ -n "${QUARRY_LINUX_CONSOLE:-}" ]; then
	LOG=$QUARRY_LINUX_CONSOLE
	[ -f "$LOG" ] || die "no console log $LOG"
else
	[ -f "$DIR/kernel.img" ] && [ -f "$DIR/initramfs.cpio.gz" ] || die "not built (run lab/linux/build.sh first)"
	arch=${NAME#*-*-}; page=${arch#*-}; arch=${arch%-*}
	. "$HERE/qemu.sh"
	. "$HERE/initramfs.sh"
	linux_qemu_cmd "$arch" "$page" "$CPUS" "${QUARRY_LINUX_MEM:-1G}" || die "cannot tell the arch from the name"
	APPEND="console=$LINUX_CONSOLE printk.time=0 loglevel=7 panic=-1"
	INITRD=$DIR/initramfs.cpio.gz
	# Linux 6.1 on x86_64 on several CPUs: the boot brings up CPU 0 alone
	# (maxcpus=1) and /init the others, a PAUSE loop (relax.S) running beside.
	# QEMU's round-robin TCG under -icount gives each vCPU in turn the whole
	# budget left before the next virtual-clock timer (icount_prepare_for_run),
	# and a vCPU gives its turn up early only on PAUSE, HLT or a kick. 6.1's
	# do_boot_cpu waits for the AP in a schedule() loop, none of the three (the
	# periodic LAPIC tick is re-armed inside QEMU, so no kick either): CPU 0
	# runs every budget to its end and the AP, next in turn, finds none left.
	# With relax runnable on CPU 0 the waiting write gives way to it, its
	# PAUSEs hand the rest of each budget to the AP, and the bring-up repeats
	# exactly from boot to boot. 6.12 polls with PAUSE while it waits, arm64's
	# tick is re-armed by the guest (a kick): neither needs this.
	if [ "$CPUS" != 1 ] && [[ $NAME == linux61-*-x86_64-* ]]; then
		TMPD=$(mktemp -d)
		trap 'rm -rf "$TMPD"' EXIT
		linux_initramfs_relax "$TMPD/initramfs.cpio.gz" "$INITRD" "$HERE/init.sh" ||
			die "the multi-CPU initramfs could not be made"
		INITRD=$TMPD/initramfs.cpio.gz
		APPEND+=" maxcpus=1"
	fi
	rm -f "$LOG"
	# QEMU runs in the background; once the console shows the halt, it is stopped.
	timeout "${QUARRY_LINUX_TIMEOUT:-300}" "${LINUX_QEMU[@]}" -kernel "$DIR/kernel.img" \
		-initrd "$INITRD" -append "$APPEND" "${PLUGIN[@]}" \
		</dev/null > "$LOG.raw" 2>&1 &
	qpid=$!
	while kill -0 $qpid 2>/dev/null; do
		if grep -qaE "reboot: ((Power off not available: )?System halted|Power down)" "$LOG.raw" 2>/dev/null; then kill $qpid 2>/dev/null || true; break; fi
		sleep 0.5
	done
	wait $qpid 2>/dev/null || true
	tr -d '\r' < "$LOG.raw" > "$LOG" && rm -f "$LOG.raw"
fi
if grep -q "QUARRY-INIT: insmod failed" "$LOG"; then
	die "the module did not load: $(grep 'QUARRY-INIT: insmod failed' "$LOG" | sed 's/QUARRY-INIT: insmod failed: //') (console: $LOG)"
fi
grep -qaE "reboot: (Power off not available: )?(System halted|Power down)" "$LOG" || die "QEMU did not reach 'reboot: System halted' or 'reboot: Power down' (console: $LOG)"
python3 "$HERE/check.py" "$LOG" || die "the console log is incomplete (console: $LOG)"
