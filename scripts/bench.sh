#!/bin/bash
# bench.sh: the in-kernel benchmark of a kmap map+unmap pair ('make bench').
#
# For each ARCH in $BENCH_ARCHES (default "x86_64 i386") and each kernel
# variant in $BENCH_VARIANTS (default: plain lockdep kmap_local kmap_stack
# kmap_stack_traces; kmap_local is skipped on x86_64, which has no HIGHMEM),
# build the kernel tree (build/linux) with scripts/configs/bench/base.config +
# VARIANT.config into build/bench/out-ARCH-VARIANT, boot it once under QEMU
# and run tests/modules/kmapbench with the trace events off and on. Each
# figure is the median of 7 runs, in ns per pair. Results: build/bench/
# results.txt and the tables in docs/performance.md (between the markers).
# QEMU runs TCG here, so the figures are emulated time: compare the rows,
# not the absolute numbers.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arches=${BENCH_ARCHES:-x86_64 i386}
variants=${BENCH_VARIANTS:-plain lockdep kmap_local kmap_stack kmap_stack_traces}
dir=$KMS_BUILD/bench
mkdir -p "$dir"
[ -d "$KMS_TREE/.git" ] || "$KMS_SCRIPTS/kernel-tree.sh"
results=$dir/results.txt
: > "$results"
for arch in $arches; do
	check_arch "$arch"
	for v in $variants; do
		[ "$v" = kmap_local ] && [ "$arch" = x86_64 ] && continue
		out=$dir/out-$arch-$v
		mkdir -p "$out"
		info "building $arch/$v"
		make -s -C "$KMS_TREE" O="$out" ARCH="$KMS_KARCH" allnoconfig >/dev/null
		frag=("$KMS_SCRIPTS/configs/bench/base.config" "$KMS_SCRIPTS/configs/bench/$v.config")
		[ "$arch" = i386 ] && frag+=("$KMS_SCRIPTS/configs/i386.config")
		[ "$arch" = x86_64 ] && frag+=("$KMS_SCRIPTS/configs/x86_64.config")
		# i386.config turns DEBUG_KMAP_LOCAL on: the plain variants turn it off
		case "$v" in plain|lockdep|kmap_stack|kmap_stack_traces)
			printf '# CONFIG_DEBUG_KMAP_LOCAL is not set\n' > "$dir/nolocal.config"
			frag+=("$dir/nolocal.config") ;;
		esac
		(cd "$KMS_TREE" && scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "${frag[@]}" >/dev/null)
		make -s -C "$KMS_TREE" O="$out" ARCH="$KMS_KARCH" olddefconfig >/dev/null
		make -s -C "$KMS_TREE" O="$out" ARCH="$KMS_KARCH" CC="ccache gcc" -j"$(nproc)" bzImage modules_prepare
		mod=$dir/kmapbench-$arch-$v
		rm -rf "$mod" && mkdir -p "$mod"
		cp "$KMS_REPO"/tests/modules/kmapbench/{kmapbench.c,Kbuild} "$mod/"
		make -s -C "$out" ARCH="$KMS_KARCH" M="$mod" modules
		initrd=$dir/initramfs-$arch-$v.cpio
		KMAPSTACK_RUN="$KMS_SCRIPTS/guest/bench.sh" \
			"$KMS_SCRIPTS/mkinitramfs.sh" "$initrd" "$arch" "$mod/kmapbench.ko:/lib/kmapbench.ko" >/dev/null
		log=$dir/boot-$arch-$v.log
		"$KMS_SCRIPTS/boot.sh" "$arch" -k "$out/arch/x86/boot/bzImage" -i "$initrd" -l "$log" -t 1800 \
			-a "loglevel=1" >/dev/null
		tr -d '\r' < "$log" | grep -E '^kmapbench: api=' | sed "s/^/arch=$arch variant=$v /" | tee -a "$results"
	done
done
info "results in $results"
/usr/bin/python3 "$KMS_SCRIPTS/bench-table.py" "$results" "$KMS_REPO/docs/performance.md"
