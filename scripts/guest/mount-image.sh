# shellcheck shell=bash
# Sourced by the guest sides of the image tests (erofs-lookup.sh,
# romfs-read.sh), which run in the chroot of the host root.
#
# mount_image NAME FS IMAGE MNT STAGE KVER: FS from the modules staged in
# STAGE (modprobe -d resolves their dependencies; the guest has no
# /lib/modules of its own) unless it is built in, then IMAGE mounted
# read-only on MNT through a loop device. Says so on lines "NAME: ...";
# returns 1, saying why, when it cannot.
mount_image() {
	local name=$1 fs=$2 img=$3 mnt=$4 stage=$5 kver=$6
	if ! grep -qw "$fs" /proc/filesystems; then
		modprobe -d "$stage" -S "$kver" "$fs" || { echo "$name: modprobe $fs failed"; return 1; }
	fi
	grep -qw "$fs" /proc/filesystems || { echo "$name: no $fs in /proc/filesystems"; return 1; }
	echo "$name: $fs available ($(grep -q "^$fs " /proc/modules && echo module || echo built in))"
	mkdir -p "$mnt"
	mount -t "$fs" -o ro,loop "$img" "$mnt" || { echo "$name: mount failed"; return 1; }
	echo "$name: mounted $(findmnt -n -o SOURCE,FSTYPE "$mnt")"
}
