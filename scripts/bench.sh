#!/bin/bash
# bench.sh: the in-kernel benchmark of a kmap map+unmap pair ('make bench-kernel').
#
# For each ARCH in $BENCH_ARCHES (default "x86_64 i386") and each kernel
# variant in $BENCH_VARIANTS (all of: plain lockdep kmap_local kmap_stack
# kmap_stack_traces kmap_stack_notrace; kmap_local is skipped on x86_64,
# which has no HIGHMEM).  Default, to keep the run near an hour here:
# x86_64 "plain lockdep kmap_stack kmap_stack_traces kmap_stack_notrace"
# (the 64-bit lowmem goal, the lockdep reference, the disabled tracepoint),
# i386 "plain kmap_local kmap_stack kmap_stack_traces" (the highmem goal).
# Build the kernel tree (build/linux) with
# scripts/configs/bench/base.config + VARIANT.config into
# build/bench/out-ARCH-VARIANT, boot it once per clock mode under QEMU (one
# CPU) and run tests/modules/kmapbench with the trace events off and on
# (scripts/guest/bench.sh). Each figure is the median of 7 runs, per pair.
#
# Clock modes ($BENCH_MODES, default "icount wall"):
#   icount  QEMU -icount shift=0: the guest clock advances 1 ns per guest
#           instruction, so a figure is the number of instructions the pair
#           executes -- exact and repeatable whatever else the host runs.
#   wall    plain TCG: emulated time, host-load dependent; a cross-check.
#
# Results: build/bench/results.txt (one line per figure; BENCH_KEEP=1 adds
# to it instead of starting afresh) and the tables in
# docs/performance.md (between the bench markers), by bench-table.py.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arches=${BENCH_ARCHES:-x86_64 i386}
# arch_variants ARCH: the variants built for ARCH
arch_variants() {
	if [ -n "${BENCH_VARIANTS:-}" ]; then echo "$BENCH_VARIANTS"; return; fi
	case "$1" in
	i386) echo "plain kmap_local kmap_stack kmap_stack_traces" ;;
	*) echo "plain lockdep kmap_stack kmap_stack_traces kmap_stack_notrace" ;;
	esac
}
modes=${BENCH_MODES:-icount wall}
dir=$KMS_BUILD/bench
mkdir -p "$dir"
[ -d "$KMS_TREE/.git" ] || "$KMS_SCRIPTS/kernel-tree.sh"
for m in $modes; do
	case "$m" in icount|wall) ;; *) die "bad mode '$m' in BENCH_MODES (icount, wall)" ;; esac
done

# build ARCH VARIANT: the kernel, its kmapbench.ko and initramfs
build() {
	local arch=$1 v=$2 out=$dir/out-$1-$2 mod=$dir/kmapbench-$1-$2 t0
	local frag=("$KMS_SCRIPTS/configs/bench/base.config")
	[ -f "$KMS_SCRIPTS/configs/bench/$v.config" ] || die "no variant '$v' (scripts/configs/bench/$v.config)"
	t0=$(now)
	mkdir -p "$out"
	make -s -C "$KMS_TREE" O="$out" ARCH="$KMS_KARCH" allnoconfig >/dev/null
	[ "$arch" = i386 ] && frag+=("$KMS_SCRIPTS/configs/i386.config")
	[ "$arch" = x86_64 ] && frag+=("$KMS_SCRIPTS/configs/x86_64.config")
	# i386.config turns DEBUG_KMAP_LOCAL on: all but kmap_local turn it off
	if [ "$v" != kmap_local ]; then
		printf '# CONFIG_DEBUG_KMAP_LOCAL is not set\n' > "$dir/nolocal.config"
		frag+=("$dir/nolocal.config")
	fi
	frag+=("$KMS_SCRIPTS/configs/bench/$v.config")
	(cd "$KMS_TREE" && scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "${frag[@]}" >/dev/null)
	make -s -C "$KMS_TREE" O="$out" ARCH="$KMS_KARCH" olddefconfig >/dev/null
	# what the variant says must be what was built
	local line
	while read -r line; do
		case "$line" in
		CONFIG_*=y) grep -qx "$line" "$out/.config" || die "$arch/$v: $line did not stick" ;;
		"# CONFIG_"*" is not set") ! grep -q "^${line#\# }" "$out/.config" ||
			die "$arch/$v: ${line#\# } is set" ;;
		esac
	done < "$KMS_SCRIPTS/configs/bench/$v.config"
	make -s -C "$KMS_TREE" O="$out" ARCH="$KMS_KARCH" CC="ccache gcc" -j"$(nproc)" bzImage modules
	# the text the variant's vmlinux has, for bench-table.py's text row
	echo "arch=$arch variant=$v text=$(size "$out/vmlinux" | awk 'NR == 2 { print $1 }')" >> "$results"
	rm -rf "$mod" && mkdir -p "$mod"
	cp "$KMS_REPO"/tests/modules/kmapbench/{kmapbench.c,Kbuild} "$mod/"
	make -s -C "$out" ARCH="$KMS_KARCH" CC="ccache gcc" M="$mod" modules
	KMAPSTACK_RUN="$KMS_SCRIPTS/guest/bench.sh" \
		"$KMS_SCRIPTS/mkinitramfs.sh" "$dir/initramfs-$arch-$v.cpio" "$arch" \
		"$mod/kmapbench.ko:/lib/kmapbench.ko" >/dev/null
	info "built $arch/$v in $(($(now) - t0))s"
}

# run ARCH VARIANT MODE: one boot; its figures are appended to results.txt
run() {
	local arch=$1 v=$2 mode=$3 log=$dir/boot-$1-$2-$3.log qemu=() t0 n
	[ "$mode" = icount ] && qemu=(-q -icount -q shift=0,sleep=off)
	t0=$(now)
	"$KMS_SCRIPTS/boot.sh" "$arch" -k "$dir/out-$arch-$v/arch/x86/boot/bzImage" \
		-i "$dir/initramfs-$arch-$v.cpio" -l "$log" -t 3600 --smp 1 --accel tcg \
		-a "loglevel=1" "${qemu[@]}" >/dev/null ||
		die "$arch/$v ($mode): boot failed, see $log"
	grep -q 'kmapbench: done' "$log" || die "$arch/$v ($mode): kmapbench did not finish, see $log"
	n=$(tr -d '\r' < "$log" | grep -E '^kmapbench: (api|part)=' |
		sed "s/^/arch=$arch variant=$v mode=$mode /" | tee -a "$results" | wc -l)
	info "ran $arch/$v ($mode): $n figures in $(($(now) - t0))s"
}

results=$dir/results.txt
# BENCH_KEEP=1: add to the figures of earlier runs (one variant at a time)
[ "${BENCH_KEEP:-0}" = 1 ] || : > "$results"
for arch in $arches; do
	check_arch "$arch"
	for v in $(arch_variants "$arch"); do
		[ "$v" = kmap_local ] && [ "$arch" = x86_64 ] && continue
		build "$arch" "$v"
		for m in $modes; do
			run "$arch" "$v" "$m"
		done
	done
done
info "results in $results ($(wc -l < "$results") figures)"
/usr/bin/python3 "$KMS_SCRIPTS/bench-table.py" "$results" "$KMS_REPO/docs/performance.md"
