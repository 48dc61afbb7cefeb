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
fix=$KMS_REPO/kernel-fixes/0001-erofs-release-kmap_local-mappings-in-order-in-erofs_.patch
base=$KMS_BUILD/test-erofs
rm -rf "$base"; mkdir -p "$base"
t0=$(now)
# What the test needs of the kernel (the x86_64 test kernel has it from
# guest.config; a check-world amd64 kernel has it too): guest-run.sh's
# 9p root, loop, erofs (built in or a module), kmap_stack with stack traces
cfg=$KMS_GUEST_OUT/.config missing=
[ -f "$KMS_GUEST_OUT/arch/x86/boot/bzImage" ] && [ -f "$cfg" ] ||
	die "no x86_64 kernel in $KMS_GUEST_OUT: build it with
  KMAPSTACK_OUT=$KMS_GUEST_OUT scripts/build-kernel.sh x86_64   (make kernel-x86_64)"
for o in 9P_FS VIRTIO_PCI DEVTMPFS BLK_DEV_LOOP DEBUG_KMAP_STACK DEBUG_KMAP_STACK_TRACES; do
	grep -qx "CONFIG_$o=y" "$cfg" || missing="$missing CONFIG_$o"
done
grep -qx 'CONFIG_EROFS_FS=[ym]' "$cfg" || missing="$missing CONFIG_EROFS_FS"
[ -z "$missing" ] || die "$cfg lacks$missing: rebuild with
  KMAPSTACK_OUT=$KMS_GUEST_OUT scripts/build-kernel.sh x86_64   (make kernel-x86_64)"
for t in mkfs.erofs dump.erofs modprobe; do
	command -v "$t" >/dev/null || die "$t not found (erofs-utils, kmod: scripts/install-deps.sh)"
done

# What the kernel's tree has: the bug (6.12.y as Debian ships it) or the fix
expect=${KMAPSTACK_EROFS_EXPECT:-}
src=$(readlink -f "$KMS_GUEST_OUT/source" 2>/dev/null || true)
if [ -z "$expect" ]; then
	expect=report
	if [ -n "$src" ] && (cd "$src" && git apply -R --check "$fix") 2>/dev/null; then
		expect=clean
	fi
fi
case "$expect" in report|clean) ;; *) die "KMAPSTACK_EROFS_EXPECT must be report or clean" ;; esac
info "kernel tree ${src:-?}: expecting $expect"

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

# erofs.ko (a module in the test kernel) and its dependencies, for
# modprobe -d in the guest
kver=$(cat "$KMS_GUEST_OUT/include/config/kernel.release")
mkdir -p "$base/stage"
if grep -qx 'CONFIG_EROFS_FS=m' "$cfg"; then
	stage_modules "$KMS_GUEST_OUT" x86_64 "$base"
fi

rc=0
"$KMS_SCRIPTS/guest-run.sh" -o "$base" -k "$KMS_GUEST_OUT/arch/x86/boot/bzImage" -t 600 \
	"$KMS_GUEST_DIR/erofs-lookup.sh" "$base/erofs.img" "$base/names" "$base/stage" "$kver" || rc=$?
out=$base/output.log log=$base/dmesg.txt
check "guest: the lookups ran (exit 0)" [ "$rc" = 0 ]
check "guest: erofs available, image mounted" grep -q '^erofs-lookup: mounted .* erofs' "$out"
check "guest: every name found ($nfiles)" grep -qx "erofs-lookup: found $nfiles of $nfiles names" "$out"
check "guest: absent names not found" grep -qE '^erofs-lookup: absent names not found: ([0-9]+) of \1$' "$out"
if grep -aqE 'BUG:|Oops|general protection|Kernel panic' "$base/console.log" 2>/dev/null; then
	nok "guest: no oops" "see $base/console.log"
else
	ok "guest: no oops"
fi

# The kernel log between the markers
sed -n '/kmapstack-erofs: lookups begin/,/kmapstack-erofs: lookups end/p' "$log" 2>/dev/null > "$base/lookups.log"
check "kernel log: both lookup markers" \
	bash -c "grep -q 'lookups begin' '$base/lookups.log' && grep -q 'lookups end' '$base/lookups.log'"
reports=$(grep -c 'kmap_stack: ' "$base/lookups.log")
if [ "$expect" = report ]; then
	check "report: kmap_stack: mismatched unmap (not the top of the stack) in erofs_put_metabuf" \
		grep -qE 'kmap_stack: mismatched unmap \(not the top of the stack\) in erofs_put_metabuf' "$base/lookups.log"
	check "report: the unmapped address was mapped at erofs_bread" \
		grep -qE 'that address \(pfn 0x[0-9a-f]+\) was mapped in task context at: erofs_bread\+' "$base/lookups.log"
	check "report: the top of the stack was mapped at erofs_bread" \
		grep -qE 'the top of the stack was mapped at: erofs_bread\+' "$base/lookups.log"
	check "report: the mapping's stack trace goes through erofs_lookup" \
		grep -qE '^ *(\[ *[0-9.]+\] *)? *erofs_lookup\+' "$base/lookups.log"
	grep -A2 -m1 'kmap_stack: mismatched unmap' "$base/lookups.log"
else
	check "clean: no kmap_stack report during the lookups ($reports)" [ "$reports" = 0 ]
	check "clean: no kmap_stack report in the whole kernel log" \
		bash -c "! grep -q 'kmap_stack: ' '$log'"
fi

echo "test-erofs: $(( $(now) - t0 ))s under TCG ($expect expected, $reports kmap_stack line(s) during the lookups)"
summary
