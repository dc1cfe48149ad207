#!/usr/bin/env bash
# run.sh ELF TIMEOUT REPORT [QEMU options...] - boot a Quarry kernel ELF
# (tests/qemu/run.sh, command line from CMDLINE) with the cache model's
# plugin loaded; the plugin writes its report to REPORT when QEMU exits.
# Exit status: tests/qemu/run.sh's (0 the kernel's success, 1 its failure,
# 124 killed at TIMEOUT, ...), or 4 when the plugin is missing or QEMU refused
# it (said on stderr, with QEMU's own words).
#
# Environment:
#   MODEL_PLUGIN  the plugin (default build/cachemodel/cachemodel.so, `make cachemodel`)
#   MODEL_ARGS    more plugin arguments, comma-separated (l1d=48K:12,lat_mem=300,...;
#                 tools/cachemodel/README.md)
#   MODEL_TLBPAGE the size one TLB entry maps. Default: 2M on x86_64 (Quarry maps
#                 all of memory with 2 MiB pages), the granule on arm64 (4K, 16K or
#                 64K; Quarry's identity map also uses blocks where they fit, so
#                 this is the most TLB misses the kernel could see)
# The symbol file for per-function lines is quarry.sym beside the ELF (the
# build writes it), or one made with nm.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ $# -lt 3 ]; then
	echo "usage: run.sh ELF TIMEOUT REPORT [QEMU options...]" >&2
	exit 2
fi
elf=$1 limit=$2 report=$3
shift 3
plugin=${MODEL_PLUGIN:-$root/build/cachemodel/cachemodel.so}
if [ ! -f "$plugin" ]; then
	echo "cachemodel: no plugin at $plugin: build it with 'make cachemodel'" >&2
	exit 4
fi
info=$("$root/tests/qemu/elfinfo.sh" "$elf") || {
	echo "cachemodel: $elf is not a Quarry kernel ELF" >&2
	exit 2
}
read -r arch page <<< "$info"
tlbpage=${MODEL_TLBPAGE:-}
if [ -z "$tlbpage" ]; then
	if [ "$arch" = x86_64 ]; then tlbpage=2M; else tlbpage=$page; fi
fi
sym=$(dirname "$elf")/quarry.sym
if [ ! -s "$sym" ]; then
	sym=$(mktemp)
	trap 'rm -f "$sym"' EXIT
	nm -n "$elf" > "$sym"
fi
args="tlbpage=$tlbpage,syms=$sym,out=$report${MODEL_ARGS:+,$MODEL_ARGS}"
rm -f "$report"
errlog=$(mktemp)
trap 'rm -f "$errlog"; case $sym in /tmp/*) rm -f "$sym" ;; esac' EXIT
"$root/tests/qemu/run.sh" "$elf" "$limit" "$@" -plugin "$plugin,$args" 2> "$errlog"
rc=$?
if grep -q "Could not load plugin\|cachemodel:" "$errlog"; then
	grep -v "^$" "$errlog" >&2
	if grep -q "API version" "$errlog"; then
		qemu=qemu-system-x86_64
		[ "$arch" = arm64 ] && qemu=qemu-system-aarch64
		echo "cachemodel: QEMU refused the plugin $plugin over its plugin API version" \
			"(the message above); $($qemu --version | head -1) must accept the" \
			"version the plugin declares. 'make cachemodel' builds it for version" \
			"$(sed -n 's/^#define CACHEMODEL_QEMU_API //p' "$here/qemu_api.h"), QEMU 7.2's" \
			"(tools/cachemodel/qemu_api.h)" >&2
	fi
	if [ ! -s "$report" ]; then
		echo "cachemodel: no report was written ($report)" >&2
		exit 4
	fi
fi
cat "$errlog" >&2
exit $rc
