#!/usr/bin/env bash
# replay.sh - replay a Quarry trace (a converted .qtr) inside a real Linux
# kernel under QEMU -icount, with lab/linux/replay/quarry_replay.ko, and
# collect its figures in the form tools/trace/kreplay.sh's collect() writes.
#
#   lab/linux/replay/replay.sh TRACE.qtr KDIR BZIMAGE OUTDIR
#     TRACE.qtr  a converted trace (build/replay/bin/convert -q in.txt.xz out.qtr)
#     KDIR       the kernel's build directory (.config, Module.symvers)
#     BZIMAGE    that kernel's image (x86_64 bzImage, arm64 Image)
#     OUTDIR     where the results go (made if missing)
#   Environment: MEM=512M guest memory (-m); CPUS=N replays on N CPUs as the
#     trace's CPUs (default 1; the module's cpus=, QEMU's -smp); PAGES=1 replays the page events
#     too; MERGE=0 boots with slab_nomerge (default: Linux's own default,
#     the module's caches merged with fitting ones); SAMPLES=200 memory
#     samples; BOOTS=2 boots (each after the first must print identical
#     REPLAY lines); TIMEOUT=900 seconds per boot;
#     QUARRY_BUSYBOX=path the static busybox (default: x86_64 /bin/busybox,
#     arm64 build/linux/busybox-arm64, which lab/linux/build.sh downloads);
#     MODEL_REPORT=path boots under the cache model's plugin (1 CPU; MODEL_PLUGIN
#     overrides build/cachemodel/cachemodel.so, MODEL_ARGS adds its options):
#     boot 1's report to path, boot N's to path.bootN; with 2+ boots the
#     summary gets model_identical=BOOTS when every report is boot 1's, else 0
#     (and the status 1). One TLB entry maps 2M on x86_64, the page on arm64,
#     as Quarry's own model runs (tools/cachemodel/run.sh); per-function lines
#     from KDIR/System.map.
#
# The arch and page size come from KDIR/.config (CONFIG_X86_64; CONFIG_ARM64
# with CONFIG_ARM64_4K/16K/64K_PAGES); QEMU is lab/linux/qemu.sh's, on CPUS CPUs.
# The module is built with tools/cachemodel/marker.h and lab/linux/bench/qb_pmu.h
# copied beside it.
#
# Output in OUTDIR: console.log (boot 1; console.bootN.log for later boots),
# <trace>.summary (variant=..., the REPLAY k=v lines, all_passes_ok=,
# boot_seconds=, icount_identical=), <trace>.csv (the memory samples),
# module/ (the module as built), initramfs.cpio.gz.
# Exit status: 0 when the replay ran with exact accounting (and every boot
# repeated boot 1); 1 with a message otherwise: the module does not build,
# the module refuses the trace (its message), the trace is too large for
# the guest's memory, QEMU timed out, the kernel panicked.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)

die() {
	echo "linux-replay: $*" >&2
	exit 1
}

