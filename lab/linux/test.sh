#!/usr/bin/env bash
# test.sh - bench-linux's cheap tests (seconds; builds and boots nothing):
#   - console logs captured from real boots (testdata/: x86_64, and arm64,
#     which ends at "reboot: Power down") parse with lab/bench/parse.py (rows,
#     --counter) and pass check.py and boot.sh's log check; a truncated copy
#     and one that never powered off are refused;
#   - a real boot whose module file was garbage: boot.sh names insmod's error;
#   - build.sh refuses, with its message and a non-zero exit, a missing source
#     tarball (QUARRY_LINUX_TARBALL pointing nowhere), a module source that is
#     not one, an unknown allocator, an unsupported arch/page, an arm64
#     static busybox that cannot be downloaded (apt-get stubbed to fail), and
#     a kernel that fails to build (a fake source whose `make all` fails);
#   - replay/replay.sh refuses, before building anything, a kernel .config of
#     neither arch, an arm64 one with no page size, a missing arm64 busybox,
#     and CPUS=9;
#   - model.sh says "not measured" for a kernel not built; boot.sh with the
#     cache model refuses a missing plugin;
#   - the initramfs overlay of Linux 6.1's multi-CPU x86_64 boots holds its
#     three files after the base, byte for byte the same when made twice.
# Run: lab/linux/test.sh   (prints "N passed, M failed"; exit 1 on a failure)
# The bad-module log came from a real boot with garbage for quarry_bench.ko.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TD=$HERE/testdata
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0
ok() { echo "PASS bench-linux: $1"; pass=$((pass + 1)); }
ko() { echo "FAIL bench-linux: $1"; echo "$2" | sed 's/^/     /'; fail=$((fail + 1)); }
# expect NAME RC PATTERN CMD...: CMD exits RC and its output matches PATTERN.
expect() {
	local name=$1 want=$2 pat=$3 out rc
	shift 3
	out=$("$@" 2>&1); rc=$?
	if [ "$rc" = "$want" ] && grep -qE -- "$pat" <<< "$out"; then ok "$name"; else ko "$name (exit $rc, wanted $want)" "$out"; fi
}

GOOD=$TD/linux61-slub-x86_64-4K.console.log
expect "check.py: the captured SLUB log is complete" 0 "linux61-slub, 1 CPU\(s\): [0-9]+ rows$" \
	python3 "$HERE/check.py" "$GOOD"
expect "parse.py reads its rows (32 B test 1)" 0 "^x86_64,4K,linux61-slub,1,icount,kmalloc_then_free,32,alloc_cost,[0-9]+,instructions$" \
	python3 "$ROOT/lab/bench/parse.py" "$GOOD"
expect "parse.py --counter names rdtsc" 0 "^rdtsc under QEMU -icount shift=0" \
	python3 "$ROOT/lab/bench/parse.py" --counter "$GOOD"
expect "boot.sh accepts the captured log" 0 "rows$" \
	env QUARRY_LINUX_CONSOLE="$GOOD" "$HERE/boot.sh" linux61-slub-x86_64-4K
A64=$TD/linux61-slub-arm64-4K.console.log
expect "check.py: the captured arm64 SLUB log is complete" 0 "arm64 4K linux61-slub, 1 CPU\(s\): [0-9]+ rows$" \
	python3 "$HERE/check.py" "$A64"
expect "parse.py --counter names PMCCNTR_EL0 on arm64" 0 "^PMCCNTR_EL0" \
	python3 "$ROOT/lab/bench/parse.py" --counter "$A64"
expect "boot.sh accepts arm64's 'reboot: Power down'" 0 "rows$" \
	env QUARRY_LINUX_CONSOLE="$A64" "$HERE/boot.sh" linux61-slub-arm64-4K
grep -v "reboot: Power down" "$A64" > "$TMP/a64-nohalt.log"
expect "boot.sh refuses a log that never powered off" 1 "QEMU did not reach 'reboot: System halted' or 'reboot: Power down'" \
	env QUARRY_LINUX_CONSOLE="$TMP/a64-nohalt.log" "$HERE/boot.sh" linux61-slub-arm64-4K
