#!/bin/bash
# world/workload-guest.sh MODDIR SECONDS
#
# The check-world workload, run by scripts/check-world.sh inside the guest
# (scripts/guest-run.sh: chroot into a root over 9p, the host's on x86_64,
# the i386 root of scripts/world/mkroot-i386.sh on 686-pae; the working
# directory is the writable output directory) under
# 'trace-cmd record -e kmap_stack'.  MODDIR holds the test modules (KUnit
# suites, tcrypt.ko); SECONDS is the length of each stress-ng phase.
# Nothing in it depends on the arch: the swap phases fill a tmpfs with
# MemAvailable + 256 MiB, and each fails if no page was swapped out (zram:
# pswpout, zswap: zswpout).
# Phases: KUnit modules, crypto self-tests (tcrypt), ext4, btrfs
# (compress=zstd, compress=lzo), squashfs and erofs images, vfat, swap on
# zram and through zswap under memory pressure, loopback TCP with
# sendfile/splice/tee.  Each phase prints
#   world| phase NAME status=N seconds=S maps=M
# (maps: the debugfs kmap_stack map count after it); its output is in
# phase-NAME.log of the working directory.  Exit status: the
# number of phases that failed.
# With WORLD_UNTRACED=N (a round after the traced run, to count more
# mappings) the module phases are left out (their modules are loaded) and
# every line says "world| untraced N ...".
set -uo pipefail
mods=${1:?MODDIR}
secs=${2:-20}
st=/sys/kernel/debug/kmap_stack/stats
w=/tmp/kms-world
failed=0
pfx=${WORLD_UNTRACED:+untraced $WORLD_UNTRACED }
say() { echo "world| $pfx$*"; }
stat() { grep -E "^$1:" $st | awk '{print $2}'; }
stats() { say "stats $1 $(grep -E '^(maps|unmaps|reports|violations\.[a-z_]+):' $st | tr '\n' ' ')"; }
phase() {	# phase NAME COMMAND...: run a phase, report it
	local name=$1 t0=$SECONDS rc=0; shift
	"$@" > "phase-$name.log" 2>&1 || rc=$?
	[ "$rc" = 0 ] || { failed=$((failed + 1)); tail -n 20 "phase-$name.log" | sed "s/^/world| $name: /"; }
	say "phase $name status=$rc seconds=$((SECONDS - t0)) maps=$(stat maps) reports=$(stat reports)"
}
sng() { stress-ng --timeout "${secs}s" --metrics-brief "$@"; }
drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }

rm -rf $w && mkdir -p $w
mount -t tmpfs -o size=1200m tmpfs $w
mkdir -p $w/mnt $w/src
stats start

# --- the kernel's own KUnit suites (run at insmod) ---
# (the guest is booted with kunit.enable=1; each suite's verdict is the
# last line of its debugfs results, "ok 1 SUITE" or "not ok 1 SUITE")
kunit() {
	local m s r bad=0
	for m in kunit_iov_iter memcpy_kunit usercopy_kunit ext4-inode-test fat_test; do
		[ -f "$mods/$m.ko" ] || { echo "missing $m.ko"; return 1; }
		insmod "$mods/$m.ko" || return 1
	done
	for s in iov_iter memcpy usercopy ext4_inode_test fat_test; do
		r=/sys/kernel/debug/kunit/$s/results
		if [ ! -r "$r" ]; then
			echo "suite $s: no $r (KUnit disabled: kunit.enable=0?)"; bad=$((bad + 1)); continue
		fi
		echo "== $r"; cat "$r"
		if [ "$(tail -n 1 "$r")" != "ok 1 $s" ] || grep -qE '^[[:space:]]*not ok ' "$r"; then
			echo "suite $s: FAILED ($(tail -n 1 "$r"))"; bad=$((bad + 1))
		else
			echo "suite $s: ok ($(grep -cE '^[[:space:]]+ok [0-9]+ ' "$r") case(s) ok)"
		fi
	done
	[ "$bad" = 0 ]
}
[ -n "$pfx" ] || phase kunit kunit

