#!/bin/bash
# test-live.sh: 'kmapstack live' on the running guest kernel (x86_64 guest
# tools kernel, host root over 9p): a balanced page-cache workload must give
# events and exit 0; loading kmapbug bug=wrong_order during the run must give
# exit 1 with the one mismatch it makes, printed as it happens; two runs at
# once, --buffer-size, SIGTERM's teardown; perf record in the guest read by
# kmapstack (perf.data and perf script's text), when linux-perf is
# installed; kmapstack record around a command. Ends with "N passed, N
# failed".
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/guest/lib-guest.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
guest_kernel_check
ensure_kmapstack_tool
ks=$KMS_KMAPSTACK
ensure_kmapbug
mod=$KMS_KMAPBUG
out=$KMS_BUILD/test-live
rm -rf "$out" && mkdir -p "$out"
work='(sleep 3; for i in 1 2 3 4 5; do dd if=/dev/zero of=/tmp/f bs=64k count=64 2>/dev/null; cat /tmp/f >/dev/null; done) &'
"$KMS_SCRIPTS/guest-run.sh" -o "$out" -t 400 -c "$work $ks live --duration 15 --no-progress > clean.txt 2>&1; echo \$? > clean.rc
(sleep 5; insmod $mod bug=wrong_order; sleep 8; rmmod kmapbug) & $ks live --duration 15 --no-progress > bug.txt 2>&1; echo \$? > bug.rc" > "$out/run.log" 2>&1 ||
	{ tail -20 "$out/run.log"; die "guest run failed"; }
check "live: clean run exits 0" [ "$(cat "$out/clean.rc")" = 0 ]
check "live: clean run saw events" grep -qE "no violations in [1-9][0-9]* events" "$out/clean.txt"
check "live: run with kmapbug exits 1" [ "$(cat "$out/bug.rc")" = 1 ]
# kallsyms is read when live starts, before the module is loaded: its call
# sites print as addresses (as with trace-cmd record), so check the verdict
check "live: the module's wrong-order unmap is the one mismatch found" grep -q "1 violation (1 mismatch)" "$out/bug.txt"
check "live: the mismatch is printed as it happens, one line" grep -qE '^kmapstack: mismatch: [^ ]+/[0-9]+ on CPU [0-9]+ at ' "$out/bug.txt"

# a second probe added to and removed from busy events, 200 times: each
# change patches the tracepoints' static calls while the other CPU runs
# them. Under QEMU 7.2's multi-threaded TCG the guest died of "Oops: int3"
# within the first changes; boot.sh runs TCG on one thread
T=/sys/kernel/tracing
"$KMS_SCRIPTS/guest-run.sh" -o "$out" -t 400 -c "mount -t tracefs nodev $T 2>/dev/null
echo 1 > $T/events/kmap_stack/enable; mkdir $T/instances/second
(for i in \$(seq 1 40); do dd if=/dev/zero of=/tmp/s bs=64k count=16 2>/dev/null; cat /tmp/s >/dev/null; done) & w=\$!
n=0; while [ \$n -lt 200 ]; do echo 1 > $T/instances/second/events/kmap_stack/enable; echo 0 > $T/instances/second/events/kmap_stack/enable; n=\$((n + 1)); done
wait \$w; echo 0 > $T/events/kmap_stack/enable; rmdir $T/instances/second; echo \$n > toggles.n" > "$out/run-toggle.log" 2>&1
oops=$(grep -ho 'Oops: [a-z0-9]*' "$out/console.log" "$out/run-toggle.log" 2>/dev/null | head -1 || true)
check "live: a second probe added and removed 200 times on busy events, the guest lives${oops:+ ($oops)}" \
	[ "$(cat "$out/toggles.n" 2>/dev/null)" = 200 ]

# two runs at once (an instance each), --buffer-size, SIGTERM: the instance
# is removed and the report still printed
"$KMS_SCRIPTS/guest-run.sh" -o "$out" -t 400 -c "mount -t tracefs nodev $T 2>/dev/null
$ks live --duration 8 --no-progress > two-a.txt 2>&1 & a=\$!
$ks live --duration 8 --no-progress --buffer-size 2048 > two-b.txt 2>&1 & b=\$!
sleep 4; cat $T/instances/kmapstack-\$b/buffer_size_kb > two-b.kb 2>&1; ls $T/instances > during.ls
(for i in 1 2 3 4 5; do dd if=/dev/zero of=/tmp/g bs=64k count=64 2>/dev/null; cat /tmp/g >/dev/null; done)
wait \$a; echo \$? > two-a.rc; wait \$b; echo \$? > two-b.rc
$ks live --no-progress > term.txt 2>&1 & t=\$!
sleep 4; kill -TERM \$t; wait \$t; echo \$? > term.rc; ls $T/instances > after.ls
if [ -x /usr/bin/perf ]; then
	# into tmpfs, then copied: perf writes straight from its mmapped ring
	# buffer, which 7.3's 9p refuses (EFAULT, 'failed to write perf data')
	/usr/bin/perf record -q -e 'kmap_stack:*' -a -o /tmp/perf.data -- sh -c 'dd if=/dev/zero of=/tmp/h bs=64k count=64 2>/dev/null; cat /tmp/h >/dev/null' > perf-record.log 2>&1; echo \$? > perf.rc
	cp /tmp/perf.data perf.data
