#!/bin/bash
# fetch-busybox-i386.sh [DEST]
#
# Put a 32-bit static busybox at DEST (default build/deps/busybox-i386):
# Debian's busybox-static:i386 is fetched with 'apt-get download' (it cannot
# be installed next to the amd64 one) and unpacked with dpkg-deb -x.
# Adds the i386 dpkg architecture (and runs apt-get update) if needed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
dest=${1:-$KMS_BUILD/deps/busybox-i386}
[ -x "$dest" ] && { info "$dest already there"; exit 0; }
command -v apt-get >/dev/null || die "apt-get not found: provide a static i386 busybox via KMAPSTACK_BUSYBOX_i386"
if ! dpkg --print-foreign-architectures | grep -qx i386; then
	info "adding dpkg architecture i386"
	dpkg --add-architecture i386
	apt-get update -qq || die "apt-get update failed"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 777 "$tmp"   # apt-get download runs as _apt
if ! (cd "$tmp" && apt-get download -q busybox-static:i386 >/dev/null 2>"$tmp/err"); then
	# the package lists may lack i386 (dpkg arch added without update)
	apt-get update -qq || true
	(cd "$tmp" && apt-get download -q busybox-static:i386 >/dev/null 2>"$tmp/err") ||
		{ cat "$tmp/err" >&2; die "apt-get download busybox-static:i386 failed"; }
fi
dpkg-deb -x "$tmp"/busybox-static_*_i386.deb "$tmp/x"
[ -f "$tmp/x/bin/busybox" ] || die "no bin/busybox in busybox-static:i386"
mkdir -p "$(dirname "$dest")"
install -m 755 "$tmp/x/bin/busybox" "$dest"
info "installed $dest"
