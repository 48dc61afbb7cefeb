#!/bin/bash
# kernel-tree.sh [--fresh] [--base-only] [DIR]
#
# (Re)create the kmapstack kernel tree in DIR (default: build/linux):
# the pristine linux-source-6.12 tree committed as tag 'base', then every
# patch of kernel-patch/series applied with 'git am' (no 3-way), in order.
#
# A pristine git repo is cached in build/pristine (made once from the
# tarball).  DIR is made by a local clone of it; on re-runs an existing
# kmapstack tree is reset to 'base' in place (git checkout -f + git clean),
# which only rewrites the files that changed -- the fastest way, and it keeps
# mtimes of untouched files so incremental O= builds stay incremental.
#   --fresh      delete DIR and clone again instead of resetting in place
#   --base-only  stop after 'base' (apply no patch)
# Any local commits or changes in DIR are discarded (export them first with
# scripts/export-patches.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

fresh=0 base_only=0 dir=
while [ $# -gt 0 ]; do
	case "$1" in
	--fresh) fresh=1 ;;
	--base-only) base_only=1 ;;
	-h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option '$1'" ;;
	*) [ -z "$dir" ] || die "only one DIR allowed"; dir=$1 ;;
	esac
	shift
done
dir=${dir:-$KMS_TREE}
start=$(now)

load_series
patches=("${KMS_PATCHES[@]}")

ensure_pristine
base=$(git -C "$KMS_PRISTINE" rev-parse 'base^{commit}')

reset_ok=0
if [ -e "$dir" ]; then
	if ! is_kms_tree "$dir"; then
		die "$dir exists and was not made by kernel-tree.sh; remove it yourself or pick another DIR"
	fi
	if [ "$fresh" = 0 ] && [ "$(git -C "$dir" rev-parse -q --verify 'base^{commit}' 2>/dev/null)" = "$base" ]; then
		reset_ok=1
	fi
fi

if [ "$reset_ok" = 1 ]; then
	info "resetting $dir to base"
	git -C "$dir" am --abort >/dev/null 2>&1 || true
	git -C "$dir" rebase --abort >/dev/null 2>&1 || true
	git -C "$dir" checkout -q -f --detach base
	git -C "$dir" clean -q -ffdx
	git -C "$dir" checkout -q -B kmapstack base
else
	if [ -e "$dir" ]; then
		info "removing old tree $dir"
		rm -rf "$dir"
	fi
	info "cloning $KMS_PRISTINE -> $dir"
	mkdir -p "$(dirname "$dir")"
	git clone -q --no-checkout "$KMS_PRISTINE" "$dir"
	git -C "$dir" checkout -q -B kmapstack base
	git -C "$dir" config core.autocrlf false
	git -C "$dir" config gc.auto 0
	: > "$dir/.git/kmapstack-tree"
fi

if [ "$base_only" = 0 ]; then
	i=0
	for p in "${patches[@]}"; do
		i=$((i + 1))
		apply_patch "$dir" "$p" "$i"
	done
	info "$dir: base + ${#patches[@]} patch(es) in $(( $(now) - start ))s"
else
	info "$dir: base only in $(( $(now) - start ))s"
fi
