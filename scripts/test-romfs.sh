#!/bin/bash
# test-romfs.sh: kmap_stack finds romfs_read_folio()'s kunmap_local() of
# the page after the one it mapped, in Linux 6.12 and 7.3
# (docs/real-world.md, "Triage", BUG-2): on the x86_64 guest kernel, a
# romfs image (genromfs on the host) of files of one to three pages is
# mounted fresh and every file read back (scripts/guest/romfs-read.sh).
# For each full page, folio_zero_tail() hands romfs an address one past
# the page it mapped, which the kernel log must report:
#   - "kmap_stack: unmap of an address that is not mapped in
#     romfs_read_folio" between the read markers;
#   - naming romfs_read_folio as the mapper of the top of the stack;
# and on a kernel whose tree has the fix (kernel-fixes/, detected with
# git apply -R --check on the kernel's source tree, or
# KMAPSTACK_ROMFS_EXPECT=clean) the same reads give no kmap_stack report.
# Both ways: every file reads back the same, no oops.
# Ends with "N passed, N failed"; exit 1 on any failure.
# Environment: KMAPSTACK_OUT (guest kernel build), KMAPSTACK_ROMFS_EXPECT
#   (report | clean; default: from the kernel's source tree).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/guest/lib-guest.sh"
fix=$(kernel_fix folio_zero_tail) || exit 1
base=$KMS_BUILD/test-romfs
rm -rf "$base"; mkdir -p "$base"
t0=$(now)
image_test_kernel ROMFS_FS ROMFS_BACKED_BY_BLOCK
command -v genromfs >/dev/null || die "genromfs not found (scripts/install-deps.sh)"
expect=$(fix_expect "$fix" "$KMS_GUEST_OUT" "${KMAPSTACK_ROMFS_EXPECT:-}") || exit 1

# The image: files of 1 to 3 pages and a partial last page, of known bytes
mkdir -p "$base/src"
for n in 1 2 3; do
	head -c $((n * 4096)) /dev/urandom > "$base/src/pages-$n"
	head -c $((n * 4096 + 100)) /dev/urandom > "$base/src/pages-$n-and-a-bit"
done
genromfs -f "$base/romfs.img" -d "$base/src" -V kmapstack || die "genromfs failed"

image_test_run "$base" ROMFS_FS "kmapstack-romfs: reads" "$KMS_GUEST_DIR/romfs-read.sh" \
	"$base/romfs.img" "$base/src"
out=$base/output.log
check "guest: romfs image mounted" grep -q '^romfs-read: mounted .* romfs' "$out"
check "guest: every file read back the same (6)" grep -qx 'romfs-read: 6 file(s) read back the same, 0 differ' "$out"
reports=$(report_titles "$base/marked.log" | wc -l)
if [ "$expect" = report ]; then
	check "report: kmap_stack: unmap of an address that is not mapped in romfs_read_folio" \
		grep -qE 'WARNING: kmap_stack: unmap of an address that is not mapped in romfs_read_folio\+' "$base/marked.log"
	check "report: the top of the stack was mapped at romfs_read_folio" \
		grep -qE 'the top of the stack was mapped at: romfs_read_folio\+' "$base/marked.log"
	grep -A2 -m1 'kmap_stack: unmap of an address' "$base/marked.log"
else
	image_test_clean "$base"
fi

echo "test-romfs: $(( $(now) - t0 ))s under TCG ($expect expected, $reports report(s) during the reads)"
summary
