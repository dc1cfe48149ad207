#!/usr/bin/env bash
# deps.sh - make sure the tools Quarry builds and runs with are installed.
# As root, missing Debian packages are installed (after apt-get update);
# otherwise the exact command is printed and we stop.
#   deps.sh         the kernel's tools (make run, make test, make bench)
#   deps.sh fuzz    what `make fuzz-cov` needs besides gcc: clang with
#                   libFuzzer (Debian's clang) and llvm-profdata/llvm-cov (llvm)
#   deps.sh valgrind  what `make cachemodel-cachegrind` needs: valgrind
set -euo pipefail

if [ "${1:-}" = fuzz ]; then
	missing=()
	command -v clang >/dev/null 2>&1 || missing+=(clang)
	for t in llvm-profdata llvm-cov; do
		command -v $t >/dev/null 2>&1 || { missing+=(llvm); break; }
	done
	[ ${#missing[@]} -eq 0 ] && exit 0
	echo "deps: missing: ${missing[*]}" >&2
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: make fuzz-cov needs these Debian packages. As root, run:" >&2
		echo "    apt-get update && apt-get install -y clang llvm" >&2
		exit 1
	fi
	echo "deps: installing: clang llvm" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2
	apt-get install -y -q clang llvm >&2
	exit 0
fi

if [ "${1:-}" = valgrind ]; then
	command -v valgrind >/dev/null 2>&1 && exit 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: make cachemodel-cachegrind needs valgrind. As root, run:" >&2
		echo "    apt-get update && apt-get install -y valgrind" >&2
		exit 1
	fi
	echo "deps: installing: valgrind" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2
	apt-get install -y -q valgrind >&2
	exit 0
fi

# tool -> Debian package
declare -A need=(
	[gcc]=gcc
	[nasm]=nasm
	[qemu-system-x86_64]=qemu-system-x86
	[qemu-system-aarch64]=qemu-system-arm
	[qemu-x86_64]=qemu-user
	[grub-mkrescue]=grub-common
	[xorriso]=xorriso
	[mformat]=mtools
	[aarch64-linux-gnu-gcc]=gcc-aarch64-linux-gnu
	[aarch64-linux-gnu-ld]=binutils-aarch64-linux-gnu
	[gdb-multiarch]=gdb-multiarch
	[python3]=python3
)
ALL="python3 python3-matplotlib qemu-system-x86 qemu-system-arm qemu-user nasm grub-pc-bin grub-common xorriso mtools gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu gdb-multiarch"

missing=()
for tool in "${!need[@]}"; do
	command -v "$tool" >/dev/null 2>&1 || missing+=("${need[$tool]}")
done
# grub-mkrescue needs the BIOS (i386-pc) modules to make a bootable ISO
[ -d /usr/lib/grub/i386-pc ] || missing+=(grub-pc-bin)
# every report's plots (lab/bench/plotting.py), under Debian's python3
/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1 || missing+=(python3-matplotlib)

[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: missing: ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: Quarry needs these Debian packages. As root, run:" >&2
	echo "    apt-get update && apt-get install -y $ALL" >&2
	exit 1
fi
echo "deps: installing: $ALL" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
apt-get install -y -q $ALL >&2
