#!/bin/sh
# Guest side of scripts/check-event-formats.sh: print the kmap_stack event formats.
for e in kmap_push kmap_pop kmap_violation; do
	f=/sys/kernel/tracing/events/kmap_stack/$e/format
	echo "kmapstack-format-begin $e"
	if [ -r "$f" ]; then sed 's/^/F|/' "$f"; else echo "kmapstack-format-missing $e"; fi
	echo "kmapstack-format-end $e"
done
