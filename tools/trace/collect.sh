# collect.sh - sourced by the kernel replays' scripts (tools/trace/kreplay.sh,
# Quarry's kernel; lab/linux/replay/replay.sh, Linux's): one boot's console
# made into the files tools/trace/report_replay.py reads.
#
# replay_collect LOG DIR BASE VARIANT: LOG's REPLAY lines as DIR/BASE.summary
# (variant=VARIANT, every REPLAY k=v, all_passes_ok=1 when the accounting was
# exact and nothing stopped or failed, else 0) and its REPLAY-SAMPLE lines as
# DIR/BASE.csv, with the host replay's header.
replay_collect() {
	local log=$1 dir=$2 base=$3 variant=$4 ok st fl
	ok=$(tr -d '\r' < "$log" | sed -n 's/^REPLAY accounting_ok=//p')
	st=$(tr -d '\r' < "$log" | sed -n 's/^REPLAY stopped=//p')
	fl=$(tr -d '\r' < "$log" | sed -n 's/^REPLAY failed=//p')
	{
		echo "variant=$variant"
		tr -d '\r' < "$log" | sed -n 's/^REPLAY \([a-z_0-9]*=\)/\1/p'
		if [ "$ok" = 1 ] && [ "$st" = 0 ] && [ "$fl" = 0 ]; then
			echo "all_passes_ok=1"
		else
			echo "all_passes_ok=0"
		fi
	} > "$dir/$base.summary"
	{
		echo "event,slab_bytes,used_bytes,object_bytes,live_req,live_linux,page_block_bytes"
		tr -d '\r' < "$log" | sed -n 's/^REPLAY-SAMPLE //p'
	} > "$dir/$base.csv"
}
