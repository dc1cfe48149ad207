#!/usr/bin/env bash
# debian_test.sh - `make test`'s real Linux boots, without a kernel build:
# Debian's own prebuilt x86_64 kernel (lab/linux/debian.sh: Linux 6.1 SLUB
# with Debian's config) runs
#   - Quarry's benchmark module (lab/linux/bench/, built against Debian's
#     headers; its lines named debian61-slub) on 1 CPU under -icount: the
#     console passes check.py (every row there, parse.py reads them);
#   - the trace replay (lab/linux/replay/test.sh): bad traces refused with
#     the module's message, a guest too small refused before booting, the
#     shipped hackbench trace replayed with exact accounting (every event
#     ran, every object freed, every cache destroyed) on two identical boots.
# Prints PASS/FAIL lines and "N passed, M failed"; exit 1 on a failure.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
pass=0 fail=0
ok() { echo "PASS debian-linux: $1"; pass=$((pass + 1)); }
ko() { echo "FAIL debian-linux: $1"; fail=$((fail + 1)); }
done_() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }

if ! kh=$("$HERE/debian.sh"); then ko "Debian's prebuilt kernel and headers could not be had (above)"; done_; fi
read -r img hdr <<< "$kh"
ok "Debian's kernel $(basename "$img") and $hdr"

# The benchmark module in Debian's kernel, laid out as build.sh lays out a
# kernel it built, so that boot.sh boots it.
name=debian61-slub-x86_64-4K
dir=$ROOT/build/linux/$name
mkdir -p "$dir/module" "$dir/kbuild"
cp "$HERE"/bench/* "$ROOT/tools/cachemodel/marker.h" "$dir/module/"
cp "$img" "$dir/kernel.img" && cp "$(dirname "$img")/System.map-"* "$dir/kbuild/System.map"
echo "name=debian61-slub" > "$dir/quarry_bench.args"
. "$HERE/initramfs.sh"
if ! make -C "$hdr" M="$dir/module" modules > "$dir/module.log" 2>&1; then
	tail -5 "$dir/module.log"; ko "the benchmark module (lab/linux/bench/) does not build against $hdr (log: $dir/module.log)"
elif ! linux_initramfs "$dir/initramfs.cpio.gz" /bin/busybox "$HERE/init.sh" \
	"$dir/module/quarry_bench.ko" "$dir/quarry_bench.args"; then
	ko "the initramfs could not be made"
elif "$HERE/boot.sh" "$name" 1; then
	ok "quarry_bench.ko in Debian's kernel: every row, parsed ($(grep -c '^BENCH ' "$dir/console.log") BENCH lines)"
else
	ko "quarry_bench.ko in Debian's kernel: the boot or its console failed (above)"
fi

# The trace replay in Debian's kernel.
if "$HERE/replay/test.sh" "$hdr" "$img" "$ROOT/build/linux/debian/replay-test"; then
	ok "the trace replay in Debian's kernel (lab/linux/replay/test.sh)"
else
	ko "the trace replay in Debian's kernel (lab/linux/replay/test.sh, above)"
fi
done_
