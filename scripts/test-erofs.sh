#!/bin/bash
# test-erofs.sh: kmap_stack finds the out-of-order kunmap_local() of erofs
# lookups in Linux 6.12 (docs/real-world.md, "Triage", BUG-1): on the x86_64
# guest kernel, a real erofs image (mkfs.erofs on the host) whose root
# directory spans several blocks is mounted fresh and every name of it is
# looked up (scripts/guest/erofs-lookup.sh).  erofs_find_target_block()
# releases the previous candidate block while the newer block is still
# mapped, which the kernel log must report:
#   - a "kmap_stack: mismatched unmap (not the top of the stack)" report in
#     erofs_put_metabuf, between the lookup markers;
#   - naming erofs_bread as the mapper of the unmapped address and of the
#     top of the stack, and erofs_lookup in the mapping's stack trace;
# and on a kernel whose tree has the fix (kernel-fixes/, detected with
# git apply -R --check on the kernel's source tree, or
# KMAPSTACK_EROFS_EXPECT=clean) the same lookups give no kmap_stack report.
# Both ways: every name found, the absent ones not, no oops.  A base kernel
# fixed in another way (a later 6.12.y) fails the report checks: triage
# again (docs/real-world.md, BUG-1).
# Ends with "N passed, N failed"; exit 1 on any failure.
# Environment: KMAPSTACK_OUT (guest kernel build), KMAPSTACK_EROFS_FILES
#   (names in the root directory, default 3000), KMAPSTACK_EROFS_EXPECT
#   (report | clean; default: from the kernel's source tree).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/guest/lib-guest.sh"

nfiles=${KMAPSTACK_EROFS_FILES:-3000}
fix=$(kernel_fix erofs-release-kmap_local) || exit 1
base=$KMS_BUILD/test-erofs
rm -rf "$base"; mkdir -p "$base"
t0=$(now)
image_test_kernel EROFS_FS DEBUG_KMAP_STACK_TRACES
for t in mkfs.erofs dump.erofs modprobe; do
	command -v "$t" >/dev/null || die "$t not found (erofs-utils, kmod: scripts/install-deps.sh)"
done
# what the kernel's tree has: the bug (as Debian ships 6.12 and 7.3) or the fix
expect=$(fix_expect "$fix" "$KMS_GUEST_OUT" "${KMAPSTACK_EROFS_EXPECT:-}") || exit 1

# The image: empty files in the root directory; the root's size says how
# many blocks each lookup binary-searches.
mkdir -p "$base/src"
for ((i = 0; i < nfiles; i++)); do printf 'kmapstack-lookup-%05d\n' "$i"; done > "$base/names"
(cd "$base/src" && xargs -d '\n' -a "$base/names" touch --)
mkfs.erofs -T0 "$base/erofs.img" "$base/src" > "$base/mkfs.log" 2>&1 ||
	{ tail -5 "$base/mkfs.log"; die "mkfs.erofs failed"; }
rm -rf "$base/src"
dirsize=$(dump.erofs --path=/ "$base/erofs.img" 2>/dev/null | sed -n 's/^Size: \([0-9]*\).*/\1/p')
blocks=$(( (${dirsize:-0} + 4095) / 4096 ))
check "image: root directory of $nfiles names spans $blocks blocks (>= 3)" [ "$blocks" -ge 3 ]

image_test_run "$base" EROFS_FS "kmapstack-erofs: lookups" "$KMS_GUEST_DIR/erofs-lookup.sh" \
	"$base/erofs.img" "$base/names"
out=$base/output.log
check "guest: erofs available, image mounted" grep -q '^erofs-lookup: mounted .* erofs' "$out"
check "guest: every name found ($nfiles)" grep -qx "erofs-lookup: found $nfiles of $nfiles names" "$out"
check "guest: absent names not found" grep -qE '^erofs-lookup: absent names not found: ([0-9]+) of \1$' "$out"
reports=$(report_titles "$base/marked.log" | wc -l)
if [ "$expect" = report ]; then
	check "report: kmap_stack: mismatched unmap (not the top of the stack) in erofs_put_metabuf" \
		grep -qE 'kmap_stack: mismatched unmap \(not the top of the stack\) in erofs_put_metabuf' "$base/marked.log"
	check "report: the unmapped address was mapped at erofs_bread" \
		grep -qE 'that address \(pfn 0x[0-9a-f]+\) was mapped in task context at: erofs_bread\+' "$base/marked.log"
	check "report: the top of the stack was mapped at erofs_bread" \
		grep -qE 'the top of the stack was mapped at: erofs_bread\+' "$base/marked.log"
	check "report: the mapping's stack trace goes through erofs_lookup" \
		grep -qE '^ *(\[ *[0-9.]+\] *)? *erofs_lookup\+' "$base/marked.log"
	grep -A2 -m1 'kmap_stack: mismatched unmap' "$base/marked.log"
else
	image_test_clean "$base"
fi

echo "test-erofs: $(( $(now) - t0 ))s under TCG ($expect expected, $reports report(s) during the lookups)"
summary
