#!/bin/bash
# Guest side of scripts/test-erofs.sh (run by guest-run.sh in the chroot of
# the host root): load erofs.ko from a modules_install of the guest kernel,
# mount the erofs image fresh (nothing of it cached), then look up every
# name of NAMES in its root directory (stat, no readdir before: each is a
# cold lookup, erofs_namei's binary search over the directory's blocks)
# and as many names that are not there.  The kernel log gets the markers
# "kmapstack-erofs: lookups begin/end" around the lookups; the host reads
# dmesg.txt.
#   erofs-lookup.sh IMAGE NAMES STAGE KVER
set -uo pipefail
img=$1 names=$2 stage=$3 kver=$4
mnt=/mnt/kmapstack-erofs

# erofs: a module in the test kernel (modprobe also resolves libcrc32c's
# soft dependency on crc32c), built in in the check-world kernels
. "$(dirname "$0")/mount-image.sh"
mount_image erofs-lookup erofs "$img" "$mnt" "$stage" "$kver" || exit 1

echo "kmapstack-erofs: lookups begin" > /dev/kmsg
# every name that is there: found, one lookup each
found=$(cd "$mnt" && xargs -d '\n' -a "$names" stat -c %i -- 2>/dev/null | wc -l)
# names between and after them that are not: negative lookups
# (no process substitution: the chroot has no /dev/fd)
missing=0 absent=$(sed -n '1~97p' "$names")
while IFS= read -r n; do
	[ -e "$mnt/$n.absent" ] || missing=$((missing + 1))
done <<< "$absent"
echo "kmapstack-erofs: lookups end" > /dev/kmsg
echo "erofs-lookup: found $found of $(wc -l < "$names") names"
echo "erofs-lookup: absent names not found: $missing of $(wc -l <<< "$absent")"

umount "$mnt" || { echo "erofs-lookup: umount failed"; exit 1; }
echo "erofs-lookup: done"
