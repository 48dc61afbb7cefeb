#!/bin/bash
# test-module.sh ARCH        (ARCH: x86_64 | i386 | arm64)
#
# Build tests/modules/kmapbug against build/out-ARCH (CONFIG_MODULES=y),
# boot the kernel with it in the initramfs and check, as a user reading the
# kernel log would, that:
#   - bug=wrong_order gives one "kmap_stack: mismatched unmap" WARN naming
#     the module's unmapping function and both mapping functions;
#   - with DEBUG_KMAP_STACK_TRACES, the wrong_order report lists the stack
#     of both mappings;
#   - bug=leak_user (init_module() returns holding a mapping) is reported on
#     return to user space, naming insmod and the mapping function, and,
#     with DEBUG_KMAP_STACK_TRACES, the stack of the mapping;
#   - booted with kmap_stack.stack_traces=0, the parameter reads N and a
#     report has no stack;
#   - bug=balanced gives no report;
#   - debugfs kmap_stack/stats counted the violations.
# Ends with "N passed, N failed"; exit 1 on any failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
check_arch "${1:-}"
arch=$KMS_ARCH
out=$KMS_OUT
build_kmapbug "$out"

initrd=$KMS_BUILD/initramfs-module-$arch.cpio
KMAPSTACK_RUN="$KMS_SCRIPTS/guest/module-test.sh" \
	"$KMS_SCRIPTS/mkinitramfs.sh" "$initrd" "$arch" "$KMS_KMAPBUG:/lib/kmapbug.ko" >/dev/null
log=$KMS_BUILD/module-$arch.log
"$KMS_SCRIPTS/boot.sh" "$arch" -i "$initrd" -l "$log" -t 600 \
	-a "kunit.enable=0 loglevel=1" >/dev/null || die "guest boot failed, see $log"
tr -d '\r' < "$log" > "$log.txt"

# expect STEP PATTERN...: a line of the step that matches every PATTERN (grep -F)
expect() {
	local step=$1 what=$2; shift 2
	local lines
	lines=$(grep -F "step-$step| " "$log.txt" || true)
	local p
	for p in "$@"; do lines=$(printf '%s\n' "$lines" | grep -F -- "$p" || true); done
	if [ -n "$lines" ]; then
		ok "$arch $step: $what"
	else
		nok "$arch $step: $what" "no line with: $*"
	fi
}
count() { grep -F "step-$1| " "$log.txt" | grep -cF -- "$2" || true; }
expect_count() {
	local step=$1 pat=$2 want=$3 got
	got=$(count "$step" "$pat")
	if [ "$got" = "$want" ]; then
		ok "$arch $step: $want line(s) with '$pat'"
	else
		nok "$arch $step: $got line(s) with '$pat'" "want $want"
	fi
}

expect_count wrong_order "kmap_stack: " 1
expect wrong_order "title" "kmap_stack: mismatched unmap (not the top of the stack)"
expect wrong_order "unmapping function named" "unmaps" "at: kmapbug_unmap_first+" "[kmapbug]"
expect wrong_order "mapping function named" "was mapped in task context at: kmapbug_map_first+"
expect wrong_order "top of stack named" "the top of the stack was mapped at: kmapbug_map_second+"
expect wrong_order "the first line names the kind and the unmap site" \
	"WARNING: kmap_stack: mismatched unmap (not the top of the stack) in kmapbug_unmap_first+"
# the report's own call trace (one space in: x86 "Call Trace:", arm64
# "Call trace:") goes through the unmapping function
expect wrong_order "the stack of the unmap ends the report" "]  kmapbug_unmap_first+"
expect_count wrong_order "WARNING: CPU: " 0
expect_count wrong_order "kunmap_local_indexed+" 0
traces=0
grep -q '^CONFIG_DEBUG_KMAP_STACK_TRACES=y' "$out/.config" && traces=1
if [ "$traces" = 1 ]; then
	# each mapping's stack, two spaces in after the time stamp (a WARN's
	# call trace has one), under the mappings the report names
	expect_count wrong_order "]   kmapbug_wrong_order+" 2
	expect_count wrong_order "]   kmapbug_init+" 2
	expect_count leak_user "]   do_init_module+" 1
fi
expect_count leak_user "kmap_stack: " 1
expect leak_user "title" "kmap_stack: mapping held on return to user space"
expect leak_user "task named" "insmod/" "returns to user space holding 1 mapping(s)"
expect leak_user "mapping function named" " #0: " "at: kmapbug_map_third+"
# one report per bug: not also kmap_assert_nomap()'s (HIGHMEM)
expect_count leak_user "DEBUG_LOCKS_WARN_ON(current->kmap_ctrl.idx)" 0
expect_count balanced "kmap_stack: " 0
expect balanced "module loaded" "kmapbug: bug=balanced"
# the mismatch and the leak, each reported once
expect stats "violations counted" "violations: 2"
expect stats "reports counted" "reports: 2"
# Unmapping an address twice: reported, and the real state stays as
# mm/highmem.c left it: a task with a slot in use is still pinned
expect double_unmap "title" "kmap_stack: unmap of an address that is not mapped in kmapbug_unmap_second+"
line=$(grep -F "step-double_unmap| " "$log.txt" | grep -o 'kmap_ctrl.idx=-\?[0-9]* migration_disabled=-\?[0-9]*' | head -n 1 || true)
idx=${line#kmap_ctrl.idx=}; idx=${idx%% *}; pinned=${line##*=}
if [ -n "$line" ] && ! { [ "$idx" -gt 0 ] && [ "$pinned" = 0 ]; }; then
	ok "$arch double_unmap: real state consistent ($line)"
else
	nok "$arch double_unmap: real state" "'${line:-no state line}'"
fi
# A module whose init fails holding a mapping: named while its code exists
expect leak_init_fail "title" "kmap_stack: mapping held as a module goes away in kmapbug_map_third+" "[kmapbug]"
expect leak_init_fail "holder named" "while insmod/"
# A second boot with kmap_stack.stack_traces=0 on the command line: the
# parameter reads N and the wrong_order report has no stacks
if [ "$traces" = 1 ]; then
	log=$KMS_BUILD/module-$arch-notraces.log
	"$KMS_SCRIPTS/boot.sh" "$arch" -i "$initrd" -l "$log" -t 600 \
		-a "kunit.enable=0 loglevel=1 kmap_stack.stack_traces=0" >/dev/null ||
		die "guest boot failed, see $log"
	tr -d '\r' < "$log" > "$log.txt"
	expect boot_param "kmap_stack.stack_traces=0 reads N" "step-boot_param| N"
	expect_count boot_wrong_order "kmap_stack: " 1
	expect boot_wrong_order "mapping function named" "was mapped in task context at: kmapbug_map_first+"
	expect_count boot_wrong_order "]   kmapbug_wrong_order+" 0
fi

summary
