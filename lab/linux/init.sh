#!/bin/sh
# init.sh - /init of the bench-linux initramfs: mount proc/sys/dev, show the
# slab memory, load Quarry's benchmark module (it runs the benchmarks while
# loading), show the memory again, unload it and power off. A failed insmod
# prints QUARRY-INIT: insmod failed, which boot.sh reports. The module's
# parameters, if any, are in /quarry_bench.args.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
# CPUs that boot.sh left offline (maxcpus=1: Linux 6.1 on several x86_64 CPUs)
# come up here (cpus-online.sh, only in those boots' initramfs).
[ -x /bin/cpus-online ] && /bin/cpus-online
echo "QUARRY-INIT: meminfo before:"; grep -E '^(MemFree|Slab|SReclaimable|SUnreclaim):' /proc/meminfo
if insmod /quarry_bench.ko $(cat /quarry_bench.args 2>/dev/null) 2>/insmod.err; then
	echo "QUARRY-INIT: meminfo after:"; grep -E '^(MemFree|Slab|SReclaimable|SUnreclaim):' /proc/meminfo
	rmmod quarry_bench || echo "QUARRY-INIT: rmmod failed"
	echo "QUARRY-INIT: done"
else
	echo "QUARRY-INIT: insmod failed: $(cat /insmod.err)"
fi
poweroff -f
