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
# Phases: KUnit modules, crypto self-tests (tcrypt); read-write
# filesystems on a loop device (ext4 with fs-verity, ext2, btrfs
# compress=zstd and compress=lzo, vfat, nilfs2, ntfs3, f2fs, minix, gfs2):
# a tree copied in and read back cold, then stress-ng's file stressors
# (create, rename, delete, readdir, xattrs, truncate, fsync...) and renames
# of files and directories across directories; read-only images read back
# cold (squashfs, erofs, iso9660, romfs, cramfs); md raid1, raid5 and raid6
# (a filesystem on the array, then a parity check); dm-crypt, dm-integrity
# and dm-verity; zram as a disk with each compressor; swap on zram and
# through zswap under memory pressure; loopback TCP with
# sendfile/splice/tee, through IPsec ESP, and kTLS (world/ktls.py).  A
# phase whose tool is missing fails, naming it.  Each phase prints
#   world| phase NAME status=N seconds=S maps=M
# (maps: the debugfs kmap_stack map count after it); its output is in
# phase-NAME.log of the working directory.  Exit status: the
# number of phases that failed.
# WORLD_PHASES=REGEX runs only the phases whose names it matches whole;
# WORLD_SKIP=REGEX leaves out those it matches (each says "skipped: WHY",
# WHY from WORLD_SKIP_WHY).
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
stats() { say "stats $1 $(grep -E '^(maps|violations|reports):' $st | tr '\n' ' ')"; }
phase() {	# phase NAME COMMAND...: run a phase, report it
	local name=$1 t0=$SECONDS rc=0; shift
	[[ -z "${WORLD_PHASES:-}" || "$name" =~ ^($WORLD_PHASES)$ ]] || return 0
	if [[ -n "${WORLD_SKIP:-}" && "$name" =~ ^($WORLD_SKIP)$ ]]; then
		say "phase $name skipped: ${WORLD_SKIP_WHY:-WORLD_SKIP}"
		return 0
	fi
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
	local m s r bad=0 suites=
	# (kunit-suites.txt: MODULE SUITE...; a file, not <(...), as for
	# tcrypt below)
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$mods/kunit-suites.txt" > kunit.list
	while read -r m s; do
		[ -f "$mods/${m%\?}.ko" ] || continue
		insmod "$mods/${m%\?}.ko" || return 1
		suites="$suites $s"
	done < kunit.list
	# these kernels build them all: one may be missing only if marked '?'
	# and another module gave its first suite (ext4's, one per base)
	while read -r m s; do
		[ ! -f "$mods/${m%\?}.ko" ] || continue
		case "$m" in *\?) case "$suites " in *" ${s%% *} "*) continue ;; esac ;; esac
		echo "missing ${m%\?}.ko"; return 1
	done < kunit.list
	for s in $suites; do
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

need() {	# need TOOL...: each is on PATH, or say which is not
	local t
	for t in "$@"; do command -v "$t" > /dev/null || { echo "missing tool: $t"; return 1; }; done
}

