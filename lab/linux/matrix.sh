#!/usr/bin/env bash
# matrix.sh - `make bench-linux`: build (build.sh) and boot (boot.sh) every
# kernel of the matrix, with a progress line each, then write
# build/linux/report.md (report.py). Goes on past a failed kernel, exits 1
# at the end if any failed.
#   LINUX_MATRIX="VER:ALLOC:ARCH:PAGE ..." overrides the default matrix
#   (6.1 slub, slab, slob and 6.12 slub at x86_64 4K, then at arm64 4K, 64K
#   and 16K: 16 kernels), e.g. LINUX_MATRIX="6.1:slub:arm64:4K
#   6.1:slub:arm64:64K"; LINUX_CPUS=N boots
#   on N CPUs (default 1; test 3's multi-CPU rows need 2+).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=$ROOT/build/linux
DEFAULT=
for ap in x86_64:4K arm64:4K arm64:64K arm64:16K; do
	DEFAULT+=" 6.1:slub:$ap 6.1:slab:$ap 6.1:slob:$ap 6.12:slub:$ap"
done
MATRIX=${LINUX_MATRIX:-$DEFAULT}
CPUS=${LINUX_CPUS:-1}
read -ra items <<< "$MATRIX"
n=${#items[@]} i=0 failed=() logs=()
mkdir -p "$OUT"
for it in "${items[@]}"; do
	i=$((i + 1))
	IFS=: read -r ver alloc arch page <<< "$it"
	name=linux${ver//./}-$alloc-$arch-$page
	echo "[$i/$n] linux $ver $alloc $arch $page: building (log: build/linux/$name/build.log)"
	start=$SECONDS
	if ! "$HERE/build.sh" "$ver" "$alloc" "$arch" "$page"; then
		failed+=("$name (build)"); continue
	fi
	log=build/linux/$name/console.log
	[ "$CPUS" = 1 ] || log=build/linux/$name/console-smp$CPUS.log
	echo "[$i/$n] linux $ver $alloc $arch $page: built in $((SECONDS - start)) s; booting under -icount on $CPUS CPU(s) (console: $log)"
	start=$SECONDS
	if ! "$HERE/boot.sh" "$name" "$CPUS"; then
		failed+=("$name (boot)"); continue
	fi
	echo "[$i/$n] linux $ver $alloc $arch $page: booted in $((SECONDS - start)) s"
	logs+=("$ROOT/$log")
done
if [ ${#logs[@]} -gt 0 ]; then
	python3 "$ROOT/lab/bench/report.py" linux "$OUT/report.md" "${logs[@]}" &&
		echo "bench-linux: report in build/linux/report.md"
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "bench-linux: failed: ${failed[*]}" >&2
	exit 1
fi
echo "bench-linux: all $n kernels built, booted and checked"
