#!/bin/bash
# test-stress.sh: tests of scripts/stress-record.sh on the x86_64 guest kernel.
#   1. clean kernel: kmapstack check exits 0, kmap_push and kmap_pop > 0,
#      no kmap_violation event, no kmap_stack report in the kernel log;
#   2. with kmapbug bug=wrong_order loaded during the recording: kmapstack
#      check exits 1 and names kmapbug_unmap_first, kmapbug_map_first and
#      kmapbug_map_second; the kernel emitted a kmap_violation event.
# Ends with "N passed, N failed"; exit 1 on any failure.
# Environment: KMAPSTACK_OUT (guest kernel build), KMAPSTACK_STRESS_SECONDS
#   (stress-ng phase length, default 4).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/guest/lib-guest.sh"

secs=${KMAPSTACK_STRESS_SECONDS:-4}
base=$KMS_BUILD/test-stress
rm -rf "$base"; mkdir -p "$base"
t0=$(now)

# events LINE-FIELD: from the "events: ..." line of a stress-record.sh run
field() { sed -n "s/^events:.*$1 \([0-9]*\).*/\1/p" "$2" | tail -1; }

# --- 1. clean ---
rc=0
"$KMS_SCRIPTS/stress-record.sh" -o "$base/clean" -s "$secs" > "$base/clean.out" 2>&1 || rc=$?
cat "$base/clean.out"
pushes=$(field kmap_push "$base/clean.out") pops=$(field kmap_pop "$base/clean.out")
kviol=$(field kmap_violation "$base/clean.out")
check "clean: stress-record.sh exits 0 (kmapstack check clean)" [ "$rc" = 0 ]
check "clean: kmap_push events recorded (${pushes:-none})" [ "${pushes:-0}" -gt 0 ]
check "clean: kmap_pop events recorded (${pops:-none})" [ "${pops:-0}" -gt 0 ]
check "clean: no kmap_violation event (${kviol:-?})" [ "${kviol:-x}" = 0 ]
if [ -f "$base/clean/console.log" ] && ! grep -aq 'kmap_stack:' "$base/clean/console.log"; then
	ok "clean: no kmap_stack report in the kernel log"
else
	nok "clean: no kmap_stack report in the kernel log" "see $base/clean/console.log"
fi
check "clean: workload ran all phases" grep -q '^workload: done' "$base/clean/output.log"

# --- 2. wrong_order ---
rc=0
"$KMS_SCRIPTS/stress-record.sh" -o "$base/wrong_order" -s "$secs" --bug wrong_order > "$base/wrong_order.out" 2>&1 || rc=$?
cat "$base/wrong_order.out"
kviol=$(field kmap_violation "$base/wrong_order.out")
pushes=$(field kmap_push "$base/wrong_order.out")
check "wrong_order: stress-record.sh exits 1 (violation found)" [ "$rc" = 1 ]
check "wrong_order: kmap_push events recorded (${pushes:-none})" [ "${pushes:-0}" -gt 0 ]
for fn in kmapbug_unmap_first kmapbug_map_first kmapbug_map_second; do
	check "wrong_order: kmapstack check names $fn" grep -q "$fn" "$base/wrong_order/check.txt"
done
check "wrong_order: kmapstack reports a mismatch" grep -q 'violation: mismatch' "$base/wrong_order/check.txt"
check "wrong_order: the kernel emitted kmap_violation (${kviol:-?})" [ "${kviol:-0}" -ge 1 ]
check "wrong_order: the kernel log has the kmap_stack report" grep -aq 'kmap_stack:' "$base/wrong_order/console.log"

echo "test-stress: $(( $(now) - t0 ))s under TCG"
summary
