#!/bin/sh
# Guest side of scripts/test-module.sh (busybox sh in the test initramfs):
# load kmapbug.ko with each bug and print the kernel log of each step with a
# "step-NAME| " prefix, which the host parses.
step() {
	name=$1; shift
	dmesg -c >/dev/null
	echo "kmapstack-step-begin $name"
	"$@" 2>&1 | sed "s/^/step-$name| /"
	rmmod kmapbug 2>/dev/null
	dmesg -c | sed "s/^/step-$name| /"
	echo "kmapstack-step-end $name"
}
# Booted with kmap_stack.stack_traces=0: the parameter and one report
if grep -q 'kmap_stack.stack_traces=0' /proc/cmdline; then
	step boot_param cat /sys/module/kmap_stack/parameters/stack_traces
	step boot_wrong_order insmod /lib/kmapbug.ko bug=wrong_order
	exit 0
fi
step wrong_order insmod /lib/kmapbug.ko bug=wrong_order
step leak_user insmod /lib/kmapbug.ko bug=leak_user
step balanced insmod /lib/kmapbug.ko bug=balanced
step stats cat /sys/kernel/debug/kmap_stack/stats
# After the counts above: each of these also leaks a mapping to user space
step double_unmap insmod /lib/kmapbug.ko bug=double_unmap
step leak_init_fail insmod /lib/kmapbug.ko bug=leak_init_fail
