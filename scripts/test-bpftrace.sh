#!/bin/bash
# test-bpftrace.sh: runs every scripts/bpftrace/*.bt in one x86_64 guest boot
# (scripts/guest/bpftrace-guest.sh: all attached at once, a small workload,
# kmapbug made to hold mappings, then to unmap in the wrong order) and
# checks what each printed:
#   kmap-depth.bt       bounded run ends by itself; a task depth histogram
#   kmap-callers.bt     call-site counts: copy_page_*_iter, kmapbug_unmap_first
#   kmap-hold.bt        hold-time histograms, one for kmapbug_map_first
#   kmap-leaks.bt       kmapbug_holder listed with its 3 call sites while held
#   kmap-violations.bt  a mismatch naming kmapbug_unmap_first/map_first/
#                       map_second, with a kernel stack through kmapbug_wrong_order
# Ends with "N passed, N failed"; exit 1 on any failure.
# Environment: KMAPSTACK_OUT (guest kernel build).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/guest/lib-guest.sh"

out=$KMS_BUILD/test-bpftrace
rm -rf "$out"; mkdir -p "$out"
t0=$(now)
guest_kernel_check
ensure_kmapbug

rc=0
"$KMS_SCRIPTS/guest-run.sh" -o "$out" -t 540 "$KMS_GUEST_DIR/bpftrace-guest.sh" "$KMS_KMAPBUG" || rc=$?
check "guest run of all the scripts succeeded" [ "$rc" = 0 ]
for f in "$KMS_SCRIPTS"/bpftrace/*.bt; do
	n=$(basename "$f" .bt)
	check "$n.bt: header comment has Usage and Example" \
		bash -c "head -40 '$f' | grep -q 'Usage:' && head -40 '$f' | grep -q 'Example'"
	check "$n.bt: attached and exited 0" \
		bash -c "grep -q '^Attaching' '$out/bt-$n.txt' && [ \"\$(cat '$out/bt-$n.status' 2>/dev/null)\" = 0 ]"
done

# has FILE PATTERN: grep -E
has() { grep -Eq -- "$2" "$out/bt-$1.txt" 2>/dev/null; }
# histogram buckets with a non-zero count right after "@MAP[KEY]:"
hist_entries() {
	awk -v key="$2" 'index($0, key) == 1 { on = 1; next }
		on && /^\[/ { split($0, p, "|"); m = split(p[1], q, " "); if (q[m] + 0 > 0) n++; next }
		on && !/^\[/ { on = 0 } END { print n + 0 }' "$out/bt-$1.txt" 2>/dev/null
}

n=$(hist_entries kmap-depth '@depth[task]:')
check "kmap-depth: task histogram has entries ($n buckets)" [ "${n:-0}" -gt 0 ]
check "kmap-depth: counted pushes" has kmap-depth '^@pushes: [1-9]'
check "kmap-callers: call sites counted" has kmap-callers '^@maps\[[a-z_]+.*\]: [1-9]'
check "kmap-callers: the page cache copy among the top sites" has kmap-callers '^@maps\[copy_page_(to|from)_iter.*\]: [1-9]'
check "kmap-callers: kmapbug_unmap_first among the unmap sites" has kmap-callers '^@unmaps\[kmapbug_unmap_first\]: [1-9]'
check "kmap-callers: unmap sites counted" has kmap-callers '^@unmaps\[[a-z_]+.*\]: [1-9]'
n=$(grep -c '^@hold_us\[' "$out/bt-kmap-hold.txt" 2>/dev/null)
check "kmap-hold: hold histograms for ${n:-0} call sites" [ "${n:-0}" -gt 0 ]
n=$(hist_entries kmap-hold '@hold_us[kmapbug_map_first]:')
check "kmap-hold: kmapbug_map_first histogram has entries ($n)" [ "${n:-0}" -gt 0 ]
for fn in kmapbug_map_first kmapbug_map_second kmapbug_map_third; do
	check "kmap-leaks: kmapbug_holder holds a mapping from $fn" \
		has kmap-leaks "^@held\[[0-9]+, kmapbug_holder, $fn\]: 1"
done
# after run=release, the final table must not list kmapbug_holder any more
check "kmap-leaks: released (end table without kmapbug_holder)" \
	bash -c "sed -n '/^--- end/,\$p' '$out/bt-kmap-leaks.txt' | grep -q . && ! sed -n '/^--- end/,\$p' '$out/bt-kmap-leaks.txt' | grep -q kmapbug_holder"
check "kmap-violations: a mismatch was printed" has kmap-violations 'kmap violation mismatch in task ctx'
check "kmap-violations: names kmapbug_unmap_first/map_first/map_second" \
	has kmap-violations 'unmapped at kmapbug_unmap_first, mapped at kmapbug_map_first, top kmapbug_map_second'
check "kmap-violations: kernel stack through kmapbug_wrong_order" has kmap-violations '^ +kmapbug_wrong_order\+'

echo "test-bpftrace: $(( $(now) - t0 ))s under TCG"
summary
