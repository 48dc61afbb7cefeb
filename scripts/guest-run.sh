#!/bin/bash
# guest-run.sh [options] SCRIPT [ARGS...]
# guest-run.sh [options] -c 'COMMAND'
#
# Boot the x86_64 guest-tools kernel (scripts/configs/guest.config) under
# QEMU/TCG with the host root shared read-only over virtio-9p, and run SCRIPT
# (a host path, run with /bin/bash) or COMMAND inside a chroot into the host
# root: the host's trace-cmd, bpftrace, stress-ng, kmod, util-linux... run
# unchanged.  Inside, /tmp /run /var/tmp /root... are tmpfs, proc, sysfs,
# devtmpfs, debugfs and tracefs are mounted, the working directory is the
# output directory, which is the one writable host directory (same path in
# the guest and on the host; $KMS_OUT names it).  The guest powers off after
# the command; QEMU has a hard timeout.  Boots with kunit.enable=0.
# With --root DIR the shared root is DIR instead of the host's (e.g. an
# i386 Debian root made by scripts/world/mkroot-i386.sh, with --arch i386):
# the output directory's path is made in DIR as its mount point, SCRIPT is
# copied into the output directory and run from there; anything else the
# command reads must be in DIR or in the output directory.
#
# Options:
#   -c, --command CMD   run the bash command CMD instead of a script
#   -o, --out DIR       output directory (default: a new build/guest-runs/run.XXXX);
#                       gets cmd.sh, output.log, status, dmesg.txt, console.log
#   -t, --timeout SECS  hard timeout of the whole boot (default 600)
#   -m, --memory SIZE   guest RAM (default 2G)
#       --smp N         guest CPUs (default 2)
#   -a, --append ARGS   extra kernel command line (repeatable)
#   -q, --qemu-arg ARG  extra QEMU argument (repeatable)
#       --qmp SOCKET    QMP monitor on the unix socket SOCKET (for dump-guest-memory)
#   -k, --kernel FILE   kernel (default $KMAPSTACK_OUT/arch/x86/boot/bzImage)
#   -v, --verbose       show the guest console live (default: print output.log after)
#       --accel A       tcg (default) | kvm | auto, passed to boot.sh
#       --arch A        x86_64 (default) | i386: the guest's arch (boot.sh
#                       ARCH, the busybox of the initramfs; i386: default
#                       memory 3G, so that highmem exists)
#       --root DIR      share DIR as the root instead of the host's / (its
#                       /bin/bash must be a binary of the guest's arch)
# Environment: KMAPSTACK_OUT (kernel build dir, default build/out-x86_64,
#   build/out-i386 with --arch i386; its .config must have 9p, virtio-pci
#   and devtmpfs: the guest.config options, or the check-world kernels'
#   scripts/configs/world/common.config), and boot.sh's variables.
# Exit status: the command's own status; 125 if the guest did not run it
#   (boot failure, panic, timeout, setup error: see console.log).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() { kms_help; }
case "${1:-}" in -h|--help) usage; exit 0 ;; esac

kernel= out= cmd= timeout_s=600 mem= smp=2 verbose=0 qmp= accel=tcg arch=x86_64 root=/
appends=() qargs=()
need() { [ $# -ge 2 ] || die "option $1 needs an argument"; }
while [ $# -gt 0 ]; do
	case "$1" in
	-c|--command)  need "$@"; cmd=$2; shift ;;
	-o|--out)      need "$@"; out=$2; shift ;;
	-t|--timeout)  need "$@"; timeout_s=$2; shift ;;
	-m|--memory)   need "$@"; mem=$2; shift ;;
	--smp)         need "$@"; smp=$2; shift ;;
	-a|--append)   need "$@"; appends+=(-a "$2"); shift ;;
	-q|--qemu-arg) need "$@"; qargs+=(-q "$2"); shift ;;
	--qmp)         need "$@"; qmp=$2; shift ;;
	-k|--kernel)   need "$@"; kernel=$2; shift ;;
	-v|--verbose)  verbose=1 ;;
	--accel)       need "$@"; accel=$2; shift ;;
	--arch)        need "$@"; arch=$2; shift ;;
	--root)        need "$@"; root=$2; shift ;;
	-h|--help)     usage; exit 0 ;;
	--)            shift; break ;;
	-*)            die "unknown option '$1' (see --help)" ;;
	*)             break ;;
	esac
	shift
