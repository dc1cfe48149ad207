#!/usr/bin/env bash
# deps-test.sh - the dependency step, seen by a user who is not root and has
# none of the tools: scripts/deps.sh must stop with status 1 and print the
# exact apt-get command. (As root with everything installed it must do
# nothing and succeed.) Prints PASS/FAIL lines.
set -u
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp scripts/deps.sh "$tmp/deps.sh"
chmod 755 "$tmp" "$tmp/deps.sh"
mkdir "$tmp/bin"
for t in bash id env; do ln -s "$(command -v $t)" "$tmp/bin/$t"; done

if [ "$(id -u)" -ne 0 ]; then
	echo "PASS deps-nonroot: skipped (needs root to switch to an unprivileged user)"
	exit 0
fi
out=$(cd "$tmp" && setpriv --reuid=65534 --regid=65534 --clear-groups \
	env -i PATH="$tmp/bin" bash "$tmp/deps.sh" 2>&1)
rc=$?
want="apt-get update && apt-get install -y python3 python3-matplotlib qemu-system-x86 qemu-system-arm qemu-user nasm grub-pc-bin grub-common xorriso mtools gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu gdb-multiarch"
if [ $rc -eq 1 ] && echo "$out" | grep -qF "$want"; then
	echo "PASS deps-nonroot: stops with status 1 and prints the apt-get command"
else
	echo "FAIL deps-nonroot: status $rc, output: $(echo "$out" | tr '\n' ' ' | cut -c1-300)"
fi
if scripts/deps.sh >/dev/null 2>&1; then
	echo "PASS deps-root-installed: nothing missing, nothing done, status 0"
else
	echo "FAIL deps-root-installed: scripts/deps.sh failed with every tool installed"
fi
