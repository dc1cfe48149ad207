#!/usr/bin/env bash
# debian.sh - Debian's own prebuilt x86_64 Linux kernel, as Debian 12 ships
# it (the linux-image-<abi>-amd64 that linux-image-amd64 depends on: Linux
# 6.1, SLUB, Debian's distro config with its hardening), so that a real
# Linux boots with Quarry's modules without a kernel build (make test uses
# it: lab/linux/debian_test.sh).
#   debian.sh      prints "IMAGE HEADERS": the kernel image (vmlinuz, with
#                  its System.map and config beside it) and the directory
#                  modules build against (/usr/src/linux-headers-<abi>-amd64)
# The image package is downloaded, not installed, and unpacked once under
# build/linux/debian/<abi>/; the headers package is installed (as root; else
# the apt-get command is printed). Exit 1 with a message when either cannot
# be had (no package index, no network, not root).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=$ROOT/build/linux/debian
die() { echo "debian.sh: $*" >&2; exit 1; }

[ "$(uname -m)" = x86_64 ] || die "Debian's prebuilt kernel is fetched for x86_64 hosts only (this is $(uname -m))"
# The ABI (6.1.0-N) the meta-package points at today; asked of apt-cache,
# after an update when the index does not know the meta-package yet.
abi_of() { apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: linux-image-\(.*\)-amd64$/\1/p' | head -1; }
abi=$(abi_of)
if [ -z "$abi" ] && [ "$(id -u)" -eq 0 ]; then
	apt-get update -q > /dev/null 2>&1 || true
	abi=$(abi_of)
fi
[ -n "$abi" ] || die "apt-cache does not know linux-image-amd64 (run apt-get update, as root, with Debian's package mirrors reachable)"

dir=$OUT/$abi
img=$dir/boot/vmlinuz-$abi-amd64
if [ ! -f "$img" ]; then
	echo "debian.sh: downloading linux-image-$abi-amd64 (about 70 MB)" >&2
	mkdir -p "$dir/deb"
	(cd "$dir/deb" && apt-get download -q "linux-image-$abi-amd64" > /dev/null 2>&1) ||
		die "apt-get download linux-image-$abi-amd64 failed (package mirrors reachable? apt-get update first)"
	dpkg-deb -x "$dir"/deb/linux-image-"$abi"-amd64_*.deb "$dir" || die "cannot unpack $(ls "$dir"/deb/*.deb)"
	rm -rf "$dir/lib" "$dir/deb"	# the modules: the lab's initramfs needs none of them
	[ -f "$img" ] || die "linux-image-$abi-amd64 has no boot/vmlinuz-$abi-amd64"
fi

hdr=/usr/src/linux-headers-$abi-amd64
if [ ! -f "$hdr/Module.symvers" ]; then
	[ "$(id -u)" -eq 0 ] || die "linux-headers-$abi-amd64 is not installed: as root, run apt-get install -y linux-headers-$abi-amd64"
	echo "debian.sh: installing linux-headers-$abi-amd64" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "linux-headers-$abi-amd64" > "$OUT/headers.log" 2>&1 ||
		die "apt-get install linux-headers-$abi-amd64 failed (log: $OUT/headers.log)"
	[ -f "$hdr/Module.symvers" ] || die "linux-headers-$abi-amd64 installed but $hdr/Module.symvers is missing"
fi
echo "$img $hdr"
