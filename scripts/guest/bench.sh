#!/bin/sh
# Guest side of scripts/bench.sh: run kmapbench with the kmap_stack events
# off, then (when the kernel has them) on, in one boot.
echo "kmapbench-events off"
insmod /lib/kmapbench.ko runs=7 iters=20000 2>/dev/null
dmesg -c | sed -n 's/^.*\(kmapbench: .*\)$/\1 events=off/p'
if [ -d /sys/kernel/tracing/events/kmap_stack ]; then
	echo 1 > /sys/kernel/tracing/events/kmap_stack/enable
	insmod /lib/kmapbench.ko runs=7 iters=20000 2>/dev/null
	echo 0 > /sys/kernel/tracing/events/kmap_stack/enable
	dmesg -c | sed -n 's/^.*\(kmapbench: .*\)$/\1 events=on/p'
fi
