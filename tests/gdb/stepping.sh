#!/usr/bin/env bash
# stepping.sh NAME ELF ISO - drive gdb-multiarch in batch mode against a
# paused QEMU: break at kmain (hardware breakpoint), continue, check the
# arguments, next a few lines, step into a function, print a local, bt,
# then stop after the slab caches are up and call slabinfo_show().
# Prints one PASS/FAIL line per check; log in build/test/NAME.log.
set -u
name=$1 elf=$2 iso=$3
mkdir -p build/test
log=build/test/$name.log
port=$((20000 + RANDOM % 20000))

timeout -k 5 90 qemu-system-x86_64 -M pc -accel tcg -m 256M -cdrom "$iso" -boot d \
	-display none -monitor none -serial file:build/test/$name-serial.log -no-reboot \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 -gdb tcp:127.0.0.1:$port -S &
qemu=$!
sleep 1
timeout -k 5 60 gdb-multiarch -nx -batch \
	-ex 'set architecture i386:x86-64' -ex 'set pagination off' -ex 'set confirm off' \
	-ex "file $elf" -ex "target remote 127.0.0.1:$port" \
	-ex 'hbreak kmain' -ex 'continue' \
	-ex 'print/x magic' \
	-ex 'next' -ex 'next' -ex 'next' \
	-ex 'step' -ex 'bt' -ex 'finish' \
	-ex 'print boot_info.loader' \
	-ex 'print *bi' \
	-ex 'hbreak acpi_init' -ex 'continue' -ex 'call slabinfo_show()' \
	-ex 'kill' > "$log" 2>&1
kill $qemu 2>/dev/null
wait $qemu 2>/dev/null

t() {	# t TEST PATTERN: PASS when the gdb log has a line matching PATTERN
	if grep -qE -- "$2" "$log"; then
		echo "PASS $name: $1"
	else
		echo "FAIL $name: $1: no line matching '$2' (see $log)"
	fi
}
t "hbreak at kmain is hit" '^(Hardware assisted breakpoint|Breakpoint) [0-9]+, kmain \('
t "print an argument (Multiboot2 magic)" '^\$1 = 0x36d76289$'
t "next steps through kmain's lines" '^[0-9]+[[:space:]]+.*platform_discover\('
t "bt shows kmain as the caller" '^#1 +(0x[0-9a-f]+ in )?kmain \('
t "step enters a called function" '^#0 +(0x[0-9a-f]+ in )?[a-z_]+ \(.*\) at [a-z0-9_/]+\.c:[0-9]+$'
t "print a local structure after stepping" '^\$[0-9]+ = .*GRUB'
n=$(tr -d '\r' < build/test/$name-serial.log | grep -c '^slabinfo - version: 2.1$')
if [ "$n" -ge 2 ]; then
	echo "PASS $name: 'call slabinfo_show()' from gdb prints slabinfo on the console"
else
	echo "FAIL $name: 'call slabinfo_show()' from gdb: $n slabinfo tables on the console, want 2"
fi
if grep -q "Remote 'g' packet reply is too long" "$log"; then
	echo "FAIL $name: gdb rejected the register packet ('g' packet too long)"
fi
