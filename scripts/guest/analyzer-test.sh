#!/bin/sh
# Guest side of scripts/test-analyzer.sh: the kmap_stack events of the boot
# (the KUnit suite ran with trace_event=kmap_stack:* on the command line),
# then those of a balanced workload, each dumped with a prefix.
T=/sys/kernel/tracing
echo 0 > $T/tracing_on
sed 's/^/kunit-trace| /' $T/trace
echo > $T/trace
echo 1 > $T/tracing_on
dd if=/dev/zero of=/tmp/f bs=64k count=64 2>/dev/null
cat /tmp/f /tmp/f > /dev/null
cp /tmp/f /tmp/g && cmp /tmp/f /tmp/g && rm /tmp/f /tmp/g
echo 0 > $T/tracing_on
sed 's/^/balanced-trace| /' $T/trace
