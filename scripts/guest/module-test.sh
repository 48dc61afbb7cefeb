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
step wrong_order insmod /lib/kmapbug.ko bug=wrong_order
step leak_user insmod /lib/kmapbug.ko bug=leak_user
step balanced insmod /lib/kmapbug.ko bug=balanced
step stats cat /sys/kernel/debug/kmap_stack/stats
