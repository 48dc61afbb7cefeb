#!/bin/bash
# test-analyzer.sh ARCH        (ARCH: x86_64 | i386)
#
# End-to-end test of tools/kmapstack on real traces: boot build/out-ARCH with
# the kmap_stack events on from early boot while the KUnit suite makes its
# violations, and then trace a balanced page-cache workload. Checks that
#   - kmapstack check exits 1 on the KUnit trace and 0 on the balanced one;
#   - kmapstack report names the suite's call sites for each kind of
#     violation, and agrees with the kernel's kmap_violation events;
#   - the balanced trace really has events.
# Ends with "N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
check_arch "${1:-}"
arch=$KMS_ARCH
ks=$KMS_REPO/tools/kmapstack/kmapstack
[ -x "$ks" ] || make -s -C "$KMS_REPO/tools/kmapstack"
initrd=$KMS_BUILD/initramfs-analyzer-$arch.cpio
log=$KMS_BUILD/analyzer-$arch.log
KMAPSTACK_RUN="$KMS_SCRIPTS/guest/analyzer-test.sh" \
	"$KMS_SCRIPTS/mkinitramfs.sh" "$initrd" "$arch" >/dev/null
"$KMS_SCRIPTS/boot.sh" "$arch" -i "$initrd" -l "$log" -t 900 ${KMAPSTACK_KERNEL:+-k "$KMAPSTACK_KERNEL"} \
	-a "trace_event=kmap_stack:* trace_buf_size=16M loglevel=1" >/dev/null ||
	die "guest boot failed, see $log"
dir=$KMS_BUILD/analyzer-$arch
mkdir -p "$dir"
tr -d '\r' < "$log" | sed -n 's/^kunit-trace| //p' > "$dir/kunit-trace.txt"
tr -d '\r' < "$log" | sed -n 's/^balanced-trace| //p' > "$dir/balanced-trace.txt"


n=$(grep -c 'kmap_push:' "$dir/kunit-trace.txt" || true)
check "$arch: KUnit trace has $n kmap_push events" [ "$n" -gt 100 ]
nb=$(grep -c 'kmap_push:' "$dir/balanced-trace.txt" || true)
check "$arch: balanced trace has $nb kmap_push events" [ "$nb" -gt 100 ]

set +e
"$ks" check --no-progress "$dir/kunit-trace.txt" > "$dir/check.txt" 2>&1; rc=$?
"$ks" report --no-progress "$dir/kunit-trace.txt" > "$dir/report.txt" 2>&1
"$ks" report --json --no-progress "$dir/kunit-trace.txt" > "$dir/report.json" 2>&1
"$ks" check --no-progress "$dir/balanced-trace.txt" > "$dir/check-balanced.txt" 2>&1; rcb=$?
set -e
check "$arch: kmapstack check exits 1 on the KUnit trace (exit $rc)" [ "$rc" = 1 ]
check "$arch: kmapstack check exits 0 on the balanced trace (exit $rcb)" 
[ "$rcb" = 0 ] || head -40 "$dir/check-balanced.txt"

# Each kind of violation the suite makes, named with its call sites
expect() {
	local what=$1; shift
	local lines p
	lines=$(cat "$dir/report.txt")
	for p in "$@"; do lines=$(grep -F -- "$p" <<<"$lines" || true); done
	if [ -n "$lines" ]; then ok "$arch report: $what"; else nok "$arch report: $what" "no line with: $*"; fi
}
# (the helpers of mm/kmap_stack/kmap_stack_test.c)
expect "mismatched unmap, unmapping site" "unmapped at:" "kmst_unmap_first"
expect "mismatched unmap, mapping site" "mapped at:" "kmst_map_first"
expect "mismatched unmap, top of the stack" "top of stack:" "kmst_map_second"
expect "double unmap (unknown address)" "unmapped at:" "kmst_unmap_second"
expect "wrong flavour, the kmap_atomic() site" "mapped at:" "kmst_map_atomic"
expect "depth" "mapped at:" "kmst_map_deep"
expect "cross-context unmap" "unmapped at:" "kmst_irq_unmap"
expect "leaked mappings" "kmst_map_leaked"
for k in mismatch unknown flavour depth cross_context leak_hardirq leak_softirq leak_work leak_exit; do
	expect "a finding of kind $k" "WARNING: kmap stack violation: $k"
done
# depth_findings SITE: the findings of kind depth whose mapping SITE made
# (or a clone of it the compiler made, SITE.isra.0)
depth_findings() {
	awk -v site="$1" '/^WARNING: kmap stack violation: depth/ { d = 1; next }
		/^$/ { d = 0 }
		d && $1 == "mapped" && (index($3, site "+") == 1 || index($3, site ".") == 1) { n++ }
		END { print n + 0 }' "$dir/report.txt"
}
# The depth report says the real stack is full before the shadow is (with
# DEBUG_KMAP_LOCAL's guard slots, when the shadow is full: the same kind).
# The suite's hardirq on a task one short of the limit is one too many on
# every arch, and so is the task's own deep nesting.
n=$(depth_findings kmst_irq_map_deep)
check "$arch report: a finding of kind depth for a hardirq's mapping on the task's ($n found)" [ "$n" -gt 0 ]
n=$(depth_findings kmst_map_deep)
check "$arch report: a finding of kind depth for the task's deep nesting ($n found)" [ "$n" -gt 0 ]
if grep -qiE 'disagree' "$dir/report.txt"; then
	nok "$arch report: the analyzer's findings agree with the kernel's kmap_violation events" "$(grep -iE -m3 disagree "$dir/report.txt")"
else
	ok "$arch report: the analyzer's findings agree with the kernel's kmap_violation events"
fi

summary
