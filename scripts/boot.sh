#!/bin/bash
# boot.sh ARCH [options] [-- QEMU-ARGS...]   (ARCH: x86_64 | i386 | arm64 | arm | mips | powerpc)
#
# Boot build/out-ARCH's kernel with the test initramfs under
# QEMU (-nographic -no-reboot, serial console on stdout and in a log file),
# with a hard timeout.  The initramfs /init prints 'kmapstack-init: done' and
# powers off; panic=-1 + -no-reboot make a panicking guest exit QEMU too.
# arm, mips, powerpc (the cross builds in build/cross/out-ARCH, TCG only;
# machines in scripts/lib.sh, docs/architectures.md) boot with no initramfs:
# the built-in KUnit suites run, then kunit_shutdown=reboot ends the guest
# ('reboot: Restarting system' is the end marker instead of /init's).
#
# Options:
#   -k, --kernel FILE    kernel image      (default build/out-ARCH/arch/x86/boot/bzImage,
#                                           build/out-arm64/arch/arm64/boot/Image,
#                                           build/cross/out-ARCH/{zImage,vmlinux})
#   -i, --initrd FILE    initramfs         (default build/initramfs-ARCH.cpio, made
#                                           by mkinitramfs.sh if missing; 'none' for
#                                           none, the default on the cross arches)
#   -a, --append ARGS    extra kernel command line (repeatable)
#   -q, --qemu-arg ARG   one extra QEMU argument (repeatable; also: after --)
#   -l, --log FILE       console log       (default build/boot-ARCH.log)
#   -t, --timeout SECS   hard timeout      (default 600)
#   -m, --memory SIZE    guest RAM         (default 3G for i386 = real highmem, 1G x86_64
#                                           and arm64; arm 2G, mips 1G, powerpc 1536M: all
#                                           with HighMem)
#       --smp N          CPUs              (default 2; 1 on mips and powerpc)
#       --accel A        tcg | kvm | auto  (default auto: KVM only if a probe boot
#                                           with KVM worked; result cached in build/)
#                                           TCG runs every vCPU on one host thread
#                                           (thread=single): QEMU 7.2's multi-threaded
#                                           TCG can run a stale translation of kernel
#                                           text the guest has just patched, and the
#                                           guest dies of "Oops: int3" when a second
#                                           probe is added to a busy tracepoint
#                                           (docs/harness.md).  KMAPSTACK_TCG_THREAD=multi
#                                           for the faster, unsafe mode.
#       --interactive    keep stdin attached (e.g. with -a kmapstack.shell=1)
#       --allow-panic    a kernel panic is not a failure (crash-dump work)
# Environment: KMAPSTACK_CMDLINE, KMAPSTACK_QEMU_ARGS (word-split),
#   KMAPSTACK_BOOT_TIMEOUT, KMAPSTACK_ACCEL, KMAPSTACK_TCG_THREAD, KMAPSTACK_QEMU (QEMU binary,
#   default qemu-system-x86_64 for both x86 arches, qemu-system-aarch64 for
#   arm64 (-machine virt -cpu cortex-a57), qemu-system-{arm,mips,ppc}).
# Exit status: 0 ok, 1 harness error, 2 guest panicked, 3 guest did not finish
#   (no 'kmapstack-init: done'), 4 the kmapstack.run script failed, 124 timeout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() { kms_help; }
case "${1:-}" in -h|--help) usage; exit 0 ;; esac
[ $# -ge 1 ] || { usage >&2; exit 1; }
check_any_arch "$1"; shift
[ -n "$KMS_QEMU" ] || die "$KMS_ARCH is build-only (no QEMU machine; see docs/architectures.md)"

kernel=$KMS_OUT/$KMS_IMAGE
log=$KMS_BUILD/boot-$KMS_ARCH.log
timeout_s=${KMAPSTACK_BOOT_TIMEOUT:-600}
accel=${KMAPSTACK_ACCEL:-auto}
interactive=0 allow_panic=0
mem=$KMS_MEM smp=$KMS_SMP
if [ "$KMS_CROSS_ARCH" = 1 ]; then
	initrd=none
else
	initrd=$KMS_BUILD/initramfs-$KMS_ARCH.cpio
fi
# KVM can only be tried for an x86 guest on this x86 host
case "$KMS_ARCH" in x86_64|i386) x86=1 ;; *) x86=0 ;; esac
[ "$x86" = 1 ] || [ "$accel" != auto ] || accel=tcg
cmdline_extra=${KMAPSTACK_CMDLINE:-}
read -r -a qemu_extra <<< "${KMAPSTACK_QEMU_ARGS:-}"
need() { [ $# -ge 2 ] || die "option $1 needs an argument"; }
while [ $# -gt 0 ]; do
	case "$1" in
	-k|--kernel)   need "$@"; kernel=$2; shift ;;
	-i|--initrd)   need "$@"; initrd=$2; shift ;;
	-a|--append)   need "$@"; cmdline_extra="$cmdline_extra $2"; shift ;;
	-q|--qemu-arg) need "$@"; qemu_extra+=("$2"); shift ;;
	-l|--log)      need "$@"; log=$2; shift ;;
	-t|--timeout)  need "$@"; timeout_s=$2; shift ;;
	-m|--memory)   need "$@"; mem=$2; shift ;;
	--smp)         need "$@"; smp=$2; shift ;;
	--accel)       need "$@"; accel=$2; shift ;;
	--interactive) interactive=1 ;;
	--allow-panic) allow_panic=1 ;;
	--) shift; qemu_extra+=("$@"); break ;;
	-h|--help) usage; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
