#!/usr/bin/env bash
# seeds.sh - the seed posts' memory claims measured with the cache model
# (`make cachemodel-seeds`): each pair of configurations below booted once
# with "bench icount quick" under -icount with the model (entries=on), and
# tools/cachemodel/seeds.py's table of misses and modelled cycles per
# operation -> build/cachemodel/seeds.md.
#   SLAB's natural freelist index against SLAB_IDX=4 (seeds 000/003), x86_64 4K
#   arm64 4K against 64K pages (TLB misses; the TLB entry is the granule)
#   SLUB with and without sheaves (SLUB_SHEAVES=0), x86_64 4K
#   SLOB against SLOB-seg, x86_64 4K
# Exit status 1 when a build or boot failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.." || exit 1
out=build/cachemodel/seeds
mkdir -p "$out"
rm -f "$out"/*.log "$out"/*.report
make -s cachemodel || exit 1
status=0
# NAME ARCH PAGE make-variables...
configs=(
	"x86_64-4k-slab x86_64 4K ALLOC=slab"
	"x86_64-4k-slab-idx4 x86_64 4K ALLOC=slab SLAB_IDX=4"
	"arm64-4k-slab arm64 4K ALLOC=slab"
	"arm64-64k-slab arm64 64K ALLOC=slab"
	"x86_64-4k-slub x86_64 4K ALLOC=slub"
	"x86_64-4k-slub-nosheaves x86_64 4K ALLOC=slub SLUB_SHEAVES=0"
	"x86_64-4k-slob x86_64 4K ALLOC=slob"
	"x86_64-4k-slob-seg x86_64 4K ALLOC=slob-seg"
)
for c in "${configs[@]}"; do
	read -r name arch ps vars <<< "$c"
	echo "== $name"
	# shellcheck disable=SC2086
	dir=$(make --no-print-directory -s ARCH=$arch PAGE_SIZE=$ps $vars -f Makefile -f - print-build \
		<<< 'print-build: ; @echo $(BUILD)' | tail -1)
	# shellcheck disable=SC2086
	make --no-print-directory -j2 ARCH=$arch PAGE_SIZE=$ps $vars kernel > "$out/$name-build.log" 2>&1 ||
		{ echo "   build failed: $out/$name-build.log"; status=1; continue; }
	MODEL_ARGS=entries=on CPU= CMDLINE="bench icount quick" tools/cachemodel/run.sh "$dir/quarry.elf" 900 \
		"$out/$name.report" -m 1G -smp 1 -icount shift=0,sleep=off > "$out/$name.log" 2>&1 ||
		{ echo "   boot failed: $out/$name.log"; status=1; }
done
python3 tools/cachemodel/seeds.py "$out" > build/cachemodel/seeds.md || status=1
cat build/cachemodel/seeds.md
exit $status
