#!/usr/bin/env bash
# slab-scale.sh [ARCH] - what the object allocators' "Slab:" figure does as
# CPUs grow (issue 14, "Scale"). For each allocator (ALLOCS, default
# "slab slub slob") and page size (PAGE_SIZES, default "4K 64K"), it builds
# the kernel with NR_CPUS=8 and NR_CPUS=64 and boots each twice per CPU count
# (NR_CPUS=8: 1 and 8 CPUs; NR_CPUS=64: 1 and 64 CPUs):
#   "slabinfo":          Slab: after boot, every CPU up (the kernel's last
#                        report);
#   "selftest slabinfo": the self-tests, whose scale_ test prints Slab:
#                        before, once every CPU has used every kmalloc cache,
#                        and after draining; then Slab: after all self-tests.
# Prints a Markdown table (also written to build/test/slab-scale.md) and one
# FAIL line for a boot that fails or a figure that is missing. Every
# multi-CPU boot runs round-robin in one host thread (TCG_THREAD=single, see
# run.sh): the figures do not depend on it, and on a loaded 2-core host the
# 8-CPU self-tests take about 25 s that way against minutes under MTTCG.
# Not part of make test (about 10 minutes on a loaded 2-core machine).
set -u
cd "$(dirname "$0")/../.." || exit 1
arch=${1:-x86_64}
allocs=${ALLOCS:-slab slub slob}
pages=${PAGE_SIZES:-4K 64K}
out=build/test/slab-scale.md
mkdir -p build/test
fails=0

figure() {	# figure LOG PATTERN: the first number after PATTERN on the last matching line
	tr -d '\r' < "$1" | grep -E "$2" | tail -1 | sed -E "s/.*$2 *([0-9]+) kB.*/\1/"
}

{
	echo "| arch | alloc | page | NR_CPUS | CPUs | after boot | every CPU used every kmalloc cache | drained | after self-tests | self-tests | wall s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
} > "$out"
cat "$out"
for alloc in $allocs; do
	for ps in $pages; do
		for nr in 8 64; do
			tag="$arch-$(echo "$ps" | tr K k)$([ "$alloc" = slab ] || echo "-$alloc")$([ $nr = 8 ] || echo "-cpus$nr")"
			if ! make --no-print-directory -j2 ARCH=$arch PAGE_SIZE=$ps ALLOC=$alloc NR_CPUS=$nr \
				kernel > build/test/slab-scale-build-$tag.log 2>&1; then
				echo "FAIL slab-scale-$tag: build failed (build/test/slab-scale-build-$tag.log)"
				fails=$((fails + 1))
				continue
			fi
			for cpus in 1 $nr; do
				thread=
				[ "$cpus" -gt 1 ] && thread=single
				log=build/test/slab-scale-$tag-smp$cpus
				TCG_THREAD=$thread CMDLINE=slabinfo tests/qemu/run.sh build/$tag/quarry.elf 300 \
					-m 256M -smp "$cpus" > "$log-boot.log" 2>&1
				rc_boot=$?
				t0=$SECONDS
				TCG_THREAD=$thread CMDLINE="selftest slabinfo" tests/qemu/run.sh build/$tag/quarry.elf \
					600 -m 256M -smp "$cpus" > "$log-st.log" 2>&1
				rc_st=$?
				wall=$((SECONDS - t0))
				boot=$(figure "$log-boot.log" '^Slab:')
				line=$(tr -d '\r' < "$log-st.log" | grep -E '^  Slab: .* before, ' | tail -1)
				used=$(echo "$line" | sed -nE 's/.* before, ([0-9]+) kB once.*/\1/p')
				drained=$(echo "$line" | sed -nE 's/.*, ([0-9]+) kB after draining.*/\1/p')
				after=$(figure "$log-st.log" '^Slab:')
				summary=$(tr -d '\r' < "$log-st.log" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
				echo "| $arch | $alloc | $ps | $nr | $cpus | ${boot:-?} kB | ${used:-?} kB | ${drained:-?} kB | ${after:-?} kB | ${summary:-none} | $wall |" |
					tee -a "$out"
				if [ $rc_boot -ne 0 ] || [ $rc_st -ne 0 ] || [ -z "$boot" ] || [ -z "$used" ] ||
					[ -z "$after" ]; then
					echo "FAIL slab-scale-$tag-smp$cpus: status $rc_boot/$rc_st or a figure missing ($log-*.log)"
					fails=$((fails + 1))
				fi
			done
		done
	done
done
[ $fails -eq 0 ]