[ $# -eq 4 ] || die "usage: $0 TRACE.qtr KDIR BZIMAGE OUTDIR (environment: MEM=512M PAGES=1 SAMPLES=200 BOOTS=2 TIMEOUT=900)"
TRACE=$1 KDIR=$2 BZIMAGE=$3 OUT=$4
MEM=${MEM:-512M}
CPUS=${CPUS:-1}
PAGES=${PAGES:-0}
SAMPLES=${SAMPLES:-200}
BOOTS=${BOOTS:-2}
TIMEOUT=${TIMEOUT:-900}

[ -f "$TRACE" ] || die "$TRACE: no such file"
[ "$(head -c 8 "$TRACE" | tr -d '\0')" = QUARRYTR ] ||
	die "$TRACE is not a converted Quarry trace: convert it first (make -f tools/trace/trace.mk ALLOC=slab PAGE_SHIFT=12 convert; build/replay/bin/convert -q TRACE.txt.xz TRACE.qtr)"
[ -f "$KDIR/.config" ] || die "$KDIR: no .config there: give the kernel's build directory"
[ -f "$KDIR/Module.symvers" ] || die "$KDIR: no Module.symvers: the kernel there is not built (make modules too)"
[ -f "$BZIMAGE" ] || die "$BZIMAGE: no such kernel image"
case $PAGES in 0 | 1) ;; *) die "PAGES=$PAGES: 0 or 1" ;; esac
case $SAMPLES in [1-9] | [1-9][0-9]* ) ;; *) die "SAMPLES=$SAMPLES: a number from 1 to 50000" ;; esac
case $BOOTS in [1-9]) ;; *) die "BOOTS=$BOOTS: 1 to 9" ;; esac
case $CPUS in [1-8]) ;; *) die "CPUS=$CPUS: 1 to 8" ;; esac
case $MEM in [1-9]*[MG]) ;; *) die "MEM=$MEM: a size such as 512M or 2G" ;; esac
MODEL_REPORT=${MODEL_REPORT:-}
if [ -n "$MODEL_REPORT" ]; then
	[ "$CPUS" = 1 ] || die "MODEL_REPORT: the cache model runs the one-CPU replay only (CPUS=$CPUS)"
	plugin=${MODEL_PLUGIN:-$ROOT/build/cachemodel/cachemodel.so}
	[ -f "$plugin" ] || die "no cache-model plugin at $plugin: build it with 'make cachemodel'"
	[ -f "$KDIR/System.map" ] || die "$KDIR: no System.map for the cache model's per-function lines"
fi
# The arch, the page size and the tools that go with them, from the kernel's .config.
if grep -q '^CONFIG_X86_64=y' "$KDIR/.config"; then
	# ARCH said explicitly: make replay ARCH=all passes ARCH=all down to every make.
	arch=x86_64 page=4K qemu=qemu-system-x86_64 KMAKE=(ARCH=x86_64) CC=gcc BB=${QUARRY_BUSYBOX:-/bin/busybox}
elif grep -q '^CONFIG_ARM64=y' "$KDIR/.config"; then
	arch=arm64 qemu=qemu-system-aarch64 CC=aarch64-linux-gnu-gcc
	KMAKE=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	BB=${QUARRY_BUSYBOX:-$ROOT/build/linux/busybox-arm64}
	page=$(sed -n 's/^CONFIG_ARM64_\(4K\|16K\|64K\)_PAGES=y$/\1/p' "$KDIR/.config")
	[ -n "$page" ] || die "$KDIR: an arm64 kernel with no CONFIG_ARM64_4K/16K/64K_PAGES=y in its .config"
else
	die "$KDIR: neither an x86_64 nor an arm64 kernel (no CONFIG_X86_64=y or CONFIG_ARM64=y in its .config)"
fi
for t in "$qemu" "$CC" cpio gzip timeout python3; do
	command -v "$t" > /dev/null || die "$t is not installed (needed for the $arch kernel in $KDIR)"
done
[ -x "$BB" ] || die "no static busybox for $arch at $BB (x86_64: apt-get install busybox-static; arm64: lab/linux/build.sh downloads it, or set QUARRY_BUSYBOX)"

grep -q '^CONFIG_MODULES=y' "$KDIR/.config" || die "$KDIR: the kernel has no module support (CONFIG_MODULES)"
alloc=$(sed -n 's/^CONFIG_\(SLAB\|SLUB\|SLOB\)=y$/\1/p' "$KDIR/.config" | tr 'A-Z' 'a-z' | head -1)
kver=$(sed -n 's/^VERSION = //p' "$KDIR/Makefile" "$KDIR/source/Makefile" 2> /dev/null | head -1)
kpl=$(sed -n 's/^PATCHLEVEL = //p' "$KDIR/Makefile" "$KDIR/source/Makefile" 2> /dev/null | head -1)
[ -n "$kver" ] || kver=$(sed -n 's/^# Linux\/[a-z0-9_]* \([0-9]*\)\.\([0-9]*\).*/\1/p' "$KDIR/.config")
[ -n "$kpl" ] || kpl=$(sed -n 's/^# Linux\/[a-z0-9_]* \([0-9]*\)\.\([0-9]*\).*/\2/p' "$KDIR/.config")
variant="$arch linux-$kver.$kpl-$alloc $page"

