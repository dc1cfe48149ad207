#!/usr/bin/env bash
# run.sh ISO TIMEOUT [QEMU options...] - boot a Quarry ISO in QEMU (TCG, no
# window, no reboot), serial console on stdout, and exit with the kernel's
# status: 0 success, 1 failure, 124 when killed at TIMEOUT seconds, other
# values when QEMU itself failed.
# With -smp N (N > 1) the CPUs run in parallel host threads (MTTCG).
set -u
iso=$1 limit=$2
shift 2
accel=tcg
prev=
for a in "$@"; do
	if [ "$prev" = -smp ] && [ "${a%%,*}" != 1 ]; then
		accel=tcg,thread=multi
	fi
	prev=$a
done
timeout --foreground -k 5 "$limit" qemu-system-x86_64 -M pc -accel $accel \
	-cdrom "$iso" -boot d -serial stdio -display none -monitor none -no-reboot \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 "$@"
rc=$?
case $rc in
1) exit 0 ;;		# kernel wrote 0 to isa-debug-exit: (0 << 1) | 1
3) exit 1 ;;		# kernel wrote 1: failure
124) echo "run.sh: QEMU killed after ${limit}s (kernel hung)" >&2; exit 124 ;;
0) echo "run.sh: QEMU exited without the kernel's status (triple fault/reset?)" >&2; exit 2 ;;
*) echo "run.sh: QEMU failed with status $rc" >&2; exit "$rc" ;;
esac
