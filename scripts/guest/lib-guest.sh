# shellcheck shell=bash
# Helpers of the guest-tools scripts (guest-run.sh's users: stress-record.sh,
# test-*.sh).  Sourced after scripts/lib.sh.
#
# Environment:
#   KMAPSTACK_OUT   x86_64 kernel build (its config includes scripts/configs/guest.config)
#                   (default build/out-x86_64)

KMS_GUEST_OUT=${KMAPSTACK_OUT:-$KMS_BUILD/out-x86_64}
KMS_GUEST_DIR=$KMS_SCRIPTS/guest

# guest_kernel_check: the kernel exists and has the guest.config options.
guest_kernel_check() {
	local cfg=$KMS_GUEST_OUT/.config s missing=
	[ -f "$KMS_GUEST_OUT/arch/x86/boot/bzImage" ] && [ -f "$cfg" ] ||
		die "no x86_64 guest kernel in $KMS_GUEST_OUT: build it with
  KMAPSTACK_OUT=$KMS_GUEST_OUT scripts/build-kernel.sh x86_64   (make kernel-x86_64)"
	while IFS= read -r line; do
		case "$line" in CONFIG_*=y) ;; *) continue ;; esac
		grep -qxF "$line" "$cfg" || missing="$missing ${line%=y}"
	done < "$KMS_SCRIPTS/configs/guest.config"
	grep -qx 'CONFIG_DEBUG_KMAP_STACK=y' "$cfg" || missing="$missing CONFIG_DEBUG_KMAP_STACK"
	[ -z "$missing" ] || die "$KMS_GUEST_OUT/.config lacks$missing: rebuild with
  KMAPSTACK_OUT=$KMS_GUEST_OUT scripts/build-kernel.sh x86_64   (make kernel-x86_64)"
}

# ensure_kmapbug: tests/modules/kmapbug built against the guest kernel
# (build_kmapbug); sets KMS_KMAPBUG.
ensure_kmapbug() {
	check_arch x86_64
	build_kmapbug "$KMS_GUEST_OUT"
}

# ensure_kmapstack_tool: tools/kmapstack/kmapstack built; sets KMS_KMAPSTACK.
ensure_kmapstack_tool() {
	make -s -C "$KMS_REPO/tools/kmapstack" > "$KMS_BUILD/kmapstack-tool-build.log" 2>&1 ||
		{ cat "$KMS_BUILD/kmapstack-tool-build.log" >&2; die "make -C tools/kmapstack failed"; }
	KMS_KMAPSTACK=$KMS_REPO/tools/kmapstack/kmapstack
	[ -x "$KMS_KMAPSTACK" ] || die "$KMS_KMAPSTACK missing after make"
}

# Test bookkeeping (ok, nok, check, summary): scripts/testlib.sh
. "$KMS_SCRIPTS/testlib.sh"
