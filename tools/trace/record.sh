#!/bin/bash
# record.sh - record a Linux kernel's own slab and page allocations while a
# command runs, as text that tools/trace/convert turns into a Quarry trace.
#
#   tools/trace/record.sh [-o OUT] [-b KB] [-n] [-z] -- COMMAND [ARGS...]
#   make trace-record CMD='perf bench sched messaging' OUT=build/trace/msg.txt
#
#   -o OUT   the trace text (default build/trace/trace.txt); beside it
#            OUT.header (kernel, CPUs, page size, command, buffer),
#            OUT.slabinfo.before/.after (/proc/slabinfo) and
#            OUT.meminfo.before/.after (the Slab: lines of /proc/meminfo)
#   -b KB    ring buffer per CPU in KiB (default 131072: 128 MiB per CPU);
#            the buffer is read while the command runs, so it only has to
#            hold what arrives faster than it is read
#   -n       no stack trace on mm_page_alloc: smaller traces, but the
#            converter can then no longer tell the pages the traced kernel's
#            slab allocator took for its own slabs from the rest
#   -z       compress OUT with xz when done (OUT.xz)
#
# What it does: tracefs (mounted at /sys/kernel/tracing if it is not), a
# private trace instance (the global buffer and other users' tracing are left
# alone), the kmem events kmalloc, kfree, kmem_cache_alloc, kmem_cache_free,
# mm_page_alloc and mm_page_free, each mm_page_alloc followed by its kernel
# stack (a "stacktrace" event trigger: the converter reads in it whether the
# slab allocator asked for the page). It reads trace_pipe into OUT while
# COMMAND runs, then checks every CPU's "overrun", "commit overrun" and
# "dropped events" counters: if any event was lost the trace is kept as
# OUT.incomplete and the script fails, saying which CPU lost how many and
# what buffer size to try.
#
# Needs root (tracefs, the events) and a kernel with CONFIG_FTRACE,
# CONFIG_EVENT_TRACING (the kmem tracepoints) and, for the stack traces,
# CONFIG_STACKTRACE; every distribution kernel has them. Pointers in the
# trace are hashed by the kernel (stable within one boot, which is all
# pairing needs); pfn= values are real.
set -u

die() {
	echo "record.sh: $*" >&2
	exit 1
}

OUT=build/trace/trace.txt
BUF_KB=131072
STACKS=1
XZ=0
while getopts "o:b:nzh" opt; do
	case $opt in
	o) OUT=$OPTARG ;;
	b) BUF_KB=$OPTARG ;;
	n) STACKS=0 ;;
	z) XZ=1 ;;
	h) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//;/^set -u/d'; exit 0 ;;
	*) die "unknown option (see record.sh -h)" ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || die "no command given: record.sh [-o OUT] [-b KB] -- COMMAND [ARGS...] (make trace-record CMD='...')"
echo "$BUF_KB" | grep -Eqx '[1-9][0-9]{0,7}' || die "-b $BUF_KB: the buffer size is a number of KiB per CPU, such as 131072"

[ "$(id -u)" -eq 0 ] || die "recording the kernel's allocations needs root (tracefs and the kmem trace events): run it as root, e.g. sudo make trace-record CMD='...'"

