#!/bin/bash
# build-kernel.sh ARCH    (ARCH: x86_64 | i386 | arm64 | arm | mips | powerpc | sparc | arc)
#
# Out-of-tree build of the kernel tree (default build/linux) into
# build/out-ARCH with the config of ARCH, the one that make, the scripts and
# CI all use (scripts/lib.sh, arch_fragments):
#   make allnoconfig
#   merge_config.sh -m  scripts/configs/common.config
#                       + the tree's mm/kmap_stack/.kunitconfig, if the series has one
#                       + scripts/configs/ARCH.config and the test fragments
#                         (x86_64: smp modules traces guest suites; i386: smp
#                         modules traces suites; arm64: modules traces)
#                       + $KMAPSTACK_FRAGMENTS (space separated)
#   make olddefconfig
# then verifies that every CONFIG_X=... and '# CONFIG_X is not set' line of
# the fragments really is in .config (a silent Kconfig drop fails the build),
# and builds with ccache, -j$(nproc).  arm64 and the 32-bit HIGHMEM cross
# architectures (docs/architectures.md; scripts/configs/cross/, build into
# build/cross/out-ARCH) use Debian's cross compilers.
# Before building, the tree is checked against kernel-patch/: missing, it
# is made (kernel-tree.sh); made from another kernel-patch/, it is re-made,
# or the build is refused if the tree has commits of its own (scripts/lib.sh,
# ensure_tree).
#
# Environment:
#   KMAPSTACK_TREE        kernel tree            (default build/linux)
#   KMAPSTACK_OUT         build directory        (default build/out-ARCH,
#                                                 build/cross/out-ARCH)
#   KMAPSTACK_FRAGMENTS   extra config fragments (paths, space separated)
#   KMAPSTACK_LEAN=1      common.config + ARCH.config only (bisect-build.sh)
#   KMAPSTACK_ALLOW_MISSING  symbols allowed to be missing from .config *only
#                         if no Kconfig of the tree defines them* (default
#                         none; bisect-build.sh sets the series' symbols for
#                         the patches before the one that adds them).
#                         A symbol that exists but got dropped always fails.
#   KMAPSTACK_JOBS        make -j (default: nproc)
#   KMAPSTACK_MAKE_ARGS   extra make arguments (e.g. "W=1")
#   KMAPSTACK_CONFIG_ONLY=1  stop after configuring and verifying
#   CCACHE_DIR            as usual for ccache
set -euo pipefail
. "$(dirname "$0")/lib.sh"

case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
[ $# = 1 ] || die "usage: $KMS_PROG ARCH   ($KMS_TEST_ARCHES $KMS_CROSS_ARCHES)"
check_any_arch "$1"
out=${KMAPSTACK_OUT:-$KMS_OUT}
jobs=${KMAPSTACK_JOBS:-$(nproc)}
allow_missing=${KMAPSTACK_ALLOW_MISSING:-}
read -r -a make_args <<< "${KMAPSTACK_MAKE_ARGS:-}"

command -v ccache >/dev/null || die "ccache not found (scripts/install-deps.sh)"
command -v gcc >/dev/null || die "gcc not found (scripts/install-deps.sh)"
need_cross_tools
if [ "$KMS_ARCH" = i386 ] && ! echo 'int x;' | gcc -m32 -c -x c - -o /dev/null 2>/dev/null; then
	die "gcc -m32 does not work (gcc's 32-bit x86 target; a kernel needs no 32-bit libc)"
fi

ensure_tree
[ -f "$KMS_TREE/Makefile" ] && [ -x "$KMS_TREE/scripts/kconfig/merge_config.sh" ] ||
	die "$KMS_TREE does not look like a kernel tree"
if [ -f "$KMS_TREE/.config" ] || [ -d "$KMS_TREE/include/config" ]; then
	die "$KMS_TREE has an in-tree build (.config); O= builds need a clean source tree: run 'make -C $KMS_TREE mrproper'"
fi

# The series' KUnit config, as kunit.py --kunitconfig would use it, right
# after common.config: the harness's own fragments come later and win.
frags=("${KMS_FRAGS[0]}")
kunitconfig=$KMS_TREE/mm/kmap_stack/.kunitconfig
[ ! -f "$kunitconfig" ] || frags+=("$kunitconfig")
frags+=("${KMS_FRAGS[@]:1}")
read -r -a extra <<< "${KMAPSTACK_FRAGMENTS:-}"
for f in "${extra[@]}"; do
	[ -f "$f" ] || die "config fragment '$f' (KMAPSTACK_FRAGMENTS) not found"
	frags+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")")
