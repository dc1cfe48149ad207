#!/usr/bin/env bash
# build.sh - build one small Linux kernel from Debian's linux-source package,
# Quarry's benchmark module (lab/linux/bench/) against it, and an initramfs
# (static busybox + an /init that loads the module), all under
# build/linux/<name>/ where name is linux<VER>-<alloc>-<arch>-<page>.
#   build.sh VERSION ALLOC ARCH PAGE     e.g. build.sh 6.1 slub x86_64 4K
# Config: `make tinyconfig`, then config/common.config, config/<ARCH>.config,
# config/<ALLOC>.config (and ARM64_<PAGE>_PAGES on arm64), then
# `make olddefconfig`; every fragment line is checked to have survived.
# Compiles through ccache (CCACHE_DIR=build/linux/ccache), so a rebuild is fast.
# Environment: QUARRY_LINUX_TARBALL=path  use this tarball instead of
#   /usr/src/linux-source-VERSION.tar.xz (nothing is installed then);
#   QUARRY_LINUX_MODULE=dir  build the module in this folder (its Kbuild and
#   sources) instead of lab/linux/bench/, as quarry_bench.ko;
#   QUARRY_BUSYBOX=path  the static busybox (default: x86_64 /bin/busybox; arm64
#   build/linux/busybox-arm64, downloaded when missing, see below);
#   QUARRY_BUSYBOX_VERSION  the busybox-static:arm64 version to download
#   (default: the host's busybox-static's); JOBS (default 2).
set -euo pipefail

