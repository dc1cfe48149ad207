#!/usr/bin/env bash
# deps.sh - what `make bench-host` needs: the user-space allocators it compares
# against (Debian: libjemalloc-dev, libgoogle-perftools-dev, libmimalloc-dev),
# valgrind for the instruction and cache-miss counts, python3 for the report
# (python3-matplotlib for bench-scale's plot).
# As root, missing packages are installed (after apt-get update); otherwise the
# command is printed and the benchmark goes on with what there is (an allocator
# that cannot be loaded is reported as not available; no valgrind, no counts).
set -uo pipefail

PKGS="libjemalloc-dev libgoogle-perftools-dev libmimalloc-dev valgrind python3 python3-matplotlib"
missing=()
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "bench-host deps: missing: ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
	echo "bench-host deps: as root, run: apt-get update && apt-get install -y ${missing[*]}" >&2
	echo "bench-host deps: going on without them" >&2
	exit 0
fi
echo "bench-host deps: installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2 && apt-get install -y -q "${missing[@]}" >&2 ||
	echo "bench-host deps: install failed; going on without them" >&2
exit 0
