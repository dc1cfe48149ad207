#!/usr/bin/env bash
# icount-compare.sh OLD [NEW] - every single-CPU -icount figure of two trees,
# side by side: `make icount-compare OLD=<rev or directory>`.
#
#   OLD   the tree to compare against: a directory holding a Quarry checkout
#         (built there, in its own build/, with its own Makefile), or a git
#         revision of this repository, exported with `git archive` into
#         build/icount-compare/tree-<rev>/ and built there
#   NEW   the tree compared (default: this checkout)
#
# For each configuration (x86_64 at 4K and 64K pages, arm64 at 4K, 16K and
# 64K, each with ALLOC=slab, slub, slob and slob-seg; ICMP_CONFIGS and
# ICMP_ALLOCS narrow the lists: "x86_64:4K arm64:16K", "slub slob") both trees
# build the kernel (make -j$ICMP_JOBS, default 2, with the same options; ICMP_MAKE
# adds more, e.g. SLUB_SHEAVES=0) and each tree's tests/qemu/run.sh boots it
# with "bench icount quick" at -smp 1 under -icount shift=0,sleep=off. Every
# BENCH line of the boot whose unit is instructions is kept except the header
# (the counter's measured rate): kmalloc test 1 and the pair at every size,
# test 3's single-CPU rows, messaging, the page allocator's rows and the
# memory and leak-check rows. The lines are matched by test, size and CPU and
# compared field by field.
#
# Output (in $ICMP_OUT, default build/icount-compare/): <arch>-<page>-<alloc>-
# {old,new}.txt (the kept lines, and .log: the build and the boot), diff.txt (each differing field: configuration,
# test, size, field, old, new, new - old) and a summary on stdout: how many
# lines each configuration compared and how many differ. Exit status 0 when
# every figure is identical, 1 when some differ or a build or boot failed,
# 2 for bad arguments.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] && [ $# -le 2 ] || { sed -n '2,28p' "$0" >&2; exit 2; }
old=$1
new=${2:-$here}
out=${ICMP_OUT:-$here/build/icount-compare}
mkdir -p "$out" || exit 2
if [ ! -d "$old" ]; then
	rev=$(git -C "$here" rev-parse --short --verify -q "$old^{commit}") ||
		{ echo "icount-compare: $old is neither a directory nor a revision" >&2; exit 2; }
	tree=$out/tree-$rev
	if [ ! -f "$tree/Makefile" ]; then
		rm -rf "$tree" && mkdir -p "$tree" &&
			git -C "$here" archive "$rev" | tar -x -C "$tree" ||
			{ echo "icount-compare: could not export $rev" >&2; exit 2; }
	fi
	old=$tree
fi
old=$(cd "$old" && pwd) || exit 2
new=$(cd "$new" && pwd) || exit 2
for t in "$old" "$new"; do
	[ -x "$t/tests/qemu/run.sh" ] || { echo "icount-compare: $t has no tests/qemu/run.sh" >&2; exit 2; }
done
configs=${ICMP_CONFIGS:-x86_64:4K x86_64:64K arm64:4K arm64:16K arm64:64K}
allocs=${ICMP_ALLOCS:-slab slub slob slob-seg}
jobs=${ICMP_JOBS:-2}
extra=${ICMP_MAKE:-}

# boot TREE ARCH PAGE ALLOC FILE - build and boot one configuration of TREE;
# FILE gets its kept BENCH lines, key first ("test size [cpu]"), then the
# figures as name=value. Returns 1 when the build or the boot failed.
boot() {
	local tree=$1 arch=$2 page=$3 alloc=$4 file=$5 dir log
	log=${file%.txt}.log
	# shellcheck disable=SC2086
	make -C "$tree" --no-print-directory -j"$jobs" ARCH="$arch" PAGE_SIZE="$page" \
		ALLOC="$alloc" $extra kernel > "$log" 2>&1 ||
		{ echo "   build failed in $tree (see $log)"; : > "$file"; return 1; }
	# shellcheck disable=SC2086
	dir=$(make -C "$tree" --no-print-directory -s ARCH="$arch" PAGE_SIZE="$page" \
		ALLOC="$alloc" $extra -f Makefile -f - icmp-print-build \
		<<< 'icmp-print-build: ; @echo $(BUILD)' | tail -1)
	(cd "$tree" && CMDLINE="bench icount quick" tests/qemu/run.sh "$dir/quarry.elf" 900 \
		-m 1G -smp 1 -icount shift=0,sleep=off) >> "$log" 2>&1
	tr -d '\r' < "$log" | grep -E '^BENCH .* cpus=1 mode=icount .*unit=instructions' |
		grep -v ' test=header ' |
		sed -E 's/^BENCH arch=[^ ]+ page=[^ ]+ alloc=[^ ]+ cpus=1 mode=icount //; s/ unit=instructions$//' |
		awk '{ key = $1 " " $2; rest = "";
		       for (i = 3; i <= NF; i++) if ($i ~ /^cpu=/) key = key " " $i; else rest = rest " " $i;
		       print key " |" rest }' > "$file"
	grep -q . "$file" || { echo "   no BENCH lines from $tree (see $log)"; return 1; }
	grep -q '^BENCH done' "$log" || { echo "   boot did not finish in $tree (see $log)"; return 1; }
	return 0
}

status=0
: > "$out/diff.txt"
printf '%-26s %6s %6s\n' configuration lines differ
for c in $configs; do
	arch=${c%%:*} page=${c#*:}
	for a in $allocs; do
		name=$arch-$page-$a
		boot "$old" "$arch" "$page" "$a" "$out/$name-old.txt" || status=1
		boot "$new" "$arch" "$page" "$a" "$out/$name-new.txt" || status=1
		# Field by field: a line only one side has counts as one difference.
		n=$(awk -v cfg="$name" -v diffs="$out/diff.txt" '
			function split_line(line, figs,   parts, k, f, i, kv) {
				split(line, parts, " \\| "); k = parts[1]
				delete figs; f = split(parts[2], kv, " ")
				for (i = 1; i <= f; i++) { split(kv[i], p, "="); figs[p[1]] = p[2] }
				return k
			}
			FNR == NR { k = split_line($0, of); old[k] = $0; order[++no] = k; next }
			{ k = split_line($0, nf); newl[k] = $0
			  if (!(k in old)) { print cfg " " k " | only in new" >> diffs; d++; next }
			  split_line(old[k], of)
			  line_d = 0
			  for (f in nf) if (!(f in of) || of[f] != nf[f]) {
				printf "%s %s | %s %s -> %s (%+d)\n", cfg, k, f, (f in of) ? of[f] : "-", nf[f],
					nf[f] - of[f] >> diffs; line_d = 1 }
			  for (f in of) if (!(f in nf)) { print cfg " " k " | " f " only in old" >> diffs; line_d = 1 }
			  d += line_d; seen++ }
			END { for (i = 1; i <= no; i++) if (!(order[i] in newl)) { print cfg " " order[i] " | only in old" >> diffs; d++ }
			      printf "%d %d\n", seen, d + 0 }' "$out/$name-old.txt" "$out/$name-new.txt")
		printf '%-26s %6s %6s\n' "$name" ${n% *} ${n#* }
		[ "${n#* }" = 0 ] || status=1
	done
done
if [ -s "$out/diff.txt" ]; then
	echo "== differences (configuration, test, size | field old -> new (new - old)):"
	cat "$out/diff.txt"
else
	echo "== every figure identical"
fi
exit $status
