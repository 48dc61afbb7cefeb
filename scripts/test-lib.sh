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
#   - report_sites, known_bugs: which reports are of a known bug of the
#     base kernel, its consequences included; world/violation-sites.py:
#     the same for the findings of kmapstack check;
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

# report_sites and known_bugs: a bug's own reports, a depth report whose
# stack the bug's leaked entries fill (its consequence), one where they are
# a minority, and a report of another site
cat > "$scratch/sites.log" <<'EOT'
[    5.000001] WARNING: kmap_stack: unmap of an address that is not mapped in romfs_read_folio+0x98/0x110
[    5.000002] diff/347 unmaps 00000000c242580d in task context at: romfs_read_folio+0x98/0x110
[    5.000003] task stack of diff/347, depth 1, innermost first:
[    5.000004]  #0: 0000000037dcb51f pfn 0xf118 kmap_local, 0 ms ago, at: romfs_read_folio+0x3e/0x110
[    5.000005] CPU: 0 UID: 0 PID: 347 Comm: diff
[    6.000001] WARNING: kmap_stack: more mappings than the real stack holds in copy_page_to_iter+0x81/0x150
[    6.000002] task stack of diff/347, depth 3, innermost first:
[    6.000003]  #2: 0000000037dcb51f pfn 0xf118 kmap_local, 0 ms ago, at: romfs_read_folio+0x3e/0x110
[    6.000004]   romfs_read_folio+0x3e/0x110
[    6.000005]  #1: 00000000149dbf88 pfn 0xf0fc kmap_local, 0 ms ago, at: romfs_read_folio+0x3e/0x110
[    6.000006]  #0: 00000000149dbf89 pfn 0xf0fd kmap_atomic, 4 ms ago, at: zram_read_page+0x10/0x80 [zram]
[    6.000007] CPU: 0 UID: 0 PID: 347 Comm: diff
[    7.000001] WARNING: kmap_stack: more mappings than the real stack holds in copy_page_to_iter+0x81/0x150
[    7.000002]  #1: 0000000037dcb51f pfn 0xf118 kmap_local, 0 ms ago, at: romfs_read_folio+0x3e/0x110
[    7.000003]  #0: 00000000149dbf88 pfn 0xf0fc kmap_local, 0 ms ago, at: ext4_find_entry+0x3e/0x110
[    7.000004] ==================================================================
[    8.000001] WARNING: kmap_stack: mismatched unmap (not the top of the stack) in ext4_find_entry+0x9/0x20 [ext4]
[    8.000002]  #0: 00000000149dbf88 pfn 0xf0fc kmap_local, 0 ms ago, at: romfs_read_folio+0x3e/0x110
EOT
same "report_sites: site, kind and the listing's sites of each report" \
	"$(printf 'romfs_read_folio+0x98/0x110\tunmap of an address that is not mapped\tromfs_read_folio+0x3e/0x110
copy_page_to_iter+0x81/0x150\tmore mappings than the real stack holds\tromfs_read_folio+0x3e/0x110 romfs_read_folio+0x3e/0x110 zram_read_page+0x10/0x80
copy_page_to_iter+0x81/0x150\tmore mappings than the real stack holds\tromfs_read_folio+0x3e/0x110 ext4_find_entry+0x3e/0x110
ext4_find_entry+0x9/0x20\tmismatched unmap (not the top of the stack)\tromfs_read_folio+0x3e/0x110')" \
	report_sites "$scratch/sites.log"
printf 'BUG-2\t^romfs_read_folio\\+\n' > "$scratch/known.txt"
same "known_bugs: the bug's report and the depth report its entries fill, not the half-full or other-site ones" \
	"2 BUG-2" bash -c ". '$KMS_SCRIPTS/lib.sh'; report_sites '$scratch/sites.log' | known_bugs '$scratch/known.txt'"
same "known_bugs: plain call sites, one a line" "1 BUG-2" \
	bash -c ". '$KMS_SCRIPTS/lib.sh'; printf 'romfs_read_folio+0x98/0x110\ncopy_page_to_iter+0x81/0x150\n' | known_bugs '$scratch/known.txt'"
# violation-sites.py: kmapstack's findings as known_bugs reads them; a
# traced depth violation whose stack the bug's leaked entries fill is the
# bug's, one where they are a minority is not
cat > "$scratch/summary.json" <<'EOT'
{"summary": {"maps": 9, "unmaps": 8, "kernel_violation_events": 3, "lost_events": 0, "violations": 3},
 "violations": [
  {"kind": "unknown", "source": "both", "caller": "romfs_read_folio+0x98", "stack": []},
  {"kind": "depth", "source": "kernel", "caller": "copy_page_to_iter+0x81",
   "stack": [{"site": "copy_page_to_iter+0x81"}, {"site": "romfs_read_folio+0x3e"}, {"site": "romfs_read_folio+0x3e"}]},
  {"kind": "depth", "source": "replay", "caller": "clear_highpages_kasan_tagged+0x47",
   "stack": [{"site": "clear_highpages_kasan_tagged+0x47"}, {"site": "romfs_read_folio+0x3e"}, {"site": "ext4_readdir+0x10"}]}]}
EOT
same "violation-sites.py: the summary's counts" "9 8 3 0 3" \
	/usr/bin/python3 "$KMS_SCRIPTS/world/violation-sites.py" "$scratch/summary.json" "$scratch/all.txt" "$scratch/kernel.txt"
same "violation-sites.py + known_bugs: the bug's own and the depth its entries fill, not the half-full one" "2 BUG-2" \
	bash -c ". '$KMS_SCRIPTS/lib.sh'; known_bugs '$scratch/known.txt' < '$scratch/all.txt'"
same "violation-sites.py + known_bugs: the kernel's events alone" "2 BUG-2" \
	bash -c ". '$KMS_SCRIPTS/lib.sh'; known_bugs '$scratch/known.txt' < '$scratch/kernel.txt'"
same "violation-sites.py: an unreadable summary" "x x x x x" \
	/usr/bin/python3 "$KMS_SCRIPTS/world/violation-sites.py" "$scratch/none.log" "$scratch/a.txt" "$scratch/k.txt"
summary
