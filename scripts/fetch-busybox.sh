#!/bin/bash
# fetch-busybox.sh ARCH [DEST]      (ARCH: i386 | arm64)
#
# Put a static busybox for a foreign ARCH at DEST (default
# build/deps/busybox-ARCH), for that arch's test initramfs: Debian's
# busybox-static:ARCH is fetched with 'apt-get download' (it cannot be
# installed next to the amd64 one) and unpacked with dpkg-deb -x.
# Adds the dpkg architecture ARCH (and runs apt-get update) if needed:
# apt-get only downloads packages of the architectures dpkg knows.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
arch=${1:-}
case "$arch" in
i386|arm64) ;;
*) die "usage: $KMS_PROG i386|arm64 [DEST]" ;;
esac
dest=${2:-$KMS_TOP_BUILD/deps/busybox-$arch}
[ -x "$dest" ] && { info "$dest already there"; exit 0; }
command -v apt-get >/dev/null || die "apt-get not found: provide a static $arch busybox via KMAPSTACK_BUSYBOX_$arch"
[ "$(id -u)" = 0 ] || die "run as root (dpkg --add-architecture, apt-get), or set KMAPSTACK_BUSYBOX_$arch"
if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
	info "adding dpkg architecture $arch"
	dpkg --add-architecture "$arch"
	apt_update
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 777 "$tmp"   # apt-get download runs as _apt
if ! (cd "$tmp" && apt-get download -q "busybox-static:$arch" >/dev/null 2>"$tmp/err"); then
	# the package lists may lack ARCH (dpkg arch added without update)
	info "apt-get download failed ($(head -n 1 "$tmp/err")); apt-get update and retry"
	apt_update
	(cd "$tmp" && apt-get download -q "busybox-static:$arch" >/dev/null 2>"$tmp/err") ||
		{ cat "$tmp/err" >&2; die "apt-get download busybox-static:$arch failed"; }
fi
dpkg-deb -x "$tmp"/busybox-static_*_"$arch".deb "$tmp/x"
[ -f "$tmp/x/bin/busybox" ] || die "no bin/busybox in busybox-static:$arch"
mkdir -p "$(dirname "$dest")"
install -m 755 "$tmp/x/bin/busybox" "$dest"
info "installed $dest"