done
for f in "${frags[@]}"; do [ -f "$f" ] || die "config fragment $f not found"; done

mkdir -p "$out"
out=$(cd "$out" && pwd)
t0=$(now)
info "configuring $KMS_ARCH in $out (allnoconfig + ${frags[*]##*/})"
kms_make "$KMS_TREE" "$out" "$KMS_KARCH" -s allnoconfig
# merge_config.sh -m writes $out/.config from the base + fragments.
(cd "$out" && "$KMS_TREE/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}") \
	> "$out/merge_config.log" 2>&1 || { cat "$out/merge_config.log" >&2; die "merge_config.sh failed"; }
kms_make "$KMS_TREE" "$out" "$KMS_KARCH" -s olddefconfig

# --- verify: every fragment line must be in the final .config ---
sym_defined() {
	if [ -d "$KMS_TREE/.git" ]; then
		git -C "$KMS_TREE" grep -qE "^[[:space:]]*(menu)?config[[:space:]]+$1\$" -- '*Kconfig*'
	else
		grep -rqE --include='Kconfig*' "^[[:space:]]*(menu)?config[[:space:]]+$1\$" "$KMS_TREE"
	fi
}
# As merge_config.sh, a later fragment overrides an earlier one: the last
# line of each symbol is the one that must hold.
declare -A wanted=()
order=()
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) sym=${line%%=*} ;;
	"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
	*) continue ;;
	esac
	[ -n "${wanted[$sym]+x}" ] || order+=("$sym")
	wanted[$sym]=$line
done < <(cat "${frags[@]}")
bad=0 tolerated=0
for sym in "${order[@]}"; do
	want=${wanted[$sym]}
	if [[ $want == *"is not set" ]]; then
		# absent or "is not set" both mean n
		grep -qE "^$sym=" "$out/.config" || continue
		got=$(grep -E "^$sym=" "$out/.config")
	else
		grep -qxF -- "$want" "$out/.config" && continue
		got=$(grep -E "^(# )?${sym}[= ]" "$out/.config" || echo "(absent)")
	fi
	s=${sym#CONFIG_}
	if [[ " $allow_missing " == *" $s "* ]] && ! sym_defined "$s"; then
		warn "wanted '$want' but $sym is not defined in this tree (series not applied?): tolerated"
		tolerated=$((tolerated + 1))
	else
		printf '%s: config: wanted %-40s got %s\n' "$KMS_PROG" "'$want'" "$got" >&2
		bad=$((bad + 1))
	fi
done
[ "$bad" = 0 ] || die "$bad fragment option(s) did not make it into $out/.config (unmet dependencies? see 'make O=$out ARCH=$KMS_KARCH menuconfig')"
t1=$(now)
info "config OK ($tolerated tolerated) in $((t1 - t0))s"
[ "${KMAPSTACK_CONFIG_ONLY:-0}" = 0 ] || exit 0

info "building $KMS_ARCH: make -j$jobs CC='ccache ${KMS_CROSS}gcc' $KMS_TARGET"
kms_make "$KMS_TREE" "$out" "$KMS_KARCH" -j"$jobs" "${make_args[@]}" "$KMS_TARGET" ||
	die "build of $KMS_ARCH failed (tree $KMS_TREE, O=$out)"
t2=$(now)
img=$out/$KMS_IMAGE
[ -f "$img" ] || die "build finished but $img is missing"
info "built $img in $((t2 - t1))s (total $((t2 - t0))s)"
