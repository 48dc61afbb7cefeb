#!/bin/bash
# check-event-formats.sh ARCH [--update]        (ARCH: x86_64 | i386)
#
# Boot build/out-ARCH, read /sys/kernel/tracing/events/kmap_stack/*/format and
# compare each with the golden copy tracepoints/formats/ARCH/EVENT (the ID
# line, assigned at boot, is ignored). --update writes the goldens instead.
# An ABI change thus fails 'make check' until the goldens (and the tools
# that read them) are updated on purpose.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
check_arch "${1:-}"
arch=$KMS_ARCH update=0
[ "${2:-}" = --update ] && update=1
gold=$KMS_REPO/tracepoints/formats/$arch
initrd=$KMS_BUILD/initramfs-formats-$arch.cpio
log=$KMS_BUILD/formats-$arch.log
KMAPSTACK_RUN="$KMS_SCRIPTS/guest/dump-formats.sh" \
	"$KMS_SCRIPTS/mkinitramfs.sh" "$initrd" "$arch" >/dev/null
"$KMS_SCRIPTS/boot.sh" "$arch" -i "$initrd" -l "$log" -t 600 ${KMAPSTACK_KERNEL:+-k "$KMAPSTACK_KERNEL"} \
	-a "kunit.enable=0 loglevel=1" >/dev/null || die "guest boot failed, see $log"

mkdir -p "$gold"
for e in kmap_push kmap_pop kmap_violation; do
	got=$(tr -d '\r' < "$log" | sed -n "/^kmapstack-format-begin $e\$/,/^kmapstack-format-end $e\$/p" |
		sed -n 's/^F|//p')
	if [ -z "$got" ]; then
		nok "$arch $e" "the booted kernel has no kmap_stack/$e/format"
		continue
	fi
	if [ "$update" = 1 ]; then
		printf '%s\n' "$got" > "$gold/$e"; echo "updated $gold/$e"; continue
	fi
	if [ ! -f "$gold/$e" ]; then
		nok "$arch $e" "no golden copy $gold/$e (run with --update)"
		continue
	fi
	if diff -u <(grep -v '^ID:' "$gold/$e") <(printf '%s\n' "$got" | grep -v '^ID:') > "$KMS_BUILD/formats-$arch-$e.diff"; then
		ok "$arch $e: format matches tracepoints/formats/$arch/$e"
	else
		nok "$arch $e" "format differs from the golden copy:"
		cat "$KMS_BUILD/formats-$arch-$e.diff"
	fi
done
[ "$update" = 1 ] && exit 0
summary
