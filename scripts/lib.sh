# shellcheck shell=bash
# Common helpers for the kmapstack build-and-boot harness.  Sourced by the
# scripts in this directory; not meant to be run directly.
#
# Environment (all optional):
#   KMAPSTACK_BUILD    build/cache directory        (default: <repo>/build)
#   KMAPSTACK_TARBALL  kernel source tarball        (default: /usr/src/linux-source-6.12.tar.xz)
#   KMAPSTACK_TREE     kernel tree to build/boot    (default: $KMAPSTACK_BUILD/linux)

KMS_PROG=$(basename "$0")
KMS_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KMS_REPO=$(cd "$KMS_SCRIPTS/.." && pwd)
KMS_BUILD=${KMAPSTACK_BUILD:-$KMS_REPO/build}
KMS_TARBALL=${KMAPSTACK_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
KMS_PRISTINE=$KMS_BUILD/pristine
KMS_PATCHDIR=$KMS_REPO/kernel-patch
KMS_SERIES=$KMS_PATCHDIR/series
KMS_COVER=0000-cover-letter.patch
KMS_TREE=${KMAPSTACK_TREE:-$KMS_BUILD/linux}
# Fixed identity and dates so the base commit id is the same on every machine.
KMS_GIT_ID=(-c user.name="kmapstack harness" -c user.email="kmapstack@invalid")

die()  { printf '%s: error: %s\n' "$KMS_PROG" "$*" >&2; exit 1; }
warn() { printf '%s: warning: %s\n' "$KMS_PROG" "$*" >&2; }
info() { printf '%s: %s\n' "$KMS_PROG" "$*" >&2; }

# check_arch ARCH: validate and set KMS_ARCH / KMS_KARCH (kernel ARCH=).
check_arch() {
	case "${1:-}" in
	x86_64) KMS_ARCH=x86_64; KMS_KARCH=x86_64 ;;
	i386)   KMS_ARCH=i386;   KMS_KARCH=i386 ;;
	"")     die "missing ARCH (x86_64 or i386)" ;;
	*)      die "unsupported ARCH '$1' (x86_64 or i386)" ;;
	esac
}

# load_series: set the array KMS_PATCHES to the patch file names of
# kernel-patch/series in order (comments and blank lines dropped, cover
# letter skipped); dies if a listed file is missing.  (Runs in the calling
# shell, not in a pipe/process substitution, so that 'die' really exits.)
load_series() {
	KMS_PATCHES=()
	[ -f "$KMS_SERIES" ] || return 0
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%#*}
		line=${line//[[:space:]]/}
		[ -n "$line" ] || continue
		[ "$line" = "$KMS_COVER" ] && continue
		[ -f "$KMS_PATCHDIR/$line" ] ||
			die "kernel-patch/series lists '$line' but kernel-patch/$line does not exist"
		KMS_PATCHES+=("$line")
	done < "$KMS_SERIES"
}

# tarball_stamp: identifies the tarball the pristine repo was made from.
tarball_stamp() {
	[ -f "$KMS_TARBALL" ] || die "kernel tarball $KMS_TARBALL not found (apt-get install linux-source-6.12, or set KMAPSTACK_TARBALL)"
	stat -L -c '%n %s %Y' "$KMS_TARBALL"
}

# ensure_pristine: build/pristine = git repo of the unmodified tarball, tag 'base'.
ensure_pristine() {
	local stamp want
	want=$(tarball_stamp)
	stamp=$(cat "$KMS_PRISTINE/.git/kmapstack-tarball" 2>/dev/null || true)
	if [ "$stamp" = "$want" ] && git -C "$KMS_PRISTINE" rev-parse -q --verify 'base^{commit}' >/dev/null; then
		return 0
	fi
	info "creating pristine repo $KMS_PRISTINE from $KMS_TARBALL (once; ~1 min)"
	mkdir -p "$KMS_BUILD"
	local tmp
	tmp=$(mktemp -d "$KMS_BUILD/pristine.tmp.XXXXXX")
	tar -xf "$KMS_TARBALL" -C "$tmp" || die "extracting $KMS_TARBALL failed"
	local top
	top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d)
	[ "$(printf '%s\n' "$top" | wc -l)" = 1 ] && [ -f "$top/Makefile" ] ||
		die "unexpected tarball layout in $KMS_TARBALL"
	(
		cd "$top"
		git init -q
		git config core.autocrlf false
		# -f: Debian's top-level .gitignore ignores everything ('/*').
		git add -f -A
		GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
			git "${KMS_GIT_ID[@]}" commit -q --no-verify -m "base: $(basename "$KMS_TARBALL")"
		git tag base
		git gc -q --auto
	) || die "creating the pristine git repo failed"
	printf '%s\n' "$want" > "$top/.git/kmapstack-tarball"
	rm -rf "$KMS_PRISTINE"
	mv "$top" "$KMS_PRISTINE"
	rm -rf "$tmp"
}

# is_kms_tree DIR: DIR was made by kernel-tree.sh.
is_kms_tree() {
	[ -f "$1/.git/kmapstack-tree" ]
}

# git_in_tree DIR ARGS...: git with a committer identity (needed by git am).
git_in_tree() {
	local dir=$1; shift
	if git -C "$dir" config user.email >/dev/null 2>&1; then
		git -C "$dir" "$@"
	else
		git -C "$dir" "${KMS_GIT_ID[@]}" "$@"
	fi
}

# apply_patch DIR PATCHFILE INDEX: git am one patch, loudly.
apply_patch() {
	local dir=$1 name=$2 idx=$3 out
	if ! out=$(git_in_tree "$dir" am --no-3way --quiet "$KMS_PATCHDIR/$name" 2>&1); then
		printf '%s\n' "$out" >&2
		git -C "$dir" am --abort >/dev/null 2>&1 || true
		die "patch #$idx kernel-patch/$name does not apply (git am --no-3way)"
	fi
	[ -z "$out" ] || printf '%s\n' "$out" >&2
	info "applied #$idx $name"
}

# kms_make DIR OUT ARCH ARGS...: make for an out-of-tree build with ccache.
# CCACHE_BASEDIR makes paths relative, so trees in different directories
# (build/linux, build/bisect/linux) share cache entries.
kms_make() {
	local dir=$1 out=$2 karch=$3; shift 3
	CCACHE_BASEDIR=${CCACHE_BASEDIR:-$KMS_BUILD} \
	make -C "$dir" O="$out" ARCH="$karch" CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}

# time helpers
now() { date +%s; }
