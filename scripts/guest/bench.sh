#!/bin/sh
# Guest side of scripts/bench.sh: run kmapbench with the kmap_stack events
# off, then (when the kernel has them) on, in one boot.
# A kernel with DEBUG_KMAP_STACK_TRACES (kmap_stack_save_trace() in
# kallsyms) saves a stack trace per mapping, some 8000 instructions: it runs
# 2000 rounds instead of 20000 (the figures are per pair either way).
iters=20000
grep -q ' kmap_stack_save_trace$' /proc/kallsyms && iters=2000

# bench ITERS LABEL...: one run of kmapbench, its figures tagged with LABEL
bench() {
	n=$1; shift
	insmod /lib/kmapbench.ko runs=7 iters=$n && rmmod kmapbench
	dmesg -c | sed -n "s/^.*\(kmapbench: .*\)\$/\1 $*/p"
}

echo "kmapbench-events off"
bench $iters events=off
if [ -d /sys/kernel/tracing/events/kmap_stack ]; then
	echo 1 > /sys/kernel/tracing/events/kmap_stack/enable
	bench $iters events=on
	echo 0 > /sys/kernel/tracing/events/kmap_stack/enable
fi
