#!/usr/bin/env bash
# mkiso.sh ELF OUT.iso CMDLINE [MODULE] - a one-entry GRUB ISO that boots ELF with
# CMDLINE, and with MODULE (a file) as its boot module (GRUB's module2: a trace
# for the kernel's "replay"). Tests use it to boot the kernel with a command
# line of their own.
set -euo pipefail
elf=$1 out=$2 cmdline=$3 module=${4:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/boot/grub"
cp "$elf" "$dir/boot/quarry.elf"
modline=
if [ -n "$module" ]; then
	[ -f "$module" ] || { echo "mkiso.sh: no such module file: $module" >&2; exit 1; }
	cp "$module" "$dir/boot/module.bin"
	modline="module2 /boot/module.bin module"
fi
cat > "$dir/boot/grub/grub.cfg" <<CFG
set timeout=0
set default=0
menuentry "Quarry ($cmdline)" {
	multiboot2 /boot/quarry.elf $cmdline
	$modline
	boot
}
CFG
grub-mkrescue -d /usr/lib/grub/i386-pc -o "$out" "$dir" >/dev/null 2>&1 ||
	{ echo "mkiso.sh: grub-mkrescue failed for $out" >&2; exit 1; }
