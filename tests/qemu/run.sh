#!/usr/bin/env bash
# run.sh IMAGE TIMEOUT [QEMU options...] - boot a Quarry kernel in QEMU (TCG,
# no window, no monitor, no reboot), serial console on stdout, and exit with
# the kernel's status: 0 success, 1 failure, 124 when killed at TIMEOUT
# seconds, 2 when QEMU ended without the kernel's status (reset, triple
# fault), other values when QEMU itself failed or IMAGE is unusable.
#
# IMAGE is
#   an ELF (quarry.elf, told apart by its header, not its name): the machine
#     comes from e_machine (tests/qemu/elfinfo.sh), the kernel command line
#     from the environment variable CMDLINE (default: empty);
#     x86_64: a one-entry GRUB ISO with that command line is made in a
#       temporary directory (tests/qemu/mkiso.sh) and booted; under -icount
#       (or X86_LOADER=qemu) QEMU's own Multiboot loader instead boots the
#       ELF's flat image (-kernel, -append, MODULE as -initrd), with the
#       RTC on the virtual clock (-rtc clock=vm): nothing before the kernel
#       then waits on the host (GRUB's CD reads complete in host time, so
#       the kernel started after a different number of instructions each
#       boot, and under the host's I/O load multi-CPU figures moved with
#       it); X86_LOADER=grub keeps GRUB;
#     arm64:  qemu-system-aarch64 -M virt,gic-version=3 -kernel ELF
#       -append "$CMDLINE", semihosting on for the exit status;
#   an ISO 9660 image: an x86_64 GRUB ISO (quarry.iso, quarry-test.iso),
#     booted as a CD; its command line is the one baked into its default
#     entry and CMDLINE is ignored.
#   Anything else is refused (status 2).
# QEMU options are appended as given (-m 256M, -smp 4, -icount ..., -S, -gdb ...).
#
# Environment:
#   CMDLINE  kernel command line for an ELF (selftest, bench, "bench icount",
#            faulttest, ...)
#   MODULE   a file given to the kernel as its boot module (a trace for
#            "replay"): x86_64 a GRUB module2 line in the ISO made for an ELF
#            (an ISO given whole carries its own), or QEMU's -initrd with its
#            own loader; arm64 QEMU's -initrd,
#            with the ELF's raw binary booted as a Linux Image (QEMU passes
#            an initrd to an Image only, through the device tree)
#   CPU      arm64 only: QEMU's -cpu. Unset or empty: cortex-a76 for a
#            16K-page kernel (cortex-a57/a72 have no 16K granule and hang at
#            the MMU switch; "max" has one but also RNDR, whose host-random
#            numbers made Linux's boots differ), else cortex-a72. The page size comes from the ELF's
#            DWARF (PAGE_SHIFT, -g3) or, failing that, its directory name
#            (build/arm64-16k...). A CPU given explicitly is used as given
#            (a 16K kernel on cortex-a57/a72 says it lacks the granule and
#            fails).
#   X86_LOADER  x86_64 ELFs: qemu or grub (default: qemu under -icount, else
#            grub; see IMAGE above). Anything else is refused.
#
# Both arches: with -smp N (N > 1) the CPUs run in parallel host threads
# (MTTCG, -accel tcg,thread=multi) unless -icount is among the options (the
# two cannot combine; -icount runs one thread) or N is above 8: then all
# CPUs run round-robin in one host thread (-accel tcg,thread=single), where
# QEMU moves on to the next CPU whenever one spins (x86's pause, arm64's
# yield) or halts. That is what a 64-CPU boot on a 2-core host needs: 64
# MTTCG threads, more than the host has cores, each spin through time slices
# their lock holders are descheduled for.
# TCG_THREAD=single or multi in the environment chooses either for any N.
# Exit statuses: x86_64's
# isa-debug-exit and arm64's semihosting SYS_EXIT both make QEMU exit with
# 33 for the kernel's success and 35 for its failure (QEMU_EXIT_* in
# kernel/arch.h): QEMU's own statuses (0 on a shutdown, 1 on an error such as
# a bad option) are never read as the kernel's. run.sh's own statuses: 0
# kernel success, 1 kernel failure, 2 no kernel status (QEMU stopped by
# itself) or no usable image, 3 QEMU failed (its message is on stderr),
# 124 killed at TIMEOUT.
set -u
here=$(dirname "$0")
if [ $# -lt 2 ]; then
	echo "usage: run.sh IMAGE TIMEOUT [QEMU options...]" >&2
	exit 2
fi
image=$1 limit=$2
shift 2
if [ ! -f "$image" ]; then
	echo "run.sh: no such image: $image" >&2
	exit 2
fi

smp=1 icount=
prev=
for a in "$@"; do
	if [ "$prev" = -smp ]; then
		smp=${a%%,*}
		smp=${smp#cpus=}
	fi
	[ "$a" = -icount ] && icount=1
	prev=$a
done
accel=tcg
if [ -n "${TCG_THREAD:-}" ]; then
	case $TCG_THREAD in
	single | multi) ;;
	*) echo "run.sh: TCG_THREAD must be single or multi, not '$TCG_THREAD'" >&2; exit 2 ;;
	esac
	[ -n "$icount" ] && [ "$TCG_THREAD" = multi ] && {
		echo "run.sh: TCG_THREAD=multi cannot be combined with -icount" >&2; exit 2; }
	accel=tcg,thread=$TCG_THREAD