done
if [ -z "$cmd" ]; then
	[ $# -ge 1 ] || die "nothing to run: give SCRIPT [ARGS...] or -c COMMAND (see --help)"
	script=$1; shift
	[ -f "$script" ] || die "script '$script' not found"
	script=$(cd "$(dirname "$script")" && pwd)/$(basename "$script")
else
	[ $# = 0 ] || die "-c COMMAND takes no further arguments"
fi
kout=${KMAPSTACK_OUT:-$KMS_BUILD/out-$arch}
case "$arch" in
x86_64) mem=${mem:-2G}
	hint="KMAPSTACK_OUT=$kout scripts/build-kernel.sh x86_64   (make kernel-x86_64)" ;;
i386)	mem=${mem:-3G}
	hint="scripts/world/build.sh 686-pae, and KMAPSTACK_OUT=$KMS_BUILD/world/out-686-pae (the i386 test kernel has no 9p)" ;;
*)	die "unsupported --arch '$arch' (x86_64, i386)" ;;
esac
kernel=${kernel:-$kout/arch/x86/boot/bzImage}
[ -f "$kernel" ] || die "kernel $kernel not found: build it with
  $hint"

# The shared root: its bash must run on the guest's arch.
[ -d "$root" ] || die "root directory '$root' not found"
root=$(cd "$root" && pwd -P)
case "$root" in *[[:space:],]*) die "root directory '$root' contains white space or a comma" ;; esac
if [ "$root" != / ]; then
	[ -e "$root/bin/bash" ] || die "$root has no /bin/bash (for i386: scripts/world/mkroot-i386.sh $root)"
	case "$arch" in
	x86_64) want='Class:.*ELF64|Machine:.*X86-64' ;;
	i386)   want='Class:.*ELF32|Machine:.*80386' ;;
	esac
	bash_bin=$(cd "$root" && readlink -f "$root/bin/bash")
	case "$bash_bin" in "$root"/*) ;; *) bash_bin=$root/usr/bin/bash ;; esac
	[ "$(readelf -h "$bash_bin" 2>/dev/null | grep -cE "$want")" = 2 ] ||
		die "$bash_bin is not an $arch binary (readelf -h: want ${want//|/ and }): the root does not fit --arch $arch"
fi

# The kernel must have what the 9p root and the tools need.
cfg=$(dirname "$kernel")/../../../.config
if [ -f "$cfg" ]; then
	missing=
	for s in NET_9P NET_9P_VIRTIO 9P_FS VIRTIO_PCI DEVTMPFS; do
		grep -qx "CONFIG_$s=y" "$cfg" || missing="$missing $s"
	done
	[ -z "$missing" ] || die "kernel $kernel lacks CONFIG_{${missing# }} (not built with scripts/configs/guest.config): build it with
  $hint"
fi

if [ -z "$out" ]; then
	mkdir -p "$KMS_BUILD/guest-runs"
	out=$(mktemp -d "$KMS_BUILD/guest-runs/run.XXXXXX")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
case "$out" in *[[:space:]]*) die "output directory '$out' contains white space" ;; esac
rm -f "$out/status" "$out/output.log" "$out/dmesg.txt"
if [ "$root" != / ]; then
	# another root: the output directory's mount point, and SCRIPT in it
	case "$out" in "$root"/*|"$root") die "output directory $out is inside the shared root $root" ;; esac
	mkdir -p "$root$out" || die "cannot make the mount point $root$out"
	if [ -z "$cmd" ] && [ "$script" != "$out/$(basename "$script")" ]; then
		cp "$script" "$out/" || die "cannot copy $script into $out"
		script=$out/$(basename "$script")
	fi
fi
{
	echo '# written by scripts/guest-run.sh; run by bash inside the guest chroot'
	if [ -n "$cmd" ]; then
		printf '%s\n' "$cmd"
	else
		printf 'exec /bin/bash'; printf ' %q' "$script" "$@"; printf '\n'
	fi
} > "$out/cmd.sh"

# Initramfs: the harness's, with the chroot runner as its run script.
initrd=$out/initramfs.cpio
KMAPSTACK_RUN=$KMS_SCRIPTS/guest/chroot-run.sh "$KMS_SCRIPTS/mkinitramfs.sh" "$initrd" "$arch" \
	2> "$out/mkinitramfs.log" || { cat "$out/mkinitramfs.log" >&2; die "mkinitramfs.sh failed"; }

bootargs=("$arch" -k "$kernel" -i "$initrd" -l "$out/console.log" -t "$timeout_s"
	-m "$mem" --smp "$smp" --accel "$accel"
	-a "kunit.enable=0 kmapstack.out=$out" "${appends[@]}"
	-q -virtfs -q "local,path=$root,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-q -virtfs -q "local,path=$out,mount_tag=kmsout,security_model=none,multidevs=remap"
	-q -device -q vmcoreinfo "${qargs[@]}")
if [ -n "$qmp" ]; then
	rm -f "$qmp"
	bootargs+=(-q -qmp -q "unix:$qmp,server=on,wait=off")
fi

where=
[ "$root" = / ] && [ "$arch" = x86_64 ] || where=" ($arch, root $root)"
info "running ${script:-"-c '$cmd'"} in the guest$where (timeout ${timeout_s}s), output in $out"
t0=$(now)
brc=0
if [ "$verbose" = 1 ]; then
	"$KMS_SCRIPTS/boot.sh" "${bootargs[@]}" || brc=$?
else
	"$KMS_SCRIPTS/boot.sh" "${bootargs[@]}" > /dev/null 2> "$out/boot.err" || brc=$?
fi
dt=$(( $(now) - t0 ))
[ "$verbose" = 1 ] || [ ! -f "$out/output.log" ] || cat "$out/output.log"

if [ ! -f "$out/status" ]; then
	[ "$verbose" = 1 ] || cat "$out/boot.err" >&2 || true
	echo "---- last lines of $out/console.log ----" >&2
	tail -n 30 "$out/console.log" 2>/dev/null | tr -d '\r' >&2 || true
	case "$brc" in
	124) die "the guest timed out after ${timeout_s}s before the command finished" ;;
	2)   die "the guest kernel panicked (see $out/console.log)" ;;
	esac
	st=$(grep -ao 'kmapstack-guest: setup error: .*' "$out/console.log" 2>/dev/null | tail -1 || true)
	[ -z "$st" ] || die "guest setup failed: ${st#kmapstack-guest: }"
	printf '%s: error: the guest did not run the command (boot.sh status %s, %ss; see %s/console.log)\n' \
		"$KMS_PROG" "$brc" "$dt" "$out" >&2
	exit 125
fi
rc=$(cat "$out/status")
[[ $rc =~ ^[0-9]+$ ]] || rc=125
if grep -aq 'Kernel panic - not syncing' "$out/console.log"; then
	printf '%s: error: the guest kernel panicked after the command (see %s/console.log)\n' "$KMS_PROG" "$out" >&2
	exit 125
fi
if [ "$rc" != 0 ]; then
	printf '%s: error: the guest command failed with status %s after %ss (output: %s/output.log)\n' \
		"$KMS_PROG" "$rc" "$dt" "$out" >&2
	exit "$rc"
fi
info "guest command succeeded in ${dt}s (output: $out/output.log)"
