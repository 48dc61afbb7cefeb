#!/bin/bash
# test-lib.sh          ('make check-lib')
#
# The helpers of lib.sh and testlib.sh that read the logs every step's
# verdict comes from, on logs written here:
#   - tap_totals: KUnit's "# Totals:" lines of every suite added up (a
#     failure in the first of two suites counts; console timestamps and CR
#     line ends as QEMU's serial console writes them); none: status 1;
#   - read_counts: the last "N passed, N failed" line of a log; none:
#     status 1;
#   - report_titles: the title of each kmap_stack report in a kernel log;
#   - console_text: a console log's interleaved kernel and guest lines
#     split.
# Ends with "N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac

scratch=$(mktemp -d "${TMPDIR:-/tmp}/kmapstack-lib.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# fails CMD...: CMD fails (a function of this shell)
fails() { ! "$@" > /dev/null 2>&1; }

# same NAME WANT CMD...: CMD prints WANT
same() {
	local name=$1 want=$2 got; shift 2
	got=$("$@" 2>&1) || true
	if [ "$got" = "$want" ]; then ok "$name"; else nok "$name" "got '$got', want '$want'"; fi
}

printf '[    1.234567] # Totals: pass:15 fail:1 skip:0 total:16\r\n[    1.3] ok 1 kmap_stack\r\n[    2.5] # Totals: pass:14 fail:0 skip:2 total:16\r\n' > "$scratch/two.log"
same "tap_totals: two suites added up, the first one's failure counted" \
	"pass:29 fail:1 skip:2 total:32 (2 suites)" tap_totals "$scratch/two.log"
printf '# Totals: pass:16 fail:0 skip:0 total:16\n' > "$scratch/one.log"
same "tap_totals: one suite, no timestamp" "pass:16 fail:0 skip:0 total:16 (1 suite)" tap_totals "$scratch/one.log"
printf 'booting\nKernel panic - not syncing\n' > "$scratch/none.log"
check "tap_totals: a log without totals: status 1" fails tap_totals "$scratch/none.log"
check "tap_totals: a missing log: status 1" fails tap_totals "$scratch/missing.log"

printf '3 passed, 1 failed\nmore\n12 passed, 0 failed, 2 skipped\n' > "$scratch/counts.log"
read_counts "$scratch/counts.log" && same "read_counts: the last closing line" "12 0" echo "$KMS_P $KMS_F" ||
	nok "read_counts: the last closing line" "status 1"
check "read_counts: a log without one: status 1" fails read_counts "$scratch/none.log"

# A PREEMPT_RT guest's console: the guest's line and the kernel's
# interleaved on one line, both ways round
printf '[   18.258030] # fat_test: pass:3\r\nsuites| stats kunit missing[   18.258050] ok 1 fat_test\r\n[   18.3] ok 1 x\r\n[   19.000001] ok 2 memcpysuites| stats end maps: 5\r\n' > "$scratch/mixed.log"
same "console_text: interleaved kernel and guest lines split, CRs dropped" \
	"$(printf '[   18.258030] # fat_test: pass:3\nsuites| stats kunit missing\n[   18.258050] ok 1 fat_test\n[   18.3] ok 1 x\n[   19.000001] ok 2 memcpy\nsuites| stats end maps: 5')" \
	console_text "$scratch/mixed.log" 'suites| '
same "console_text: without a prefix, only kernel lines split" \
	"$(printf '[   18.258030] # fat_test: pass:3\nsuites| stats kunit missing\n[   18.258050] ok 1 fat_test\n[   18.3] ok 1 x\n[   19.000001] ok 2 memcpysuites| stats end maps: 5')" \
	console_text "$scratch/mixed.log"
# a report as the kernel prints it, beside the KUnit test's own line and
# the kernel's own WARNING lines
cat > "$scratch/reports.log" <<'EOT'
[   12.000001] ==================================================================
[   12.000002] WARNING: kmap_stack: mismatched unmap (not the top of the stack) in erofs_put_metabuf+0x2c/0x60
[   12.000003] kworker/0:1/42 unmaps 00000000deadbeef in task context at: erofs_put_metabuf+0x2c/0x60
[   12.100000] kmap_stack: test mode, no WARN at kmst_unmap_first+0x9/0x20
[   12.200000] WARNING: CPU: 0 PID: 1 at mm/highmem.c:626 kunmap_local_indexed+0x1/0x2
[   13.000000] WARNING: kmap_stack: mapping held on return to user space in kmapbug_map_third+0x11/0x30 [kmapbug]
EOT
sed -i 's/\\r$/\r/' "$scratch/reports.log"
same "report_titles: each report's title, timestamps and CRs dropped" \
	"$(printf 'kmap_stack: mismatched unmap (not the top of the stack) in erofs_put_metabuf+0x2c/0x60\nkmap_stack: mapping held on return to user space in kmapbug_map_third+0x11/0x30 [kmapbug]')" \
	report_titles "$scratch/reports.log"
same "report_titles: none in a log without a report" "" report_titles "$scratch/one.log"
summary