grep -v -e "BENCH done" -e "test=kmalloc_free_pair size=512 " "$GOOD" > "$TMP/short.log"
expect "check.py refuses a log without 'BENCH done' and a row" 1 "did not reach 'BENCH done'" \
	python3 "$HERE/check.py" "$TMP/short.log"
expect "check.py names the missing row" 1 "missing row test=kmalloc_free_pair size=512 metric=pair_cost" \
	python3 "$HERE/check.py" "$TMP/short.log"
expect "boot.sh names insmod's error for a garbage module file" 1 "the module did not load: .*quarry_bench.ko" \
	env QUARRY_LINUX_CONSOLE="$TD/bad-module.console.log" "$HERE/boot.sh" linux61-slub-x86_64-4K

expect "report.py: messaging and the page allocator beside Quarry's" 0 "" \
	env QUARRY_BENCH_LOG="$GOOD" python3 "$ROOT/lab/bench/report.py" linux "$TMP/r.md" "$GOOD"
expect "report.py: the messaging line" 0 "^Messaging \\(per message: whole, in kmalloc\\+kfree; Slab: kB before, after\\): [0-9]+, [0-9]+, [0-9]+, [0-9]+; Quarry's: [0-9]+, [0-9]+, [0-9]+, [0-9]+\\.$" cat "$TMP/r.md"
expect "report.py: the page allocator line" 0 "order 3 [0-9]+/[0-9]+ \\([0-9]+/[0-9]+\\)\\.$" cat "$TMP/r.md"
expect "build.sh: a missing source tarball" 1 "linux source tarball $TMP/none.tar.xz does not exist" \
	env QUARRY_LINUX_TARBALL="$TMP/none.tar.xz" "$HERE/build.sh" 6.1 slub x86_64 4K
mkdir -p "$TMP/badmod" && echo "not a module" > "$TMP/badmod/bad.c" && echo "obj-m := bad.o" > "$TMP/badmod/Kbuild"
expect "build.sh: a module source that is not one" 1 "is not a module source" \
	env QUARRY_LINUX_MODULE="$TMP/badmod" "$HERE/build.sh" 6.1 slub x86_64 4K
expect "build.sh: a module folder with no Kbuild" 1 "no module source folder $TMP/none \\(no Kbuild in it\\)" \
	env QUARRY_LINUX_MODULE="$TMP/none" "$HERE/build.sh" 6.1 slub x86_64 4K
expect "build.sh: an unknown allocator" 1 "unknown allocator 'slob-seg'" "$HERE/build.sh" 6.1 slob-seg x86_64 4K
expect "build.sh: x86_64 has no 16K pages" 1 "unsupported arch/page 'x86_64/16K'" "$HERE/build.sh" 6.1 slub x86_64 16K
# arm64's busybox download failing: stubs for apt-get (fails) and dpkg (arm64 is
# already a foreign architecture), so nothing is downloaded or changed.
mkdir -p "$TMP/stub"
printf '#!/bin/sh\necho "E: stub apt-get: no network" >&2\nexit 100\n' > "$TMP/stub/apt-get"
printf '#!/bin/sh\necho arm64\n' > "$TMP/stub/dpkg"
chmod +x "$TMP/stub/apt-get" "$TMP/stub/dpkg"
expect "build.sh: an arm64 busybox that cannot be downloaded" 1 \
	"cannot obtain a static busybox for arm64 at $TMP/bb: apt-get download busybox-static:arm64=1:1.0-test failed \(E: stub apt-get: no network\)" \
	env PATH="$TMP/stub:$PATH" QUARRY_BUSYBOX="$TMP/bb" QUARRY_BUSYBOX_VERSION=1:1.0-test "$HERE/build.sh" 6.1 slub arm64 4K
[ ! -e "$TMP/bb" ] && ok "build.sh: no busybox left behind after a failed download" || ko "build.sh: a failed download left $TMP/bb" ""
expect "build.sh: usage" 2 "usage: build.sh" "$HERE/build.sh" 6.1
# A kernel that does not build: a source tarball whose Makefile configures
# (the fragment's lines survive) and then fails in `make all`. Tools the
# real build needs but this one never runs are stubbed where missing.
mkdir -p "$TMP/linux-source-0.0" "$TMP/bin"
printf 'tinyconfig olddefconfig:\n\t@mkdir -p $(O) && touch $(O)/.config\nall:\n\t@echo "fake.c:1:1: error: this kernel does not build" >&2; exit 2\n' \
	> "$TMP/linux-source-0.0/Makefile"
