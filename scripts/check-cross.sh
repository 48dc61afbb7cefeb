#!/bin/bash
# check-cross.sh          ('make check-cross')
#
# The series on the other HIGHMEM architectures (docs/architectures.md):
#  1. scripts/cross-check.sh: builds arm, mips, powerpc, sparc32, arc
#     (W=1, no warning in the series' files);
#  2. scripts/run-kunit.sh on arm, mips, powerpc: the same kernels booted in
#     QEMU (TCG, no initramfs, kunit_shutdown=reboot); each must show real
#     highmem in the boot log, KUnit's TAP totals with fail:0, and exactly
#     the expected passes (24 of 25: leak_nmi skips, no NMI can be raised
#     outside x86).
# Each step counts as one test.  Ends with "N passed, N failed".
# Environment: KMAPSTACK_CROSS_BOOT="arm mips powerpc" (the arches booted),
#   KMAPSTACK_CROSS_BUILD (the arches built; default all), plus what
#   cross-check.sh, run-kunit.sh and boot.sh read.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
boot_arches=${KMAPSTACK_CROSS_BOOT:-$KMS_BOOT_ARCHES}
build_arches=${KMAPSTACK_CROSS_BUILD:-$KMS_CROSS_ARCHES}
# passing cases of the kmap_stack suite expected per arch
declare -A expect_pass=([arm]=24 [mips]=24 [powerpc]=24)

pass=0 fail=0 summary=()
t0=$(now)
rc=0
# shellcheck disable=SC2086
"$KMS_SCRIPTS/cross-check.sh" $build_arches || rc=$?
[ "$rc" = 0 ] && summary+=("PASS cross-check ($build_arches)") || summary+=("FAIL cross-check ($build_arches)")

for a in $boot_arches; do
	check_any_arch "$a"
	echo "=== KUnit on $a"
	rc=0
	KMAPSTACK_EXPECT_PASS=${expect_pass[$a]:-} KMAPSTACK_NO_BUILD=${KMAPSTACK_NO_BUILD:-0} \
		"$KMS_SCRIPTS/run-kunit.sh" "$a" 2>&1 | tee "$KMS_BUILD/cross/run-kunit-$a.out" || rc=$?
	tap=$(grep -aE '^run-kunit.sh: KUnit TAP' "$KMS_BUILD/cross/run-kunit-$a.out" | sed 's/^run-kunit.sh: //' || true)
	hm=$(grep -aE '^run-kunit.sh: highmem on' "$KMS_BUILD/cross/run-kunit-$a.out" | sed 's/^run-kunit.sh: //; s/; boot log://' || true)
	if [ "$rc" = 0 ]; then
		pass=$((pass + 1)); summary+=("PASS kunit-$a: ${tap:-?}; ${hm:-?}")
	else
		fail=$((fail + 1)); summary+=("FAIL kunit-$a: ${tap:-no TAP totals} (build/cross/kunit-$a.log)")
	fi
done
# cross-check's own count: one step
if [[ ${summary[0]} == PASS* ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
echo "---- check-cross ($(( $(now) - t0 ))s) ----"
printf '%s\n' "${summary[@]}"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
