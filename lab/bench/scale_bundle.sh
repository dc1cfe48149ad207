#!/usr/bin/env bash
# scale_bundle.sh [CORES] - `make bench-scale-bundle`: `make bench-scale` packed
# for a machine on which nothing can be installed (no compiler, no QEMU, another
# C library), made here on Debian: build/bench-scale-bundle-cpusN.tar.xz, N =
# max(8, CORES), CORES the target's core count (default 16).
#
# The bundle holds
#   bin/   the four workloads binaries built with NR_CPUS=N (workloads-4k*-cpusN, or
#          without the suffix at N = 8), and perf where this machine has it
#   iso/   the SLAB, SLUB and counting-SLUB kernels (NR_CPUS=N): x86_64's as GRUB ISOs
#          booting "bench quick", arm64's as ELFs (quarry-arm64-*.elf) QEMU loads itself
#   lib/   this machine's dynamic loader and every library those programs and the
#          peers (jemalloc, tcmalloc, mimalloc, where installed) load
#   qemu/  qemu-system-x86_64 and qemu-system-aarch64, the libraries they load, x86's
#          TCG module
#   fw/    the firmware it reads (SeaBIOS, kvmvapic, linuxboot_dma)
#   scale.sh, report.py, report_scale.py   the same scripts as `make bench-scale`
#   run.sh  on the target: SCALE_BUNDLE=<its dir> scale.sh, so every program
#          starts through lib/ld-linux-x86-64.so.2 --library-path ... and QEMU finds
#          its module (QEMU_MODULE_DIR) and firmware (-L); results in ./results/
#          (report.md; scale.png where python3-matplotlib is installed; the CSVs
#          to take home: python3 report_scale.py --dir results).
# On the target: tar xJf bench-scale-bundle-cpusN.tar.xz && cd bench-scale-bundle-cpusN
# && ./run.sh (SCALE_THREADS, SCALE_RUNS, SCALE_PCT, SCALE_HOST, SCALE_KERNEL, SCALE_ARCHES as for
# make bench-scale). x86_64 Linux only.
set -euo pipefail
cd "$(dirname "$0")/../.."
cores=${1:-16}
case $cores in '' | *[!0-9]*) echo "bench-scale-bundle: '$cores' is no core count" >&2; exit 2 ;; esac
[ "$cores" -ge 1 ] && [ "$cores" -le 64 ] ||
	{ echo "bench-scale-bundle: cores must be 1 to 64, not $cores" >&2; exit 2; }
ncpus=$((cores > 8 ? cores : 8))
suffix=$([ "$ncpus" != 8 ] && echo "-cpus$ncpus")
name=bench-scale-bundle-cpus$ncpus
stage=build/$name
rm -rf "$stage" "build/$name.tar.xz"
mkdir -p "$stage"/{bin,iso,lib,qemu,fw} build/bench-scale/logs

echo "bench-scale-bundle: building the workloads and kernels with NR_CPUS=$ncpus"
lab/bench/host/deps.sh
for a in slab slub slob slob-seg; do
	make --no-print-directory -f lab/bench/host/bench-host.mk BH_VARIANT_BUILD=1 PAGE_SHIFT=12 \
		SLAB_IDX= SLAB_DEBUG= SLAB_GROW_LOCKED= SLAB_FREELIST_HARDENED= SLAB_STATS= SLUB_SHEAVES= \
		BH_ALLOC=$a NR_CPUS=$ncpus > build/bench-scale/logs/bundle-host-$a.log 2>&1 ||
		{ echo "bench-scale-bundle: build failed: build/bench-scale/logs/bundle-host-$a.log" >&2; exit 1; }
	tag=$([ $a = slab ] || echo "-$a")
	cp "build/bench-host/workloads-4k$tag$suffix" "$stage/bin/"
done
# slub-stats: SLUB counting its events (SLAB_STATS=1), for the events per operation only.
for a in slab slub slub-stats; do
	make --no-print-directory -j"$(nproc)" ARCH=x86_64 PAGE_SIZE=4K ALLOC=${a%-stats} NR_CPUS=$ncpus \
		SLAB_DEBUG= SLAB_STATS=$([ $a = slub-stats ] && echo 1) kernel \
		> build/bench-scale/logs/bundle-kernel-$a.log 2>&1 ||
		{ echo "bench-scale-bundle: build failed: build/bench-scale/logs/bundle-kernel-$a.log" >&2; exit 1; }
	tests/qemu/mkiso.sh "build/x86_64-4k$([ $a = slab ] || echo "-$a")$suffix/quarry.elf" \
		"$stage/iso/quarry-$a.iso" "bench quick"
	make --no-print-directory -j"$(nproc)" ARCH=arm64 PAGE_SIZE=4K ALLOC=${a%-stats} NR_CPUS=$ncpus \
		SLAB_DEBUG= SLAB_STATS=$([ $a = slub-stats ] && echo 1) kernel \
		> build/bench-scale/logs/bundle-kernel-arm64-$a.log 2>&1 ||
		{ echo "bench-scale-bundle: build failed: build/bench-scale/logs/bundle-kernel-arm64-$a.log" >&2; exit 1; }
	cp "build/arm64-4k$([ $a = slab ] || echo "-$a")$suffix/quarry.elf" "$stage/iso/quarry-arm64-$a.elf"
