#!/usr/bin/env bash
# mkiso.sh ELF OUT.iso CMDLINE - a one-entry GRUB ISO that boots ELF with CMDLINE.
# Tests use it to boot the kernel with a command line of their own.
set -euo pipefail
elf=$1 out=$2 cmdline=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/boot/grub"
cp "$elf" "$dir/boot/quarry.elf"
cat > "$dir/boot/grub/grub.cfg" <<CFG
set timeout=0
set default=0
menuentry "Quarry ($cmdline)" {
	multiboot2 /boot/quarry.elf $cmdline
	boot
}
CFG
grub-mkrescue -d /usr/lib/grub/i386-pc -o "$out" "$dir" >/dev/null 2>&1 ||
	{ echo "mkiso.sh: grub-mkrescue failed for $out" >&2; exit 1; }