tar -C "$TMP" -cJf "$TMP/linux-source-0.0.tar.xz" linux-source-0.0
for t in ccache busybox cpio bc flex bison; do
	command -v "$t" > /dev/null || printf '#!/bin/sh\nexit 1\n' > "$TMP/bin/$t"
done
chmod +x "$TMP"/bin/* 2> /dev/null
expect "build.sh: a kernel that fails to build" 1 "linux00-slub-x86_64-4K: the kernel failed to build \\(log: .*build.log\\)" \
	env PATH="$TMP/bin:$PATH" QUARRY_LINUX_TARBALL="$TMP/linux-source-0.0.tar.xz" "$HERE/build.sh" 0.0 slub x86_64 4K
rm -rf "$ROOT/build/linux/linux00-slub-x86_64-4K" "$ROOT/build/linux/src/linux-source-0.0"

expect "model.sh: a kernel make bench-linux did not build" 3 "linux61-slub-arm64-2K: not measured: run make bench-linux" \
	"$HERE/model.sh" linux61-slub-arm64-2K "$TMP/model"
expect "boot.sh: the cache model without its plugin" 1 "no cache-model plugin at $TMP/none.so" \
	env MODEL_PLUGIN="$TMP/none.so" QUARRY_LINUX_MODEL="$TMP/r" "$HERE/boot.sh" linux61-slub-x86_64-4K

# replay.sh: the arch and page size from the kernel's .config (fake build directories).
printf 'QUARRYTR' > "$TMP/t.qtr"
touch "$TMP/img"
fake_kdir() { mkdir -p "$TMP/$1" && touch "$TMP/$1/Module.symvers" && printf '%s\n' "${@:2}" > "$TMP/$1/.config"; }
fake_kdir riscv CONFIG_RISCV=y CONFIG_MODULES=y
expect "replay.sh: a kernel neither x86_64 nor arm64" 1 "$TMP/riscv: neither an x86_64 nor an arm64 kernel" \
	"$HERE/replay/replay.sh" "$TMP/t.qtr" "$TMP/riscv" "$TMP/img" "$TMP/out"
fake_kdir nopage CONFIG_ARM64=y CONFIG_MODULES=y
expect "replay.sh: an arm64 kernel without a page size" 1 "$TMP/nopage: an arm64 kernel with no CONFIG_ARM64_4K/16K/64K_PAGES=y" \
	"$HERE/replay/replay.sh" "$TMP/t.qtr" "$TMP/nopage" "$TMP/img" "$TMP/out"
fake_kdir a64 CONFIG_ARM64=y CONFIG_ARM64_64K_PAGES=y CONFIG_MODULES=y
expect "replay.sh: no busybox for arm64" 1 "no static busybox for arm64 at $TMP/none" \
	env QUARRY_BUSYBOX="$TMP/none" "$HERE/replay/replay.sh" "$TMP/t.qtr" "$TMP/a64" "$TMP/img" "$TMP/out"
expect "replay.sh: more CPUs than the module replays on" 1 "CPUS=9: 1 to 8" \
	env CPUS=9 "$HERE/replay/replay.sh" "$TMP/t.qtr" "$TMP/a64" "$TMP/img" "$TMP/out"
expect "replay.sh: the cache model on 2 CPUs" 1 "MODEL_REPORT: the cache model runs the one-CPU replay only \\(CPUS=2\\)" \
	env CPUS=2 MODEL_REPORT="$TMP/r" "$HERE/replay/replay.sh" "$TMP/t.qtr" "$TMP/a64" "$TMP/img" "$TMP/out"
expect "replay.sh: the cache model without its plugin" 1 "no cache-model plugin at $TMP/none.so" \
	env MODEL_PLUGIN="$TMP/none.so" MODEL_REPORT="$TMP/r" "$HERE/replay/replay.sh" "$TMP/t.qtr" "$TMP/a64" "$TMP/img" "$TMP/out"
expect "replay.sh: the cache model without System.map" 1 "$TMP/a64: no System.map for the cache model" \
	env MODEL_PLUGIN="$TMP/img" MODEL_REPORT="$TMP/r" "$HERE/replay/replay.sh" "$TMP/t.qtr" "$TMP/a64" "$TMP/img" "$TMP/out"
# make replay ARCH=all exports ARCH=all to every make below it: the x86_64
# module build must name its ARCH (a fake kernel tree's make says which it got).
fake_kdir x64 CONFIG_X86_64=y CONFIG_MODULES=y
printf 'modules:\n\t@echo "module make got ARCH=$(ARCH)"; exit 1\n' > "$TMP/x64/Makefile"
x64_arch() {
	env ARCH=all QUARRY_BUSYBOX=/bin/true "$HERE/replay/replay.sh" "$TMP/t.qtr" "$TMP/x64" "$TMP/img" "$TMP/out-x64" >/dev/null 2>&1
	cat "$TMP/out-x64/module-build.log"
}
expect "replay.sh: the x86_64 module build says ARCH=x86_64 under ARCH=all" 0 "^module make got ARCH=x86_64$" x64_arch

# Linux 6.1 on several x86_64 CPUs: the overlay boot.sh appends holds /init,
# /bin/cpus-online and /bin/relax (a static x86_64 program that spins on
# PAUSE), the base archive unchanged before it, and the same bytes twice;
# a missing base is refused by name.
. "$HERE/initramfs.sh"
printf 'base-archive' > "$TMP/base.cpio.gz"
relax_overlay() {
	local n
	linux_initramfs_relax "$TMP/ov1" "$TMP/base.cpio.gz" "$HERE/init.sh" &&
		linux_initramfs_relax "$TMP/ov2" "$TMP/base.cpio.gz" "$HERE/init.sh" || return 1
	cmp -s "$TMP/ov1" "$TMP/ov2" || { echo "two overlays of the same inputs differ"; return 1; }
	n=$(stat -c %s "$TMP/base.cpio.gz")
	[ "$(head -c "$n" "$TMP/ov1")" = base-archive ] || { echo "the base archive is not first"; return 1; }
	tail -c +$((n + 1)) "$TMP/ov1" | gzip -dc | (mkdir -p "$TMP/ov" && cd "$TMP/ov" && cpio -id --quiet) || return 1
	cmp -s "$TMP/ov/init" "$HERE/init.sh" && cmp -s "$TMP/ov/bin/cpus-online" "$HERE/cpus-online.sh" &&
		[ -x "$TMP/ov/bin/relax" ] || { echo "init, cpus-online or relax missing"; return 1; }
	objdump -d "$TMP/ov/bin/relax" | grep -qw pause || { echo "relax does not spin on pause"; return 1; }
	echo "overlay ok"
}
expect "initramfs.sh: the 6.1 x86_64 multi-CPU overlay (init, cpus-online, relax)" 0 "^overlay ok$" relax_overlay
expect "initramfs.sh: the overlay refuses a missing base" 1 "no initramfs $TMP/none" \
	linux_initramfs_relax "$TMP/ov3" "$TMP/none" "$HERE/init.sh"

# linux_initramfs: the same inputs give the same bytes, made in two places
# (other inode numbers); a missing init script is refused by name.
same_initramfs() {
	linux_initramfs "$TMP/ir1.gz" /bin/true "$HERE/init.sh" "$HERE/relax.S" &&
		mkdir -p "$TMP/pad" && touch "$TMP"/pad/{1..64} &&	# the second's files get other inodes
		linux_initramfs "$TMP/ir2.gz" /bin/true "$HERE/init.sh" "$HERE/relax.S" || return 1
	cmp -s "$TMP/ir1.gz" "$TMP/ir2.gz" && echo "same bytes"
}
expect "initramfs.sh: an initramfs made twice has the same bytes" 0 "^same bytes$" same_initramfs
expect "initramfs.sh: a missing init script" 1 "no init script $TMP/none" \
	linux_initramfs "$TMP/ir3.gz" /bin/true "$TMP/none"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
