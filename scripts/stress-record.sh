#!/bin/bash
# stress-record.sh [options]
#
# Record the kmap_stack trace events of the x86_64 guest kernel under a
# workload that exercises the kmap paths, then check the trace with
# tools/kmapstack.  In the guest (scripts/guest-run.sh: QEMU/TCG, host root
# over 9p): trace-cmd record -e kmap_stack around scripts/guest/stress-workload.sh
# (page cache I/O on tmpfs and a loop-mounted ext2, pipes, splice, tee,
# vmsplice, sendfile, stress-ng), to tmpfs, then copied out.  On the host:
# 'kmapstack check trace.dat', and the event counts of 'kmapstack report --json'.
#
# Options:
#   -o, --out DIR      output directory (default build/stress-record[-BUG]); gets
#                      trace.dat, check.txt (kmapstack check), summary.json,
#                      workload output (output.log), console.log, dmesg.txt
#       --bug MODE     insmod tests/modules/kmapbug bug=MODE during the recording
#                      (wrong_order, leak_user, balanced; built against the kernel)
#   -s, --seconds N    duration of each stress-ng phase (default 4; 3 phases)
#   -t, --timeout S    hard timeout of the guest (default 420)
#       --buffer KB    trace-cmd per-CPU buffer size (default 16384)
# Environment: KMAPSTACK_OUT (kernel build with scripts/configs/guest.config,
#   default build/out-x86_64).
# Prints kmapstack's findings and "events: kmap_push N, kmap_pop N,
# kmap_violation N, lost N".  Exit status: kmapstack check's: 0 clean,
# 1 violations found; 2 no kmap_push/kmap_pop event recorded or bad input;
# 3 the guest run failed.
#
# i386: the guest tools are 64-bit Debian binaries, so this runs on the
# x86_64 kernel only; the HIGHMEM (i386) paths are covered by the KUnit suite
# (scripts/run-kunit.sh i386).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/guest/lib-guest.sh"

case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
out= bug= secs=4 timeout_s=420 bufkb=16384
need() { [ $# -ge 2 ] || die "option $1 needs an argument"; }
while [ $# -gt 0 ]; do
	case "$1" in
	-o|--out)     need "$@"; out=$2; shift ;;
	--bug)        need "$@"; bug=$2; shift ;;
	-s|--seconds) need "$@"; secs=$2; shift ;;
	-t|--timeout) need "$@"; timeout_s=$2; shift ;;
	--buffer)     need "$@"; bufkb=$2; shift ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
[[ $secs =~ ^[0-9]+$ ]] || die "bad --seconds '$secs'"
out=${out:-$KMS_BUILD/stress-record${bug:+-$bug}}

guest_kernel_check
ensure_kmapstack_tool
wargs=(--seconds "$secs")
if [ -n "$bug" ]; then
	ensure_kmapbug
	wargs+=(--bug "$bug" --ko "$KMS_KMAPBUG")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/trace.dat" "$out/check.txt" "$out/summary.json" "$out/kallsyms-modules.txt"

# The guest side: record to tmpfs (not 9p: no I/O of our own in the trace
# beyond trace-cmd's), then copy out.
cat > "$out/guest.sh" <<EOF
set -eo pipefail
rm -f /tmp/trace.dat /tmp/workload.status
echo "guest: \$(uname -r), \$(nproc) CPUs, trace-cmd \$(trace-cmd --version 2>/dev/null | awk '/version/ {print \$3; exit}')"
rc=0
# trace-cmd record does not pass on its command's exit status: keep it in a file
trace-cmd record -q -e kmap_stack -b $bufkb -o /tmp/trace.dat \\
	/bin/bash -c '"\$@"; echo \$? > /tmp/workload.status' workload \\
	$(printf '%q ' /bin/bash "$KMS_GUEST_DIR/stress-workload.sh" "${wargs[@]}") || rc=\$?
[ -f /tmp/trace.dat ] || { echo "guest: trace-cmd record wrote no trace.dat" >&2; exit 1; }
wst=\$(cat /tmp/workload.status 2>/dev/null || echo none)
[ "\$wst" = 0 ] || { echo "guest: the workload failed (status \$wst)" >&2; rc=1; }
cp /tmp/trace.dat "$out/trace.dat"
echo "guest: trace.dat \$(stat -c %s /tmp/trace.dat) bytes"
exit \$rc
EOF

info "recording${bug:+ with kmapbug bug=$bug} in the x86_64 guest (stress-ng phases ${secs}s)"
t0=$(now)
grc=0
"$KMS_SCRIPTS/guest-run.sh" -o "$out" -t "$timeout_s" "$out/guest.sh" || grc=$?
t1=$(now)
if [ "$grc" != 0 ]; then
	printf '%s: error: the guest run failed (status %s); see %s/output.log and console.log\n' \
		"$KMS_PROG" "$grc" "$out" >&2
	exit 3
fi
[ -s "$out/trace.dat" ] || { printf '%s: error: no trace.dat came out of the guest\n' "$KMS_PROG" >&2; exit 3; }
info "guest run took $((t1 - t0))s; checking $out/trace.dat ($(du -k "$out/trace.dat" | cut -f1) KiB)"

crc=0
# trace-cmd saved kallsyms when the recording started: the functions of the
# module loaded during it are named from the kallsyms lines the workload
# saved while it was loaded.
ksyms=()
[ -s "$out/kallsyms-modules.txt" ] && ksyms=(--kallsyms "$out/kallsyms-modules.txt")
"$KMS_KMAPSTACK" check --no-progress "${ksyms[@]}" "$out/trace.dat" > "$out/check.txt" 2>&1 || crc=$?
cat "$out/check.txt"
"$KMS_KMAPSTACK" report --json --no-progress "${ksyms[@]}" -o "$out/summary.json" "$out/trace.dat" > /dev/null 2>&1 || true
counts=$(/usr/bin/python3 - "$out/summary.json" <<'EOF'
import json, sys
try:
    s = json.load(open(sys.argv[1]))["summary"]
    print(s["maps"], s["unmaps"], s["kernel_violation_events"], s["lost_events"], s["violations"])
except Exception as e:
    print("x x x x x")
EOF
)
read -r maps unmaps kviol lost viol <<< "$counts"
echo "events: kmap_push $maps, kmap_pop $unmaps, kmap_violation $kviol, lost $lost; kmapstack: $viol violation(s), exit $crc"
if ! [[ $maps =~ ^[0-9]+$ ]]; then
	printf '%s: error: could not read the event counts (%s/summary.json)\n' "$KMS_PROG" "$out" >&2
	exit 2
fi
if [ "$maps" = 0 ] || [ "$unmaps" = 0 ]; then
	printf '%s: error: the trace has no kmap_push/kmap_pop events: the workload did not reach the kmap paths, or the events are off\n' "$KMS_PROG" >&2
	exit 2
fi
exit "$crc"
