#!/bin/bash
# demo.sh: the end-to-end demo ('make demo').
#  1. install what is needed, build tools/kmapstack and the x86_64 debug kernel
#     (pristine linux-source-6.12 + kernel-patch/series, lean config);
#  2. boot it in QEMU with the test module: trace the kmap_stack events while
#     the page cache is used and the module unmaps in the wrong order;
#  3. show the kernel's report, the debugfs statistics, and what the analyzer
#     makes of the trace (kmapstack report; kmapstack check exits 1);
#  4. the host's own tools in the guest (scripts/demo-host-tools.sh):
#     trace-cmd during stress-ng, the bpftrace scripts, crash and drgn on a
#     vmcore.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "installing dependencies"
make -s deps
say "building the analyzer and the x86_64 debug kernel (ccache; ~10 min cold)"
make -s tools
make -s kernel-x86_64

check_arch x86_64
build_kmapbug "$KMS_OUT"
initrd=$KMS_BUILD/initramfs-demo.cpio
KMAPSTACK_RUN=$PWD/scripts/guest/demo-trace-report.sh scripts/mkinitramfs.sh "$initrd" x86_64 \
	"$KMS_KMAPBUG:/lib/kmapbug.ko" > /dev/null
say "booting the debug kernel in QEMU"
log=$KMS_BUILD/demo.log
scripts/boot.sh x86_64 -i "$initrd" -l "$log" -a "kunit.enable=0 loglevel=1" > /dev/null
tr -d '\r' < "$log" > "$log.txt"

say "the kernel's report (dmesg)"
sed -n 's/^demo-report| //p' "$log.txt"
say "debugfs: /sys/kernel/debug/kmap_stack/stats"
sed -n 's/^demo-stats| //p' "$log.txt" | head -20
sed -n 's/^demo-trace| //p' "$log.txt" > "$KMS_BUILD/demo-trace.txt"
say "the trace: $(grep -c 'kmap_push:' "$KMS_BUILD/demo-trace.txt") kmap_push events, e.g."
grep -m 3 'kmap_push:' "$KMS_BUILD/demo-trace.txt" || true
say "kmapstack report (the analyzer replays the trace on its own)"
tools/kmapstack/kmapstack report --no-progress "$KMS_BUILD/demo-trace.txt" | head -60 || true
set +e
tools/kmapstack/kmapstack check --no-progress "$KMS_BUILD/demo-trace.txt" > /dev/null
rc=$?
set -e
say "kmapstack check exit status: $rc (1 = violations found, as expected here)"
[ "$rc" = 1 ] || { echo "demo: expected kmapstack check to find the violation"; exit 1; }

say "the host's trace-cmd, bpftrace, crash and drgn in the guest"
scripts/demo-host-tools.sh
say "done"
