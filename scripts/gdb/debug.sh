#!/usr/bin/env bash
# debug.sh BUILD ELF CMDLINE [QEMU options...] - what `make debug` runs: boot
# ELF (either arch; tests/qemu/run.sh makes x86_64's GRUB ISO with CMDLINE)
# paused at reset (-S) with QEMU's gdbstub on the first free TCP port from
# 1234 on localhost, written to BUILD/gdb-port for `make gdb` and removed
# when QEMU ends. No time limit: QEMU runs until the kernel exits or it is
# stopped (Ctrl-C, or gdb's kill). Serial console on this terminal.
set -u
build=$1 elf=$2 cmdline=$3
shift 3
here=$(dirname "$0")

in_use() {	# in_use PORT: something on this machine has the TCP port open
	local hex
	hex=$(printf ':%04X ' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '{print $2" "}' | grep -q -- "$hex"
}

# Two make debug started together would both see a port free before either
# QEMU listens on it: each claims its port first with mkdir (atomic), in a
# directory of claims; a claim whose owner has died is taken over.
claims=${TMPDIR:-/tmp}/quarry-gdb-ports.$(id -u)
mkdir -p "$claims"
claim() {	# claim PORT: true when this script now owns PORT's claim
	local d=$claims/$1 owner
	if mkdir "$d" 2>/dev/null; then
		echo $$ > "$d/pid"
		return 0
	fi
	owner=$(cat "$d/pid" 2>/dev/null)
	if [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null; then
		rm -rf "$d"
		mkdir "$d" 2>/dev/null && echo $$ > "$d/pid" && return 0
	fi
	return 1
}

port=1234
while in_use $port || ! claim $port; do
	port=$((port + 1))
	if [ $port -gt 1334 ]; then
		echo "debug.sh: no free TCP port in 1234..1334 for the gdbstub" >&2
		exit 1
	fi
done
portfile=$build/gdb-port
echo "$port" > "$portfile"
# On exit: drop the claim, and the port file unless a later make debug of
# the same build has written its own port there since.
trap '[ "$(cat "$portfile" 2>/dev/null)" = "$port" ] && rm -f "$portfile"; rm -rf "$claims/$port"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
echo "QEMU is paused at reset with its gdbstub on localhost:$port (written to $portfile)."
echo "In another terminal: make gdb$(for v in ARCH PAGE_SIZE ALLOC OPT; do [ -n "${!v:-}" ] && printf ' %s=%s' $v "${!v}"; done)   (kernel command line: '$cmdline')"
CMDLINE=$cmdline "$here/../../tests/qemu/run.sh" "$elf" 0 "$@" -gdb tcp:127.0.0.1:$port -S
rc=$?
if [ $rc -eq 2 ]; then	# QEMU ended without the kernel's status: gdb's kill, mostly
	echo "debug.sh: QEMU ended without the kernel's exit status (gdb's 'kill', or a reset)"
	rc=0
fi
exit $rc
