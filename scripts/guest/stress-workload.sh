#!/bin/bash
# stress-workload.sh [--bug MODE --ko KMAPBUG.KO] [--seconds N]
#
# Runs inside the guest chroot (scripts/stress-record.sh runs it there under
# trace-cmd record).  A bounded workload over the kmap paths of an x86_64
# kernel: page cache reads and writes (copy_page_{to,from}_iter, the
# filemap_* helpers) on tmpfs and on a loop-mounted ext2 (directory pages
# are kmap_local'ed, block I/O through the loop driver), pipes, splice,
# tee, vmsplice and sendfile, and a few stress-ng stressors over the same.
# With --bug, 'insmod KMAPBUG.KO bug=MODE' in the middle, rmmod after.
# Each phase prints one line; any failure exits non-zero.
set -euo pipefail
bug= ko= secs=4
while [ $# -gt 0 ]; do
	case "$1" in
	--bug) bug=$2; shift ;;
	--ko) ko=$2; shift ;;
	--seconds) secs=$2; shift ;;
	*) echo "stress-workload: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
t0=$EPOCHREALTIME
phase() { awk -v n="$1" -v t="$EPOCHREALTIME" -v t0="$t0" 'BEGIN { printf "workload: %-44s %6.1fs\n", n, t - t0 }'; }
w=/tmp/kms-work
rm -rf $w; mkdir -p $w/tmpfs $w/ext2

# --- tmpfs: page cache only (shmem) ---
mount -t tmpfs -o size=640m tmpfs $w/tmpfs
dd if=/dev/urandom of=$w/tmpfs/a bs=64k count=256 status=none
cp $w/tmpfs/a $w/tmpfs/b
cmp $w/tmpfs/a $w/tmpfs/b
sum_a=$(md5sum < $w/tmpfs/a)
for i in $(seq 1 40); do printf 'line %d\n' "$i" >> $w/tmpfs/small; done
cat $w/tmpfs/small $w/tmpfs/small > $w/tmpfs/small2
phase "tmpfs 16M write/copy/read"

# --- ext2 on a loop device: page cache + block I/O + directory pages ---
truncate -s 96M $w/tmpfs/ext2.img
mkfs.ext2 -q -F -b 4096 $w/tmpfs/ext2.img
loopdev=$(losetup -f --show $w/tmpfs/ext2.img)
mount -t ext2 "$loopdev" $w/ext2
cp $w/tmpfs/a $w/ext2/a
mkdir -p $w/ext2/d
for i in $(seq 1 150); do echo "$i" > $w/ext2/d/file-$i; done
sync
echo 3 > /proc/sys/vm/drop_caches
[ "$(md5sum < $w/ext2/a)" = "$sum_a" ] || { echo "ext2 read back differs" >&2; exit 1; }
ls -l $w/ext2/d > /dev/null
cat $w/ext2/d/* > /dev/null
rm -f $w/ext2/d/file-1*
phase "ext2 (loop) write/sync/read"

# --- the injected bug, in the middle of the recording ---
if [ -n "$bug" ]; then
	insmod "$ko" bug="$bug"
	# trace-cmd saved kallsyms when the recording started: keep the
	# module's symbols for kmapstack --kallsyms
	grep '\[kmapbug\]' /proc/kallsyms > "${KMS_OUT:-/tmp}/kallsyms-modules.txt" || true
	rmmod kmapbug
	phase "insmod kmapbug bug=$bug"
fi

# --- pipes and splice ---
cat $w/tmpfs/a | md5sum > /dev/null
dd if=$w/ext2/a bs=1M status=none | cat > /dev/null
phase "pipes"
stress-ng --temp-path $w/ext2 --timeout "${secs}s" --quiet \
	--pipe 1 --splice 1 --tee 1 --vm-splice 1 --sendfile 1 \
	--sendfile-size 64K
phase "stress-ng pipe/splice/tee/vm-splice/sendfile"
stress-ng --temp-path $w/ext2 --timeout "${secs}s" --quiet \
	--hdd 1 --hdd-bytes 8M --readahead 1 --readahead-bytes 8M --seek 1 --seek-size 8M
phase "stress-ng hdd/readahead/seek (ext2)"
stress-ng --temp-path $w/tmpfs --timeout "${secs}s" --quiet \
	--copy-file 1 --copy-file-bytes 128M --hdd 1 --hdd-bytes 8M
phase "stress-ng copy-file/hdd (tmpfs)"

umount $w/ext2
losetup -d "$loopdev"
umount $w/tmpfs
phase "done"
