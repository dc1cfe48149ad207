#!/bin/sh
# mixed.sh - the "mixed" trace's workload (tests/traces/README.md): three
# kinds of kernel work at once, as a loaded machine mixes them: socket
# messaging (perf bench sched messaging), file creation, writes and
# removal, and process creation (short shell pipelines, exec'd and reaped).
# Each part is small, so the compressed trace stays near the others' size;
# it ends when the three are done.
set -u
d=$(mktemp -d /tmp/quarry-mixed.XXXXXX) || exit 1
perf bench sched messaging -g 1 -l 4 > /dev/null &
( cd "$d" && for i in $(seq 100); do head -c $((i * 37 % 4096 + 1)) /etc/services > f$i; done &&
  ls -l > /dev/null && rm -f f* ) &
( for i in $(seq 20); do echo "$i" | sed 's/1/one/' | sort | wc -c > /dev/null; done ) &
wait
rm -rf "$d"