# --- crypto self-tests through tcrypt (the algorithms are built in and
# were self-tested at boot) ---
crypto() {
	local spec n=0 bad=0 f0 f1
	# (a file, not <(...): the chroot's /dev may have no /dev/fd)
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$mods/tcrypt-specs.txt" > tcrypt.list
	while read -r spec; do
		f0=$(dmesg | grep -c 'tcrypt: one or more tests failed')
		insmod "$mods/tcrypt.ko" $spec 2>/dev/null
		f1=$(dmesg | grep -c 'tcrypt: one or more tests failed')
		[ "$f0" = "$f1" ] || { echo "tcrypt $spec: FAILED"; bad=$((bad + 1)); }
		n=$((n + 1))
	done < tcrypt.list
	echo "tcrypt runs: $n, failed: $bad"
	[ "$n" -gt 0 ] && [ "$bad" = 0 ] || return 1
	awk -F' *: *' '/^name/ {n=$2} /^driver/ {d=$2} /^selftest/ {print "crypto " n " " d " " $2}' /proc/crypto > crypto-selftest.txt
	! grep -qv ' passed$' crypto-selftest.txt
}
[ -n "$pfx" ] || phase crypto crypto

# source tree for the filesystems and images: a tmpfs copy of the root's
# /usr/include/linux (linux-libc-dev; 6.5 MB, ~800 files; more makes
# mksquashfs take minutes under TCG)
src=$w/src
cp -a /usr/include/linux/. $src/
# vfat's names are case-insensitive: of the headers whose paths differ only
# in case (netfilter's xt_RATEEST.h and xt_rateest.h...) keep one, or cp
# into vfat fails with "File exists"
find $src -type f | sort -f | awk '{ l = tolower($0) } l == p { print } { p = l }' | xargs -r rm -f

# --- ext4 on a loop device (page cache, journal, directory pages) ---
fsphase() {	# fsphase TYPE MKFS-ARGS MOUNT-OPTS
	local type=$1 mk=$2 mo=$3 img=$w/$1.img dev
	truncate -s 400M "$img"
	eval "mkfs.$type $mk $img" > /dev/null || return 1
	dev=$(losetup -f --show "$img") || return 1
	mount -t "$type" ${mo:+-o $mo} "$dev" $w/mnt || { losetup -d "$dev"; return 1; }
	cp -a $src $w/mnt/tree && drop && diff -r $src $w/mnt/tree > /dev/null || { umount $w/mnt; losetup -d "$dev"; return 1; }
	sng --temp-path $w/mnt --hdd 1 --hdd-bytes 32m --iomix 1 --iomix-bytes 32m \
		--copy-file 1 --copy-file-bytes 128m --dir 1 --readahead 1 --readahead-bytes 16m \
		--seek 1 --seek-size 16m --fallocate 1 --fallocate-bytes 16m
	local rc=$?
	umount $w/mnt; losetup -d "$dev"; rm -f "$img"
	return $rc
}
phase ext4 fsphase ext4 "-q -F" ""
phase btrfs-zstd fsphase btrfs "-q -f" "compress=zstd"
phase btrfs-lzo fsphase btrfs "-q -f" "compress=lzo"
phase vfat fsphase vfat "" ""

# --- squashfs and erofs: compressed read-only images, read back cold ---
rofs() {	# rofs TYPE
	local img=$w/ro.img dev t0=$SECONDS n=0
	case "$1" in
	squashfs) mksquashfs $src "$img" -comp zstd -quiet -noappend > /dev/null || return 1 ;;
	erofs) mkfs.erofs -zlz4hc "$img" $src > /dev/null || return 1 ;;
	esac
	dev=$(losetup -f --show -r "$img") || return 1
	mount -t "$1" -o ro "$dev" $w/mnt || { losetup -d "$dev"; return 1; }
	while [ $((SECONDS - t0)) -lt "$secs" ]; do
		drop
		diff -r $src $w/mnt > /dev/null || { echo "$1: contents differ"; umount $w/mnt; losetup -d "$dev"; return 1; }
		n=$((n + 1))
	done
	echo "$1: $n cold read(s) of the image"
	umount $w/mnt; losetup -d "$dev"; rm -f "$img"
}
phase squashfs rofs squashfs
phase erofs rofs erofs

