#!/bin/bash
# mkinitramfs.sh OUT ARCH [SRC:DST ...]
#
# Write a tiny uncompressed cpio initramfs (newc) to OUT for ARCH (x86_64 |
# i386 | arm64): a static busybox, /init (scripts/initramfs/init) which mounts proc,
# sysfs, devtmpfs, tmpfs /tmp, debugfs and tracefs (/sys/kernel/tracing),
# runs an optional script, then powers off.  No root needed (the cpio is made
# by the kernel's usr/gen_init_cpio).
#
#   SRC:DST          extra host files baked in at DST (parent dirs created)
# Environment:
#   KMAPSTACK_RUN    host script baked in as /etc/kmapstack/run, run by /init
#                    (a 'kmapstack.run=PATH' kernel argument takes precedence)
#   KMAPSTACK_BUSYBOX_x86_64 / _i386 / _arm64
#                    static busybox to use (defaults: /bin/busybox from
#                    busybox-static; build/deps/busybox-i386 and -arm64,
#                    fetched by scripts/fetch-busybox.sh if missing)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
[ $# -ge 2 ] || die "usage: $KMS_PROG OUT ARCH [SRC:DST ...]"
outfile=$1; check_arch "$2"; shift 2

case "$KMS_ARCH" in
x86_64) bb=${KMAPSTACK_BUSYBOX_x86_64:-/bin/busybox}
	[ -f "$bb" ] || die "$bb not found (apt-get install busybox-static)" ;;
i386)	bb=${KMAPSTACK_BUSYBOX_i386:-$KMS_TOP_BUILD/deps/busybox-i386}
	[ -f "$bb" ] || "$KMS_SCRIPTS/fetch-busybox.sh" i386 "$bb" ;;
arm64)	bb=${KMAPSTACK_BUSYBOX_arm64:-$KMS_TOP_BUILD/deps/busybox-arm64}
	[ -f "$bb" ] || "$KMS_SCRIPTS/fetch-busybox.sh" arm64 "$bb" ;;
esac
if readelf -l "$bb" 2>/dev/null | grep -q 'Requesting program interpreter'; then
	die "$bb is dynamically linked; a static busybox is needed (apt-get install busybox-static)"
fi
case "$KMS_ARCH" in
x86_64) want='Class:.*ELF64|Machine:.*X86-64' ;;
i386)   want='Class:.*ELF32|Machine:.*80386' ;;
arm64)  want='Class:.*ELF64|Machine:.*AArch64' ;;
esac
[ "$(readelf -h "$bb" 2>/dev/null | grep -cE "$want")" = 2 ] ||
	die "$bb is not a busybox for $KMS_ARCH (readelf -h: want ${want//|/ and })"

# gen_init_cpio from the kernel sources (any tree will do).
gic=$KMS_BUILD/tools/gen_init_cpio
if [ ! -x "$gic" ]; then
	src=
	for t in "$KMS_TREE" "$KMS_PRISTINE"; do
		[ -f "$t/usr/gen_init_cpio.c" ] && { src=$t/usr/gen_init_cpio.c; break; }
	done
	if [ -z "$src" ]; then ensure_pristine; src=$KMS_PRISTINE/usr/gen_init_cpio.c; fi
	mkdir -p "$(dirname "$gic")"
	gcc -O2 -o "$gic" "$src" || die "compiling $src failed"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
list=$tmp/list
declare -A dirs=()
adddir() {	# adddir /a/b/c: emit dir entries for /a, /a/b, /a/b/c once
	local d=$1 acc=
	local IFS=/
	for c in ${d#/}; do
		acc=$acc/$c
		[ -n "${dirs[$acc]:-}" ] && continue
		dirs[$acc]=1
		echo "dir $acc 0755 0 0" >> "$list"
	done
}
for d in /bin /sbin /usr/bin /usr/sbin /dev /proc /sys /tmp /root /etc/kmapstack /mnt; do adddir "$d"; done
{
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "file /bin/busybox $bb 0755 0 0"
	echo "slink /bin/sh busybox 0777 0 0"
	echo "file /init $KMS_SCRIPTS/initramfs/init 0755 0 0"
} >> "$list"
if [ -n "${KMAPSTACK_RUN:-}" ]; then
	[ -f "$KMAPSTACK_RUN" ] || die "KMAPSTACK_RUN=$KMAPSTACK_RUN not found"
	echo "file /etc/kmapstack/run $(cd "$(dirname "$KMAPSTACK_RUN")" && pwd)/$(basename "$KMAPSTACK_RUN") 0755 0 0" >> "$list"
fi
for spec in "$@"; do
	src=${spec%%:*} dst=${spec#*:}
	[ "$src" != "$spec" ] && [ -n "$src" ] && [[ $dst == /* ]] || die "bad file spec '$spec' (want SRC:/abs/DST)"
	[ -f "$src" ] || die "$src not found"
	adddir "$(dirname "$dst")"
	mode=0644; [ -x "$src" ] && mode=0755
	echo "file $dst $(cd "$(dirname "$src")" && pwd)/$(basename "$src") $mode 0 0" >> "$list"
done

mkdir -p "$(dirname "$outfile")"
"$gic" "$list" > "$tmp/cpio" || { cat "$list" >&2; die "gen_init_cpio failed"; }
mv "$tmp/cpio" "$outfile"
info "wrote $outfile ($(du -k "$outfile" | cut -f1) KiB, $KMS_ARCH, busybox $bb)"
