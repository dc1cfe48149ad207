#!/usr/bin/env bash
# model.sh NAME OUT - `make bench MODEL=1`'s Linux rows: boot one kernel that
# `make bench-linux` built (build/linux/NAME) on 1 CPU under -icount twice
# more with the cache model's plugin (boot.sh, QUARRY_LINUX_MODEL), check
# that both reports are identical and that the BENCH lines are those of its
# boot without the model (build/linux/NAME/console.log), and write the
# per-operation table (tools/cachemodel/bench.py, the same pairing as
# Quarry's) to OUT/logs/NAME-model.md. Logs: OUT/logs/NAME-model-{1,2}.{log,report}.
# Exit: 0 done; 1 a boot failed, the reports differ, the model changed the
# figures or the table did not pair up; 3 the kernel is not built (said as
# "not measured: run make bench-linux").
set -u
[ $# -eq 2 ] || { echo "usage: model.sh NAME OUT" >&2; exit 2; }
name=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=$root/build/linux/$name
if [ ! -f "$dir/kernel.img" ] || [ ! -f "$dir/console.log" ]; then
	echo "   $name: not measured: run make bench-linux (no build/linux/$name/kernel.img and console.log)"
	exit 3
fi
mkdir -p "$out/logs"
status=0
for r in 1 2; do
	echo "== $name: Linux, single CPU, -icount, with the cache model, run $r of 2"
	# Under the plugin a boot runs several times slower than boot.sh's own
	# limit allows for (SLOB's slow kmalloc on arm64, a loaded host): 20 minutes.
	QUARRY_LINUX_TIMEOUT=${QUARRY_LINUX_TIMEOUT:-1200} \
		QUARRY_LINUX_MODEL=$out/logs/$name-model-$r.report "$here/boot.sh" "$name" 1 ||
		{ echo "   boot failed (console: $dir/console-model.log)"; exit 1; }
	cp "$dir/console-model.log" "$out/logs/$name-model-$r.log"
done
if cmp -s "$out/logs/$name-model-1.report" "$out/logs/$name-model-2.report"; then
	echo "   model deterministic: both reports identical"
else
	echo "   model NOT deterministic: $out/logs/$name-model-{1,2}.report differ"
	status=1
fi
if ! diff <(grep -a '^BENCH .*cpus=1 ' "$dir/console.log") \
	<(grep -a '^BENCH .*cpus=1 ' "$out/logs/$name-model-1.log") > /dev/null; then
	echo "   the cache model changed $name's BENCH figures (it must not), or the kernel changed since its"
	echo "   plain boot (rerun make bench-linux):"
	diff <(grep -a '^BENCH .*cpus=1 ' "$dir/console.log") \
		<(grep -a '^BENCH .*cpus=1 ' "$out/logs/$name-model-1.log") | head -6
	status=1
fi
"$root/tools/cachemodel/bench.py" "$out/logs/$name-model-1.log" "$out/logs/$name-model-1.report" \
	"$name" > "$out/logs/$name-model.md" || { echo "   the model's table for $name did not pair up"; status=1; }
exit $status
