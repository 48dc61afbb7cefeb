#!/bin/bash
# check-cross.sh          ('make check-cross')
#
# The series on the other HIGHMEM architectures (docs/architectures.md):
#  1. scripts/build-cross.sh: builds arm, mips, powerpc, sparc32, arc
#     (W=1, no warning in the series' files);
#  2. scripts/run-kunit.sh on arm, mips, powerpc: the same kernels booted in
#     QEMU (TCG, no initramfs, kunit_shutdown=reboot); each must show real
#     highmem in the boot log and KUnit's TAP totals with fail:0 (a case
#     whose interrupt did not arrive where it needs it skips; set
#     KMAPSTACK_EXPECT_PASS to require an exact count of passes).
# Each step (the builds, each boot) counts as one test.  Ends with
# "N passed, N failed".
# Environment: KMAPSTACK_CROSS_BOOT="arm mips powerpc" (the arches booted),
#   KMAPSTACK_CROSS_BUILD (the arches built; default all), plus what
#   build-cross.sh, run-kunit.sh and boot.sh read.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
boot_arches=${KMAPSTACK_CROSS_BOOT:-$KMS_BOOT_ARCHES}
build_arches=${KMAPSTACK_CROSS_BUILD:-$KMS_CROSS_ARCHES}

t0=$(now)
rc=0
# shellcheck disable=SC2086
"$KMS_SCRIPTS/build-cross.sh" $build_arches || rc=$?
check "build-cross ($build_arches)" [ "$rc" = 0 ]

results=()
for a in $boot_arches; do
	check_any_arch "$a"
	echo "=== KUnit on $a"
	rc=0
	KMAPSTACK_EXPECT_PASS=${KMAPSTACK_EXPECT_PASS:-} KMAPSTACK_NO_BUILD=${KMAPSTACK_NO_BUILD:-0} \
		"$KMS_SCRIPTS/run-kunit.sh" "$a" 2>&1 | tee "$KMS_BUILD/cross/run-kunit-$a.out" || rc=$?
	tap=$(grep -aE '^run-kunit.sh: KUnit TAP' "$KMS_BUILD/cross/run-kunit-$a.out" | sed 's/^run-kunit.sh: //' || true)
	hm=$(grep -aE '^run-kunit.sh: highmem on' "$KMS_BUILD/cross/run-kunit-$a.out" | sed 's/^run-kunit.sh: //; s/; boot log://' || true)
	if [ "$rc" = 0 ]; then
		ok "kunit-$a"; results+=("PASS kunit-$a: ${tap:-?}; ${hm:-?}")
	else
		nok "kunit-$a" "${tap:-no TAP totals} (build/cross/kunit-$a.log)"; results+=("FAIL kunit-$a: ${tap:-no TAP totals}")
	fi
done
echo "---- check-cross ($(( $(now) - t0 ))s) ----"
printf '%s\n' "${results[@]}"
summary
