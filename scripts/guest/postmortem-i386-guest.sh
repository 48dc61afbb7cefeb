#!/bin/sh
# Guest side of scripts/test-postmortem-i386.sh (busybox sh in the i386
# test initramfs, /etc/kmapstack/run): loads /lib/kmapbug.ko bug=hold (a
# kthread kmapbug_holder holding three nested kmap_local mappings of
# GFP_HIGHUSER pages), prints its pid and "kmapstack-postmortem: ready" on
# the console, then waits for the host's line on the second serial port
# (/dev/ttyS1, a QEMU socket chardev), which the host writes after its QMP
# dump-guest-memory, and unloads the module.  (Not a sleep: under TCG the
# guest's clock does not keep to the host's.)
set -e
insmod /lib/kmapbug.ko bug=hold
pid=$(pidof kmapbug_holder)
echo "kmapstack-postmortem: holder pid $pid"
grep -E '^(HighTotal|LowTotal):' /proc/meminfo | sed 's/^/kmapstack-postmortem: /'
echo "kmapstack-postmortem: ready"
read -r line < /dev/ttyS1
echo "kmapstack-postmortem: host says: $line"
rmmod kmapbug
echo "kmapstack-postmortem: unloaded"
