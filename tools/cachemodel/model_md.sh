#!/usr/bin/env bash
# model_md.sh OUT - write OUT/model.md, `make bench MODEL=1`'s cache-model
# report, from the per-configuration tables under OUT/logs: every
# <config>-model.md that has its <config>-model-1.log beside it (Quarry's
# configurations from tools/cachemodel/bench.sh, Linux's kernels from
# lab/linux/model.sh), in the order they were made.
set -u
out=$1
{
	printf '# Cache model: misses and modelled cycles per operation\n\n'
	printf 'Made by `make bench MODEL=1` (tools/cachemodel/). Each single-CPU figure (instructions under\n'
	printf -- '-icount) beside the model'"'"'s counts for the same span, per operation: instructions, data\n'
	printf 'accesses, misses per level, DTLB misses, page walks, L1I misses, and modelled cycles (a model,\n'
	printf 'not a measurement). Each configuration booted twice with the model: reports identical.\n'
	printf 'Linux kernels (linux61-*, linux612-*) are those `make bench-linux` built, running Quarry'"'"'s\n'
	printf 'module with the same marks around the same spans.\n'
	for md in $(ls -tr "$out"/logs/*-model.md 2>/dev/null); do
		[ -f "${md%.md}-1.log" ] || continue
		printf '\n## %s\n\n' "$(basename "${md%-model.md}")"
		cat "$md"
	done
} > "$out/model.md"
