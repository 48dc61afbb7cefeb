#!/bin/bash
# build-cross.sh [ARCH...]   ('make build-cross'; default: arm mips powerpc sparc arc)
#
# Build the series (build/linux) for every 32-bit HIGHMEM architecture
# Debian has a cross compiler for: scripts/build-kernel.sh ARCH, i.e.
# allnoconfig + scripts/configs/cross/common.config + cross/ARCH.config
# (HIGHMEM, DEBUG_KMAP_LOCAL, DEBUG_KMAP_STACK, _TRACES and the KUnit suite
# where the arch can have them; every fragment line is verified) into
# build/cross/out-ARCH, with the Debian cross compiler and ccache; then
# rebuilds the series' objects (mm/kmap_stack/ or mm/kmap_stack{,_test}.o,
# and mm/highmem.o) with W=1 (sparc: the base tree does not build, so only
# those objects are built, see objs_only below).  A failure: a build error,
# a missing image, or a compiler warning in any file the series touches (git diff base..HEAD of
# the tree).  Other warnings are counted and listed, not failed.  The arm,
# mips and powerpc kernels are the ones 'make check-cross' boots.
# Each architecture is one test; ends with "N passed, N failed".
# Logs: build/cross/ARCH.log.
# Not in 'make check' (a cold build is ~10 min per arch here).
#
# xtensa, csky, microblaze: no Debian cross compiler (docs/architectures.md).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
arches=${*:-$KMS_CROSS_ARCHES}
for a in $arches; do check_any_arch "$a"; [ "$KMS_CROSS_ARCH" = 1 ] || die "'$a' is not a cross arch ($KMS_CROSS_ARCHES)"; done
ensure_tree
mkdir -p "$KMS_BUILD/cross"

# The files of the series, as they appear in compiler messages (../path or path)
mapfile -t series_files < <(git -C "$KMS_TREE" diff --name-only base..HEAD -- '*.c' '*.h')
[ ${#series_files[@]} -gt 0 ] || warn "the tree has no commit over base: only the base is checked"
series_re=$(printf '%s\n' "${series_files[@]}" | sed 's/[.]/\\./g' | paste -sd'|')

# Arches whose base tree (Debian's 6.12.118, without the series) does not
# build here: only the series' objects are built and checked, W=1.
declare -A objs_only=(
	[sparc]="6.12.118 sparc32 fails at fs/fcntl.c: BUILD_BUG_ON 21 - 1 != HWEIGHT32(VALID_OPEN_FLAGS...), base tree alike"
)

results=()
for a in $arches; do
	check_any_arch "$a"
	log=$KMS_BUILD/cross/$a.log
	t0=$(now)
	info "$a: building with ${KMS_CROSS}gcc (log $log)"
	# the series' objects: mm/kmap_stack/ (its test included) or, in
	# the first version of the series, mm/kmap_stack{,_test}.o
	if [ -d "$KMS_TREE/mm/kmap_stack" ]; then
		objs=(mm/kmap_stack/ mm/highmem.o)
	else
		objs=(mm/kmap_stack.o mm/highmem.o)
	fi
	if [ -n "${objs_only[$a]:-}" ]; then
		# the base tree itself does not link: configure, then build
		# the series' objects (and their dependencies) only
		info "$a: objects only (${objs_only[$a]})"
		if ! KMAPSTACK_CONFIG_ONLY=1 "$KMS_SCRIPTS/build-kernel.sh" "$a" > "$log" 2>&1 ||
		   ! kms_make "$KMS_TREE" "$KMS_OUT" "$KMS_KARCH" -j"$(nproc)" prepare >> "$log" 2>&1; then
			nok "$a: configuring" "see $log"; results+=("FAIL $a: configuring failed ($log)")
			grep -E 'error|Error' "$log" | head -n 8; continue
		fi
	elif ! "$KMS_SCRIPTS/build-kernel.sh" "$a" > "$log" 2>&1; then
		nok "$a: build" "see $log"; results+=("FAIL $a: build failed ($log)")
		grep -E 'error|Error' "$log" | head -n 8; continue
	fi
	if [ ! -d "$KMS_TREE/mm/kmap_stack" ] && grep -q '^CONFIG_KMAP_STACK_KUNIT_TEST=y' "$KMS_OUT/.config"; then
		objs+=(mm/kmap_stack_test.o)
	fi
	if ! kms_make "$KMS_TREE" "$KMS_OUT" "$KMS_KARCH" W=1 "${objs[@]}" >> "$log" 2>&1; then
		nok "$a: W=1 build of ${objs[*]}" "see $log"; results+=("FAIL $a: W=1 build of ${objs[*]} failed ($log)")
		grep -E 'error' "$log" | head -n 8; continue
	fi
	dt=$(( $(now) - t0 ))
	for sym in HIGHMEM DEBUG_KMAP_STACK; do
		grep -q "^CONFIG_$sym=y" "$KMS_OUT/.config" || {
			nok "$a: CONFIG_$sym" "not set"; results+=("FAIL $a: CONFIG_$sym not set"); continue 2; }
	done
	feats=$(grep -oE '^CONFIG_(DEBUG_KMAP_STACK_TRACES|KMAP_STACK_KUNIT_TEST|SMP|PREEMPT)=y' "$KMS_OUT/.config" |
		sed -E 's/^CONFIG_//; s/=y//' | paste -sd' ')
	allw=$(grep -cE 'warning:' "$log" || true)
	w=$(grep -E 'warning:' "$log" | grep -E "(^|/)($series_re):" || true)
	if [ -n "$w" ]; then
		nok "$a: no warning in the series' files" "warnings:"; echo "$w" | head -n 20
		results+=("FAIL $a: warnings in the series' files")
	else
		ok "$a: built"
		results+=("PASS $a: ${dt}s, ${objs_only[$a]:+objects only, }HIGHMEM DEBUG_KMAP_STACK $feats; W=1 on ${objs[*]}; 0 warnings in the series' files ($allw elsewhere)")
	fi
	[ "$allw" = 0 ] || { echo "$a: warnings outside the series:"; grep -E 'warning:' "$log" | sort -u | head -n 10; }
done
echo "---- build-cross ----"
printf '%s\n' "${results[@]}"
summary