[[ $timeout_s =~ ^[0-9]+$ ]] || die "bad timeout '$timeout_s'"
# SeaBIOS' MP table lists one CPU per package: without ACPI the guest only
# sees all CPUs if each one is its own socket.
if [[ $smp =~ ^[0-9]+$ ]] && [ "$x86" = 1 ]; then
	smp_arg="$smp,sockets=$smp,cores=1,threads=1"
else
	smp_arg=$smp
fi

qemu=${KMAPSTACK_QEMU:-$KMS_QEMU}
[ -n "${KMAPSTACK_QEMU:-}" ] || need_cross_tools qemu
command -v "$qemu" >/dev/null || die "$qemu not found (apt-get install $KMS_QEMU_PKG)"
[ -f "$kernel" ] || die "kernel $kernel not found (scripts/build-kernel.sh $KMS_ARCH)"
if [ "$initrd" != none ] && [ ! -f "$initrd" ]; then
	"$KMS_SCRIPTS/mkinitramfs.sh" "$initrd" "$KMS_ARCH"
fi
mkdir -p "$(dirname "$log")"

machine=("${KMS_QEMU_MACHINE[@]}")
cmdline="console=$KMS_CONSOLE panic=-1"
initrd_arg=()
if [ "$initrd" = none ]; then
	# No user space: the KUnit suites run built in, then the kernel reboots
	# (QEMU exits: -no-reboot) before it looks for a root file system.
	cmdline="$cmdline kunit_shutdown=reboot"
	done_marker='reboot: Restarting system'
else
	initrd_arg=(-initrd "$initrd")
	done_marker='kmapstack-init: done'
fi
cmdline="$cmdline $cmdline_extra"

# accel_arg ACCEL: QEMU's -accel value for ACCEL (TCG on one host thread,
# or as KMAPSTACK_TCG_THREAD says)
accel_arg() { if [ "$1" = tcg ]; then echo "tcg,thread=$tcg_thread"; else echo "$1"; fi; }

# qemu_run ACCEL LOG TIMEOUT CMDLINE: run QEMU; returns its (or timeout's) status.
qemu_run() {
	local acc=$1 lg=$2 tmo=$3 cl=$4 rc=0
	local cmd=("$qemu" -nographic -no-reboot -monitor none
		"${machine[@]}" -accel "$(accel_arg "$acc")" -m "$mem" -smp "$smp_arg"
		-kernel "$kernel" "${initrd_arg[@]}" -append "$cl"
		-chardev "stdio,id=con0,logfile=$lg"
		-serial chardev:con0
		"${qemu_extra[@]}")
	: > "$lg"
	if [ "$interactive" = 1 ]; then
		timeout --foreground -k 10 "$tmo" "${cmd[@]}" || rc=$?
	else
		timeout -k 10 "$tmo" "${cmd[@]}" < /dev/null || rc=$?
	fi
	return "$rc"
}