mkdir -p "$OUT" || die "cannot make $OUT"
OUT=$(cd "$OUT" && pwd)
name=$(basename "$TRACE")
name=${name%.qtr}

# The trace's size and peaks, from its header (tools/trace/qtrace.h).
read -r tsize n_objects peak_req peak_pages < <(python3 - "$TRACE" <<'EOF'
import os, struct, sys
p = sys.argv[1]
with open(p, "rb") as f:
    h = f.read(312)
if len(h) < 312:
    print(os.path.getsize(p), 0, 0, 0)
    sys.exit(0)
n_objects = struct.unpack_from("<Q", h, 72)[0]
# counts[7] at 80, then 10 u64 (source_lines .. live_at_end), then the peaks
peak_objs, peak_req, peak_pages = struct.unpack_from("<QQQ", h, 80 + 7 * 8 + 10 * 8)
print(os.path.getsize(p), n_objects, peak_req, peak_pages)
EOF
)
mem_mb=${MEM%[MG]}
[ "${MEM: -1}" = G ] && mem_mb=$((mem_mb * 1024))
# In the guest: the trace in the initramfs (compressed, then unpacked) and
# read again into vmalloc'd memory, 8 bytes an object, the live objects (at
# most twice what they ask for) and page blocks, and ~48 MB for Linux itself.
need_mb=$(((tsize * 3 + n_objects * 8 + peak_req * 2 + (PAGES == 1 ? peak_pages : 0)) / 1048576 + 48))
[ "$need_mb" -le "$mem_mb" ] ||
	die "the trace is too large for the guest's memory: $TRACE is $((tsize / 1048576)) MB with $n_objects objects (the replay needs about $need_mb MB), the guest has -m $MEM: set MEM=$(((need_mb + 127) / 128 * 128))M"

# The module, built against KDIR in OUTDIR/module.
M=$OUT/module
rm -rf "$M"
mkdir -p "$M"
cp "$HERE/quarry_replay.c" "$HERE/Kbuild" "$ROOT/tools/cachemodel/marker.h" "$HERE/../bench/qb_pmu.h" "$M/"
# (the build directory left out of the module: the same module, byte for byte,
# whatever OUTDIR; the initramfs's bytes place the guest's pages, and the
# page allocator's work in a call depends on where they are)
if ! make -C "$KDIR" "${KMAKE[@]}" M="$M" KCFLAGS="-ffile-prefix-map=$M/=lab/linux/replay/" modules > "$OUT/module-build.log" 2>&1 || [ ! -f "$M/quarry_replay.ko" ]; then
	grep -E 'error|Error|WARNING' "$OUT/module-build.log" | head -20 >&2
	die "the module does not build against $KDIR (see $OUT/module-build.log)"
fi

# The loader: one finit_module() (busybox's insmod loads again with
# init_module() when finit_module() fails, and the module always fails).
"$CC" -static -Os -o "$M/finit" "$HERE/finit.c" >> "$OUT/module-build.log" 2>&1 ||
	die "the module loader (finit.c) does not build statically with $CC (libc6-dev; see $OUT/module-build.log)"

# The initramfs: static busybox, the loader, the module, the trace, /init.
IR=$OUT/initramfs
rm -rf "$IR"
mkdir -p "$IR"/{bin,proc,sys,dev}
cp "$BB" "$IR/bin/busybox"
cp "$M/finit" "$IR/bin/finit"
for a in sh mount grep cat echo poweroff; do ln -s busybox "$IR/bin/$a"; done
cp "$M/quarry_replay.ko" "$IR/quarry_replay.ko"
cp "$TRACE" "$IR/trace.qtr"
# Linux 6.1 on several x86_64 CPUs boots on CPU 0 alone (maxcpus=1) and /init
# brings the others up beside a PAUSE loop: QEMU 7.2's round-robin under
# -icount never gives the AP a turn while 6.1's boot CPU waits for it
# (lab/linux/boot.sh says how).
nomerge=
[ "${MERGE:-1}" = 0 ] && nomerge=" slab_nomerge"
online=: maxcpus=
if [ "$CPUS" != 1 ] && [ "$arch" = x86_64 ] && [ "$kver.$kpl" = 6.1 ]; then
	. "$HERE/../initramfs.sh"
	linux_relax_tools "$IR" || die "the multi-CPU initramfs could not be made"
	online=/bin/cpus-online maxcpus=" maxcpus=1"
