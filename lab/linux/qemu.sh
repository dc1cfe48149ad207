# qemu.sh - sourced by lab/linux/boot.sh and lab/linux/replay/replay.sh: the
# one QEMU command line every Linux boot of the lab uses, matched to Quarry's
# own benchmark boots (tests/qemu/run.sh, lab/bench/run.sh): the same
# machine, CPU model, memory and -icount, so the two sides run on the same
# emulated hardware.
#   linux_qemu_cmd ARCH PAGE CPUS MEM
# sets the array LINUX_QEMU (emulator, machine, CPU, -m, -smp, -icount,
# no window, no reboot) and LINUX_CONSOLE (the kernel's console= device).
# x86_64: -M pc and QEMU's default CPU (qemu64), as Quarry's; the kernel has
#   no ACPI, so SMP comes from SeaBIOS's MP table, which lists one CPU per
#   package: hence sockets=N,cores=1.
# arm64: -M virt with GICv3, cortex-a72 (cortex-a76 for 16K pages, which
#   the a72 lacks; not max, whose RNDR seeds Linux's random pool with the
#   host's randomness, so boots differed), as Quarry's; dtb-randomness=off, or each boot's DTB differs.
# Returns 1 (with a message) for an arch it does not know.
linux_qemu_cmd() {
	local arch=$1 page=$2 cpus=$3 mem=$4 cpu
	case "$arch" in
	x86_64)
		LINUX_QEMU=(qemu-system-x86_64 -M pc -cpu qemu64)
		LINUX_CONSOLE=ttyS0 ;;
	arm64)
		cpu=cortex-a72
		[ "$page" = 16K ] && cpu=cortex-a76
		LINUX_QEMU=(qemu-system-aarch64 -M virt,gic-version=3,dtb-randomness=off -cpu "$cpu")
		LINUX_CONSOLE=ttyAMA0 ;;
	*) echo "qemu.sh: unknown arch '$arch' (x86_64 or arm64)" >&2; return 1 ;;
	esac
	LINUX_QEMU+=(-m "$mem" -smp "$cpus,sockets=$cpus,cores=1,threads=1"
		-rtc base=2026-01-01T00:00:00,clock=vm -icount shift=0,sleep=off
		-nographic -no-reboot)
}