TRACEFS=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -e "$d/trace_pipe" ] && { TRACEFS=$d; break; }
done
if [ -z "$TRACEFS" ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		die "tracefs is not mounted and 'mount -t tracefs nodev /sys/kernel/tracing' failed: is the kernel built with CONFIG_FTRACE?"
	TRACEFS=/sys/kernel/tracing
fi
EVENTS="kmalloc kfree kmem_cache_alloc kmem_cache_free mm_page_alloc mm_page_free"
for e in $EVENTS; do
	[ -e "$TRACEFS/events/kmem/$e/enable" ] ||
		die "$TRACEFS/events/kmem/$e is missing: the kernel lacks the kmem trace events (CONFIG_EVENT_TRACING)"
done

mkdir -p "$(dirname "$OUT")" || die "cannot make the directory of $OUT"
INST=$TRACEFS/instances/quarry-record-$$
mkdir "$INST" 2>/dev/null || die "cannot make the trace instance $INST (is another tracer holding tracefs?)"
PIPE_PID=
cleanup() {
	echo 0 >"$INST/tracing_on" 2>/dev/null
	for e in $EVENTS; do echo 0 >"$INST/events/kmem/$e/enable" 2>/dev/null; done
	echo '!stacktrace' >"$INST/events/kmem/mm_page_alloc/trigger" 2>/dev/null
	[ -n "$PIPE_PID" ] && kill "$PIPE_PID" 2>/dev/null && wait "$PIPE_PID" 2>/dev/null
	rmdir "$INST" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo 0 >"$INST/tracing_on"
echo "$BUF_KB" >"$INST/buffer_size_kb" ||
	die "cannot set a $BUF_KB KiB buffer per CPU (not enough memory?): try a smaller -b"
for e in $EVENTS; do echo 1 >"$INST/events/kmem/$e/enable" || die "cannot enable kmem:$e"; done
if [ "$STACKS" = 1 ]; then
	echo stacktrace >"$INST/events/kmem/mm_page_alloc/trigger" 2>/dev/null || {
		echo "record.sh: warning: no stack traces on mm_page_alloc (CONFIG_STACKTRACE?): slab pages will not be told apart" >&2
		STACKS=0
	}
fi

NCPU=$(getconf _NPROCESSORS_CONF)
{
	echo "# quarry-trace kernel: $(uname -r) $(uname -m)"
	echo "# quarry-trace cpus: $NCPU"
	echo "# quarry-trace page_size: $(getconf PAGESIZE)"
	echo "# quarry-trace command: ${*@Q}"
	echo "# quarry-trace stacks: $STACKS"
	echo "# quarry-trace buffer_kb: $BUF_KB"
	echo "# quarry-trace date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$OUT.header"
cat /proc/slabinfo >"$OUT.slabinfo.before" 2>/dev/null || echo "(no /proc/slabinfo)" >"$OUT.slabinfo.before"
grep -E '^(Slab|SReclaimable|SUnreclaim):' /proc/meminfo >"$OUT.meminfo.before"

cp "$OUT.header" "$OUT"
cat "$INST/trace_pipe" >>"$OUT" &
PIPE_PID=$!
echo 1 >"$INST/tracing_on"
"$@"
STATUS=$?
echo 0 >"$INST/tracing_on"

grep -E '^(Slab|SReclaimable|SUnreclaim):' /proc/meminfo >"$OUT.meminfo.after"
cat /proc/slabinfo >"$OUT.slabinfo.after" 2>/dev/null || echo "(no /proc/slabinfo)" >"$OUT.slabinfo.after"

# Let the reader empty every CPU's buffer before stopping it.
for _ in $(seq 600); do
	left=0
	for s in "$INST"/per_cpu/cpu*/stats; do
		n=$(sed -n 's/^entries: //p' "$s")
		left=$((left + ${n:-0}))
	done
	[ "$left" -eq 0 ] && break
	sleep 0.1
done
sleep 0.2
kill "$PIPE_PID" 2>/dev/null
wait "$PIPE_PID" 2>/dev/null
PIPE_PID=

LOST=
for s in "$INST"/per_cpu/cpu*/stats; do
	cpu=$(basename "$(dirname "$s")")
	ov=$(sed -n 's/^overrun: //p' "$s")
	co=$(sed -n 's/^commit overrun: //p' "$s")
	dr=$(sed -n 's/^dropped events: //p' "$s")
	if [ "${ov:-0}" != 0 ] || [ "${co:-0}" != 0 ] || [ "${dr:-0}" != 0 ]; then
		LOST="$LOST CPU ${cpu#cpu} lost events (overrun $ov, commit overrun $co, dropped $dr);"
	fi
done
EVENTS_N=$(grep -cE ': (kmalloc|kfree|kmem_cache_alloc|kmem_cache_free|mm_page_alloc|mm_page_free):' "$OUT")
if [ -n "$LOST" ]; then
	mv "$OUT" "$OUT.incomplete"
	die "events were lost, the trace is incomplete (kept as $OUT.incomplete, $EVENTS_N events):$LOST raise the buffer above $BUF_KB KiB per CPU (-b, or BUFFER_KB= with make trace-record) or record a shorter command"
fi
echo "# quarry-trace events: $EVENTS_N" >>"$OUT.header"
echo "# quarry-trace command_status: $STATUS" >>"$OUT.header"
if [ "$XZ" = 1 ]; then
	xz -T1 -f "$OUT" || die "xz failed on $OUT"
	OUT=$OUT.xz
fi
echo "record.sh: $EVENTS_N events on $NCPU CPUs, none lost -> $OUT (command exited $STATUS)"
[ "$STATUS" = 0 ] || echo "record.sh: warning: the command exited with status $STATUS" >&2
exit 0