fi
cat > "$IR/init" <<EOF
#!/bin/sh
# /init of the Linux replay (lab/linux/replay/replay.sh): load the replay
# module (it replays while loading, then refuses to stay: status EAGAIN),
# show the slab memory before and after, power off.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
$online
echo "QUARRY-REPLAY-INIT: meminfo before: \$(grep -E '^Slab:' /proc/meminfo)"
finit /quarry_replay.ko "path=/trace.qtr pages=$PAGES samples=$SAMPLES icount=1 cpus=$CPUS" 2>/insmod.err
echo "QUARRY-REPLAY-INIT: insmod status \$?: \$(cat /insmod.err)"
echo "QUARRY-REPLAY-INIT: meminfo after: \$(grep -E '^Slab:' /proc/meminfo)"
poweroff -f
EOF
chmod +x "$IR/init"
(cd "$IR" && find . -exec touch -h -d @0 {} + && find . | LC_ALL=C sort | cpio -o -H newc --quiet --reproducible | gzip -1 -n) > "$OUT/initramfs.cpio.gz" ||
	die "cannot make the initramfs"

# collect LOG: the REPLAY lines as OUT/name.summary, the samples as OUT/name.csv (kreplay.sh's form).
. "$ROOT/tools/trace/collect.sh"
collect() {
	replay_collect "$1" "$OUT" "$name" "$variant"
}

. "$HERE/../qemu.sh"
linux_qemu_cmd "$arch" "$page" "$CPUS" "$MEM" || exit 1

# boot LOG [REPORT]: one -icount boot, under the cache model writing REPORT
# when given; its console (CRs and printk times gone) in LOG.
boot() {
	local log=$1 raw=$1.raw qpid rc=0 waited=0 plug=()
	if [ -n "${2:-}" ]; then
		local tlb=$page
		[ "$arch" = x86_64 ] && tlb=2M
		plug=(-plugin "$plugin,tlbpage=$tlb,syms=$KDIR/System.map,out=$2${MODEL_ARGS:+,$MODEL_ARGS}")
		rm -f "$2"
	fi
	rm -f "$log" "$raw"
	timeout "$TIMEOUT" "${LINUX_QEMU[@]}" -kernel "$BZIMAGE" -initrd "$OUT/initramfs.cpio.gz" \
		-append "console=$LINUX_CONSOLE printk.time=0 loglevel=7 panic=-1$nomerge$maxcpus" "${plug[@]}" \
		< /dev/null > "$raw" 2>&1 &
	qpid=$!
	while kill -0 $qpid 2> /dev/null; do
		if grep -qaE "reboot: (Power off not available: )?(System halted|Power down)" "$raw" 2> /dev/null; then
			kill $qpid 2> /dev/null
			break
		fi
		sleep 0.5
	done
	wait $qpid 2> /dev/null
	rc=$?
	tr -d '\r' < "$raw" | sed 's/^\[ *[0-9]*\.[0-9]*\] //' > "$log"
	rm -f "$raw"
	grep -qaE "reboot: (Power off not available: )?(System halted|Power down)" "$log" && return 0
	if [ $rc -eq 124 ]; then
		echo "linux-replay: QEMU timed out after $TIMEOUT s without powering off (console: $log; TIMEOUT=seconds to wait longer)" >&2
	elif grep -qa "Kernel panic" "$log"; then
		echo "linux-replay: the kernel panicked: $(grep -am1 'Kernel panic' "$log") (console: $log)" >&2
	else
		echo "linux-replay: QEMU ended (status $rc) before the guest powered off (console: $log)" >&2
	fi
	return 1
}

