# shellcheck shell=bash
# Helpers of the guest-tools scripts (guest-run.sh's users: stress-record.sh,
# test-*.sh).  Sourced after scripts/lib.sh.
#
# Environment:
#   KMAPSTACK_OUT   x86_64 kernel build built with scripts/configs/guest.config
#                   (default build/out-x86_64)

KMS_GUEST_OUT=${KMAPSTACK_OUT:-$KMS_BUILD/out-x86_64}
KMS_GUEST_DIR=$KMS_SCRIPTS/guest

# guest_kernel_check: the kernel exists and has the guest.config options.
guest_kernel_check() {
	local cfg=$KMS_GUEST_OUT/.config s missing=
	[ -f "$KMS_GUEST_OUT/arch/x86/boot/bzImage" ] && [ -f "$cfg" ] ||
		die "no x86_64 guest kernel in $KMS_GUEST_OUT: build it with
  KMAPSTACK_OUT=$KMS_GUEST_OUT KMAPSTACK_FRAGMENTS=scripts/configs/guest.config scripts/build-kernel.sh x86_64"
	while IFS= read -r line; do
		case "$line" in CONFIG_*=y) ;; *) continue ;; esac
		grep -qxF "$line" "$cfg" || missing="$missing ${line%=y}"
	done < "$KMS_SCRIPTS/configs/guest.config"
	grep -qx 'CONFIG_DEBUG_KMAP_STACK=y' "$cfg" || missing="$missing CONFIG_DEBUG_KMAP_STACK"
	[ -z "$missing" ] || die "$KMS_GUEST_OUT/.config lacks$missing: rebuild with
  KMAPSTACK_OUT=$KMS_GUEST_OUT KMAPSTACK_FRAGMENTS=scripts/configs/guest.config scripts/build-kernel.sh x86_64"
}

# ensure_kmapbug: build tests/modules/kmapbug against the guest kernel (in a
# copy under build/, so the source directory stays clean); sets KMS_KMAPBUG.
ensure_kmapbug() {
	local src=$KMS_REPO/tests/modules/kmapbug dst=$KMS_BUILD/kmapbug-guest
	[ -f "$src/kmapbug.c" ] || die "$src/kmapbug.c not found"
	mkdir -p "$dst"
	local f
	for f in "$src"/*; do
		[ -f "$f" ] || continue
		cmp -s "$f" "$dst/$(basename "$f")" || cp "$f" "$dst/"
	done
	make -s -C "$KMS_GUEST_OUT" ARCH=x86_64 M="$dst" modules > "$dst/build.log" 2>&1 ||
		{ cat "$dst/build.log" >&2; die "building kmapbug.ko against $KMS_GUEST_OUT failed"; }
	KMS_KMAPBUG=$dst/kmapbug.ko
	[ -f "$KMS_KMAPBUG" ] || die "$KMS_KMAPBUG missing after the build"
}

# ensure_kmapstack_tool: tools/kmapstack/kmapstack built; sets KMS_KMAPSTACK.
ensure_kmapstack_tool() {
	make -s -C "$KMS_REPO/tools/kmapstack" > "$KMS_BUILD/kmapstack-tool-build.log" 2>&1 ||
		{ cat "$KMS_BUILD/kmapstack-tool-build.log" >&2; die "make -C tools/kmapstack failed"; }
	KMS_KMAPSTACK=$KMS_REPO/tools/kmapstack/kmapstack
	[ -x "$KMS_KMAPSTACK" ] || die "$KMS_KMAPSTACK missing after make"
}

# Test bookkeeping: ok NAME / nok NAME [DETAIL] / summary (prints the
# "N passed, N failed" line and returns 1 on any failure).
KMS_PASS=0 KMS_FAIL=0
ok()  { KMS_PASS=$((KMS_PASS + 1)); printf 'ok   %s\n' "$1"; }
nok() { KMS_FAIL=$((KMS_FAIL + 1)); printf 'FAIL %s%s\n' "$1" "${2:+: $2}"; }
# check NAME CMD...: ok if CMD succeeds.
check() { local n=$1; shift; if "$@"; then ok "$n"; else nok "$n"; fi; }
summary() {
	echo "$KMS_PASS passed, $KMS_FAIL failed"
	[ "$KMS_FAIL" = 0 ]
}
