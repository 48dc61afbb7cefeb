#!/bin/bash
# test-live.sh: 'kmapstack live' on the running guest kernel (x86_64 guest
# tools kernel, host root over 9p): a balanced page-cache workload must give
# events and exit 0; loading kmapbug bug=wrong_order during the run must give
# exit 1 with the one mismatch it makes. Ends with "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib.sh"
ks=$KMS_REPO/tools/kmapstack/kmapstack
[ -x "$ks" ] || make -s -C "$KMS_REPO/tools/kmapstack"
out=$KMS_BUILD/test-live
mod=$KMS_BUILD/kmapbug-x86_64
if [ ! -f "$mod/kmapbug.ko" ]; then
	rm -rf "$mod" && mkdir -p "$mod"
	cp "$KMS_REPO"/tests/modules/kmapbug/{kmapbug.c,Kbuild} "$mod/"
	make -s -C "$KMS_BUILD/out-x86_64" M="$mod" modules >/dev/null || die "building kmapbug.ko failed"
fi
rm -rf "$out" && mkdir -p "$out"
work='(sleep 3; for i in 1 2 3 4 5; do dd if=/dev/zero of=/tmp/f bs=64k count=64 2>/dev/null; cat /tmp/f >/dev/null; done) &'
"$KMS_SCRIPTS/guest-run.sh" -o "$out" -t 400 -c "$work $ks live --duration 15 --no-progress > clean.txt 2>&1; echo \$? > clean.rc
(sleep 5; insmod $mod/kmapbug.ko bug=wrong_order; sleep 8; rmmod kmapbug) & $ks live --duration 15 --no-progress > bug.txt 2>&1; echo \$? > bug.rc" > "$out/run.log" 2>&1 ||
	{ tail -20 "$out/run.log"; die "guest run failed"; }
pass=0 fail=0
t() { if eval "$2"; then pass=$((pass + 1)); echo "PASS live: $1"; else fail=$((fail + 1)); echo "FAIL live: $1"; fi; }
t "clean run exits 0" '[ "$(cat "$out/clean.rc")" = 0 ]'
t "clean run saw events" 'grep -qE "no violations in [1-9][0-9]* events" "$out/clean.txt"'
t "run with kmapbug exits 1" '[ "$(cat "$out/bug.rc")" = 1 ]'
# kallsyms is read when live starts, before the module is loaded: its call
# sites print as addresses (as with trace-cmd record), so check the verdict
t "the module's wrong-order unmap is the one mismatch found" 'grep -q "1 violation (1 mismatch)" "$out/bug.txt"'
echo "test-live: $pass passed, $fail failed"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