status=0
for b in $(seq 1 "$BOOTS"); do
	log=$OUT/console.log
	[ "$b" -gt 1 ] && log=$OUT/console.boot$b.log
	rep=
	if [ -n "$MODEL_REPORT" ]; then
		rep=$MODEL_REPORT
		[ "$b" -gt 1 ] && rep=$MODEL_REPORT.boot$b
	fi
	t0=$(date +%s%N)
	boot "$log" "$rep" || exit 1
	[ -z "$rep" ] || [ -s "$rep" ] || die "boot $b under the cache model left no report at $rep (console: $log)"
	secs=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
	if grep -qa "replay: trace module refused" "$log"; then
		die "the module refused the trace: $(grep -am1 'replay: trace module refused' "$log" | sed 's/^replay: trace module refused: //') (console: $log)"
	fi
	if ! grep -qa "^REPLAY accounting_ok=" "$log"; then
		grep -a "QUARRY-REPLAY-INIT: insmod" "$log" >&2
		grep -aiE "oom|out of memory|Unknown symbol|disagrees|BUG|WARNING" "$log" | head -5 >&2
		die "the replay did not finish: no REPLAY lines (console: $log)"
	fi
	if [ "$b" -eq 1 ]; then
		collect "$log"
		echo "boot_seconds=$secs" >> "$OUT/$name.summary"
		echo "merge=$([ -z "$nomerge" ] && echo 1 || echo 0)" >> "$OUT/$name.summary"
		echo "linux-replay: $variant, -icount on $CPUS CPU(s), -m $MEM: $(grep -am1 '^replay: accounting exact' "$log" | cut -c9-80)... ($secs s)"
		grep -qx "all_passes_ok=1" "$OUT/$name.summary" || {
			grep -a "^replay: accounting\|^replay: event" "$log" >&2
			echo "linux-replay: the accounting is not exact (above; console: $log)" >&2
			status=1
		}
	elif ! diff -q <(grep -a "^REPLAY" "$OUT/console.log") <(grep -a "^REPLAY" "$log") > /dev/null; then
		echo "linux-replay: boot $b gave other figures than boot 1 (diff $OUT/console.log $log)" >&2
		echo "icount_identical=0" >> "$OUT/$name.summary"
		status=1
	else
		[ "$b" -eq "$BOOTS" ] && echo "icount_identical=$BOOTS" >> "$OUT/$name.summary"
		echo "linux-replay: boot $b: every REPLAY line identical to boot 1 ($secs s)"
	fi
done
if [ -n "$MODEL_REPORT" ] && [ "$BOOTS" -gt 1 ]; then
	same=$BOOTS
	for b in $(seq 2 "$BOOTS"); do
		cmp -s "$MODEL_REPORT" "$MODEL_REPORT.boot$b" || same=0
	done
	echo "model_identical=$same" >> "$OUT/$name.summary"
	if [ "$same" = 0 ]; then
		echo "linux-replay: the cache model's reports differ between boots ($MODEL_REPORT, .bootN)" >&2
		status=1
	else
		echo "linux-replay: the cache model's reports of all $BOOTS boots identical"
	fi
fi
s() { sed -n "s/^$1=//p" "$OUT/$name.summary" | head -1; }
x10() { awk -v v="$(s "cost_per_op_x10_$1")" 'BEGIN { printf "%.1f", v / 10 }'; }
echo "linux-replay: instructions per call: kmalloc $(x10 1), kfree $(x10 2), cache alloc $(x10 3), cache free $(x10 4), page alloc $(x10 5), page free $(x10 6)"
echo "linux-replay: slab memory: start $(($(s slab_start) / 1024)) kB, peak $(($(s peak_slab) / 1024)) kB, end $(($(s end_slab) / 1024)) kB, after freeing all $(($(s slab_after_free) / 1024)) kB"
echo "linux-replay: $OUT/$name.summary, $OUT/$name.csv, $OUT/console.log"
exit $status
