#!/usr/bin/env bash
# bench.sh NAME ELF CPU OUT "CMD_EXTRA" - `make bench MODEL=1`'s hook
# (lab/bench/run.sh calls it after each configuration's -icount runs): boot
# the configuration's single-CPU "bench icount" twice more with the cache
# model (tools/cachemodel/run.sh, entries=on), check that the two reports are
# identical and that the BENCH lines are those of the run without the model
# (OUT/logs/NAME-icount-1.log), and add the per-operation table
# (tools/cachemodel/bench.py) to OUT/model.md (remade from this run's tables). Logs and reports:
# OUT/logs/NAME-model-{1,2}.{log,report}. Exit status 1 on a failed boot, a
# difference or a table that does not pair up.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.." || exit 1
name=$1 elf=$2 cpu=$3 out=$4 extra=$5
status=0
make -s cachemodel || exit 1
for r in 1 2; do
	echo "== $name: single CPU, -icount, with the cache model, run $r of 2"
	MODEL_ARGS=entries=on${MODEL_ARGS:+,$MODEL_ARGS} CPU=$cpu CMDLINE="bench icount$extra" \
		tools/cachemodel/run.sh "$elf" 900 "$out/logs/$name-model-$r.report" -m 1G -smp 1 \
		-icount shift=0,sleep=off > "$out/logs/$name-model-$r.log" 2>&1 ||
		{ echo "   boot failed (see $out/logs/$name-model-$r.log)"; exit 1; }
done
if cmp -s "$out/logs/$name-model-1.report" "$out/logs/$name-model-2.report"; then
	echo "   model deterministic: both reports identical"
else
	echo "   model NOT deterministic: $out/logs/$name-model-{1,2}.report differ"
	status=1
fi
a=$(grep '^BENCH .*cpus=1 mode=icount' "$out/logs/$name-icount-1.log" 2>/dev/null | tr -d '\r')
b=$(grep '^BENCH .*cpus=1 mode=icount' "$out/logs/$name-model-1.log" | tr -d '\r')
if [ -n "$a" ] && [ "$a" != "$b" ]; then
	echo "   the cache model changed the BENCH figures (it must not):"
	diff <(echo "$a") <(echo "$b") | head -6
	status=1
fi
tools/cachemodel/bench.py "$out/logs/$name-model-1.log" "$out/logs/$name-model-1.report" "$name" \
	> "$out/logs/$name-model.md" || { echo "   the model's table for $name did not pair up"; status=1; }
tools/cachemodel/model_md.sh "$out"
echo "   misses and modelled cycles per operation: $out/model.md"
exit $status