# renames of files and directories across directories, deletes, for
# SECONDS/2 (stress-ng's rename stressor stays in one directory)
crossdir() {	# crossdir DIR
	local d=$1/crossdir t0=$SECONDS n=0 i
	mkdir -p $d/a $d/b || return 1
	while [ $((SECONDS - t0)) -lt $((secs / 2)) ]; do
		for i in $(seq 50); do echo "$n $i" > $d/a/f$i; done
		mkdir -p $d/a/sub && cp $d/a/f1 $d/a/sub/ || return 1
		for i in $(seq 50); do mv $d/a/f$i $d/b/g$i || return 1; done
		mv $d/a/sub $d/b/sub && mv $d/b $d/a/b && mv $d/a/b $d/b || return 1
		ls -R $d > /dev/null && rm -r $d/b/* || return 1
		n=$((n + 1))
	done
	rm -r $d
	echo "crossdir: $n round(s) of 50 files and a directory moved across directories"
}

# the tree copied into DIR/tree and read back cold (cp -r: ntfs3 and minix
# keep no owner or mode of their own)
copyback() {	# copyback DIR
	cp -r $src "$1/tree" && drop && diff -r $src "$1/tree" > /dev/null
}

# NAME's image on $w/mnt read back cold again and again for SECONDS
coldreads() {	# coldreads NAME
	local t0=$SECONDS n=0
	while [ $((SECONDS - t0)) -lt "$secs" ]; do
		drop
		diff -r $src $w/mnt > /dev/null || { echo "$1: contents differ"; return 1; }
		n=$((n + 1))
	done
	echo "$1: $n cold read(s) of the image"
}

# --- filesystems on a loop device (page cache, journal, directory pages) ---
fsphase() {	# fsphase TYPE MKFS-COMMAND MOUNT-OPTS [STRESSORS...]
	local type=$1 mk=$2 mo=$3 img=$w/$1.img dev rc=0
	shift 3
	need ${mk%% *} || return 1
	truncate -s 400M "$img"
	eval "$mk $img" > /dev/null || return 1
	dev=$(losetup -f --show "$img") || return 1
	mount -t "$type" ${mo:+-o $mo} "$dev" $w/mnt || { losetup -d "$dev"; return 1; }
	copyback $w/mnt || rc=1
	# (stress-ng's exit status 3: a stressor ran out of space or of a
	# limit of the filesystem, and ended early; not a failure here)
	if [ "$rc" = 0 ]; then
		sng --temp-path $w/mnt --hdd 1 --hdd-bytes 32m --iomix 1 --iomix-bytes 32m \
			--copy-file 1 --copy-file-bytes 128m --dir 1 --readahead 1 --readahead-bytes 16m \
			--seek 1 --seek-size 16m --fallocate 1 --fallocate-bytes 16m \
			--rename 1 --dentry 1 --getdent 1 --sync-file 1 --sync-file-bytes 16m "$@" ||
			{ [ $? = 3 ] && echo "stress-ng: exit status 3 (out of resources), not a failure"; } || rc=1
	fi
	[ "$rc" = 0 ] && crossdir $w/mnt || rc=1
	umount $w/mnt; losetup -d "$dev"; rm -f "$img"
	return $rc
}
phase ext4 fsphase ext4 "mkfs.ext4 -q -F -O verity" "" --xattr 1 --verity 1
# (no xattr stressor on ext2: its one xattr block an inode is soon full,
# and stress-ng ends the stressor "out of system resources")
phase ext2 fsphase ext2 "mkfs.ext2 -q -F" ""
phase btrfs-zstd fsphase btrfs "mkfs.btrfs -q -f" "compress=zstd" --xattr 1
phase btrfs-lzo fsphase btrfs "mkfs.btrfs -q -f" "compress=lzo"
phase vfat fsphase vfat "mkfs.vfat" ""
phase nilfs2 fsphase nilfs2 "mkfs.nilfs2 -q -f" ""
# (no xattr stressor on ntfs3: it refuses the stressor's large values
# with EFBIG, which stress-ng takes for a failure)
phase ntfs3 fsphase ntfs3 "mkfs.ntfs -q -F -f" ""
phase f2fs fsphase f2fs "mkfs.f2fs -q -f" "" --xattr 1
phase minix fsphase minix "mkfs.minix -3" ""
phase gfs2 fsphase gfs2 "mkfs.gfs2 -q -O -p lock_nolock -j 1" "" --xattr 1

# --- squashfs and erofs: compressed read-only images, read back cold ---
rofs() {	# rofs TYPE
	local img=$w/ro.img dev rc=0
	case "$1" in
	squashfs) mksquashfs $src "$img" -comp zstd -quiet -noappend > /dev/null || return 1 ;;
	erofs) mkfs.erofs -zlz4hc "$img" $src > /dev/null || return 1 ;;
	iso9660) need xorriso && xorriso -as mkisofs -quiet -R -J -o "$img" $src || return 1 ;;
	romfs) need genromfs && genromfs -f "$img" -d $src || return 1 ;;
	cramfs) need mkfs.cramfs && mkfs.cramfs $src "$img" > /dev/null || return 1 ;;
	esac
	dev=$(losetup -f --show -r "$img") || return 1
	mount -t "$1" -o ro "$dev" $w/mnt || { losetup -d "$dev"; return 1; }
	coldreads "$1" || rc=1
	umount $w/mnt; losetup -d "$dev"; rm -f "$img"
	return $rc
}
phase squashfs rofs squashfs
phase erofs rofs erofs
phase iso9660 rofs iso9660
phase romfs rofs romfs
phase cramfs rofs cramfs

# --- md: raid1, raid5 and raid6 over four loop devices (parity computed
# and checked through the pages of the stripe cache) ---
loops() {	# loops N SIZE: N loop devices on images, their names in $devs
	local i
	devs=
	for i in $(seq "$1"); do
		truncate -s "$2" $w/disk$i.img
		devs="$devs $(losetup -f --show $w/disk$i.img)" || return 1
	done
}
unloops() { local d; for d in $devs; do losetup -d $d; done; rm -f $w/disk*.img; }
# a filesystem on DEV: the tree copied in and read back cold, then the
# file stressors
fson() {	# fson DEV
	mkfs.ext4 -q -F "$1" && mount "$1" $w/mnt || return 1
	local rc=0
	{ copyback $w/mnt && sng --temp-path $w/mnt --hdd 1 --hdd-bytes 16m --iomix 1 --iomix-bytes 16m; } || rc=1
	umount $w/mnt
	return $rc
}
raid() {	# raid LEVEL
	local rc=0 mm
	need mdadm || return 1
	loops 4 96M || return 1
	mdadm --create /dev/md0 --run --quiet --level="$1" --raid-devices=4 --assume-clean $devs || { unloops; return 1; }
	fson /dev/md0 || rc=1
	if [ "$1" != 1 ]; then
		echo check > /sys/block/md0/md/sync_action
		while [ "$(cat /sys/block/md0/md/sync_action)" != idle ]; do sleep 1; done
		mm=$(cat /sys/block/md0/md/mismatch_cnt)
		echo "raid$1: parity check done, mismatch_cnt $mm"
		[ "$mm" = 0 ] || rc=1
	fi
	mdadm --stop /dev/md0 > /dev/null; unloops
	return $rc
}
phase raid1 raid 1
phase raid5 raid 5
phase raid6 raid 6

# --- device mapper: dm-crypt (plain, aes-xts), dm-integrity (crc32c),
# dm-verity (an erofs image under a hash tree, read back cold) ---
dmcrypt() {
	local rc=0
	need cryptsetup || return 1
	loops 1 128M || return 1
	head -c 64 /dev/urandom > $w/key
	cryptsetup open --type plain --cipher aes-xts-plain64 --key-size 512 \
		--key-file $w/key $devs kmscrypt || { unloops; return 1; }
	fson /dev/mapper/kmscrypt || rc=1
	cryptsetup close kmscrypt; unloops
	return $rc
}
dmintegrity() {
	local rc=0
	need integritysetup || return 1
	loops 1 128M || return 1
	integritysetup format --batch-mode --integrity crc32c $devs > /dev/null &&
		integritysetup open --integrity crc32c $devs kmsint || { unloops; return 1; }
	fson /dev/mapper/kmsint || rc=1
	integritysetup close kmsint; unloops
	return $rc
}
dmverity() {
	local rc=0 root
	need veritysetup mkfs.erofs || return 1
	mkfs.erofs -zlz4hc $w/data.img $src > /dev/null || return 1
	truncate -s 16M $w/hash.img
	root=$(veritysetup format $w/data.img $w/hash.img | awk '/^Root hash:/ {print $3}')
	[ -n "$root" ] || return 1
	veritysetup open $w/data.img kmsverity $w/hash.img "$root" || return 1
	mount -t erofs -o ro /dev/mapper/kmsverity $w/mnt || { veritysetup close kmsverity; return 1; }
	coldreads dm-verity || rc=1
	echo "dm-verity: status $(veritysetup status kmsverity | awk '/status:/ {print $2}')"
	umount $w/mnt; veritysetup close kmsverity; rm -f $w/data.img $w/hash.img
	return $rc
}
phase dm-crypt dmcrypt
phase dm-integrity dmintegrity
phase dm-verity dmverity

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
# --- zram as a disk, with each compressor it offers: a filesystem on it,
# the tree copied in and read back cold ---
zramdisk() {
	local z=/sys/block/zram0 a n=0 rc=0
	[ -b /dev/zram0 ] || { echo "no /dev/zram0"; return 1; }
	for a in $(tr -d '[]' < $z/comp_algorithm); do
		echo 1 > $z/reset
		echo "$a" > $z/comp_algorithm && echo 256M > $z/disksize || { rc=1; continue; }
		fson /dev/zram0 || { echo "zram $a: failed"; rc=1; }
		echo "zram $a: $(cat $z/mm_stat)"
		n=$((n + 1))
	done
	echo 1 > $z/reset
	echo "zram: $n compressor(s)"
	[ "$n" -gt 0 ] && return $rc
}
phase zram-disk zramdisk

umount $w 2>/dev/null	# give the memory back before the pressure phases
phase zram swap zram
phase zswap swap zswap
mount -t tmpfs -o size=1200m tmpfs $w; mkdir -p $w/mnt

# --- loopback TCP and pipes: sendfile, splice, tee, vmsplice ---
phase net sng --temp-path $w --sock 2 --sock-zerocopy --sendfile 1 --sendfile-size 1m \
	--splice 1 --tee 1 --udp 1

# --- IPsec: ESP in transport mode (AES-GCM) on the loopback of a network
# namespace of its own (unshare -n: the root is read-only, and the guest's
# own loopback is down), TCP through it (world/ktls.py --plain) ---
esp() {
	need unshare ip python3 || return 1
	ESP_KEY=0x$(head -c 20 /dev/urandom | od -An -tx1 | tr -d ' \n') ESP_SECS=$secs \
		ESP_PY="$(dirname "$0")/ktls.py" ESP_DIR=$w unshare -n bash -s <<'EOS'
set -u
x="src 127.0.0.1 dst 127.0.0.1"
# (the kernel exempts the loopback from IPsec: disable_xfrm and
# disable_policy are 1 on lo unless set; TCP is protocol 6: a minbase root
# has no /etc/protocols to name it)
ip link set lo up &&
echo 0 > /proc/sys/net/ipv4/conf/lo/disable_xfrm &&
echo 0 > /proc/sys/net/ipv4/conf/lo/disable_policy &&
ip xfrm state add $x proto esp spi 0x4b4d5301 mode transport aead 'rfc4106(gcm(aes))' "$ESP_KEY" 128 &&
ip xfrm policy add $x proto 6 dir out tmpl $x proto esp mode transport &&
ip xfrm policy add $x proto 6 dir in tmpl $x proto esp mode transport || exit 1
python3 "$ESP_PY" "$ESP_SECS" "$ESP_DIR" --plain || exit 1
bytes=$(ip -s xfrm state | awk '/lifetime current:/ { getline; sub(/\(.*/, "", $1); print $1; exit }')
echo "esp: ${bytes:-no} byte(s) through the SA"
[ "${bytes:-0}" -gt 0 ]
EOS
}
phase esp esp
# --- kTLS: TLS 1.2 records (AES-GCM) sent by sendfile and send, received
# and decrypted by the kernel (world/ktls.py), on the loopback of a
# network namespace of its own ---
ktls() {
	need unshare ip python3 || return 1
	unshare -n bash -c 'ip link set lo up && python3 "$0" "$1" "$2"' \
		"$(dirname "$0")/ktls.py" "$secs" $w
}
phase ktls ktls
umount $w	# (an untraced round after this one mounts it afresh)
stats end
say "failed phases: $failed"
exit $failed
