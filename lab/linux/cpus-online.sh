#!/bin/sh
# cpus-online.sh - /bin/cpus-online of Linux 6.1's multi-CPU x86_64 boots: the
# kernel was booted with maxcpus=1 (boot.sh, replay/replay.sh say why); bring
# every offline CPU up, one at a time, with /bin/relax spinning on PAUSE beside
# the write that waits for it. Says which CPU did not come online, if any.
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	[ -f "$c/online" ] && [ "$(cat "$c/online")" = 0 ] || continue
	relax & r=$!
	echo 1 > "$c/online" || echo "QUARRY-INIT: ${c##*/} did not come online"
	kill $r; wait $r 2>/dev/null
done
