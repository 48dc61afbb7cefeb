#!/bin/bash
# demo-host-tools.sh: the second half of 'make demo' (scripts/demo.sh calls
# it): the host's own tools run in the guest, on the x86_64 kernel of the
# first half (build/out-x86_64, guest.config):
#  1. trace-cmd record -e kmap_stack during a short stress workload, with
#     kmapbug's wrong-order unmap injected; then kmapstack check and report;
#  2. the bpftrace scripts (scripts/bpftrace/*.bt) attached in one guest
#     while kmapbug misbehaves: what kmap-violations.bt and kmap-callers.bt
#     printed;
#  3. post-mortem: a vmcore of a guest whose kthread holds 3 mappings,
#     listed by the crash extension and the drgn script.
# Each part is the corresponding test (scripts/stress-record.sh,
# test-bpftrace.sh, test-postmortem.sh); this shows their output.
# Exit status 1 if a part did not give the expected result.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
bad=0

say "trace-cmd record -e kmap_stack during stress-ng, kmapbug bug=wrong_order (~3 min under TCG)"
dir=$KMS_BUILD/demo-stress
rc=0
"$KMS_SCRIPTS/stress-record.sh" -s 2 --bug wrong_order -o "$dir" || rc=$?
say "kmapstack check $dir/trace.dat: exit $rc (1 = violations found, as expected)"
[ "$rc" = 1 ] || bad=1
say "kmapstack report (first lines)"
"$KMS_REPO/tools/kmapstack/kmapstack" report --no-progress "$dir/trace.dat" | head -n 40

say "bpftrace one-liners in the guest (~2 min under TCG)"
rc=0
"$KMS_SCRIPTS/test-bpftrace.sh" > "$KMS_BUILD/demo-bpftrace.log" 2>&1 || rc=$?
tail -n 1 "$KMS_BUILD/demo-bpftrace.log"
[ "$rc" = 0 ] || bad=1
for bt in kmap-violations kmap-callers; do
	say "scripts/bpftrace/$bt.bt printed"
	head -n 30 "$KMS_BUILD/test-bpftrace/bt-$bt.txt" 2>/dev/null
done

say "post-mortem: crash and drgn on a vmcore (~3 min)"
rc=0
"$KMS_SCRIPTS/test-postmortem.sh" > "$KMS_BUILD/demo-postmortem.log" 2>&1 || rc=$?
tail -n 1 "$KMS_BUILD/demo-postmortem.log"
[ "$rc" = 0 ] || bad=1
say "crash> extend tools/crash/kmapstack.so; crash> kmapstack"
head -n 40 "$KMS_BUILD/test-postmortem/crash.txt" 2>/dev/null
say "drgn tools/drgn/kmapstack.py"
head -n 20 "$KMS_BUILD/test-postmortem/drgn.txt" 2>/dev/null
exit "$bad"
