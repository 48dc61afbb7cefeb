#!/bin/bash
# test-gfs2-highmem.sh: gfs2's metadata in highmem (docs/real-world.md,
# BUG-3; kernel-fixes/7.3/0003): since "gfs2: Prevent recursive memory
# reclaim" the metadata address spaces may take highmem folios, whose
# buffers' b_data gfs2 dereferences; on a 32-bit HIGHMEM kernel the mount
# oopses in gfs2_meta_buffer().
#   - builds the i386 test kernel with gfs2 and loop into
#     build/out-i386-gfs2 (scripts/configs/gfs2-highmem.config);
#   - boots it with 3 GiB and the busybox initramfs holding a 64 MiB gfs2
#     image (mkfs.gfs2 -p lock_nolock); scripts/guest/gfs2-highmem-guest.sh
#     mounts it on a loop device, writes 4 MiB and unmounts.
# Without the fix: the oops in gfs2_meta_buffer during the mount (the guest
# then hangs until the 90 s timeout). With it (git apply -R --check on the
# kernel's tree, or KMAPSTACK_GFS2_EXPECT=clean): mounted, written,
# unmounted, no oops, no warning.
# Not in make check. Ends with "N passed, N failed"; exit 1 on any failure.
# Environment: KMAPSTACK_OUT (default build/out-i386-gfs2),
#   KMAPSTACK_FRAGMENTS, KMAPSTACK_GFS2_EXPECT (report | clean).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
check_arch i386
kout=${KMAPSTACK_OUT:-$KMS_BUILD/out-i386-gfs2}
dir=$KMS_BUILD/test-gfs2-highmem
rm -rf "$dir"; mkdir -p "$dir"
t0=$(now)
fix=$(kernel_fix gfs2-keep-metadata-out-of-highmem) || exit 1
command -v mkfs.gfs2 >/dev/null || die "mkfs.gfs2 not found (gfs2-utils)"
build_kernel_variant "$kout" "$dir/kernel-build.log" "$KMS_SCRIPTS/configs/gfs2-highmem.config"
expect=$(fix_expect "$fix" "$kout" "${KMAPSTACK_GFS2_EXPECT:-}") || exit 1

truncate -s 64M "$dir/gfs2.img"
mkfs.gfs2 -O -p lock_nolock -j 1 -J 8 "$dir/gfs2.img" > "$dir/mkfs.log" 2>&1 || die "mkfs.gfs2 failed ($dir/mkfs.log)"
rc=0
boot_i386_image "$dir" "$kout" 90 "$KMS_SCRIPTS/guest/gfs2-highmem-guest.sh" "$dir/gfs2.img:/gfs2.img" || rc=$?
rm -f "$dir/gfs2.img" "$dir/initramfs.cpio"
check "guest: the mount began" grep -q 'kmapstack-gfs2: mount begin' "$dir/console.txt"
if [ "$expect" = clean ]; then
	check "clean: booted to its end (boot.sh exit $rc)" [ "$rc" = 0 ]
	check "clean: mounted, written and unmounted" \
		bash -c "grep -q '^gfs2-highmem: wrote ' '$dir/console.txt' && grep -q '^gfs2-highmem: unmounted' '$dir/console.txt'"
	n=$(grep -c 'WARNING:' "$dir/console.txt")
	check_no_oops "clean: no oops" "$dir/console.txt"
	check "clean: no warning ($n)" [ "$n" = 0 ]
else
	check "bug: NULL pointer dereference in gfs2_meta_buffer during the mount" \
		bash -c "grep -q 'BUG: kernel NULL pointer dereference' '$dir/console.txt' && grep -qE 'EIP: gfs2_meta_buffer\+' '$dir/console.txt'"
	check "bug: the mount did not succeed" bash -c "! grep -q '^gfs2-highmem: mounted' '$dir/console.txt'"
	grep -m1 -A1 'BUG: kernel NULL pointer' "$dir/console.txt"
fi
echo "test-gfs2-highmem: $(( $(now) - t0 ))s ($expect expected, boot.sh exit $rc)"
summary
