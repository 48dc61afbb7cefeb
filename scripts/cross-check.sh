#!/bin/bash
# cross-check.sh [ARCH...]   ('make cross-check'; default: arm mips powerpc sparc arc)
#
# Build the series (build/linux) for every HIGHMEM architecture Debian has a
# cross compiler for, with scripts/configs/cross/common.config + ARCH.config
# (HIGHMEM, DEBUG_KMAP_LOCAL, DEBUG_KMAP_STACK with stack traces, the KUnit
# suite), and W=1 for the kmap_stack objects. Fails on a build error, or on
# any warning in a file of the series (kmap_stack*, highmem*). Ends with
# "N passed, N failed". Not in 'make check' (each build takes ~10 min here).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arches=${*:-arm mips powerpc sparc arc}
declare -A cc=([arm]=arm-linux-gnueabihf- [mips]=mips-linux-gnu- [powerpc]=powerpc-linux-gnu-
	[sparc]=sparc64-linux-gnu- [arc]=arc-linux-gnu-)
declare -A pkg=([arm]=gcc-arm-linux-gnueabihf [mips]=gcc-mips-linux-gnu [powerpc]=gcc-powerpc-linux-gnu
	[sparc]=gcc-sparc64-linux-gnu [arc]=gcc-arc-linux-gnu)
[ -d "$KMS_TREE/.git" ] || "$KMS_SCRIPTS/kernel-tree.sh"
pass=0 fail=0
for a in $arches; do
	[ -n "${cc[$a]:-}" ] || die "no cross compiler known for '$a'"
	command -v "${cc[$a]}gcc" >/dev/null ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${pkg[$a]}" >/dev/null
	out=$KMS_BUILD/cross/out-$a log=$KMS_BUILD/cross/$a.log
	mkdir -p "$out"
	mk=(make -C "$KMS_TREE" O="$out" ARCH="$a" CROSS_COMPILE="${cc[$a]}")
	info "$a: configuring and building (log $log)"
	if ! { "${mk[@]}" allnoconfig &&
	       (cd "$KMS_TREE" && scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" \
			"$KMS_SCRIPTS/configs/cross/common.config" "$KMS_SCRIPTS/configs/cross/$a.config") &&
	       "${mk[@]}" olddefconfig &&
	       "${mk[@]}" CC="ccache ${cc[$a]}gcc" -j"$(nproc)" vmlinux &&
	       "${mk[@]}" CC="ccache ${cc[$a]}gcc" W=1 mm/kmap_stack.o mm/kmap_stack_test.o mm/highmem.o; } > "$log" 2>&1; then
		fail=$((fail + 1)); echo "FAIL $a: build failed:"; grep -E 'error' "$log" | head -5; continue
	fi
	for sym in HIGHMEM DEBUG_KMAP_STACK KMAP_STACK_KUNIT_TEST; do
		grep -q "^CONFIG_$sym=y" "$out/.config" || { echo "FAIL $a: CONFIG_$sym not set"; fail=$((fail + 1)); continue 2; }
	done
	w=$(grep -E 'warning:' "$log" | grep -E 'kmap_stack|highmem' || true)
	if [ -n "$w" ]; then
		fail=$((fail + 1)); echo "FAIL $a: warnings in the series' files:"; echo "$w" | head
	else
		pass=$((pass + 1)); echo "PASS $a: builds with HIGHMEM and DEBUG_KMAP_STACK, no warning (W=1 on kmap_stack)"
	fi
done
echo "cross-check: $pass passed, $fail failed"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