fi" > "$out/run2.log" 2>&1 ||
	{ tail -20 "$out/run2.log"; die "guest run failed"; }
check "live: two runs at once, each in its own instance" [ "$(grep -c '^kmapstack-' "$out/during.ls")" = 2 ]
check "live: both runs exit 0" [ "$(cat "$out/two-a.rc")" = 0 -a "$(cat "$out/two-b.rc")" = 0 ]
check "live: both runs saw events" grep -qE "in [1-9][0-9]* events" "$out/two-a.txt" "$out/two-b.txt"
# the kernel rounds the size up to whole sub-buffers of 4080 bytes: 2051
kb=$(cat "$out/two-b.kb" 2>/dev/null || echo 0)
check "live: --buffer-size 2048 sets the instance's buffer ($kb KB)" [ "$kb" -ge 2048 -a "$kb" -le 2056 ]
check "live: SIGTERM ends the run with its report (exit 0)" [ "$(cat "$out/term.rc")" = 0 ] && grep -q "events" "$out/term.txt"
check "live: no kmapstack instance is left" [ "$(grep -c '^kmapstack' "$out/after.ls")" = 0 ]

# perf (Debian's linux-perf, when installed): perf record in the guest, then
# kmapstack on the perf.data (it runs perf script) and on perf script's text
if [ -x /usr/bin/perf ]; then
	check "perf: perf record -e 'kmap_stack:*' in the guest (exit $(cat "$out/perf.rc" 2>/dev/null))" \
		[ "$(cat "$out/perf.rc" 2>/dev/null)" = 0 ]
	rc=0; "$ks" check --no-progress "$out/perf.data" > "$out/perf-check.txt" 2>&1 || rc=$?
	check "perf: kmapstack check perf.data exits 0 (exit $rc)" [ "$rc" = 0 ]
	rc=0; /usr/bin/perf script -i "$out/perf.data" 2>/dev/null | "$ks" check --no-progress - > "$out/perf-pipe.txt" 2>&1 || rc=$?
	check "perf: perf script | kmapstack check - exits 0 (exit $rc)" [ "$rc" = 0 ]
	check "perf: kmapstack saw the events" bash -c "/usr/bin/perf script -i '$out/perf.data' 2>/dev/null | grep -q 'kmap_stack:kmap_push:'"
else
	echo "test-live: /usr/bin/perf not installed (linux-perf): the perf checks skipped"
fi
# kmapstack record around a command: trace-cmd records, /proc/kallsyms is
# saved beside the trace, check gives the verdict. In tmpfs, as perf above:
# a balanced workload (exit 0), then insmod kmapbug bug=wrong_order, whose
# call sites only the saved kallsyms names (exit 1)
"$KMS_SCRIPTS/guest-run.sh" -o "$out" -t 400 -c "cd /tmp
$ks record -- sh -c 'dd if=/dev/zero of=/tmp/r bs=64k count=64 2>/dev/null; cat /tmp/r >/dev/null' > $out/rec-clean.txt 2>&1; echo \$? > $out/rec-clean.rc
ls /tmp > $out/rec.ls
$ks record -o bug.dat -- insmod $mod bug=wrong_order > $out/rec-bug.txt 2>&1; echo \$? > $out/rec-bug.rc
rmmod kmapbug" > "$out/run3.log" 2>&1 ||
	{ tail -20 "$out/run3.log"; die "guest run failed"; }
check "record: a balanced command exits 0 ($(cat "$out/rec-clean.rc" 2>/dev/null))" [ "$(cat "$out/rec-clean.rc" 2>/dev/null)" = 0 ]
# (a trace without a kmap_stack event is an error, exit 2: the exit 0 above
# says the events were there)
check "record: the trace and /proc/kallsyms saved beside it" \
	bash -c "grep -qx trace.dat '$out/rec.ls' && grep -qx trace.dat.kallsyms '$out/rec.ls'"
check "record: the check ran on the saved kallsyms" grep -q 'checking trace.dat with trace.dat.kallsyms' "$out/rec-clean.txt"
check "record: kmapbug's wrong-order unmap exits 1 ($(cat "$out/rec-bug.rc" 2>/dev/null))" [ "$(cat "$out/rec-bug.rc" 2>/dev/null)" = 1 ]
check "record: the saved kallsyms names the module's unmap" grep -q 'kmapbug_unmap_first' "$out/rec-bug.txt"

summary
