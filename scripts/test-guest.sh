#!/bin/bash
# test-guest.sh: the guest-tools tests, one after the other, on the
# x86_64 kernel built with scripts/configs/guest.config:
#   scripts/test-stress.sh       trace-cmd record + kmapstack check (clean, wrong_order)
#   scripts/test-bpftrace.sh     scripts/bpftrace/*.bt
#   scripts/test-erofs.sh        erofs lookups on a real image: kmap_stack
#                                reports 6.12's out-of-order kunmap_local()
#   scripts/test-romfs.sh        romfs reads of a real image: kmap_stack
#                                reports the unmap of the page after the mapped one
#   scripts/test-postmortem.sh   crash extension and drgn script on a vmcore
# Prints each one's output, then the time and result of each and the totals
# as "N passed, N failed"; exit 1 if any test failed.
#
#   --build     first build the kernel (build-kernel.sh x86_64 into $KMAPSTACK_OUT)
#   --only T    run only test T (stress, bpftrace, erofs, romfs, postmortem; repeatable)
# Environment: KMAPSTACK_OUT (default build/out-x86_64).  Logs: build/test-guest-T.log.
# The guest tools are 64-bit Debian binaries: x86_64 only.  The i386/HIGHMEM
# paths are covered by the KUnit suite (scripts/run-kunit.sh i386).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/guest/lib-guest.sh"

case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
build=0 only=()
while [ $# -gt 0 ]; do
	case "$1" in
	--build) build=1 ;;
	--only) [ $# -ge 2 ] || die "--only needs an argument"; only+=("$2"); shift ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
tests=(stress bpftrace erofs romfs postmortem)
[ ${#only[@]} = 0 ] || tests=("${only[@]}")
for t in "${tests[@]}"; do
	[ -x "$KMS_SCRIPTS/test-$t.sh" ] || die "no test '$t' (stress, bpftrace, erofs, romfs, postmortem)"
done

t0=$(now)
if [ "$build" = 1 ]; then
	KMAPSTACK_OUT=$KMS_GUEST_OUT "$KMS_SCRIPTS/build-kernel.sh" x86_64 || die "kernel build failed"
fi
guest_kernel_check

pass=0 fail=0 lines=()
for t in "${tests[@]}"; do
	log=$KMS_BUILD/test-guest-$t.log
	echo "==== test-$t.sh ===="
	s=$(now)
	"$KMS_SCRIPTS/test-$t.sh" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	dt=$(( $(now) - s ))
	if read_counts "$log"; then p=$KMS_P f=$KMS_F; else p=0 f=1; fi	# died before its summary
	[ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1		# non-zero exit counts as a failure
	pass=$((pass + p)); fail=$((fail + f))
	lines+=("$(printf '  %-12s %4ss  %s passed, %s failed (exit %s)' "$t" "$dt" "$p" "$f" "$rc")")
done
echo "==== test-guest.sh: $(( $(now) - t0 ))s ===="
printf '%s\n' "${lines[@]}"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