# KVM is unreliable here (nested virt): use it only if a probe boot works.
probe_kvm() {
	local cache=$KMS_BUILD/kvm-probe-$KMS_ARCH key res
	key="$($qemu --version | head -1) | host $(uname -r)"
	if [ ! -w /dev/kvm ] || [ "$x86" = 0 ]; then echo tcg; return; fi
	if [ -f "$cache" ] && [ "$(sed -n 2p "$cache")" = "$key" ]; then
		sed -n 1p "$cache"; return
	fi
	info "probing KVM (one short boot, result cached in $cache)" >&2
	res=tcg
	if qemu_run kvm "$cache.log" 30 "console=ttyS0 panic=-1 kunit.enable=0" >/dev/null 2>&1 &&
	   grep -q 'kmapstack-init: done' "$cache.log" && ! grep -q 'Kernel panic' "$cache.log"; then
		res=kvm
	fi
	printf '%s\n%s\n' "$res" "$key" > "$cache"
	info "KVM probe: using $res" >&2
	echo "$res"
}
tcg_thread=${KMAPSTACK_TCG_THREAD:-single}
case "$tcg_thread" in single|multi) ;; *) die "bad KMAPSTACK_TCG_THREAD '$tcg_thread' (single or multi)" ;; esac
case "$accel" in
tcg|kvm) ;;
auto) accel=$(probe_kvm) ;;
*) die "bad --accel '$accel' (tcg, kvm or auto)" ;;
esac

info "booting $KMS_ARCH ($(accel_arg "$accel"), -m $mem, -smp $smp, timeout ${timeout_s}s), log $log"
info "cmdline: $cmdline"
t0=$(now)
rc=0
qemu_run "$accel" "$log" "$timeout_s" "$cmdline" || rc=$?
dt=$(( $(now) - t0 ))

tail_log() { echo "---- last lines of $log ----" >&2; tail -n 25 "$log" | tr -d '\r' >&2; echo >&2; echo "----" >&2; }
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	tail_log; printf '%s: error: %s guest timed out after %ss (hung?)\n' "$KMS_PROG" "$KMS_ARCH" "$timeout_s" >&2; exit 124
fi
if grep -q 'Kernel panic - not syncing' "$log"; then
	if [ "$allow_panic" = 0 ]; then
		tail_log; printf '%s: error: %s guest panicked (after %ss)\n' "$KMS_PROG" "$KMS_ARCH" "$dt" >&2; exit 2
	fi
	info "guest panicked (allowed)"
elif ! grep -q "$done_marker" "$log"; then
	tail_log; printf '%s: error: %s guest did not finish (QEMU status %s, no "%s")\n' "$KMS_PROG" "$KMS_ARCH" "$rc" "$done_marker" >&2; exit 3
fi
if [ "$rc" != 0 ]; then
	warn "QEMU exited with status $rc"
fi
st=$(grep -ao 'kmapstack-init: run-status=[0-9]*' "$log" | tail -1 | sed 's/.*=//' || true)
if [ -n "$st" ] && [ "$st" != 0 ]; then
	printf '%s: error: %s: the kmapstack.run script failed with status %s\n' "$KMS_PROG" "$KMS_ARCH" "$st" >&2; exit 4
fi
ncpu=$(grep -ao 'kmapstack-init: start: .*, [0-9]* cpu' "$log" | head -1 | sed 's/.*, \([0-9]*\) cpu/\1/' || true)
# no /init: the kernel's own count ('smp: Brought up 1 node, 2 CPUs')
[ -n "$ncpu" ] || ncpu=$(grep -ao 'smp: Brought up .*, [0-9]* CPUs\{0,1\}' "$log" | head -1 | sed 's/.*, \([0-9]*\) CPU.*/\1/' || true)
if [[ $smp =~ ^[0-9]+$ ]] && [ -n "$ncpu" ] && [ "$ncpu" != "$smp" ]; then
	warn "guest saw $ncpu CPU(s), $smp requested"
fi
info "$KMS_ARCH guest finished in ${dt}s ($accel, ${ncpu:-?} CPUs)"
