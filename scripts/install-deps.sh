#!/bin/bash
# install-deps.sh
#
# Install (apt-get, non-interactive) every Debian package listed in
# scripts/deps/*.txt (one package per line, '#' comments), then fetch the
# 32-bit static busybox for the i386 initramfs (scripts/fetch-busybox-i386.sh;
# busybox-static:i386 cannot be installed next to the amd64 package).
# Needs root (or sudo).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac

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
$sudo apt-get update -qq || die "apt-get update failed"
info "installing ${#pkgs[@]} package(s): ${pkgs[*]}"
$sudo apt-get install -y -qq --no-install-recommends "${pkgs[@]}" ||
	die "apt-get install failed"
if [ -n "$sudo" ]; then
	sudo "$KMS_SCRIPTS/fetch-busybox-i386.sh"
else
	"$KMS_SCRIPTS/fetch-busybox-i386.sh"
fi
info "done"