elif [ -z "$icount" ] && [ "$smp" -gt 8 ] 2>/dev/null; then
	accel=tcg,thread=single
elif [ -z "$icount" ] && [ "$smp" != 1 ]; then
	accel=tcg,thread=multi
fi

tmp=
trap '[ -n "$tmp" ] && rm -rf "$tmp"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP

if info=$("$here/elfinfo.sh" "$image"); then
	arch=${info% *} page=${info#* }
elif [ "$(od -An -c -j32769 -N5 -- "$image" 2>/dev/null | tr -d ' ')" = CD001 ]; then
	arch=x86_64 page=iso	# ISO 9660: "CD001" in the first volume descriptor
else
	echo "run.sh: $image is neither an x86_64/arm64 kernel ELF nor an ISO image" >&2
	exit 2
fi

case $arch in
x86_64)
	loader=${X86_LOADER:-}
	case $loader in
	'') if [ -n "$icount" ]; then loader=qemu; else loader=grub; fi ;;
	qemu | grub) ;;
	*) echo "run.sh: X86_LOADER must be qemu or grub, not '$loader'" >&2; exit 2 ;;
	esac
	[ "$page" = iso ] && loader=grub
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/quarry-run.XXXXXX") || exit 2
	if [ "$loader" = qemu ]; then
		case ${MODULE:-} in *,*)
			echo "run.sh: QEMU's loader takes no module whose name has a comma: $MODULE" >&2
			exit 2 ;;
		esac
		[ -z "${MODULE:-}" ] || [ -f "$MODULE" ] ||
			{ echo "run.sh: no such module file: $MODULE" >&2; exit 2; }
		objcopy -O binary "$image" "$tmp/quarry.bin" ||
			{ echo "run.sh: objcopy could not make a flat image of $image" >&2; exit 2; }
		timeout --foreground -k 5 "$limit" qemu-system-x86_64 -M pc -accel $accel \
			-kernel "$tmp/quarry.bin" -append "${CMDLINE:-}" ${MODULE:+-initrd "$MODULE"} \
			-rtc clock=vm -serial stdio -display none -monitor none -no-reboot \
			-device isa-debug-exit,iobase=0xf4,iosize=0x04 "$@"
		rc=$?
	else
		iso=$image
		if [ "$page" != iso ]; then
			iso=$tmp/boot.iso
			"$here/mkiso.sh" "$image" "$iso" "${CMDLINE:-}" "${MODULE:-}" || exit 2
		fi
		timeout --foreground -k 5 "$limit" qemu-system-x86_64 -M pc -accel $accel \
			-cdrom "$iso" -boot d -serial stdio -display none -monitor none -no-reboot \
			-device isa-debug-exit,iobase=0xf4,iosize=0x04 "$@"
		rc=$?
	fi
	;;
arm64)
	cpu=${CPU:-}
	if [ -z "$cpu" ]; then
		if [ "$page" = 16K ]; then cpu=cortex-a76; else cpu=cortex-a72; fi
	fi
	kernel=$image
	if [ -n "${MODULE:-}" ]; then
		[ -f "$MODULE" ] || { echo "run.sh: no such module file: $MODULE" >&2; exit 2; }
		tmp=$(mktemp -d "${TMPDIR:-/tmp}/quarry-run.XXXXXX") || exit 2
		kernel=$tmp/Image
		aarch64-linux-gnu-objcopy -O binary "$image" "$kernel" ||
			{ echo "run.sh: objcopy could not make an Image of $image" >&2; exit 2; }
	fi
	timeout --foreground -k 5 "$limit" qemu-system-aarch64 -M virt,gic-version=3 \
		-cpu "$cpu" -accel $accel -semihosting-config enable=on,target=native \
		-kernel "$kernel" -append "${CMDLINE:-}" ${MODULE:+-initrd "$MODULE"} \
		-serial stdio -display none -monitor none -no-reboot "$@"
	rc=$?
	;;
esac

case $rc in
33) exit 0 ;;		# the kernel's success (QEMU_EXIT_SUCCESS)
35) exit 1 ;;		# the kernel's failure (QEMU_EXIT_FAILURE)
124) echo "run.sh: QEMU killed after ${limit}s (kernel hung)" >&2; exit 124 ;;
0) echo "run.sh: QEMU exited without the kernel's status (reset, triple fault, power-off?)" >&2; exit 2 ;;
*) echo "run.sh: QEMU itself failed with status $rc (see its message above)" >&2; exit 3 ;;
esac
