#!/usr/bin/env bash
# tests/coherence/test.sh - make test's check of the cache-line ownership model
# (tools/coherence): known sharing patterns give exactly the moves they must
# (tools/coherence/patterns.c, threads taking turns), bad plugin arguments and
# bad run.sh options are refused with a message, and SLAB's and SLUB's host
# workloads in lock step at 4 threads move fewer than one line in four per
# operation in mm/ (a per-CPU array, node, sheaf or counter sharing a line with
# another CPU's would move it on nearly every operation). Prints PASS/FAIL lines;
# exits 1 on any FAIL. About a minute.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=build/coherence/test
mkdir -p $OUT || exit 1
fails=0
pass() { echo "PASS coherence: $*"; }
fail() { echo "FAIL coherence: $*"; fails=$((fails + 1)); }

if ! make --no-print-directory coherence > $OUT/build.log 2>&1 ||
	! cc -O2 -g -Wall -Wextra -Werror -pthread -o $OUT/patterns tools/coherence/patterns.c \
		>> $OUT/build.log 2>&1; then
	tail -5 $OUT/build.log
	fail "the plugin or the patterns program does not build"
	exit 1
fi
PLUGIN=build/coherence/coherence.so

# The moves the report gives the line at address $2 (0 when not listed).
moves_of() {
	awk -v a="$2" '$1 == "line" && $2 == a {
		split($3, t, "="); split($4, i, "="); print t[2] + i[2]; found = 1 }
		END { if (!found) print 0 }' "$1"
}

# 1. Patterns, 4 threads, 50 rounds: the shared line moves at every turn but the first.
for mode in private false true read; do
	rep=$OUT/$mode.txt
	if ! qemu-x86_64 -plugin $PLUGIN,out=$rep,top=100000 $OUT/patterns $mode 4 50 > $OUT/$mode.addr; then
		fail "$mode: the patterns program failed under the plugin"
		continue
	fi
	case $mode in
	false | true) want=199 ;;
	*) want=0 ;;
	esac
	bad=
	while read -r _ m i addr; do
		[ "$m" = "$mode" ] || continue
		got=$(moves_of $rep "$(printf '0x%x' "$addr")")
		[ "$got" = "$want" ] || bad="$bad line $addr ($m $i): $got moves, want $want;"
	done < $OUT/$mode.addr
	if [ -z "$bad" ] && grep -q "^data $mode" $OUT/$mode.addr; then
		pass "$mode sharing, 4 threads in turn, 50 rounds: $want moves of the data line(s)"
	else
		fail "$mode sharing:$bad"
	fi
done

# 2. Bad input refused with a message naming it.
for arg in "line=48" "top=0" "bogus=1"; do
	msg=$(qemu-x86_64 -plugin $PLUGIN,$arg $OUT/patterns read 1 1 2>&1 >/dev/null)
	if [ $? -ne 0 ] && echo "$msg" | grep -q "coherence: bad argument '$arg'"; then
		pass "plugin argument '$arg' refused with a message"
	else
		fail "plugin argument '$arg': no refusal ($msg)"
	fi
done
for bad in "CO_THREADS=0" "CO_THREADS=17" "CO_WORKLOADS=prodcons" "CO_ALLOCATORS=bogus" "CO_SCALE=x" "CO_LIMIT=0"; do
	msg=$(env "$bad" tools/coherence/run.sh 2>&1)
	if [ $? -ne 0 ] && echo "$msg" | grep -q "coherence: ${bad%%=*}: '${bad#*=}'"; then
		pass "run.sh $bad refused with a message"
	else
		fail "run.sh $bad: no refusal naming it ($(echo "$msg" | head -2 | tr '\n' ' '))"
	fi
done

# 3. SLAB and SLUB, mixed and larson, 4 threads in lock step: mm/'s moves per operation.
export GLIBC_TUNABLES=glibc.rtld.optional_static_tls=65536
for alloc in slab slub; do
	tag=4k
	[ $alloc = slab ] || tag=4k-$alloc
	bin=$OUT/workloads-$tag
	if ! make --no-print-directory -f lab/bench/host/bench-host.mk BH_VARIANT_BUILD=1 \
		PAGE_SHIFT=12 SLAB_IDX= SLAB_DEBUG= SLAB_GROW_LOCKED= SLAB_STATS= \
		SLAB_FREELIST_HARDENED= SLAB_FREELIST_RANDOM= BH_ALLOC=$alloc BH_OUT=$OUT \
		$bin > $OUT/build-$alloc.log 2>&1; then
		tail -5 $OUT/build-$alloc.log
		fail "$alloc: the workloads do not build"
		continue
	fi
	for w in mixed larson; do
		rep=$OUT/$alloc-$w.txt
		rm -f $OUT/$alloc-$w.csv
		if ! qemu-x86_64 -plugin $PLUGIN,out=$rep.raw $bin --allocators quarry --variant $alloc \
			--workloads $w --threads 4 --runs 1 --no-warm-each --scale 1 --lockstep \
			--arena-mb 128 --csv $OUT/$alloc-$w.csv > $OUT/$alloc-$w.log 2>&1; then
			tail -3 $OUT/$alloc-$w.log
			fail "$alloc $w: the run failed under the plugin"
			continue
		fi
		ops=$(awk -F, '{s += $7} END {print 2 * s}' $OUT/$alloc-$w.csv)
		{ echo "run allocator=$alloc workload=$w threads=4 ops=$ops"; cat $rep.raw; } > $rep
		python3 tools/coherence/report.py $OUT/$alloc-$w.md $rep > /dev/null || {
			fail "$alloc $w: report.py failed"
			continue
		}
		per=$(awk -F'|' '$2 ~ /'$alloc'/ && $3 ~ /'$w'/ {gsub(/ /, "", $6); print $6}' $OUT/$alloc-$w.md)
		# larson hands most objects to another thread: those moves are the workload's.
		limit=0.25
		[ $w = larson ] && limit=1
		if [ -n "$per" ] && awk -v p="$per" -v l=$limit 'BEGIN { exit !(p < l) }'; then
			pass "$alloc $w, 4 threads in lock step: $per line moves per operation in mm/ (under $limit)"
		else
			fail "$alloc $w, 4 threads in lock step: '${per}' line moves per operation in mm/, limit $limit (see $OUT/$alloc-$w.md)"
		fi
	done
done
exit $((fails > 0))