done

# Every library a program or library loads, resolved here, into dir (no links).
copy_libs() {	# copy_libs DIR FILE...
	local dir=$1 f lib
	shift
	for f in "$@"; do
		ldd "$f" 2>/dev/null | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }' |
			while read -r lib; do
				[ -e "$dir/$(basename "$lib")" ] || cp -L "$lib" "$dir/"
			done
	done
}
# perf, for the profile step (scale.sh, 3.), where this machine has it.
perf_bin=$(command -v perf || true)
if [ -n "$perf_bin" ]; then
	cp -L "$perf_bin" "$stage/bin/perf"
else
	echo "bench-scale-bundle: no perf here (Debian: linux-perf): the bundle goes without the profile" >&2
fi
copy_libs "$stage/lib" "$stage"/bin/*
loader=$(ldd "$stage/bin/workloads-4k$suffix" | awk '/ld-linux/ { print ($3 ~ /^\// ? $3 : $1) }')
cp -L "$loader" "$stage/lib/ld-linux-x86-64.so.2"
peers=()
for p in libjemalloc.so.2 libtcmalloc_minimal.so.4 libmimalloc.so.2; do
	f=$(ldconfig -p | awk -v p="$p" '$1 == p && /x86-64/ && !f { f = $NF } END { print f }')
	if [ -n "$f" ]; then
		cp -L "$f" "$stage/lib/$p"
		peers+=("$stage/lib/$p")
	else
		echo "bench-scale-bundle: $p is not installed here: the bundle goes without it" >&2
	fi
done
[ ${#peers[@]} -gt 0 ] && copy_libs "$stage/lib" "${peers[@]}"

for q in qemu-system-x86_64 qemu-system-aarch64; do
	qemu=$(command -v $q)
	cp -L "$qemu" "$stage/qemu/"
	copy_libs "$stage/qemu" "$qemu"
done
tcg=$(ls /usr/lib/x86_64-linux-gnu/qemu/accel-tcg-x86_64.so 2>/dev/null || true)
if [ -n "$tcg" ]; then
	cp -L "$tcg" "$stage/qemu/"
	copy_libs "$stage/qemu" "$tcg"
fi
# The C library and loader are the bundle's one copy (lib/), searched after qemu/.
rm -f "$stage"/qemu/libc.so.6 "$stage"/qemu/ld-linux-x86-64.so.2
for f in bios-256k.bin vgabios-stdvga.bin kvmvapic.bin linuxboot_dma.bin; do
	src=
	for d in /usr/share/qemu /usr/share/seabios; do
		[ -e "$d/$f" ] && { src=$d/$f; break; }
	done
	[ -n "$src" ] && cp -L "$src" "$stage/fw/" ||
		echo "bench-scale-bundle: no $f here (QEMU may ask for it)" >&2
done

cp lab/bench/scale.sh lab/bench/report.py lab/bench/report_scale.py "$stage/"
echo "$ncpus" > "$stage/nr_cpus"
cat > "$stage/run.sh" <<'RUN'
#!/usr/bin/env bash
# run.sh - Quarry's bench-scale from this bundle (see scale.sh): results in ./results/.
here=$(cd "$(dirname "$0")" && pwd)
SCALE_BUNDLE=$here OUT=${OUT:-$here/results} exec bash "$here/scale.sh" "$@"
RUN
chmod +x "$stage/run.sh" "$stage/scale.sh"
cat > "$stage/README.txt" <<TXT
Quarry bench-scale bundle, NR_CPUS=$ncpus, made $(date -u +%Y-%m-%d) on $(. /etc/os-release; echo "$PRETTY_NAME").
Run: ./run.sh   (x86_64 Linux; nothing to install; about a minute at 16 cores)
Options: SCALE_THREADS=1,2,4,8,16 SCALE_RUNS=3 SCALE_PCT=20 SCALE_HOST=0 SCALE_KERNEL=0 SCALE_PROFILE=0
SCALE_ARCHES=x86_64,arm64 (the kernels booted)
Results: results/report.md, results/host.csv, results/kernel.csv, results/logs/,
results/profile/ (perf reports of SLAB and SLUB at 1 thread and the most, or the workloads'
own samples where perf may not run; perf stat's counters of the same runs and mimalloc's: the
hardware events only where the machine has a PMU),
results/scale.png where python3-matplotlib is installed (else copy results/ back and
run python3 report_scale.py --dir results on a machine that has it).
TXT
tar -C build -cf - "$name" | xz -9 -T0 > "build/$name.tar.xz"
echo "bench-scale-bundle: build/$name.tar.xz ($(du -h "build/$name.tar.xz" | cut -f1))"
