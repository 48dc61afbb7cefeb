#!/bin/bash
# install-deps.sh
#
# Install (apt-get, non-interactive) every Debian package listed in
# scripts/deps/*.txt (one package per line, '#' comments), then fetch the
# static busybox of the i386 and arm64 initramfs (scripts/fetch-busybox.sh;
# busybox-static:ARCH cannot be installed next to the amd64 package; this
# adds the i386 and arm64 dpkg architectures).  Needs root (or sudo).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac

sudo=
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null || die "must run as root (or have sudo)"
	sudo=sudo
fi
pkgs=()
for f in "$KMS_SCRIPTS"/deps/*.txt; do
	[ -e "$f" ] || continue
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%#*}
		for w in $line; do pkgs+=("$w"); done
	done < "$f"
done
[ ${#pkgs[@]} -gt 0 ] || die "no package listed in scripts/deps/*.txt"
mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | sort -u)
export DEBIAN_FRONTEND=noninteractive
info "apt-get update"
KMS_SUDO=$sudo apt_update
info "installing ${#pkgs[@]} package(s): ${pkgs[*]}"
$sudo apt-get install -y -qq --no-install-recommends "${pkgs[@]}" ||
	die "apt-get install failed"
for a in i386 arm64; do
	$sudo "$KMS_SCRIPTS/fetch-busybox.sh" "$a"
done
info "done"
