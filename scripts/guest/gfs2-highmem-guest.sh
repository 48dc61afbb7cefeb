#!/bin/sh
# gfs2-highmem-guest.sh: /etc/kmapstack/run of scripts/test-gfs2-highmem.sh's
# i386 initramfs (busybox). Mounts /gfs2.img (mkfs.gfs2 on the host,
# lock_nolock) on a loop device, writes a file of 4 MiB, prints its
# md5sum, unmounts. The mount is between "kmapstack-gfs2: mount begin" and
# "... mount end" in the kernel log.
mkdir -p /mnt/g
echo "gfs2-highmem: HighTotal $(awk '/^HighTotal:/ {print $2}' /proc/meminfo) kB"
losetup /dev/loop1 /gfs2.img || { echo "gfs2-highmem: losetup failed"; exit 1; }
echo "kmapstack-gfs2: mount begin" > /dev/kmsg
if mount -t gfs2 -o lockproto=lock_nolock /dev/loop1 /mnt/g; then
	echo "gfs2-highmem: mounted"
	dd if=/dev/urandom of=/mnt/g/f bs=64k count=64 2>/dev/null && sync
	echo "gfs2-highmem: wrote $(md5sum < /mnt/g/f)"
	umount /mnt/g && echo "gfs2-highmem: unmounted"
else
	echo "gfs2-highmem: mount failed"
fi
echo "kmapstack-gfs2: mount end" > /dev/kmsg
