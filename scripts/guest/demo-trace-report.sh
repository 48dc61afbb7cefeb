#!/bin/sh
# Guest side of the first half of scripts/demo.sh (busybox initramfs): trace the kmap_stack events while
# the page cache is used and kmapbug makes a wrong-order unmap, then print
# the report and the trace with prefixes the host strips.
T=/sys/kernel/tracing
echo 65536 > $T/buffer_size_kb
echo 1 > $T/events/kmap_stack/enable
echo 1 > $T/tracing_on
# page cache traffic: every copy to and from a tmpfs page goes through
# kmap_local_page()
dd if=/dev/zero of=/tmp/f bs=64k count=64 2>/dev/null
cat /tmp/f /tmp/f > /dev/null
sort /proc/kallsyms > /tmp/s 2>/dev/null
insmod /lib/kmapbug.ko bug=wrong_order
echo 0 > $T/tracing_on
# the report: from its first rule line to its last
dmesg | awk '/=====/ { n++; if (n % 2 == 1) { on = 1 } else { print; on = 0; next } } on' |
	sed 's/^/demo-report| /'
# read the trace while the module is loaded, so its call sites resolve
sed 's/^/demo-trace| /' $T/trace
rmmod kmapbug
cat /sys/kernel/debug/kmap_stack/stats | sed 's/^/demo-stats| /'
