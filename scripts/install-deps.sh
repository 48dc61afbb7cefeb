#!/bin/bash
# install-deps.sh
#
# Install (apt-get, non-interactive) every Debian package listed in
# scripts/deps/*.txt (one package per line, '#' comments) and, from Debian's
# trixie-backports (added with a pin of 1: nothing else is taken from it),
# linux-source-7.3 and linux-config-7.3; then fetch the
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
# The mainline base, linux-source-7.3, is in Debian's trixie-backports: that
# suite is added with a pin of 1, so apt never takes anything from it unless
# asked by name (below); nothing else on the machine moves.
backports=/etc/apt/sources.list.d/kmapstack-trixie-backports.sources
if [ ! -f "$backports" ]; then
	info "adding Debian's trixie-backports (pinned low) for linux-source-7.3"
	$sudo tee "$backports" > /dev/null <<-EOF
	Types: deb
	URIs: http://deb.debian.org/debian
	Suites: trixie-backports
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	$sudo tee /etc/apt/preferences.d/kmapstack-trixie-backports > /dev/null <<-EOF
	Package: *
	Pin: release n=trixie-backports
	Pin-Priority: 1
	EOF
fi
info "apt-get update"
KMS_SUDO=$sudo apt_update
info "installing ${#pkgs[@]} package(s): ${pkgs[*]}"
$sudo apt-get install -y -qq --no-install-recommends "${pkgs[@]}" ||
	die "apt-get install failed"
# From trixie-backports by name only (pkg/suite: its dependencies come
# from the machine's own suites).
bpo=(linux-source-7.3/trixie-backports linux-config-7.3/trixie-backports)
info "installing from trixie-backports: ${bpo[*]}"
$sudo apt-get install -y -qq --no-install-recommends "${bpo[@]}" ||
	die "apt-get install ${bpo[*]} failed: Linux 7.3's source is in Debian's trixie-backports ($backports)"
for a in i386 arm64; do
	$sudo "$KMS_SCRIPTS/fetch-busybox.sh" "$a"
done
info "done"
