#!/bin/bash
# test-romfs-highmem.sh: romfs_read_folio()'s kunmap_local() of the page
# after the one it mapped (docs/real-world.md, BUG-2) on a 32-bit HIGHMEM
# kernel, where the mappings are real kmap_local slots.
#   - builds the i386 test kernel with romfs, loop and no DEBUG_KMAP_LOCAL
#     guard pages into build/out-i386-romfs (scripts/build-kernel.sh i386,
#     KMAPSTACK_FRAGMENTS=scripts/configs/romfs-highmem.config);
#   - boots it with 3 GiB (about 2 GiB of ZONE_HIGHMEM, where the page
#     cache goes) and the busybox initramfs holding a genromfs image of four
#     files of 64 pages of random bytes; scripts/guest/romfs-highmem-guest.sh
#     mounts it on a loop device and md5sums two files on CPU 0, two on CPU 1.
# Without the fix (kernel-fixes/), the reads must give, between the read
# markers of the kernel log:
#   - with DEBUG_KMAP_STACK, its report "unmap of an address that is not
#     mapped in romfs_read_folio", naming romfs_read_folio as the mapper;
#   - without it (KMAPSTACK_FRAGMENTS with DEBUG_KMAP_STACK off), mainline's
#     own WARNING in kunmap_local_indexed(), romfs_read_folio in its trace
#     (the address is one page above the slot romfs mapped).
# On a kernel whose tree has the fix (git apply -R --check on its source
# tree, or KMAPSTACK_ROMFS_EXPECT=clean): no warning of any kind, and every
# file reads back the same. Both ways: the guest runs to its end, no oops.
# Ends with "N passed, N failed"; exit 1 on any failure.
# Environment: KMAPSTACK_OUT (default build/out-i386-romfs),
#   KMAPSTACK_FRAGMENTS (more config fragments, after romfs-highmem.config),
#   KMAPSTACK_ROMFS_EXPECT (report | clean; default: from the kernel's tree).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
check_arch i386
kout=${KMAPSTACK_OUT:-$KMS_BUILD/out-i386-romfs}
dir=$KMS_BUILD/test-romfs-highmem
rm -rf "$dir"; mkdir -p "$dir/src"
t0=$(now)
fix=$(kernel_fix folio_zero_tail) || exit 1
command -v genromfs >/dev/null || die "genromfs not found (scripts/install-deps.sh)"

build_kernel_variant "$kout" "$dir/kernel-build.log" "$KMS_SCRIPTS/configs/romfs-highmem.config"
expect=$(fix_expect "$fix" "$kout" "${KMAPSTACK_ROMFS_EXPECT:-}") || exit 1
kms=0; grep -qx 'CONFIG_DEBUG_KMAP_STACK=y' "$kout/.config" && kms=1

# four files of 64 pages, every page of other bytes
for f in cpu0-a cpu0-b cpu1-a cpu1-b; do
	head -c $((64 * 4096)) /dev/urandom > "$dir/src/$f"
done
genromfs -f "$dir/romfs.img" -d "$dir/src" -V kmapstack || die "genromfs failed"
rc=0
boot_i386_image "$dir" "$kout" 600 "$KMS_SCRIPTS/guest/romfs-highmem-guest.sh" "$dir/romfs.img:/romfs.img" || rc=$?
sed -n '/kmapstack-romfs-highmem: reads begin/,/kmapstack-romfs-highmem: reads end/p' "$dir/console.txt" > "$dir/marked.log"
check "guest: romfs image mounted on a loop device" grep -q '^romfs-highmem: mounted' "$dir/console.txt"
check "guest: booted to its end (boot.sh exit $rc)" [ "$rc" = 0 ]
check "kernel log: both markers" bash -c "grep -q 'reads begin' '$dir/marked.log' && grep -q 'reads end' '$dir/marked.log'"
same=0 differ=0
for f in cpu0-a cpu0-b cpu1-a cpu1-b; do
	want=$(md5sum < "$dir/src/$f" | cut -d' ' -f1)
	if grep -q "^romfs-highmem: exit 0 cpu [01] $want  /mnt/romfs/$f\$" "$dir/console.txt"; then
		same=$((same + 1))
	else
		differ=$((differ + 1))
	fi
done
info "$same file(s) read back the same, $differ differ or were not read"
check_no_oops "guest: no oops" "$dir/console.txt"
if [ "$expect" = clean ]; then
	check "clean: every file read back the same ($same of 4)" [ "$same" = 4 ]
	n=$(grep -c 'WARNING:' "$dir/console.txt")
	check "clean: no warning in the kernel log ($n)" [ "$n" = 0 ]
elif [ "$kms" = 1 ]; then
	check "report: kmap_stack: unmap of an address that is not mapped in romfs_read_folio" \
		grep -qE 'WARNING: kmap_stack: unmap of an address that is not mapped in romfs_read_folio\+' "$dir/marked.log"
	check "report: the top of the stack was mapped at romfs_read_folio" \
		grep -qE 'the top of the stack was mapped at: romfs_read_folio\+' "$dir/marked.log"
	grep -m1 -A2 'WARNING: kmap_stack: unmap of an address' "$dir/marked.log"
else
	check "mainline: WARNING in kunmap_local_indexed" \
		grep -qE 'WARNING: .*mm/highmem.c:[0-9]+ at kunmap_local_indexed' "$dir/marked.log"
	check "mainline: romfs_read_folio in its call trace" \
		bash -c "sed -n '/at kunmap_local_indexed/,/end trace/p' '$dir/marked.log' | grep -q ' romfs_read_folio+'"
	grep -m1 -A1 'at kunmap_local_indexed' "$dir/marked.log"
fi
echo "test-romfs-highmem: $(( $(now) - t0 ))s ($expect expected, DEBUG_KMAP_STACK $kms, $same of 4 files the same)"
summary
