#!/bin/bash
# world/build.sh FLAVOUR [OUT]    (FLAVOUR: amd64 | rt | 686-pae)
#
# world/mkconfig.sh FLAVOUR OUT, then 'make bzImage modules' of the kernel
# tree (KMAPSTACK_TREE, default build/world/linux; made or re-made from
# kernel-patch/ as every build does, lib.sh ensure_tree) into OUT (default
# build/world/out-FLAVOUR), with ccache, at nice 19.  Writes OUT/build-time.txt (seconds).
# KMAPSTACK_WORLD_NO_OPTION=1: the same config without DEBUG_KMAP_STACK
# (the reference for the KUnit and crypto totals), default OUT
# build/world/out-FLAVOUR-nokms.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
flavour=${1:?usage: build.sh amd64|rt|686-pae [OUT]}
sfx=; [ "${KMAPSTACK_WORLD_NO_OPTION:-0}" = 1 ] && sfx=-nokms
out=${2:-$KMS_BUILD/world/out-$flavour$sfx}
tree=${KMAPSTACK_TREE:-$KMS_BUILD/world/linux}
export KMAPSTACK_TREE=$tree
case "$flavour" in 686-pae) karch=i386 ;; *) karch=x86_64 ;; esac
KMS_TREE=$tree ensure_tree
t0=$(now)
"$KMS_SCRIPTS/world/mkconfig.sh" "$flavour" "$out"
if [ -n "$sfx" ]; then
	"$tree/scripts/config" --file "$out/.config" -d DEBUG_KMAP_STACK -d DEBUG_KMAP_STACK_TRACES
	make -s -C "$tree" O="$out" ARCH="$karch" olddefconfig
	! grep -q '^CONFIG_DEBUG_KMAP_STACK=y' "$out/.config" || die "DEBUG_KMAP_STACK still on in $out"
fi
info "building $flavour$sfx in $out (make -j$(nproc) bzImage modules, nice 19)"
CCACHE_BASEDIR=${CCACHE_BASEDIR:-$KMS_BUILD} nice -n 19 \
	make -s -C "$tree" O="$out" ARCH="$karch" CC="ccache gcc" HOSTCC="ccache gcc" \
	-j"${KMAPSTACK_JOBS:-$(nproc)}" bzImage modules > "$out/build.log" 2>&1 ||
	{ tail -n 40 "$out/build.log" >&2; die "build of $flavour$sfx failed (log $out/build.log)"; }
echo $(( $(now) - t0 )) > "$out/build-time.txt"
info "built $flavour$sfx in $(cat "$out/build-time.txt")s: $out/arch/x86/boot/bzImage"
