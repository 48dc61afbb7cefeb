#!/bin/bash
# bisect-build.sh ARCH [ARCH...]        (ARCH: x86_64 | i386)
#
# Build the kernel at every patch of kernel-patch/series in turn (base +
# patch 1, base + patches 1-2, ...) and fail naming the first patch that
# does not apply or does not build.  Uses its own tree and build directories
# (build/bisect/linux, build/bisect/out-ARCH), so build/linux is left alone;
# builds are incremental and use ccache, so each step only recompiles what
# the patch touched.  Config fragments as in build-kernel.sh (symbols the
# series has not defined yet at a given patch are tolerated).
# Build logs: build/bisect/build-ARCH-NN.log
set -euo pipefail
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ $# -ge 1 ] || die "usage: $KMS_PROG ARCH [ARCH...]   (x86_64 or i386)"
for a in "$@"; do check_arch "$a"; done

load_series
patches=("${KMS_PATCHES[@]}")
if [ ${#patches[@]} = 0 ]; then
	info "kernel-patch/series has no patch: nothing to bisect-build"
	exit 0
fi
bdir=$KMS_BUILD/bisect
tree=$bdir/linux
mkdir -p "$bdir"
for arch in "$@"; do
	check_arch "$arch"
	"$KMS_SCRIPTS/kernel-tree.sh" --base-only "$tree"
	i=0
	for p in "${patches[@]}"; do
		i=$((i + 1))
		apply_patch "$tree" "$p" "$i"
		log=$(printf '%s/build-%s-%02d.log' "$bdir" "$arch" "$i")
		t0=$(now)
		if ! KMAPSTACK_TREE=$tree KMAPSTACK_OUT=$bdir/out-$arch \
			"$KMS_SCRIPTS/build-kernel.sh" "$arch" > "$log" 2>&1; then
			grep -E 'error|Error|warning:|wanted' "$log" | head -n 30 >&2 || true
			tail -n 15 "$log" >&2
			die "$arch: the build breaks at patch #$i kernel-patch/$p (log: $log)"
		fi
		printf 'ok     %s %2d/%d %s (%ss)\n' "$arch" "$i" "${#patches[@]}" "$p" "$(( $(now) - t0 ))"
	done
done
info "every patch of the series builds on: $*"
