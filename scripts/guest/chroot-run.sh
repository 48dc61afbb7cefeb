#!/bin/sh
# Guest side of scripts/guest-run.sh (busybox sh, baked into the initramfs as
# /etc/kmapstack/run and started by /init after its mounts).
#
# Mounts the shared root (9p tag 'hostroot', read-only: the host's /, or the
# directory of guest-run.sh --root) on /newroot, the run's
# output directory (9p tag 'kmsout', writable) at its host path inside it,
# gives the chroot writable tmpfs for /tmp /run /var/tmp /var/log /root and
# /home, the kernel file systems, then runs OUTDIR/cmd.sh with Debian's bash
# inside the chroot.  Kernel command line: kmapstack.out=OUTDIR (host path).
#
# In OUTDIR: output.log (stdout+stderr of cmd.sh), status (its exit status),
# dmesg.txt (the kernel log after it).  Console markers for guest-run.sh:
# "kmapstack-guest: status=N".  The exit status is cmd.sh's (or 100+ for a
# setup failure), which /init prints as run-status=N.
say() { echo "kmapstack-guest: $*"; }
fail() { say "setup error: $*"; exit "${2:-100}"; }

out=
for arg in $(cat /proc/cmdline); do
	case "$arg" in kmapstack.out=*) out=${arg#kmapstack.out=} ;; esac
done
[ -n "$out" ] || fail "no kmapstack.out= on the kernel command line"

R=/newroot
mkdir -p $R
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000 hostroot $R ||
	fail "cannot mount the 9p host root (tag hostroot)" 101
[ -d "$R$out" ] || fail "output directory $out does not exist in the shared root" 102

mount -t proc proc $R/proc || fail "mount proc"
mount -t sysfs sysfs $R/sys || fail "mount sysfs"
mount -t devtmpfs devtmpfs $R/dev || fail "mount devtmpfs"
mkdir -p $R/dev/pts $R/dev/shm || fail "mkdir /dev/pts /dev/shm"
mount -t devpts devpts $R/dev/pts || fail "mount devpts"
mount -t tmpfs tmpfs $R/dev/shm || fail "mount tmpfs on /dev/shm"
# trace-cmd, bpftrace and the tests read these: a kernel without them fails here
mount -t debugfs debugfs $R/sys/kernel/debug || fail "mount debugfs on /sys/kernel/debug"
mount -t tracefs tracefs $R/sys/kernel/tracing || fail "mount tracefs on /sys/kernel/tracing"
# A project checked out under one of these (/tmp/x, /home/u/x, /root/x)
# stays visible: its top directory there is bound back over the tmpfs.
for d in /tmp /run /var/tmp /var/log /var/cache /root /home /mnt /media; do
	[ -d "$R$d" ] || continue
	top=
	case "$out" in "$d"/*) rel=${out#"$d"/}; top=$d/${rel%%/*} ;; esac
	if [ -n "$top" ]; then
		mkdir -p /kms-keep
		mount -o bind "$R$top" /kms-keep || fail "bind $top"
	fi
	mount -t tmpfs -o mode=1777 tmpfs "$R$d" || fail "tmpfs on $d"
	if [ -n "$top" ]; then
		mkdir -p "$R$top"
		mount -o bind /kms-keep "$R$top" || fail "bind $top back"
		umount /kms-keep
	fi
done
chmod 700 $R/root 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,rw,msize=512000 kmsout "$R$out" ||
	fail "cannot mount the 9p output directory (tag kmsout) on $out" 103
[ -f "$R$out/cmd.sh" ] || fail "$out/cmd.sh not found" 104

cpus=$(grep -c ^processor /proc/cpuinfo)
say "chroot ready: $(uname -r), $cpus cpu(s), running $out/cmd.sh"
# Output to the file, shown on the console by tail -f: no pipe, so that a
# background process the command left behind cannot keep us waiting.
: > "$R$out/output.log"
tail -f "$R$out/output.log" &
tpid=$!
chroot $R /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root TERM=dumb LANG=C.UTF-8 KMS_GUEST=1 KMS_OUT="$out" \
	/bin/bash -c 'cd "$KMS_OUT" && exec /bin/bash ./cmd.sh' > "$R$out/output.log" 2>&1 < /dev/null &
cpid=$!
wait $cpid
rc=$?
sleep 1
kill $tpid 2>/dev/null
dmesg > "$R$out/dmesg.txt" 2>/dev/null
echo "$rc" > "$R$out/status"
sync
say "status=$rc"
umount "$R$out" 2>/dev/null
exit "$rc"