# --- swap: zram, then zswap in front of it, under memory pressure ---
vmstat_count() { awk -v k="$1" '$1 == k {print $2}' /proc/vmstat; }
swap() {	# swap zram|zswap
	local dev=/dev/zram0 rc=0 key=pswpout n0 n1 vmb
	[ "$1" = zswap ] && key=zswpout
	[ -b $dev ] || { echo "no $dev"; return 1; }
	swapoff $dev 2>/dev/null; echo 1 > /sys/block/zram0/reset
	echo "zram comp_algorithm: $(cat /sys/block/zram0/comp_algorithm)"
	echo 2G > /sys/block/zram0/disksize || return 1
	mkswap $dev > /dev/null && swapon $dev || return 1
	if [ "$1" = zswap ]; then
		echo lzo > /sys/module/zswap/parameters/compressor
		echo Y > /sys/module/zswap/parameters/enabled
	else
		echo N > /sys/module/zswap/parameters/enabled
	fi
	# A tmpfs file of what is available plus 256 MiB, written and read
	# back: the excess has to go out to swap and come back in.  Text, so
	# that zram compresses it (not same-filled pages).  (Plus 384 MiB with
	# 1 GiB of zram filled the swap: the x86_64 guest ran out of memory.
	# stress-ng --vm of that size swapped out nothing on x86_64, with or
	# without --vm-populate; on i386 its workers did 0 bogo ops.)
	vmb=$(awk '/^MemAvailable:/ {print int($2 / 1024) + 256}' /proc/meminfo)
	echo "fill: $vmb MiB: $(grep -E '^(MemTotal|MemAvailable|HighTotal):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
	n0=$(vmstat_count $key)
	mkdir -p $w/fill
	mount -t tmpfs -o size=$((vmb + 64))m none $w/fill || return 1
	# (yes ends on SIGPIPE, which pipefail would take for a failure)
	{ { yes "kmapstack $1 $vmb" || :; } | head -c "${vmb}M" > $w/fill/a && md5sum $w/fill/a; } || rc=$?
	umount $w/fill
	n1=$(vmstat_count $key)
	grep -E 'pswp|zswp' /proc/vmstat | tr '\n' ' '; echo
	[ "$1" != zswap ] || grep -r . /sys/kernel/debug/zswap/ 2>/dev/null | grep -E 'stored_pages|written_back' | tr '\n' ' '
	echo N > /sys/module/zswap/parameters/enabled
	swapoff $dev; echo 1 > /sys/block/zram0/reset
	# the phase is about swap: it fails if no page went out
	if [ -n "$n0" ] && [ -n "$n1" ] && [ "$n1" -gt "$n0" ]; then
		echo "$1: $((n1 - n0)) page(s) swapped out ($key)"
	else
		echo "$1: no page swapped out ($key ${n0:-?} -> ${n1:-?})"; rc=1
	fi
	return $rc
}
umount $w 2>/dev/null	# give the memory back before the pressure phases
phase zram swap zram
phase zswap swap zswap
mount -t tmpfs -o size=1200m tmpfs $w; mkdir -p $w/mnt

# --- loopback TCP and pipes: sendfile, splice, tee, vmsplice ---
phase net sng --temp-path $w --sock 2 --sock-zerocopy --sendfile 1 --sendfile-size 1m \
	--splice 1 --tee 1 --udp 1
umount $w	# (an untraced round after this one mounts it afresh)
stats end
say "failed phases: $failed"
exit $failed
