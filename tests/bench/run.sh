#!/usr/bin/env bash
# run.sh [QUICK] - `make bench`: build and boot each configuration with the
# benchmarks, gather build/bench/results.csv, report.md and plots.
#
#   single CPU: QEMU TCG -icount shift=0,sleep=off (rdtsc counts guest
#     instructions), every configuration booted twice: the figures must be
#     identical, and the run fails if they are not;
#   multi-CPU: MTTCG at -smp 2 and -smp 4 in real time, 5 boots each, and
#     -smp 1 in real time as the base of the concurrent ratio (QUICK: 1 boot
#     at -smp 1 and 2), reported as median and range.
# Configurations: x86_64 at 4K and 64K pages, each with the natural freelist
# index and the two seed-post variants (SLAB_IDX=4, SLAB_GROW_LOCKED=1);
# QUICK=1 runs the natural configuration only.
set -u
cd "$(dirname "$0")/../.."
quick=${1:-}
out=build/bench
mkdir -p "$out/logs"
rm -f "$out"/logs/*.log
jobs=2

if ! command -v gnuplot >/dev/null 2>&1; then
	if [ "$(id -u)" -eq 0 ]; then
		echo "bench: installing gnuplot-nox" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q gnuplot-nox >/dev/null 2>&1 ||
			{ apt-get update -q >/dev/null && apt-get install -y -q gnuplot-nox >/dev/null; }
	else
		echo "bench: gnuplot missing (apt-get install gnuplot-nox); plots skipped" >&2
	fi
fi

variants=("" "SLAB_IDX=4" "SLAB_GROW_LOCKED=1")
[ -n "$quick" ] && variants=("")
smps=(1 2 4)	# -smp 1 in real time too: the base of the concurrent ratio
boots=5
if [ -n "$quick" ]; then smps=(1 2); boots=1; fi
cmd_extra=${quick:+ quick}
status=0

vname() { case "$1" in "") echo slab ;; SLAB_IDX=4) echo slab-idx4 ;; *) echo slab-growlocked ;; esac; }

for ps in 4K 64K; do
	for v in "${variants[@]}"; do
		name="x86_64-$(echo $ps | tr K k)-$(vname "$v")"
		echo "== $name: build"
		if ! make --no-print-directory -j$jobs PAGE_SIZE=$ps $v kernel > "$out/logs/$name-build.log" 2>&1; then
			tail -20 "$out/logs/$name-build.log"; status=1; continue
		fi
		case "$v" in SLAB_IDX=4) dir=build/x86_64-$(echo $ps | tr K k)-idx4 ;;
			SLAB_GROW_LOCKED=1) dir=build/x86_64-$(echo $ps | tr K k)-growlocked ;;
			*) dir=build/x86_64-$(echo $ps | tr K k) ;; esac
		elf=$dir/quarry.elf
		tests/qemu/mkiso.sh "$elf" "$dir/bench-icount.iso" "bench icount$cmd_extra" || { status=1; continue; }
		tests/qemu/mkiso.sh "$elf" "$dir/bench.iso" "bench$cmd_extra" || { status=1; continue; }
		for r in 1 2; do
			echo "== $name: single CPU, -icount, run $r of 2"
			tests/qemu/run.sh "$dir/bench-icount.iso" 600 -m 1G -smp 1 \
				-icount shift=0,sleep=off > "$out/logs/$name-icount-$r.log" 2>&1 ||
				{ echo "   boot failed (see $out/logs/$name-icount-$r.log)"; status=1; }
		done
		a=$(grep '^BENCH .*cpus=1 mode=icount' "$out/logs/$name-icount-1.log" | tr -d '\r')
		b=$(grep '^BENCH .*cpus=1 mode=icount' "$out/logs/$name-icount-2.log" | tr -d '\r')
		if [ -n "$a" ] && [ "$a" = "$b" ]; then
			echo "   deterministic: $(echo "$a" | wc -l) BENCH lines identical in both runs"
		else
			echo "   NOT deterministic: the two -icount runs differ:"
			diff <(echo "$a") <(echo "$b") | head -10
			status=1
		fi
		# multi-CPU runs only where they compare something: the natural build and
		# the grow-locked variant (seed 001's concurrent table)
		[ "$v" = "SLAB_IDX=4" ] && continue
		for n in "${smps[@]}"; do
			for r in $(seq 1 $boots); do
				echo "== $name: -smp $n real time, boot $r of $boots"
				tests/qemu/run.sh "$dir/bench.iso" 900 -m 1G -smp $n > "$out/logs/$name-smp$n-$r.log" 2>&1 ||
					{ echo "   boot failed (see $out/logs/$name-smp$n-$r.log)"; status=1; }
			done
		done
	done
done

echo "== report"
python3 tests/bench/report.py "$out" || status=1
echo "wrote $out/results.csv, $out/raw.csv, $out/report.md and $out/*.png"
exit $status