usage() { echo "usage: build.sh VERSION ALLOC ARCH PAGE (e.g. 6.1 slub x86_64 4K)" >&2; exit 2; }
[ $# -eq 4 ] || usage
VER=$1 ALLOC=$2 ARCH=$3 PAGE=$4
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=$ROOT/build/linux
NAME=linux${VER//./}-$ALLOC-$ARCH-$PAGE
DIR=$OUT/$NAME
JOBS=${JOBS:-2}
die() { echo "build.sh: $NAME: $*" >&2; exit 1; }

case "$ALLOC" in slub|slab|slob) ;; *) die "unknown allocator '$ALLOC' (slub, slab or slob)";; esac
case "$ARCH/$PAGE" in
x86_64/4K) KARCH=x86 CROSS= IMAGE=arch/x86/boot/bzImage ;;
arm64/4K|arm64/16K|arm64/64K) KARCH=arm64 CROSS=aarch64-linux-gnu- IMAGE=arch/arm64/boot/Image ;;
*) die "unsupported arch/page '$ARCH/$PAGE' (x86_64 4K; arm64 4K, 16K, 64K)";;
esac
[ -f "$HERE/config/$ALLOC.config" ] || die "no config fragment $HERE/config/$ALLOC.config"
MODSRC=${QUARRY_LINUX_MODULE:-$HERE/bench}
[ -f "$MODSRC/Kbuild" ] || die "no module source folder $MODSRC (no Kbuild in it)"
grep -qs 'MODULE_LICENSE' "$MODSRC"/*.c || die "$MODSRC is not a module source (no MODULE_LICENSE in its .c files)"

# The static busybox of the initramfs, found (or, for arm64, downloaded) before
# anything is built. arm64: Debian's busybox-static:arm64 of the host's
# busybox-static version, downloaded and unpacked, never installed.
BB=${QUARRY_BUSYBOX:-}
if [ -z "$BB" ]; then
	if [ "$ARCH" = x86_64 ]; then BB=/bin/busybox; else BB=$OUT/busybox-$ARCH; fi
fi
if [ "$ARCH" = arm64 ] && [ ! -e "$BB" ]; then
	bbver=${QUARRY_BUSYBOX_VERSION:-$(dpkg-query -W -f='${Version}' busybox-static 2>/dev/null || true)}
	bbfail() { die "cannot obtain a static busybox for arm64 at $BB: $* (or put one there, or set QUARRY_BUSYBOX=path)"; }
	[ -n "$bbver" ] || bbfail "busybox-static is not installed on the host, so there is no version to match (apt-get install busybox-static)"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		[ "$(id -u)" -eq 0 ] || bbfail "arm64 is not a dpkg architecture here; as root: dpkg --add-architecture arm64 && apt-get update"
		echo "build.sh: adding the arm64 dpkg architecture (to download busybox-static:arm64)" >&2
		{ dpkg --add-architecture arm64 && apt-get update -q; } >&2 || bbfail "dpkg --add-architecture arm64 && apt-get update failed"
	fi
	echo "build.sh: downloading busybox-static:arm64=$bbver into $BB" >&2
	bbtmp=$(mktemp -d)
	mkdir -p "$(dirname "$BB")"
	if ! (cd "$bbtmp" && apt-get download -q "busybox-static:arm64=$bbver") > "$bbtmp/log" 2>&1; then
		msg=$(tail -1 "$bbtmp/log"); rm -rf "$bbtmp"
		bbfail "apt-get download busybox-static:arm64=$bbver failed ($msg)"
	fi
	dpkg-deb -x "$bbtmp"/busybox-static_*_arm64.deb "$bbtmp/x" && cp "$bbtmp/x/bin/busybox" "$BB.part" && mv "$BB.part" "$BB" ||
		{ rm -rf "$bbtmp"; bbfail "the downloaded busybox-static:arm64 package has no bin/busybox"; }
	rm -rf "$bbtmp"
fi
[ -x "$BB" ] || die "no static busybox for $ARCH at $BB (x86_64: apt-get install busybox-static)"
file -L "$BB" 2>/dev/null | grep -q "statically linked" || ! command -v file >/dev/null || die "$BB is not statically linked"

# The source: Debian's tarball, unpacked once under build/linux/src/.
TARBALL=${QUARRY_LINUX_TARBALL:-/usr/src/linux-source-$VER.tar.xz}
if [ ! -f "$TARBALL" ]; then
	if [ -n "${QUARRY_LINUX_TARBALL:-}" ]; then
		die "linux source tarball $TARBALL does not exist (QUARRY_LINUX_TARBALL; Debian's: apt-get install linux-source-$VER)"
	fi
	if [ "$(id -u)" -ne 0 ]; then
		die "linux-source-$VER is not installed: apt-get install linux-source-$VER"
	fi
	echo "build.sh: installing linux-source-$VER" >&2
	export DEBIAN_FRONTEND=noninteractive
	{ apt-get update -q && apt-get install -y -q "linux-source-$VER"; } >&2 ||
		die "linux-source-$VER is not installed and apt-get could not install it"
	[ -f "$TARBALL" ] || die "linux-source-$VER installed but $TARBALL is missing"
fi
SRC=$OUT/src/$(basename "$TARBALL" .tar.xz)
if [ ! -f "$SRC/.quarry-unpacked" ]; then
	echo "build.sh: unpacking $TARBALL into $OUT/src/" >&2
	mkdir -p "$OUT/src"
	rm -rf "$SRC"
	tar -C "$OUT/src" -xf "$TARBALL" || die "could not unpack $TARBALL"
	[ -f "$SRC/Makefile" ] || die "$TARBALL did not unpack to $SRC"
	touch "$SRC/.quarry-unpacked"
fi

for t in ccache busybox cpio gzip bc flex bison "${CROSS}gcc"; do
	command -v "$t" >/dev/null || die "$t is not installed (apt-get install ccache busybox-static cpio bc flex bison libelf-dev libssl-dev gcc-aarch64-linux-gnu)"
done

# Reproducible identity, and ccache.
export KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 2026" KBUILD_BUILD_USER=quarry \
	KBUILD_BUILD_HOST=quarry KBUILD_BUILD_VERSION=1
export CCACHE_DIR=$OUT/ccache CCACHE_BASEDIR=$OUT
KB=$DIR/kbuild
mkdir -p "$KB" "$CCACHE_DIR"
KMAKE=(make -C "$SRC" O="$KB" ARCH=$KARCH CROSS_COMPILE=$CROSS CC="ccache ${CROSS}gcc")

# Config.
FRAG=$DIR/fragment.config
cat "$HERE/config/common.config" "$HERE/config/$ARCH.config" "$HERE/config/$ALLOC.config" > "$FRAG"
[ "$ARCH" = arm64 ] && echo "CONFIG_ARM64_${PAGE}_PAGES=y" >> "$FRAG"
LOG=$DIR/config.log
{ "${KMAKE[@]}" tinyconfig && cat "$FRAG" >> "$KB/.config" && "${KMAKE[@]}" olddefconfig; } > "$LOG" 2>&1 ||
	die "configuring failed (log: $LOG)"
lost=0
while read -r line; do
	case "$line" in
	CONFIG_*=*) grep -qxF "$line" "$KB/.config" || { echo "build.sh: $NAME: fragment line '$line' did not survive olddefconfig (now: $(grep -E "(^|# )${line%%=*}[= ]" "$KB/.config" || echo unset))" >&2; lost=1; } ;;
	"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}
		! grep -q "^$sym=" "$KB/.config" || { echo "build.sh: $NAME: '$line' did not survive olddefconfig (now: $(grep "^$sym=" "$KB/.config"))" >&2; lost=1; } ;;
	esac
done < <(grep -v '^#[^ ]' "$FRAG" | grep -v '^# [a-z]')
[ $lost -eq 0 ] || die "the config fragment did not survive (config: $KB/.config)"

# Kernel.
LOG=$DIR/build.log
nice -n 10 "${KMAKE[@]}" -j"$JOBS" all > "$LOG" 2>&1 || { tail -20 "$LOG" >&2; die "the kernel failed to build (log: $LOG)"; }
[ -f "$KB/$IMAGE" ] || die "the build made no $IMAGE (log: $LOG)"
cp "$KB/$IMAGE" "$DIR/kernel.img"

# The module.
MOD=$DIR/module
rm -rf "$MOD" && mkdir -p "$MOD"
cp "$MODSRC"/* "$MOD/"
cp "$ROOT/tools/cachemodel/marker.h" "$MOD/marker.h"	# the cache model's region marks
LOG=$DIR/module.log
"${KMAKE[@]}" M="$MOD" modules > "$LOG" 2>&1 || { tail -20 "$LOG" >&2; die "the module failed to build (log: $LOG)"; }

# Initramfs: static busybox, /init (lab/linux/init.sh) and the module.
. "$HERE/initramfs.sh"
linux_initramfs "$DIR/initramfs.cpio.gz" "$BB" "$HERE/init.sh" "$MOD/quarry_bench.ko" ||
	die "the initramfs could not be made"
echo "$NAME" > "$DIR/name"
echo "build.sh: $NAME: built $DIR/kernel.img, module, initramfs" >&2
