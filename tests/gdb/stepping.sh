#!/usr/bin/env bash
# stepping.sh NAME ELF IMAGE - drive gdb-multiarch in batch mode against a
# paused QEMU: break at kmain (hardware breakpoint), continue, check the
# arguments, next a few lines, step into a function, print a local, bt (at
# most 16 frames: an unwinder that loops must not hang the test),
# then stop after the slab caches are up (at smp_init, which both arches
# call) and call slabinfo_show().
# Either arch, from ELF's header (tests/qemu/elfinfo.sh):
#   x86_64: IMAGE is the GRUB ISO to boot (quarry.iso), or the ELF itself
#           (tests/qemu/run.sh then makes an ISO with an empty command line);
#           kmain's magic is Multiboot2's 0x36d76289, the boot loader GRUB;
#   arm64:  IMAGE is the ELF (QEMU virt loads it, -append ""); kmain's magic
#           is the device tree's 0xd00dfeed, the boot loader "device tree".
# QEMU is started by tests/qemu/run.sh with -S -gdb tcp:127.0.0.1:PORT, so it
# boots the same machine as every other test (CPU from $CPU as there); it is
# ended by gdb's kill, or else by the pid it wrote (-pidfile).
# Prints one PASS/FAIL line per check; logs in build/test/NAME.log and
# build/test/NAME-serial.log.
set -u
name=$1 elf=$2 image=$3
here=$(dirname "$0")
mkdir -p build/test
log=build/test/$name.log
serial=build/test/$name-serial.log

if ! info=$("$here/../qemu/elfinfo.sh" "$elf"); then
	echo "FAIL $name: $elf is not an x86_64 or arm64 kernel ELF"
	exit 0
fi
case ${info% *} in
x86_64) gdb_arch=i386:x86-64 magic=0x36d76289 loader=GRUB ;;
arm64)  gdb_arch=aarch64 magic=0xd00dfeed loader='device tree' ;;
esac

port=$((20000 + RANDOM % 20000))
pidfile=build/test/$name-qemu.pid
rm -f "$pidfile"
CMDLINE='' "$here/../qemu/run.sh" "$image" 90 -m 256M -gdb tcp:127.0.0.1:$port -S \
	-pidfile "$pidfile" > "$serial" 2>&1 < /dev/null &
run=$!
# gdb connects once the gdbstub listens (an x86_64 ELF first gets an ISO made)
for _ in $(seq 1 50); do
	grep -q ":$(printf '%04X' $port) " /proc/net/tcp 2>/dev/null && break
	kill -0 $run 2>/dev/null || break
	sleep 0.2
done
timeout -k 5 60 gdb-multiarch -nx -batch \
	-ex "set architecture $gdb_arch" -ex 'set pagination off' -ex 'set confirm off' \
	-ex "file $elf" -ex "target remote 127.0.0.1:$port" \
	-ex 'hbreak kmain' -ex 'continue' \
	-ex 'print/x magic' \
	-ex 'next' -ex 'next' -ex 'next' \
	-ex 'step' -ex 'bt 16' -ex 'finish' \
	-ex 'print boot_info.loader' \
	-ex 'print *bi' \
	-ex 'hbreak smp_init' -ex 'continue' -ex 'call slabinfo_show()' \
	-ex 'kill' > "$log" 2>&1
# gdb's kill ends QEMU (and so run.sh); if it did not, end QEMU by its pid
for _ in $(seq 1 25); do
	kill -0 $run 2>/dev/null || break
	sleep 0.2
done
if kill -0 $run 2>/dev/null && [ -s "$pidfile" ]; then
	kill "$(cat "$pidfile")" 2>/dev/null
fi
wait $run 2>/dev/null
rm -f "$pidfile"

t() {	# t TEST PATTERN: PASS when the gdb log has a line matching PATTERN
	if grep -qE -- "$2" "$log"; then
		echo "PASS $name: $1"
	else
		echo "FAIL $name: $1: no line matching '$2' (see $log)"
	fi
}
t "hbreak at kmain is hit" '^(Hardware assisted breakpoint|Breakpoint) [0-9]+, kmain \('
t "print an argument (boot protocol magic $magic)" "^\\\$1 = $magic\$"
t "next steps through kmain's lines" '^[0-9]+[[:space:]]+.*platform_discover\('
t "bt shows kmain as the caller" '^#1 +(0x[0-9a-f]+ in )?kmain \('
t "step enters a called function" '^#0 +(0x[0-9a-f]+ in )?[a-z_]+ \(.*\) at [a-z0-9_/]+\.c:[0-9]+$'
t "print a local structure after stepping (loader: $loader)" "^\\\$[0-9]+ = .*$loader"
n=$(tr -d '\r' < "$serial" | grep -c '^slabinfo - version: 2.1$')
if [ "$n" -ge 2 ]; then
	echo "PASS $name: 'call slabinfo_show()' from gdb prints slabinfo on the console"
else
	echo "FAIL $name: 'call slabinfo_show()' from gdb: $n slabinfo tables on the console, want 2"
fi
if grep -q "Remote 'g' packet reply is too long" "$log"; then
	echo "FAIL $name: gdb rejected the register packet ('g' packet too long)"
fi
