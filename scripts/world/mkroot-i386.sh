#!/bin/bash
# world/mkroot-i386.sh [DIR]
#
# The i386 root of the check-world workload on the 686-pae kernel (DIR,
# default build/world/root-i386): the host's amd64 tools cannot run in an
# i386 guest, so scripts/guest-run.sh --arch i386 --root DIR shares this
# Debian bookworm i386 root instead of the host's.  Made once with
#   debootstrap --arch=i386 --variant=minbase --include=PACKAGES bookworm DIR MIRROR
# PACKAGES: what scripts/world/workload-guest.sh and check-world.sh's
# guest command run (trace-cmd, stress-ng, the mkfs tools, losetup, mount,
# swapon, insmod...) and linux-libc-dev (its /usr/include/linux is the
# workload's source tree).  Needs root and a host that runs i386 binaries
# (debootstrap's second stage runs in a chroot).
#
# Idempotent: DIR/.kmapstack-root records the suite, arch, variant and
# package list; a root whose record matches is kept as it is, any other is
# made again (into DIR.new, moved into place only when complete).  Writes
# DIR.packages (dpkg-query: the installed packages and versions) and
# DIR.seconds (the time debootstrap took).  Ends by checking that every tool
# the workload runs is in the root and is an i386 binary.
# Environment: KMAPSTACK_DEBIAN_MIRROR (default http://deb.debian.org/debian).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
root=${1:-$KMS_BUILD/world/root-i386}
mirror=${KMAPSTACK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bookworm
pkgs=(bash coreutils diffutils grep sed mawk procps kmod util-linux mount
	e2fsprogs btrfs-progs dosfstools squashfs-tools erofs-utils
	nilfs-tools ntfs-3g f2fs-tools gfs2-utils genromfs xorriso mdadm
	cryptsetup-bin iproute2 python3 stress-ng trace-cmd linux-libc-dev)
# the tools the workload runs, each must be in the root (usr-merged: /usr/bin, /usr/sbin)
tools=(bash env cat cp diff grep sed awk tail sync truncate dmesg insmod losetup mount umount
	swapon swapoff mkswap mkfs.ext4 mkfs.btrfs mkfs.vfat mksquashfs mkfs.erofs stress-ng trace-cmd
	mkfs.ext2 mkfs.nilfs2 mkfs.ntfs mkfs.f2fs mkfs.minix mkfs.gfs2 mkfs.cramfs genromfs xorriso
	mdadm cryptsetup integritysetup veritysetup ip unshare python3)
want=$(printf 'suite=%s\narch=i386\nvariant=minbase\npackages=%s\n' "$suite" "${pkgs[*]}")

[ "$(id -u)" = 0 ] || die "debootstrap needs root (run as root, or make $root elsewhere and copy it)"
mkdir -p "$(dirname "$root")"
root=$(cd "$(dirname "$root")" && pwd)/$(basename "$root")

# check_root DIR: every tool in DIR, and an i386 binary
check_root() {
	local d=$1 t f bad=0
	for t in "${tools[@]}"; do
		f=
		for p in usr/bin usr/sbin bin sbin; do
			[ -x "$d/$p/$t" ] && { f=$d/$p/$t; break; }
		done
		if [ -z "$f" ]; then warn "$t not found in $d"; bad=$((bad + 1)); fi
	done
	[ -d "$d/usr/include/linux" ] || { warn "$d/usr/include/linux missing (linux-libc-dev)"; bad=$((bad + 1)); }
	# (the binary itself, not a symlink's target path on the host)
	f=$(readlink -f "$d/usr/bin/trace-cmd" 2>/dev/null || true)
	case "$f" in "$d"/*) ;; *) f=$d/usr/bin/trace-cmd ;; esac
	if [ "$(readelf -h "$f" 2>/dev/null | grep -cE 'Class:.*ELF32|Machine:.*80386')" != 2 ]; then
		warn "$f is not an i386 binary"; bad=$((bad + 1))
	fi
	[ "$bad" = 0 ]
}

# /etc/mtab, which debootstrap's minbase leaves out: mkfs.nilfs2 refuses
# to run without it ("cannot open /etc/mtab")
ensure_mtab() { [ -e "$1/etc/mtab" ] || [ -L "$1/etc/mtab" ] || ln -s ../proc/self/mounts "$1/etc/mtab"; }

if [ -f "$root/.kmapstack-root" ] && [ "$(cat "$root/.kmapstack-root")" = "$want" ]; then
	ensure_mtab "$root"
	check_root "$root" || die "$root is incomplete (remove it to make it again)"
	info "$root is up to date ($(du -shx "$root" | cut -f1); made by debootstrap in $(cat "$root.seconds" 2>/dev/null || echo ?)s)"
	exit 0
fi
if ! command -v debootstrap > /dev/null; then
	info "installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap > /dev/null ||
		{ apt_update && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap > /dev/null; } ||
		die "apt-get install debootstrap failed"
fi
new=$root.new
if [ -e "$new" ]; then
	# a half-made root from an interrupted run: its kernel file systems first
	for m in $(awk -v d="$new" 'index($2, d "/") == 1 {print $2}' /proc/mounts | sort -r); do
		umount "$m" || die "cannot unmount $m (left by an interrupted debootstrap)"
	done
	rm -rf "$new"
fi
info "debootstrap --arch=i386 --variant=minbase $suite into $new ($mirror; ${#pkgs[@]} packages included; a few minutes)"
t0=$(now)
inc=$(IFS=,; echo "${pkgs[*]}")
if ! debootstrap --arch=i386 --variant=minbase --include="$inc" "$suite" "$new" "$mirror" > "$root.log" 2>&1; then
	tail -n 20 "$root.log" >&2
	[ ! -f "$new/debootstrap/debootstrap.log" ] || { echo "---- $new/debootstrap/debootstrap.log (last lines)" >&2; tail -n 20 "$new/debootstrap/debootstrap.log" >&2; }
	grep -q 'Exec format error' "$root.log" "$new/debootstrap/debootstrap.log" 2>/dev/null &&
		warn "this host cannot run i386 binaries (a kernel without IA32 emulation): make the root on another host"
	die "debootstrap --arch=i386 $suite $new $mirror failed (log $root.log)"
fi
dt=$(( $(now) - t0 ))
# the downloaded .debs are not needed in the guest
rm -f "$new"/var/cache/apt/archives/*.deb
ensure_mtab "$new"
check_root "$new" || die "debootstrap succeeded, but $new lacks a tool the workload needs"
dpkg-query --admindir="$new/var/lib/dpkg" -W -f='${Package} ${Version}\n' > "$root.packages" ||
	die "dpkg-query --admindir=$new/var/lib/dpkg failed"
printf '%s\n' "$want" > "$new/.kmapstack-root"
rm -rf "$root"
mv "$new" "$root"
echo "$dt" > "$root.seconds"
info "made $root in ${dt}s: $(wc -l < "$root.packages") packages, $(du -shx "$root" | cut -f1)"
