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

# image_test_kernel FS OPTION...: for an image test (test-erofs.sh,
# test-romfs.sh): the guest kernel is built, has guest-run.sh's 9p root,
# loop and kmap_stack, CONFIG_OPTION=y for each OPTION, and CONFIG_FS
# built in or a module (the x86_64 test kernel has them from guest.config,
# a check-world amd64 kernel too); dies naming what it lacks.
image_test_kernel() {
	local fs=$1 cfg=$KMS_GUEST_OUT/.config o missing=
	shift
	[ -f "$KMS_GUEST_OUT/arch/x86/boot/bzImage" ] && [ -f "$cfg" ] ||
		die "no x86_64 kernel in $KMS_GUEST_OUT: build it with
  KMAPSTACK_OUT=$KMS_GUEST_OUT scripts/build-kernel.sh x86_64   (make kernel-x86_64)"
	for o in 9P_FS VIRTIO_PCI DEVTMPFS BLK_DEV_LOOP DEBUG_KMAP_STACK "$@"; do
		grep -qx "CONFIG_$o=y" "$cfg" || missing="$missing CONFIG_$o"
	done
	grep -qx "CONFIG_$fs=[ym]" "$cfg" || missing="$missing CONFIG_$fs"
	[ -z "$missing" ] || die "$cfg lacks$missing: rebuild with
  KMAPSTACK_OUT=$KMS_GUEST_OUT scripts/build-kernel.sh x86_64   (make kernel-x86_64)"
}

# image_test_run DIR FS MARK SCRIPT ARGS...: run an image test's guest
# SCRIPT (output in DIR) with the guest kernel's modules staged in
# DIR/stage when CONFIG_FS is a module (SCRIPT gets DIR/stage and the
# kernel release after ARGS), then the checks every image test makes: the
# guest ran to its end, no oops, the kernel log has "MARK begin" and "MARK
# end"; the log between them goes to DIR/marked.log.
image_test_run() {
	local dir=$1 fs=$2 mark=$3 script=$4 kver rc=0
	shift 4
	kver=$(cat "$KMS_GUEST_OUT/include/config/kernel.release")
	mkdir -p "$dir/stage"
	if grep -qx "CONFIG_$fs=m" "$KMS_GUEST_OUT/.config"; then
		stage_modules "$KMS_GUEST_OUT" x86_64 "$dir"
	fi
	"$KMS_SCRIPTS/guest-run.sh" -o "$dir" -k "$KMS_GUEST_OUT/arch/x86/boot/bzImage" -t 600 \
		"$script" "$@" "$dir/stage" "$kver" || rc=$?
	check "guest: $(basename "$script") ran to its end (exit 0)" [ "$rc" = 0 ]
	check_no_oops "guest: no oops" "$dir/console.log"
	sed -n "/$mark begin/,/$mark end/p" "$dir/dmesg.txt" 2>/dev/null > "$dir/marked.log"
	check "kernel log: both markers ($mark begin, end)" \
		bash -c "grep -q '$mark begin' '$dir/marked.log' && grep -q '$mark end' '$dir/marked.log'"
}

# image_test_clean DIR: the checks of an image test on a kernel with the
# fix: no kmap_stack report between the markers (DIR/marked.log) nor
# anywhere in the kernel log (DIR/dmesg.txt)
image_test_clean() {
	local dir=$1 n
	n=$(report_titles "$dir/marked.log" | wc -l)
	check "clean: no kmap_stack report between the markers ($n)" [ "$n" = 0 ]
	check "clean: no kmap_stack report in the whole kernel log" \
		bash -c "! grep -q 'WARNING: kmap_stack: ' '$dir/dmesg.txt'"
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
