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

# check_arch ARCH: validate and set KMS_ARCH / KMS_KARCH (kernel ARCH=),
# for the scripts that only know the two x86 guests.
check_arch() {
	KMS_CROSS= KMS_CROSS_ARCH=0
	case "${1:-}" in
	x86_64) KMS_ARCH=x86_64; KMS_KARCH=x86_64 ;;
	i386)   KMS_ARCH=i386;   KMS_KARCH=i386 ;;
	"")     die "missing ARCH (x86_64 or i386)" ;;
	*)      die "unsupported ARCH '$1' (x86_64 or i386)" ;;
	esac
	KMS_OUT=$KMS_BUILD/out-$KMS_ARCH
	KMS_IMAGE=arch/x86/boot/bzImage KMS_TARGET=all
	KMS_FRAGS=("$KMS_SCRIPTS/configs/common.config" "$KMS_SCRIPTS/configs/$KMS_ARCH.config")
	KMS_QEMU=qemu-system-x86_64 KMS_QEMU_PKG=qemu-system-x86
}

# The HIGHMEM architectures built with a Debian cross compiler
# (scripts/cross-check.sh; docs/architectures.md).  Bootable under QEMU:
KMS_CROSS_ARCHES="arm mips powerpc sparc arc"
KMS_BOOT_ARCHES="arm mips powerpc"

# check_any_arch ARCH: check_arch, or one of $KMS_CROSS_ARCHES.  Also sets
#   KMS_CROSS (CROSS_COMPILE prefix, empty for x86), KMS_CROSS_PKG (its
#   Debian package), KMS_OUT (build dir), KMS_IMAGE (boot image, relative to
#   KMS_OUT), KMS_TARGET (make target), KMS_FRAGS (config fragments),
#   KMS_QEMU/KMS_QEMU_PKG (emulator, empty if not bootable), and for the
#   boot: KMS_QEMU_MACHINE (array), KMS_CONSOLE, KMS_MEM, KMS_SMP.
check_any_arch() {
	case "${1:-}" in
	x86_64|i386|"") check_arch "${1:-}"; return ;;
	esac
	KMS_ARCH=$1 KMS_KARCH=$1 KMS_CROSS_ARCH=1 KMS_TARGET=vmlinux KMS_IMAGE=vmlinux
	KMS_QEMU= KMS_QEMU_PKG= KMS_CONSOLE= KMS_MEM= KMS_SMP=1 KMS_QEMU_MACHINE=()
	case "$1" in
	arm)	KMS_CROSS=arm-linux-gnueabihf- KMS_CROSS_PKG=gcc-arm-linux-gnueabihf
		KMS_TARGET=zImage KMS_IMAGE=arch/arm/boot/zImage
		KMS_QEMU=qemu-system-arm KMS_QEMU_PKG=qemu-system-arm
		# highmem=off: RAM below 4 GiB only (no LPAE); 2G > 760M lowmem
		KMS_QEMU_MACHINE=(-machine virt,highmem=off -cpu cortex-a15)
		KMS_CONSOLE=ttyAMA0 KMS_MEM=2G KMS_SMP=2 ;;
	mips)	KMS_CROSS=mips-linux-gnu- KMS_CROSS_PKG=gcc-mips-linux-gnu
		KMS_QEMU=qemu-system-mips KMS_QEMU_PKG=qemu-system-mips
		# Malta: lowmem is the first 256M, the rest is HighMem
		KMS_QEMU_MACHINE=(-machine malta -cpu 24Kf)
		KMS_CONSOLE=ttyS0 KMS_MEM=1G ;;
	powerpc) KMS_CROSS=powerpc-linux-gnu- KMS_CROSS_PKG=gcc-powerpc-linux-gnu
		KMS_QEMU=qemu-system-ppc KMS_QEMU_PKG=qemu-system-ppc
		# lowmem is 768M (CONFIG_LOWMEM_SIZE), the rest is HighMem
		KMS_QEMU_MACHINE=(-machine mac99 -cpu g4)
		KMS_CONSOLE=ttyPZ0 KMS_MEM=1536M ;;
	sparc)	KMS_CROSS=sparc64-linux-gnu- KMS_CROSS_PKG=gcc-sparc64-linux-gnu ;;
	arc)	KMS_CROSS=arc-linux-gnu- KMS_CROSS_PKG=gcc-arc-linux-gnu ;;
	*)	die "unsupported ARCH '$1' (x86_64, i386, $KMS_CROSS_ARCHES)" ;;
	esac
	KMS_OUT=$KMS_BUILD/cross/out-$KMS_ARCH
	KMS_FRAGS=("$KMS_SCRIPTS/configs/cross/common.config" "$KMS_SCRIPTS/configs/cross/$KMS_ARCH.config")
}

# need_cross_tools [qemu]: install the cross compiler (and with 'qemu' the
# emulator) of $KMS_ARCH with apt-get if missing.  Not in scripts/deps/: only
# the cross targets need them, and make check should not download them.
need_cross_tools() {
	[ "$KMS_CROSS_ARCH" = 1 ] || return 0
	local pkgs=()
	command -v "${KMS_CROSS}gcc" >/dev/null || pkgs+=("$KMS_CROSS_PKG")
	if [ -n "$KMS_QEMU" ] && [ "${1:-}" = qemu ]; then
		command -v "$KMS_QEMU" >/dev/null || pkgs+=("$KMS_QEMU_PKG")
	fi
	[ ${#pkgs[@]} = 0 ] && return 0
	[ "$(id -u)" = 0 ] || die "${pkgs[*]} missing (scripts/install-deps.sh as root)"
	info "installing ${pkgs[*]} (apt-get)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >&2 ||
		{ apt-get update -qq >&2 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >&2; } ||
		die "apt-get install ${pkgs[*]} failed"
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
		# No gc, set before the first commit: that commit's 'git gc
		# --auto' would repack in the background (the ~80k loose objects
		# are over its limit) while kernel-tree.sh clones, and the clone
		# fails on objects that vanish under it ("failed to copy file").
		git config gc.auto 0
		git config maintenance.auto false
		# -f: Debian's top-level .gitignore ignores everything ('/*').
		git add -f -A
		GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
			git "${KMS_GIT_ID[@]}" commit -q --no-verify -m "base: $(basename "$KMS_TARBALL")"
		git tag base
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
# (build/linux, build/bisect/linux) share cache entries.  With KMS_CROSS set
# (check_any_arch), cross-compiles with CROSS_COMPILE.
kms_make() {
	local dir=$1 out=$2 karch=$3; shift 3
	local cross=()
	[ -z "${KMS_CROSS:-}" ] || cross=(CROSS_COMPILE="$KMS_CROSS")
	CCACHE_BASEDIR=${CCACHE_BASEDIR:-$KMS_BUILD} \
	make -C "$dir" O="$out" ARCH="$karch" "${cross[@]}" CC="ccache ${KMS_CROSS:-}gcc" HOSTCC="ccache gcc" "$@"
}

# time helpers
now() { date +%s; }
