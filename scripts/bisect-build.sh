#!/bin/bash
# bisect-build.sh ARCH [ARCH...]        (ARCH: x86_64 | i386)
#
# Build the kernel at every patch of kernel-patch/series in turn (base +
# patch 1, base + patches 1-2, ...) and fail naming the first patch that
# does not apply or does not build.  Uses its own tree and build directories
# (build/bisect/linux, build/bisect/out-ARCH), so build/linux is left alone;
# builds are incremental and use ccache, so each step only recompiles what
# the patch touched.  The lean config (KMAPSTACK_LEAN=1: common.config +
# ARCH.config; symbols the series has not defined yet at a given patch are
# tolerated: KMAPSTACK_ALLOW_MISSING).
# Each kernel is then booted under QEMU (TCG): from the patch that adds the
# KUnit suite on, with scripts/run-kunit.sh (every case must pass or skip);
# before it, the boot must reach the initramfs' 'kmapstack-init: done' with
# no WARNING, BUG or Oops.  BISECT_BOOT=0 builds only.
# Logs: build/bisect/build-ARCH-NN.log, boot-ARCH-NN.log, kunit-ARCH-NN/
set -euo pipefail
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
[ $# -ge 1 ] || die "usage: $KMS_PROG ARCH [ARCH...]   (x86_64 or i386)"
for a in "$@"; do check_arch "$a"; done

load_series
patches=("${KMS_PATCHES[@]}")
if [ ${#patches[@]} = 0 ]; then
	info "kernel-patch/series has no patch: nothing to bisect-build"
	exit 0
fi
bdir=$KMS_BUILD/bisect

# boot_check ARCH N PATCH: boot the kernel built at patch N
boot_check() {
	local arch=$1 n out=$bdir/out-$1 log
	n=$(printf '%02d' "$2")
	if grep -q '^CONFIG_KMAP_STACK_KUNIT_TEST=y' "$out/.config"; then
		log=$bdir/kunit-$arch-$n
		mkdir -p "$log"
		KMAPSTACK_NO_BUILD=1 KMAPSTACK_OUT=$out KMAPSTACK_KUNIT_LOGDIR=$log \
			"$KMS_SCRIPTS/run-kunit.sh" "$arch" > "$log/run.log" 2>&1 || {
			tail -n 20 "$log/run.log" >&2
			die "$arch: the KUnit suite fails at patch #$2 kernel-patch/$3 (logs: $log)"
		}
		grep -h 'KUnit TAP' "$log/run.log" | sed 's/^/       /'
		return
	fi
	log=$bdir/boot-$arch-$n.log
	# one initramfs per arch and run, made at its first boot without KUnit
	if [ ! -f "$bdir/initramfs/$arch.cpio" ]; then
		mkdir -p "$bdir/initramfs"
		"$KMS_SCRIPTS/mkinitramfs.sh" "$bdir/initramfs/$arch.cpio" "$arch" >/dev/null
	fi
	"$KMS_SCRIPTS/boot.sh" "$arch" -k "$out/$KMS_IMAGE" -i "$bdir/initramfs/$arch.cpio" \
		-l "$log" -t 600 -a "kunit.enable=0" > "$log.stdout" 2>&1 ||
		die "$arch: the kernel at patch #$2 kernel-patch/$3 does not boot (log: $log)"
	grep -q 'kmapstack-init: done' "$log" ||
		die "$arch: the boot at patch #$2 did not finish (log: $log)"
	! grep -aE 'WARNING:|BUG:|Oops' "$log" ||
		die "$arch: the boot at patch #$2 warned (log: $log)"
	echo "       booted, no warning"
}
tree=$bdir/linux
mkdir -p "$bdir"
rm -rf "$bdir/initramfs"
for arch in "$@"; do
	check_arch "$arch"
	"$KMS_SCRIPTS/kernel-tree.sh" --base-only "$tree"
	i=0
	for p in "${patches[@]}"; do
		i=$((i + 1))
		apply_patch "$tree" "$p" "$i"
		log=$(printf '%s/build-%s-%02d.log' "$bdir" "$arch" "$i")
		t0=$(now)
		if ! KMAPSTACK_TREE=$tree KMAPSTACK_OUT=$bdir/out-$arch KMAPSTACK_LEAN=1 \
			KMAPSTACK_ALLOW_MISSING="DEBUG_KMAP_STACK DEBUG_KMAP_STACK_TRACES KMAP_STACK_KUNIT_TEST" \
			"$KMS_SCRIPTS/build-kernel.sh" "$arch" > "$log" 2>&1; then
			grep -E 'error|Error|warning:|wanted' "$log" | head -n 30 >&2 || true
			tail -n 15 "$log" >&2
			die "$arch: the build breaks at patch #$i kernel-patch/$p (log: $log)"
		fi
		tb=$(now)
		[ "${BISECT_BOOT:-1}" = 0 ] || boot_check "$arch" "$i" "$p"
		printf 'ok     %s %2d/%d %s (build %ss, boot %ss)\n' "$arch" "$i" "${#patches[@]}" "$p" \
			"$((tb - t0))" "$(( $(now) - tb ))"
	done
done
info "every patch of the series builds on: $*"
