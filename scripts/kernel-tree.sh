#!/bin/bash
# kernel-tree.sh [--fresh] [--base-only] [DIR]
#
# (Re)create the kmapstack kernel tree in DIR (default: build/linux):
# the pristine linux-source-BASE tree (7.3, or 6.12 with BASE=6.12) committed as tag 'base', then every
# patch of kernel-patch/series applied with 'git am', in order.  Prints the
# base's version: any BASE.y is accepted; on one other than the tested
# version (scripts/lib.sh KMS_BASE_TESTED) a patch whose context moved is
# retried with one line of context, with a warning (docs/harness.md).
# Records a hash of kernel-patch/ in DIR/.git/kmapstack-series: when
# kernel-patch/ changes, build-kernel.sh re-makes the tree (or refuses if
# the tree has work of its own).
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
	-h|--help) kms_help; exit 0 ;;
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
base_version
info "base: Linux $KMS_BASE_VERSION${KMS_BASE_DEB:+ (Debian linux-source-$KMS_BASE_SERIES $KMS_BASE_DEB)} from $KMS_TARBALL"
[ "$KMS_BASE_VERSION" = "$KMS_BASE_TESTED" ] ||
	warn "the series is tested on Linux $KMS_BASE_TESTED; this base is $KMS_BASE_VERSION (accepted: the build, KUnit and module tests decide)"

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
# Until the series is applied, the stamp says 'incomplete' with the HEAD
# kernel-tree.sh left (also when a patch fails): build-kernel.sh re-makes
# such a tree instead of taking its commits for the developer's.
trap 'tree_stamp "$dir" incomplete' EXIT

if [ "$base_only" = 0 ]; then
	i=0
	for p in "${patches[@]}"; do
		i=$((i + 1))
		apply_patch "$dir" "$p" "$i"
	done
	trap - EXIT
	tree_stamp "$dir"
	info "$dir: Linux $KMS_BASE_VERSION + ${#patches[@]} patch(es) in $(( $(now) - start ))s"
else
	trap - EXIT
	tree_stamp "$dir" partial
	info "$dir: Linux $KMS_BASE_VERSION, base only, in $(( $(now) - start ))s"
fi
