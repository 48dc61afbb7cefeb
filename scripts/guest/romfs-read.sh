#!/bin/bash
# Guest side of scripts/test-romfs.sh (run by guest-run.sh in the chroot of
# the host root): load romfs.ko from a modules_install of the guest kernel
# (built in: there), mount the romfs image fresh, and read every file of
# it back, comparing each with its copy in SRC.  The kernel log gets the
# markers "kmapstack-romfs: reads begin/end" around the reads; the host
# reads dmesg.txt.
#   romfs-read.sh IMAGE SRC STAGE KVER
set -uo pipefail
img=$1 src=$2 stage=$3 kver=$4
mnt=/mnt/kmapstack-romfs

. "$(dirname "$0")/mount-image.sh"
mount_image romfs-read romfs "$img" "$mnt" "$stage" "$kver" || exit 1

echo "kmapstack-romfs: reads begin" > /dev/kmsg
same=0 differ=0
for f in "$src"/*; do
	if cmp -s "$f" "$mnt/${f##*/}"; then same=$((same + 1)); else differ=$((differ + 1)); fi
done
echo "kmapstack-romfs: reads end" > /dev/kmsg
echo "romfs-read: $same file(s) read back the same, $differ differ"
umount "$mnt"
