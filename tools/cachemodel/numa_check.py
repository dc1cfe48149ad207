#!/usr/bin/env python3
"""numa_check.py ONE_NODE_REPORT NUMA_REPORT - the cache model's NUMA split
checked against the same boot's one-node report (tools/cachemodel/test.sh).

Both reports come from the same -icount boot, the second with nodes=N and
ram= given. For every region and function line: every count the one-node
report has is the same in the NUMA one; dmem_local + dmem_remote equal the
data accesses memory served (dllc_miss); modelled cycles grow by exactly
dmem_remote x (the remote latency - lat_mem), both read from the NUMA
report's header. At least one remote access must have been counted, so the
split is exercised. Prints PASS/FAIL lines; exit status 1 on a failure.
"""
import re
import sys


def lines(path):
    """The header values and {(kind, region, name): {field: int}} of a report."""
    head, rows = {}, {}
    for line in open(path):
        if line.startswith("cachemodel: modelled cycles"):
            head["lat_mem"] = int(re.search(r"memory x (\d+)", line).group(1))
        elif line.startswith("numa "):
            head["remote"] = int(re.search(r"remote_lat_mem=(\d+)", line).group(1))
        elif line.startswith(("region ", "func ")):
            d = dict(x.split("=", 1) for x in line.split()[1:])
            key = (line.split()[0], d.get("id", d.get("region")), d["name"])
            rows[key] = {k: int(v) for k, v in d.items() if v.isdigit() and k != "id"}
    return head, rows


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    _, one = lines(sys.argv[1])
    head, numa = lines(sys.argv[2])
    bad = []
    if "remote" not in head:
        bad.append(f"{sys.argv[2]} has no numa header line")
    remote_total = 0
    for key, a in one.items():
        b = numa.get(key)
        if b is None:
            bad.append(f"{key} missing from the NUMA report")
            continue
        for f, v in a.items():
            if f != "modelled_cycles" and b.get(f) != v:
                bad.append(f"{key} {f}: {v} on one node, {b.get(f)} with nodes")
        if b.get("dmem_local", -1) + b.get("dmem_remote", -1) != b["dllc_miss"]:
            bad.append(f"{key}: dmem_local {b.get('dmem_local')} + dmem_remote "
                       f"{b.get('dmem_remote')} is not dllc_miss {b['dllc_miss']}")
        elif "remote" in head:
            want = a["modelled_cycles"] + b["dmem_remote"] * (head["remote"] - head["lat_mem"])
            if b["modelled_cycles"] != want:
                bad.append(f"{key}: modelled_cycles {b['modelled_cycles']}, want {want}")
        if key[0] == "region":
            remote_total += b.get("dmem_remote", 0)
    if not remote_total:
        bad.append("no region counted a remote memory access")
    for b in bad[:10]:
        print(f"FAIL cachemodel-numa-split: {b}")
    if not bad:
        print(f"PASS cachemodel-numa-split ({len(one)} lines, {remote_total} remote accesses "
              f"in regions)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
