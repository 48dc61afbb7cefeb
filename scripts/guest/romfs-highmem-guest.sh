#!/bin/sh
# romfs-highmem-guest.sh: /etc/kmapstack/run of scripts/test-romfs-highmem.sh's
# i386 initramfs (busybox). Mounts /romfs.img (genromfs on the host: files
# of 64 pages, every page of different bytes) read-only on a loop device,
# then reads each file once, in one task pinned to CPU 0 and one pinned to
# CPU 1, and prints each file's md5sum for the host to compare with its
# source. The reads are between "kmapstack-romfs-highmem: reads begin" and
# "... reads end" in the kernel log.
mark() { echo "kmapstack-romfs-highmem: $*" > /dev/kmsg; }
mkdir -p /mnt/romfs
mount -o loop,ro -t romfs /romfs.img /mnt/romfs || { echo "romfs-highmem: mount failed"; exit 1; }
echo "romfs-highmem: mounted, HighTotal $(awk '/^HighTotal:/ {print $2}' /proc/meminfo) kB, pge $(grep -cw pge /proc/cpuinfo)"
# the image's blocks in the page cache first: romfs_read_folio() then
# copies from cached buffers without sleeping between pages
dev=$(awk '$2 == "/mnt/romfs" {print $1}' /proc/mounts)
cat "$dev" > /dev/null
mark "reads begin"
for cpu in 0 1; do
	for f in /mnt/romfs/cpu$cpu-*; do
		taskset -c "$cpu" md5sum "$f" > /tmp/sum 2>&1
		echo "romfs-highmem: exit $? cpu $cpu $(cat /tmp/sum)"
	done
done
mark "reads end"
